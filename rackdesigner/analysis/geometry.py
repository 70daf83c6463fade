"""Where racks and ports are, and how long a cable between two ports runs.

Rows are placed in the order they first appear, ``row_pitch`` apart; racks in
a row ``rack_pitch`` apart by slot. A port sits at the vertical centre of its
device. A cable inside a rack runs the vertical distance between its ends; one
between racks runs up to the rack top, up to the tray, along it, and down
again. Every cable adds ``slack``.
"""

from __future__ import annotations

from dataclasses import dataclass

from rackdesigner.model.layout import RACK_UNIT_M, Layout, Site

DEFAULT_RACK_PITCH = 0.6
DEFAULT_ROW_PITCH = 2.4
DEFAULT_TRAY_RISE = 0.3
DEFAULT_SLACK = 0.5


@dataclass(frozen=True, slots=True)
class SiteGeometry:
    rack_pitch: float = DEFAULT_RACK_PITCH
    row_pitch: float = DEFAULT_ROW_PITCH
    tray_rise: float = DEFAULT_TRAY_RISE
    slack: float = DEFAULT_SLACK

    @classmethod
    def of(cls, site: Site | None) -> SiteGeometry:
        if site is None:
            return cls()

        def pick(value: float | None, default: float) -> float:
            return float(value) if value is not None else default

        return cls(
            pick(site.rack_pitch, DEFAULT_RACK_PITCH),
            pick(site.row_pitch, DEFAULT_ROW_PITCH),
            pick(site.tray_rise, DEFAULT_TRAY_RISE),
            pick(site.slack, DEFAULT_SLACK),
        )


@dataclass(frozen=True, slots=True)
class RackPlace:
    """A rack's place on the floor: row index (0-based, in order of appearance) and slot."""

    row_index: int
    slot: int | None
    top: float  # m above the floor


def rack_places(layout: Layout) -> dict[int, RackPlace]:
    """Each rack's place, keyed by ``id(rack)`` (rack ids may repeat in a broken layout)."""
    rows: dict[str, int] = {}
    places: dict[int, RackPlace] = {}
    for rack in layout.racks:
        row = rack.row or ""
        index = rows.setdefault(row, len(rows))
        places[id(rack)] = RackPlace(index, rack.slot, rack.height_u * RACK_UNIT_M)
    return places


def port_height(position: int, height_u: float) -> float:
    """Metres above the rack floor of a device's ports: the device's vertical centre."""
    return (position - 1 + height_u / 2) * RACK_UNIT_M


def route_length(
    a: RackPlace,
    a_height: float,
    b: RackPlace,
    b_height: float,
    same_rack: bool,
    geometry: SiteGeometry,
) -> float | None:
    """The cable's run without slack, or None where a rack's slot is unknown."""
    if same_rack:
        return abs(a_height - b_height)
    if a.slot is None or b.slot is None:
        return None
    horizontal = (
        abs(a.slot - b.slot) * geometry.rack_pitch
        + abs(a.row_index - b.row_index) * geometry.row_pitch
    )
    return (
        (a.top - a_height)
        + geometry.tray_rise
        + horizontal
        + geometry.tray_rise
        + (b.top - b_height)
    )
