"""Blanking panels listed as devices make way: a device moved onto units only panels hold
takes their place, and the rack it leaves gets panels on the units it frees (where that
rack lists its panels), all as one step. A rack that declares ``blanking = true`` needs
none of this: its panels are not devices.

No Textual: the designer's move (``m``, a drag) calls :func:`move_through_panels`.
"""

from __future__ import annotations

from rackdesigner.edit import Batch, Command, LayoutIndex, MoveDevice, PlaceDevice, RemoveDevice
from rackdesigner.edit.index import FACES
from rackdesigner.model.layout import Device, Rack


def _is_panel(index: LayoutIndex, device: Device) -> bool:
    dtype = index.type_of(device)
    return dtype is not None and dtype.kind == "blank"


def lists_panels(index: LayoutIndex, rack: Rack) -> bool:
    """Whether a rack closes its open units with listed panels (not a declaration)."""
    if rack.blanking:
        return False
    return any(_is_panel(index, d) for d in rack.devices)


def move_through_panels(index: LayoutIndex, device_id: str, rack_id: str, position: int) -> Command:
    """Move ``device_id`` to U``position`` of ``rack_id``. Where listed blanking panels
    alone are in the way: one Batch that removes them, moves the device, and puts 1U
    panels back, in a rack that lists its panels (not one that declares its blanking), on
    the units it frees and on a removed panel's units it does not take (a 2U panel half in
    the way). Anything else in the way: the plain move, which refuses and says what is
    there."""
    move = MoveDevice(device_id, rack_id=rack_id, position=position)
    device, source, target = index.device(device_id), index.rack_of(device_id), index.rack(rack_id)
    dtype = index.type_of(device) if device is not None else None
    if device is None or source is None or target is None or dtype is None:
        return move
    if dtype.height_u <= 0:
        return move
    new = range(position, position + max(1, round(dtype.height_u)))
    faces = FACES if dtype.full_depth else (device.face or "front",)
    in_way = [d for d in index.occupants(target, faces, new) if d is not device]
    if not in_way or not all(_is_panel(index, d) for d in in_way):
        return move
    back = _panels_back(index, device, source, target, in_way, new)
    steps: list[Command] = [RemoveDevice(panel.id) for panel in in_way]
    steps.append(move)
    steps += _one_unit_panels(index, back)
    count = len(in_way)
    return Batch(steps, f"{move.label} (over {count} blanking panel{'s' if count != 1 else ''})")


def _panels_back(
    index: LayoutIndex,
    device: Device,
    source: Rack,
    target: Rack,
    in_way: list[Device],
    new: range,
) -> list[tuple[str, int]]:
    """The units (rack, U) that get a panel back after a move, in racks that list their
    panels: a removed panel's units the device does not take, and the front units the
    device leaves."""
    back: list[tuple[str, int]] = []
    if lists_panels(index, target):
        back += [(target.id, u) for p in in_way for u in index.units_of(p) if u not in new]
    leaves_front = "front" in index.faces_of(device) and device.position is not None
    if leaves_front and lists_panels(index, source):
        old = index.units_of(device)
        back += [(source.id, u) for u in old if source is not target or u not in new]
    return back


def _one_unit_panels(index: LayoutIndex, units: list[tuple[str, int]]) -> list[Command]:
    """A 1U blanking panel on the front of each (rack, U), where the catalog has one."""
    from rackdesigner.design.fixes import blank_models  # with its first use: see wiring.py

    one = blank_models(index.catalog.devices).get(1)
    if one is None:
        return []
    return [PlaceDevice(rack, one.key, u, face="front") for rack, u in sorted(units)]


def taken_but_panels(index: LayoutIndex, rack: Rack) -> dict[str, set[int]]:
    """The units taken on each face by devices other than listed blanking panels: where a
    new device may go (a panel makes way)."""
    return {
        face: {u for u, d in index.occupied(rack.id, face).items() if not _is_panel(index, d)}
        for face in FACES
    }


def place_through_panels(index: LayoutIndex, rack: Rack, places: list[PlaceDevice]) -> Command:
    """``places`` (devices going into ``rack``) as one step with the listed panels in
    their way removed, and, in a rack that lists its panels, a 1U panel back on each unit
    of a removed panel that no new device takes. No panel in the way: the places alone."""
    wanted = _units_wanted(index, places)
    in_way: dict[str, Device] = {}
    for units, faces in wanted:
        for other in index.occupants(rack, faces, units):
            if _is_panel(index, other):
                in_way[other.id] = other
    if not in_way:
        if len(places) == 1:
            return places[0]
        return Batch(places, f"Place {len(places)} devices in {rack.id}")
    new = {u for units, _ in wanted for u in units}
    back = sorted({u for p in in_way.values() for u in index.units_of(p) if u not in new})
    steps: list[Command] = [RemoveDevice(panel_id) for panel_id in in_way]
    steps += places
    if lists_panels(index, rack):
        steps += _one_unit_panels(index, [(rack.id, u) for u in back])
    count = len(in_way)
    what = places[0].label if len(places) == 1 else f"Place {len(places)} devices in {rack.id}"
    return Batch(steps, f"{what} (over {count} blanking panel{'s' if count != 1 else ''})")


def _units_wanted(
    index: LayoutIndex, places: list[PlaceDevice]
) -> list[tuple[range, tuple[str, ...]]]:
    """The units and faces each placed device of a known height will take."""
    catalog = index.catalog.devices
    wanted: list[tuple[range, tuple[str, ...]]] = []
    for place in places:
        dtype = catalog.get(place.model)
        if dtype is None or dtype.height_u <= 0 or place.position is None:
            continue
        units = range(place.position, place.position + max(1, round(dtype.height_u)))
        wanted.append((units, FACES if dtype.full_depth else (place.face or "front",)))
    return wanted
