"""LayoutIndex: what edits and widgets ask often, answered without scanning the layout.

Built once from a layout (one pass), then kept current by the commands, which tell it
what they add and remove; it is never rebuilt per edit. Lookups are dictionary reads;
the free ports of a device cost its port count, the occupied units of a rack face its
devices' heights.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from rackdesigner.layout_io.catalog import Catalog, for_layout
from rackdesigner.model.layout import Device, DeviceType, Feed, Layout, Link, Rack

FACES = ("front", "rear")
KINDS = ("rack", "feed", "device")


def port_key(end: str) -> str:
    """A port reference in canonical form: ``a01-n01:ib01`` and ``a01-n01:ib1`` are one port."""
    device, colon, port = end.partition(":")
    group = port.rstrip("0123456789")
    digits = port[len(group) :]
    if not colon or not group or not digits or digits[0] != "0" or len(digits) == 1:
        return end  # already canonical: the common case, without building a new string
    return f"{device}:{group}{int(digits)}"


def end_device(end: str) -> str:
    """The device id a link end names."""
    return end.partition(":")[0]


def link_id(link: Link, shared: bool) -> str:
    """A link's reference id (editing.md): its ``a`` end, or ``a -> b`` when two links share
    that ``a`` end."""
    return link.name if shared else link.a


def split_id(text: str) -> tuple[str, int | None]:
    """``a01-n05`` -> (``a01-n``, 5); an id without trailing digits has no number."""
    stem = text.rstrip("0123456789")
    digits = text[len(stem) :]
    return (stem, int(digits)) if digits else (text, None)


@dataclass(slots=True)
class _Numbers:
    """The numbers used after one id stem, with the lowest one that may be free."""

    used: dict[int, int] = field(default_factory=dict)  # number -> how many ids use it
    width: dict[int, int] = field(default_factory=dict)  # digits -> how many ids have that many
    low: int = 1

    def add(self, number: int, digits: int) -> None:
        self.used[number] = self.used.get(number, 0) + 1
        self.width[digits] = self.width.get(digits, 0) + 1

    def remove(self, number: int, digits: int) -> None:
        left = self.used[number] - 1
        if left:
            self.used[number] = left
        else:
            del self.used[number]
            self.low = min(self.low, max(1, number))
        count = self.width[digits] - 1
        if count:
            self.width[digits] = count
        else:
            del self.width[digits]

    def lowest_free(self) -> int:
        # Amortised O(1): ``low`` only moves up past numbers that are taken.
        while self.low in self.used:
            self.low += 1
        return self.low


class LayoutIndex:
    """Entities by id, links by port and device, occupied units by rack face, free ids."""

    def __init__(self, layout: Layout, catalog: Catalog | None = None):
        self.layout = layout
        self.catalog = catalog if catalog is not None else for_layout(layout)
        # Ids may repeat in a broken layout (PLC005): each id keeps every entity, first first.
        self._racks: dict[str, list[Rack]] = defaultdict(list)
        self._feeds: dict[str, list[tuple[Feed, Rack]]] = defaultdict(list)
        self._devices: dict[str, list[tuple[Device, Rack]]] = defaultdict(list)
        self._by_port: dict[str, list[Link]] = defaultdict(list)
        self._by_device: dict[str, dict[int, Link]] = defaultdict(dict)
        self._by_a: dict[str, list[Link]] = defaultdict(list)
        # id(rack) -> face -> unit -> devices there (more than one only where they overlap)
        self._units: dict[int, dict[str, dict[int, list[Device]]]] = {}
        self._numbers: dict[str, dict[str, _Numbers]] = {kind: {} for kind in KINDS}
        self._shared = 0  # ids held by more than one entity of their kind (PLC005)
        for rack in layout.racks:
            self.add_rack(rack, with_contents=True)
        for link in layout.links:
            self.add_link(link)

    # -- lookups ----------------------------------------------------------------------------

    def rack(self, rack_id: str) -> Rack | None:
        found = self._racks.get(rack_id)
        return found[0] if found else None

    def device(self, device_id: str) -> Device | None:
        found = self._devices.get(device_id)
        return found[0][0] if found else None

    def rack_of(self, device_id: str) -> Rack | None:
        found = self._devices.get(device_id)
        return found[0][1] if found else None

    def feed(self, feed_id: str) -> Feed | None:
        found = self._feeds.get(feed_id)
        return found[0][0] if found else None

    def rack_of_feed(self, feed_id: str) -> Rack | None:
        found = self._feeds.get(feed_id)
        return found[0][1] if found else None

    def _by_id(self, kind: str) -> Mapping[str, Sequence[object]]:
        tables: dict[str, Mapping[str, Sequence[object]]] = {
            "rack": self._racks,
            "feed": self._feeds,
            "device": self._devices,
        }
        return tables[kind]

    def has_id(self, kind: str, entity_id: str) -> bool:
        return bool(self._by_id(kind).get(entity_id))

    def is_shared(self, kind: str, entity_id: str) -> bool:
        """Whether more than one entity of ``kind`` has this id (PLC005)."""
        return len(self._by_id(kind).get(entity_id, ())) > 1

    def has_shared_ids(self) -> bool:
        """Whether any rack, feed or device id is held by more than one entity."""
        return self._shared > 0

    def rack_ids(self) -> list[str]:
        return [rack_id for rack_id, racks in self._racks.items() if racks]

    def device_ids(self) -> list[str]:
        return [device_id for device_id, found in self._devices.items() if found]

    def type_of(self, device: Device) -> DeviceType | None:
        return self.catalog.devices.get(device.model)

    def links_on_port(self, end: str) -> list[Link]:
        """The links with an end on this port (more than one is a CAB005 problem)."""
        return list(self._by_port.get(port_key(end), ()))

    def port_users(self, key: str) -> Sequence[Link]:
        """:meth:`links_on_port` for a key already in canonical form (:func:`port_key`),
        not copied: read it, do not keep it."""
        return self._by_port.get(key, ())

    def links_of(self, device_id: str) -> list[Link]:
        """The links with an end on this device, in the order they were added."""
        return list(self._by_device.get(device_id, {}).values())

    def links_from(self, a: str) -> list[Link]:
        """The links whose ``a`` end is written ``a`` (more than one names them ``a -> b``)."""
        return list(self._by_a.get(a, ()))

    def link(self, ref_id: str) -> Link | None:
        """The link a reference id names: its ``a`` end, or ``a -> b``."""
        a, arrow, b = ref_id.partition(" -> ")
        for link in self._by_a.get(a, ()):
            if not arrow or link.b == b:
                return link
        return None

    def link_ref(self, link: Link) -> str:
        return link_id(link, len(self._by_a.get(link.a, ())) > 1)

    def ports(self, device_id: str) -> list[str]:
        """Every port of a device, ``device:group1`` .. in catalog order."""
        device = self.device(device_id)
        dtype = self.type_of(device) if device is not None else None
        if dtype is None:
            return []
        return [
            f"{device_id}:{group.name}{number}"
            for group in dtype.ports or ()
            for number in range(1, group.count + 1)
        ]

    def free_ports(self, device_id: str) -> list[str]:
        """The ports of a device no link uses."""
        taken = self._by_port
        return [port for port in self.ports(device_id) if not taken.get(port)]

    def occupied(self, rack_id: str, face: str = "front") -> dict[int, Device]:
        """Unit -> the device there, on one face of a rack (full-depth devices are on both)."""
        rack = self.rack(rack_id)
        if rack is None:
            return {}
        faces = self._units.get(id(rack), {})
        return {unit: devices[0] for unit, devices in faces.get(face, {}).items() if devices}

    def occupants(self, rack: Rack, faces: Iterable[str], units: Iterable[int]) -> list[Device]:
        """The devices on any of ``units`` of ``faces`` of ``rack``, each once."""
        table = self._units.get(id(rack), {})
        found: dict[int, Device] = {}
        for face in faces:
            on_face = table.get(face, {})
            for unit in units:
                for device in on_face.get(unit, ()):
                    found[id(device)] = device
        return list(found.values())

    def next_id(self, prefix: str, kind: str = "device") -> str:
        """The next free id for a prefix (designer.md): the lowest unused number after it,
        zero-padded to the widest existing id of that prefix (two digits for the first).
        Ids written unpadded stay so (``a03-blank1``..``5`` then ``a03-blank6``, not
        ``a03-blank06``): a panel a fix puts back keeps the name its neighbours have."""
        numbers = self._numbers[kind].get(prefix)
        if numbers is None:
            return f"{prefix}01"
        width = max(numbers.width, default=2)
        return f"{prefix}{numbers.lowest_free():0{width}d}"

    def snapshot(self) -> dict[str, object]:
        """Everything the index holds, as plain comparable values: an index kept current
        by edits equals one built afresh."""
        units = {}
        for rack in self.layout.racks:
            for face in FACES:
                taken = self._units.get(id(rack), {}).get(face, {})
                units[(rack.id, face)] = sorted(
                    (unit, tuple(sorted(d.id for d in devices)))
                    for unit, devices in taken.items()
                    if devices
                )
        return {
            "racks": sorted((k, len(v)) for k, v in self._racks.items() if v),
            "feeds": sorted((k, tuple(r.id for _, r in v)) for k, v in self._feeds.items() if v),
            "devices": sorted(
                (k, tuple(r.id for _, r in v)) for k, v in self._devices.items() if v
            ),
            "ports": sorted(
                (k, tuple(sorted(link.name for link in v))) for k, v in self._by_port.items() if v
            ),
            "by_device": sorted(
                (k, tuple(sorted(link.name for link in v.values())))
                for k, v in self._by_device.items()
                if v
            ),
            "by_a": sorted((k, len(v)) for k, v in self._by_a.items() if v),
            "units": units,
            "shared": self._shared,
            "numbers": {
                kind: sorted(
                    (stem, tuple(sorted(n.used.items())), tuple(sorted(n.width.items())))
                    for stem, n in table.items()
                )
                for kind, table in self._numbers.items()
            },
        }

    # -- places -----------------------------------------------------------------------------

    def units_of(self, device: Device) -> range:
        """The units a device occupies (none for a 0U device or one without position)."""
        dtype = self.type_of(device)
        if dtype is None or dtype.height_u <= 0 or device.position is None:
            return range(0)
        return range(device.position, device.position + max(1, round(dtype.height_u)))

    def faces_of(self, device: Device) -> tuple[str, ...]:
        dtype = self.type_of(device)
        if dtype is not None and dtype.full_depth:
            return FACES
        return (device.face or "front",)

    # -- updates (called by the commands) ---------------------------------------------------

    def add_rack(self, rack: Rack, with_contents: bool = True) -> None:
        self._shared += _add_in_order(self._racks[rack.id], rack, lambda: _rack_order(self.layout))
        self._note_id("rack", rack.id, 1)
        self._units.setdefault(id(rack), {face: defaultdict(list) for face in FACES})
        if with_contents:
            for feed in rack.feeds:
                self.add_feed(feed, rack)
            for device in rack.devices:
                self.add_device(device, rack)

    def remove_rack(self, rack: Rack, with_contents: bool = True) -> None:
        if with_contents:
            for feed in rack.feeds:
                self.remove_feed(feed, rack)
            for device in rack.devices:
                self.remove_device(device, rack)
        self._shared -= _drop(self._racks, rack.id, rack)
        self._note_id("rack", rack.id, -1)
        if with_contents:
            self._units.pop(id(rack), None)

    def add_feed(self, feed: Feed, rack: Rack) -> None:
        self._shared += _add_in_order(
            self._feeds[feed.id], (feed, rack), lambda: _feed_order(self.layout)
        )
        self._note_id("feed", feed.id, 1)

    def remove_feed(self, feed: Feed, rack: Rack) -> None:
        self._shared -= _drop_pair(self._feeds, feed.id, feed)
        self._note_id("feed", feed.id, -1)

    def add_device(self, device: Device, rack: Rack) -> None:
        self._shared += _add_in_order(
            self._devices[device.id], (device, rack), lambda: _device_order(self.layout)
        )
        self._note_id("device", device.id, 1)
        faces = self._units.setdefault(id(rack), {face: defaultdict(list) for face in FACES})
        for face in self.faces_of(device):
            table = faces[face]
            for unit in self.units_of(device):
                table[unit].append(device)

    def remove_device(self, device: Device, rack: Rack) -> None:
        """Forget a device; call before changing its id, model, position or face."""
        self._shared -= _drop_pair(self._devices, device.id, device)
        self._note_id("device", device.id, -1)
        faces = self._units.get(id(rack))
        if faces is None:
            return
        for face in self.faces_of(device):
            table = faces[face]
            for unit in self.units_of(device):
                devices = table.get(unit)
                if devices:
                    _drop_identity(devices, device)
                    if not devices:
                        del table[unit]

    def add_link(self, link: Link) -> None:
        a, b = link.a, link.b
        key = id(link)
        self._by_port[port_key(a)].append(link)
        self._by_port[port_key(b)].append(link)
        self._by_device[a.partition(":")[0]][key] = link
        self._by_device[b.partition(":")[0]][key] = link
        self._by_a[a].append(link)

    def remove_link(self, link: Link) -> None:
        """Forget a link; call before changing its ends."""
        for end in (link.a, link.b):
            found = self._by_port.get(port_key(end))
            if found:
                _drop_identity(found, link)
                if not found:
                    del self._by_port[port_key(end)]
            owners = self._by_device.get(end_device(end))
            if owners is not None:
                owners.pop(id(link), None)
                if not owners:
                    del self._by_device[end_device(end)]
        found = self._by_a.get(link.a)
        if found:
            _drop_identity(found, link)
            if not found:
                del self._by_a[link.a]

    def _note_id(self, kind: str, entity_id: str, change: int) -> None:
        stem, number = split_id(entity_id)
        if number is None:
            return
        digits = len(entity_id) - len(stem)
        table = self._numbers[kind]
        numbers = table.get(stem)
        if numbers is None:
            numbers = table[stem] = _Numbers()
        if change > 0:
            numbers.add(number, digits)
        else:
            numbers.remove(number, digits)
            if not numbers.used:
                del table[stem]


_T = TypeVar("_T")


def _add_in_order(items: list[_T], item: _T, order: Callable[[], dict[int, int]]) -> bool:
    """Append, or where an id is shared (a broken layout), keep the entities in file order:
    the first one is the one lookups answer with, as in the analysis. True when the id
    became shared."""
    if not items:
        items.append(item)
        return False
    places = order()
    items.append(item)

    def place(entry: object) -> int:
        return places.get(id(entry[0] if isinstance(entry, tuple) else entry), -1)

    items.sort(key=place)
    return len(items) == 2


def _rack_order(layout: Layout) -> dict[int, int]:
    return {id(rack): number for number, rack in enumerate(layout.racks)}


def _feed_order(layout: Layout) -> dict[int, int]:
    feeds = (feed for rack in layout.racks for feed in rack.feeds)
    return {id(feed): number for number, feed in enumerate(feeds)}


def _device_order(layout: Layout) -> dict[int, int]:
    devices = (device for rack in layout.racks for device in rack.devices)
    return {id(device): number for number, device in enumerate(devices)}


def _drop_identity(items: list[_T], item: object) -> None:
    for number, candidate in enumerate(items):
        if candidate is item:
            del items[number]
            return


def _drop(table: dict[str, list[_T]], key: str, item: object) -> bool:
    """Forget ``item`` under ``key``; True when the id is no longer shared."""
    found = table.get(key)
    if not found:
        return False
    before = len(found)
    _drop_identity(found, item)
    if not found:
        del table[key]
    return before == 2 and len(found) == 1


def _drop_pair(table: dict[str, list[tuple[_T, Rack]]], key: str, item: object) -> bool:
    found = table.get(key)
    if not found:
        return False
    before = len(found)
    for number, (candidate, _) in enumerate(found):
        if candidate is item:
            del found[number]
            break
    if not found:
        del table[key]
    return before == 2 and len(found) == 1
