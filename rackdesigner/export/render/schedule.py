"""Rows of the print pack's tables: devices per rack and the cable schedule.

The cable schedule is the CSV's (``export --cables``, export/tables.py): the same lengths
and stock lengths (the cable plant's, by part), with the units each device spans.
"""

from __future__ import annotations

from dataclasses import dataclass

from rackdesigner.analysis import Analysis, DeviceFacts, LinkFacts, RackFacts
from rackdesigner.analysis.open_units import open_units, span_text, spans
from rackdesigner.export.render.svg import kw


def units(dev: DeviceFacts) -> str:
    """Where a device is: ``U33–U40``, ``U5``, ``0U left`` or ``–``."""
    position = dev.device.position
    if dev.type is not None and dev.height_u <= 0:
        return f"0U {dev.device.side}" if dev.device.side else "0U"
    if position is None:
        return "–"
    top = position + max(1, round(dev.height_u)) - 1
    return f"U{position}" if top == position else f"U{position}–U{top}"


def device_rows(facts: RackFacts) -> list[tuple[str, ...]]:
    """A rack's devices from the top unit down, then 0U devices, then those in no unit:
    (U, id, model, kind, power, GPUs, label). Blanking panels are filler, not equipment:
    one row per panel model (where they go, how many), and a rack that declares its
    blanking gets one row of the open units its panels close."""

    def order(dev: DeviceFacts) -> tuple[int, float, int]:
        if dev.type is not None and dev.height_u <= 0:
            return (1, 0.0, 0)
        if dev.device.position is None:
            return (2, 0.0, 0)
        return (0, -(dev.device.position + dev.height_u), 0)

    rows: list[tuple[str, ...]] = []
    panels: dict[str, list[DeviceFacts]] = {}
    for dev in sorted(facts.devices, key=order):
        if dev.kind == "blank" and dev.device.position is not None:
            panels.setdefault(dev.device.model, []).append(dev)
            continue
        power = "?" if dev.power is None else (kw(dev.power) if dev.power else "–")
        if dev.power_estimated:
            power += "*"
        rows.append(
            (
                units(dev),
                dev.id,
                dev.device.model,
                dev.kind or "unknown",
                power,
                str(dev.gpus) if dev.gpus else "",
                dev.device.label or "",
            )
        )
    return rows + _panel_rows(facts, panels)


def _panel_rows(facts: RackFacts, panels: dict[str, list[DeviceFacts]]) -> list[tuple[str, ...]]:
    """The blanking panels' rows: each listed model once, and the declared blanking."""
    rows: list[tuple[str, ...]] = []
    for model, listed in sorted(panels.items()):
        taken = [
            unit
            for dev in listed
            for unit in range(
                dev.device.position or 0, (dev.device.position or 0) + max(1, round(dev.height_u))
            )
        ]
        # The units (a few columns wide) in U, where they are in the label's wide column.
        where = span_text(spans(taken), "–")
        rows.append(
            (
                f"{len(taken)} U",
                listed[0].id if len(listed) == 1 else f"{len(listed)} panels",
                model,
                "blank",
                "–",
                "",
                where,
            )
        )
    if facts.rack.blanking:
        # What listed panels leave open is what the declared ones close.
        open_ = open_units(facts)
        if open_:
            where = span_text(spans(open_), "–")
            rows.append((f"{len(open_)} U", "panels", "blanking = true", "blank", "–", "", where))
    return rows


@dataclass(frozen=True, slots=True)
class CableRow:
    cable_id: str
    a_rack: str
    a_u: str
    a_end: str
    b_rack: str
    b_u: str
    b_end: str
    media: str
    length_m: str
    stock_m: str


def _end(link: LinkFacts, which: str) -> tuple[str, str]:
    end = link.a if which == "a" else link.b
    dev = end.device
    if dev is None:
        return ("?", "?")
    return (dev.rack.id, units(dev))


def _channel_stock(analysis: Analysis, link: LinkFacts) -> str:
    """A channel's patch cords' stock lengths (``2 × 1.5``, ``1.5 + 2``), as the CSV's
    ``channel`` column gives them: its trunk is ordered once for all its channels."""
    from rackdesigner.analysis.stock import metres

    runs = analysis.plant.route(link).runs
    cords = [run.stock for run in (runs[0], runs[-1])]
    if any(stock is None for stock in cords):
        return ""
    first, last = (metres(stock) for stock in cords if stock is not None)
    return f"2 × {first}" if first == last else f"{first} + {last}"


def cable_rows(analysis: Analysis) -> list[CableRow]:
    """The print pack's schedule: the CSV schedule's lengths and stock lengths
    (export/tables.py, from the cable plant: a part's own stock lengths), with the units
    each device spans."""
    from rackdesigner.export.tables import CABLE_COLUMNS
    from rackdesigner.export.tables import cable_rows as schedule

    length_at, stock_at = CABLE_COLUMNS.index("length_m"), CABLE_COLUMNS.index("stock_length_m")
    rows = []
    for link, row in zip(analysis.links, schedule(analysis), strict=True):
        a_rack, a_u = _end(link, "a")
        b_rack, b_u = _end(link, "b")
        stock = row[stock_at]
        if not stock and len(analysis.plant.route(link).runs) == 3:
            stock = _channel_stock(analysis, link)
        rows.append(
            CableRow(
                link.link.a,
                a_rack,
                a_u,
                link.link.a,
                b_rack,
                b_u,
                link.link.b,
                link.link.media or "",
                row[length_at],
                stock,
            )
        )
    return rows
