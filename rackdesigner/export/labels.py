"""(v1.4) TIA-606-style identifiers for both ends of every cable and every patch-panel port:
``export --labels FILE.csv`` and the print pack's ``labels`` pages.

ANSI/TIA-606 (its B, C and D editions are paywalled) names a data-centre termination by
where it is, and labels a cable at both ends with both of its ends. The public guides give
the identifier's form by example: ``4BK01-55:50/DC.C03-14:04`` is a cabinet, ``-`` the patch
panel's rack unit counted from the bottom, ``:`` the port, and after ``/`` the far end's,
the near end first ("Cable label standards ANSI/TIA-606-B", Express Corp,
https://test.expresscorp.com/blogs/cable-label-standards-ansi-tia-606-b); patch and
equipment cords are labelled at both ends with the rack or cabinet, the equipment or panel
and the port of each connection (TIA-606-A-1, Addendum 1, Administration of Equipment Rooms
and Data Center Computer Rooms, as its public summary gives it). We follow that principle:

- a **cabinet** is its place on the floor's grid: the rack's row and its slot in two digits
  (``A03``: row A, third position), where the row is letters; else the rack's id;
- a **device** is its cabinet, ``-``, its lowest unit in two digits (``A03-21``); two devices
  in one unit (front and rear, left and right) take ``a``, ``b``, ... after it in file
  order; a device in no unit (a 0U rail) its cabinet and id;
- a **port** is its device, ``:``, the port as the layout names it (``A03-21:p1``): a switch
  or a node has several port groups, and a bare number would not say which;
- a cable's **label** at each end is that end's identifier, ``/``, the far end's
  (``A03-01:ib1/A07-21:p1`` at the node, ``A07-21:p1/A03-01:ib1`` at the switch); a trunk's
  names the two panels; a panel port's, the port at the trunk's other end that a channel
  runs it to (an unused port: its own identifier).

No space prefix (TIA's floor and room, ``DC.``) is written: a layout is one hall.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackdesigner.analysis.channels import channel_of

if TYPE_CHECKING:
    from pathlib import Path

    from rackdesigner.analysis import Analysis, DeviceFacts, End, LinkFacts
    from rackdesigner.export.registry import ExportContext, Output
    from rackdesigner.model.layout import Rack

LABEL_COLUMNS = (
    "label",
    "kind",
    "cable",
    "end",
    "rack",
    "u",
    "device",
    "port",
    "near",
    "far",
)


class Identifiers:
    """The identifiers of one analysis's cabinets, devices and ports (worked out once)."""

    def __init__(self, analysis: Analysis):
        self.analysis = analysis
        width = max(2, len(str(max((r.slot or 0 for r in analysis.layout.racks), default=0))))
        self._width = width
        self._cabinets: dict[int, str] = {}
        self._devices: dict[int, str] = {}
        shared: dict[tuple[int, int], list[DeviceFacts]] = {}
        for device in analysis.devices:
            position = device.device.position
            if position is not None:
                shared.setdefault((id(device.rack), position), []).append(device)
        for (_, position), devices in shared.items():
            for number, device in enumerate(devices):
                suffix = chr(ord("a") + number) if len(devices) > 1 and number < 26 else ""
                if len(devices) > 26:  # more than the alphabet in one unit: the ids say
                    suffix = f".{device.id}"
                cabinet = self.cabinet(device.rack)
                self._devices[id(device)] = f"{cabinet}-{position:02d}{suffix}"

    def cabinet(self, rack: Rack) -> str:
        """``A03``: the rack's row and two-digit slot where the row is letters; else its id."""
        found = self._cabinets.get(id(rack))
        if found is None:
            row = rack.row or ""
            if rack.slot is not None and row.isascii() and row.isalpha():
                found = f"{row}{rack.slot:0{self._width}d}"
            else:
                found = rack.id
            self._cabinets[id(rack)] = found
        return found

    def device(self, device: DeviceFacts) -> str:
        """``A03-21``: the cabinet and the device's lowest unit (its id where it has none)."""
        found = self._devices.get(id(device))
        if found is None:
            found = self._devices[id(device)] = f"{self.cabinet(device.rack)}-{device.id}"
        return found

    def port(self, device: DeviceFacts, port: str) -> str:
        return f"{self.device(device)}:{port}"

    def end(self, end: End) -> str:
        """A link end's port identifier; the end's own text where it does not resolve."""
        if end.device is None:
            return end.text
        return self.port(end.device, end.port)


