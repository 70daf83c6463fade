"""What else a delete takes or breaks: the cables that go with the devices, the GPU nodes
left without a compute fabric, and the racks that name a deleted CDU or rear door.

A pure function of the layout and its catalog (no Textual, no changes): the designer asks
before a delete that has dependants, naming them ("a01-leaf1 and its 32 cables; 4 nodes lose
their compute fabric"), and deletes without asking when there are none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackdesigner.model.layout import DeviceType, Layout, Link, PortGroup

if TYPE_CHECKING:
    from rackdesigner.edit.index import LayoutIndex


@dataclass(frozen=True, slots=True)
class Dependants:
    devices: tuple[str, ...]  # what is deleted, in the order given
    cables: int  # links with an end on one of them: they go too
    stranded: tuple[str, ...]  # GPU nodes kept whose every compute cable goes
    # (rack, "CDU" | "rear door", device): racks whose cdu or door names a deleted device
    racks: tuple[tuple[str, str, str], ...]

    def __bool__(self) -> bool:
        """Whether the delete takes or breaks anything besides the devices themselves."""
        return bool(self.cables or self.stranded or self.racks)

    def text(self) -> str:
        """One sentence naming them, for the question before the delete."""
        parts = [_devices_text(self.devices, self.cables)]
        if self.stranded:
            count = len(self.stranded)
            parts.append(
                f"{count} nodes lose their compute fabric"
                if count != 1
                else f"node {self.stranded[0]} loses its compute fabric"
            )
        by_device: dict[tuple[str, str], list[str]] = {}
        for rack, what, device in self.racks:
            by_device.setdefault((what, device), []).append(rack)
        for (what, device), racks in by_device.items():
            parts.append(
                f"rack {racks[0]} loses its {what} {device}"
                if len(racks) == 1
                else f"racks {_names(racks)} lose their {what} {device}"
            )
        return "; ".join(parts)


def dependants(
    layout: Layout,
    devices: Mapping[str, DeviceType],
    device_ids: Iterable[str],
    *,
    index: LayoutIndex | None = None,
) -> Dependants:
    """What deleting ``device_ids`` from ``layout`` takes with it or leaves broken;
    ``devices`` is the catalog's device types (ports and kinds). With the session's
    ``index`` only the cables of the devices and of their neighbours are read (a hall's
    150,000 cables are not walked for one delete)."""
    doomed = list(dict.fromkeys(device_ids))
    gone = set(doomed)
    cabling = _Cabling(layout, devices, index)
    taken: dict[int, Link] = {}  # the cables that go, once each
    neighbours: set[str] = set()  # GPU nodes kept that lose a compute cable
    for device_id in doomed:
        for link in cabling.links_of(device_id):
            taken[id(link)] = link
            if cabling.compute(link.a) and cabling.compute(link.b):
                for end in (link.a, link.b):
                    node = end.partition(":")[0]
                    if node not in gone and cabling.is_node(node):
                        neighbours.add(node)
    stranded = tuple(sorted(node for node in neighbours if not cabling.keeps_compute(node, taken)))
    racks: list[tuple[str, str, str]] = []
    for rack in layout.racks:
        racks.extend((rack.id, "CDU", cdu) for cdu in rack.cdus if cdu in gone)
        if rack.door is not None and rack.door in gone:
            racks.append((rack.id, "rear door", rack.door))
    return Dependants(tuple(doomed), len(taken), stranded, tuple(racks))


class _Cabling:
    """What a delete reads of the layout: each device's model and cables (from the
    session's index, else from one pass over the layout) and which ends are compute
    ports."""

    def __init__(
        self, layout: Layout, devices: Mapping[str, DeviceType], index: LayoutIndex | None
    ) -> None:
        self.devices = devices
        self.index = index
        self.models: dict[str, str] = {}
        self.by_device: dict[str, list[Link]] = {}
        if index is None:
            self.models = {d.id: d.model for rack in layout.racks for d in rack.devices}
            for link in layout.links:
                for end in {link.a.partition(":")[0], link.b.partition(":")[0]}:
                    self.by_device.setdefault(end, []).append(link)

    def model(self, device_id: str) -> str:
        if self.index is None:
            return self.models.get(device_id, "")
        device = self.index.device(device_id)
        return device.model if device is not None else ""

    def links_of(self, device_id: str) -> list[Link]:
        if self.index is None:
            return self.by_device.get(device_id, [])
        return self.index.links_of(device_id)

    def compute(self, end: str) -> bool:
        """Whether a cable end is a compute port of its device's type."""
        device_id, _, port = end.partition(":")
        entry = self.devices.get(self.model(device_id))
        if entry is None:
            return False
        name = port.rstrip("0123456789")
        group: PortGroup | None = next((g for g in entry.ports or () if g.name == name), None)
        return group is not None and group.effective_role(entry.kind) == "compute"

    def is_node(self, device_id: str) -> bool:
        entry = self.devices.get(self.model(device_id))
        return entry is not None and entry.kind == "gpu-node"

    def keeps_compute(self, node: str, taken: dict[int, Link]) -> bool:
        """Whether ``node`` keeps a compute cable to another device once ``taken`` go."""
        return any(
            id(link) not in taken
            and link.a.partition(":")[0] != link.b.partition(":")[0]
            and self.compute(link.a)
            and self.compute(link.b)
            for link in self.links_of(node)
        )


def _names(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _devices_text(devices: tuple[str, ...], cables: int) -> str:
    named = _names(list(devices)) if len(devices) <= 3 else f"{len(devices)} devices"
    if not cables:
        return named
    whose = "and its" if len(devices) == 1 else "with their"
    return f"{named} {whose} {cables} cable{'s' if cables != 1 else ''}"
