"""Cooling fixes: a rear door for an air rack over its limit (COOL001, COOL002), a
rear-door rack's door named or hung (COOL007), a liquid rack given a CDU with room
(COOL003).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from rackdesigner.design.fixes.base import Context, Plan, fixer, free_id
from rackdesigner.edit import Command, LayoutIndex, PlaceDevice, UpdateRack
from rackdesigner.model.layout import Device, DeviceType, Rack
from rackdesigner.model.units import POWER, fmt


def door_models(catalog: dict[str, DeviceType]) -> list[DeviceType]:
    """Rear doors of the catalog with a known capacity, smallest first."""
    doors = [t for t in catalog.values() if t.kind == "rear-door" and t.capacity]
    return sorted(doors, key=lambda t: (float(t.capacity or 0), t.key))


def door_for(catalog: dict[str, DeviceType], heat: float) -> DeviceType | None:
    """The smallest rear door that removes ``heat`` and its own fans' draw."""
    for door in door_models(catalog):
        if float(door.capacity or 0) >= heat + float(door.power or 0):
            return door
    return None


def _rack_heat(context: Context) -> float:
    """The rack's heat as the finding measured it (COOL001: on air, all of it)."""
    values = context.finding.values
    for key in ("heat", "air_heat"):
        if key in values:
            return float(values[key])
    return 0.0


def _free_device_id(index: LayoutIndex, preferred: str) -> str:
    return free_id(index, set(), preferred)


def _rear_door_plans(context: Context) -> Iterator[Plan]:
    rack = context.rack
    index = context.index
    heat = _rack_heat(context)
    # A door already hanging on the rack, not named: name it.
    for device in rack.devices:
        dtype = context.catalog.get(device.model)
        if dtype is not None and dtype.kind == "rear-door":
            door_id = device.id

            def name_it(door_id: str = door_id) -> list[Command]:
                return [UpdateRack(rack.id, cooling="rear-door", door=door_id)]

            yield Plan(f"Cool rack {rack.id} with its rear door {door_id}", name_it)
    door = door_for(context.catalog, heat)
    if door is None:
        return
    new_id = _free_device_id(index, f"{rack.id}-door")

    def hang_door() -> list[Command]:
        return [
            PlaceDevice(rack.id, door.key, None, id=new_id),
            UpdateRack(rack.id, cooling="rear-door", door=new_id),
        ]

    capacity = float(door.capacity or 0)
    yield Plan(
        f"Cool rack {rack.id} with rear door {new_id} ({door.key}, {capacity / 1000:g} kW)",
        hang_door,
    )


@fixer("COOL001", "COOL002")
def cool_air_rack(context: Context) -> Iterator[Plan]:
    """An air rack over the air limit (or past the liquid threshold) gets a rear door: it
    suits every chassis, with cold plates or without (COOL001's hint offers liquid only
    where the nodes have cold plates; a liquid loop also needs a CDU with room to spare, a
    plant decision this does not take). A liquid rack's residual air heat has no such fix:
    its air-only devices must move."""
    if context.rack.cooling_mode != "air":
        return
    yield from _rear_door_plans(context)


@fixer("COOL007")
def name_or_hang_door(context: Context) -> Iterator[Plan]:
    """A rear-door rack that names no door (or a device that is not one) gets its own
    door named, or a new one; a door too small for the rack is a person's choice."""
    rack = context.rack
    if rack.cooling_mode != "rear-door":
        return
    if rack.door:
        door = context.index.device(rack.door)
        dtype = context.index.type_of(door) if door is not None else None
        if dtype is not None and dtype.kind == "rear-door":
            return  # the door is there and too small
    yield from _rear_door_plans(context)


@fixer("COOL003")
def name_a_cdu(context: Context) -> Iterator[Plan]:
    """A liquid rack that names no CDU, or a device that is not one, is given the nearest
    CDU (in its rack, its row, then any, by id) whose group has room for the rack's liquid
    heat with all its CDUs working. An overloaded group has no such fix: which racks move,
    or which CDU to add, is a plant decision."""
    rack = context.rack
    finding = context.finding
    if finding.subject is None or finding.subject[0] != "rack" or rack.cooling_mode != "liquid":
        return
    cdus = _cdus(context)
    if not cdus:
        return
    need, spare = _need_and_spare(context, cdus)
    for cdu_id, room in _nearest_with_room(context, cdus, need, spare):

        def name_it(cdu_id: str = cdu_id) -> list[Command]:
            return [UpdateRack(rack.id, cdu=cdu_id)]

        cdu_rack = context.index.rack_of(cdu_id)
        yield Plan(
            f"Cool rack {rack.id} from CDU {cdu_id} ({fmt(room, POWER)} to spare, the rack "
            f"needs {fmt(need, POWER)})",
            name_it,
            (cdu_rack,) if cdu_rack is not None else (),
        )


def _cdus(context: Context) -> list[tuple[Rack, Device]]:
    """The layout's CDUs of a known capacity, each with the rack that holds it."""
    return [
        (owner, device)
        for owner, device in context.layout.devices()
        if (t := context.catalog.get(device.model)) is not None and t.kind == "cdu" and t.capacity
    ]


def _need_and_spare(
    context: Context, cdus: list[tuple[Rack, Device]]
) -> tuple[float, dict[str, float]]:
    """The rack's liquid heat, and the room each CDU's group has left, from an analysis of
    the racks that decide CDU loads: those naming a CDU, those holding one, and this one."""
    from rackdesigner.analysis import Analysis

    rack = context.rack
    holders = {id(owner) for owner, _ in cdus}
    racks = [r for r in context.layout.racks if r.cdus or id(r) in holders or r is rack]
    analysis = Analysis(replace(context.layout, racks=racks, links=[]))
    facts = next(f for f in analysis.racks if f.rack is rack)
    spare: dict[str, float] = {}
    for load in analysis.cdu_loads:
        if load.capacity is None:
            continue
        for cdu in load.cdus:
            spare[cdu.id] = load.capacity - load.heat
    return float(facts.liquid_heat), spare


def _nearest_with_room(
    context: Context, cdus: list[tuple[Rack, Device]], need: float, spare: dict[str, float]
) -> list[tuple[str, float]]:
    """Up to three CDUs the rack does not name with room for ``need`` (a CDU no group
    loads has its rating), with that room: in the rack, its row, then any; the roomiest
    first at one distance, then by id."""
    rack = context.rack
    named = set(rack.cdus)
    candidates = []
    for owner, device in cdus:
        if device.id in named:
            continue
        room = spare.get(device.id, float(context.catalog[device.model].capacity or 0))
        if room + 1e-6 < need:
            continue
        distance = 0 if owner is rack else 1 if owner.row == rack.row else 2
        candidates.append((distance, -room, device.id, room))
    return [(cdu_id, room) for _, _, cdu_id, room in sorted(candidates)[:3]]