@dataclass(frozen=True, slots=True)
class Label:
    """One label to print: its text, what it is on and where it goes."""

    text: str
    kind: str  # "cable" | "cord" | "trunk" | "panel-port"
    cable: str  # the cable's id (its link's a end), the trunk's id; "" on a panel port
    end: str  # "a" | "b" | ""
    device: DeviceFacts | None
    rack: str
    port: str
    near: str
    far: str
    order: tuple[object, ...] = ()  # where it goes: rack, device, port (sort_key)

    def row(self) -> tuple[str, ...]:
        position = self.device.device.position if self.device is not None else None
        return (
            self.text,
            self.kind,
            self.cable,
            self.end,
            self.rack,
            "" if position is None else str(position),
            self.device.id if self.device is not None else "",
            self.port,
            self.near,
            self.far,
        )

    def sort_key(self) -> tuple[object, ...]:
        return (*self.order, self.kind, self.cable)


def _place(device: DeviceFacts | None, group: str, index: int) -> tuple[object, ...]:
    """A port's place in the walk: its rack, its device (file order), the port."""
    if device is None:
        return (1 << 30, 0, group, index)
    return (device.rack_index, device.order, group, index)


def _pair(near: str, far: str) -> str:
    return f"{near}/{far}" if far else near


def _end_label(names: Identifiers, kind: str, cable: str, side: str, near: End, far: str) -> Label:
    here = names.end(near)
    device = near.device
    rack = device.rack.id if device is not None else ""
    group = near.group.name if near.group is not None else near.port
    return Label(
        _pair(here, far),
        kind,
        cable,
        side,
        device,
        rack,
        near.port,
        here,
        far,
        _place(device, group, near.index),
    )


def link_labels(names: Identifiers, facts: LinkFacts) -> Iterator[Label]:
    """Both ends of a link's cable (a twin-port cable carries a label per link), or of
    both patch cords of its channel."""
    cable_id = facts.link.a
    channel = channel_of(facts)
    if channel is None:
        a, b = names.end(facts.a), names.end(facts.b)
        yield _end_label(names, "cable", cable_id, "a", facts.a, b)
        yield _end_label(names, "cable", cable_id, "b", facts.b, a)
        return
    for side, device_end, panel_end in (
        ("a", facts.a, channel.panel_a),
        ("b", facts.b, channel.panel_b),
    ):
        here, panel = names.end(device_end), names.end(panel_end)
        yield _end_label(names, "cord", cable_id, side, device_end, panel)
        yield _end_label(names, "cord", cable_id, side, panel_end, here)


def trunk_labels(analysis: Analysis, names: Identifiers) -> Iterator[Label]:
    """A trunk's two ends, at its panels."""
    by_id = analysis.device_by_id
    for trunk in analysis.layout.trunks:
        pa, pb = by_id.get(trunk.a), by_id.get(trunk.b)
        if pa is None or pb is None:
            continue
        a, b = names.device(pa), names.device(pb)
        for side, here, there, panel in (("a", a, b, pa), ("b", b, a, pb)):
            yield Label(
                _pair(here, there),
                "trunk",
                trunk.id,
                side,
                panel,
                panel.rack.id,
                "",
                here,
                there,
                _place(panel, "", 0),
            )


def panel_labels(analysis: Analysis, names: Identifiers) -> Iterator[Label]:
    """Every port of every patch panel: its identifier, and the port at the trunk's other
    end where a channel runs through it."""
    far: dict[tuple[int, str], str] = {}
    for facts in analysis.links:
        channel = channel_of(facts)
        if channel is None or not channel.resolved:
            continue
        ends = (channel.panel_a, channel.panel_b)
        for here, there in (ends, ends[::-1]):
            assert here.device is not None
            far[id(here.device), here.port] = names.end(there)
    for device in analysis.devices:
        if device.kind != "patch-panel":
            continue
        rack = device.rack.id
        for group in device.ports.values():
            for index in range(1, group.count + 1):
                port = f"{group.name}{index}"
                near = names.port(device, port)
                other = far.get((id(device), port), "")
                yield Label(
                    _pair(near, other),
                    "panel-port",
                    "",
                    "",
                    device,
                    rack,
                    port,
                    near,
                    other,
                    _place(device, group.name, index),
                )


def labels(analysis: Analysis) -> list[Label]:
    """Every label, in the order a technician walks: rack by rack, each device's in file
    order, port by port. Read from the links' ends (no route is needed)."""
    names = Identifiers(analysis)
    found: list[Label] = []
    for facts in analysis.links:
        found.extend(link_labels(names, facts))
    found.extend(trunk_labels(analysis, names))
    found.extend(panel_labels(analysis, names))
    found.sort(key=Label.sort_key)
    return found


def export_labels(context: ExportContext, path: Path) -> list[Output]:
    from rackdesigner.export.registry import Output
    from rackdesigner.export.tables import to_csv

    rows = [label.row() for label in labels(context.analysis)]
    return [Output(path, to_csv(LABEL_COLUMNS, rows))]
