"""Placement fixes: open units blanked (PLC006), a half-depth device turned to the
rack's airflow (PLC007).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.design.fixes.base import Context, Plan, fixer
from rackdesigner.edit import Command, LayoutIndex, MoveDevice, PlaceDevice, UpdateRack
from rackdesigner.model.layout import DeviceType, Rack


def blank_models(catalog: dict[str, DeviceType]) -> dict[int, DeviceType]:
    """Blanking panels by height (1U, 2U): the built-in keys first, else any of the kind."""
    found: dict[int, DeviceType] = {}
    for key in ("blank-2u", "blank-1u"):
        dtype = catalog.get(key)
        if dtype is not None and dtype.kind == "blank":
            found.setdefault(round(dtype.height_u), dtype)
    for dtype in sorted(catalog.values(), key=lambda t: t.key):
        if dtype.kind == "blank" and round(dtype.height_u) in (1, 2):
            found.setdefault(round(dtype.height_u), dtype)
    return found


def open_runs(index: LayoutIndex, rack: Rack, full_depth: bool) -> list[range]:
    """Runs of units no device covers on the front face (PLC006's open units); a panel that
    is full depth also needs the rear face free."""
    taken = set(index.occupied(rack.id, "front"))
    if full_depth:
        taken |= set(index.occupied(rack.id, "rear"))
    runs: list[range] = []
    start: int | None = None
    height = int(rack.height_u)
    for unit in range(1, height + 2):
        free = unit <= height and unit not in taken
        if free and start is None:
            start = unit
        elif not free and start is not None:
            runs.append(range(start, unit))
            start = None
    return runs


@fixer("PLC006")
def blank_open_units(context: Context) -> Iterator[Plan]:
    """The rack declares its blanking (``blanking = true``: panels fitted over whatever
    units its devices leave, so moves need no panel moved); a rack that already lists
    its panels as devices gets more devices instead, named as its own are."""
    rack = context.rack
    if rack.cooling_mode != "air":
        return
    rack_id = rack.id
    declare = Plan(
        f"Declare blanking panels on rack {rack_id} (blanking = true: every open unit)",
        lambda: [UpdateRack(rack_id, blanking=True)],
    )
    listed = any(context.catalog.get(d.model, _NO_TYPE).kind == "blank" for d in rack.devices)
    if not listed:
        yield declare
    yield from _panel_plans(context)
    if listed:
        yield declare


_NO_TYPE = DeviceType("")


def _panel_plans(context: Context) -> Iterator[Plan]:
    """Every open front unit gets a blanking panel device: 2U panels, and a 1U one where a
    gap is odd (only 1U panels where the catalog has no 2U one)."""
    rack = context.rack
    blanks = blank_models(context.catalog)
    one = blanks.get(1)
    if one is None:
        return
    two = blanks.get(2)
    full_depth = any(b.full_depth for b in blanks.values())
    places: list[tuple[str, int]] = []
    for run in open_runs(context.index, rack, full_depth):
        unit = run.start
        while unit < run.stop:
            if two is not None and unit + 1 < run.stop:
                places.append((two.key, unit))
                unit += 2
            else:
                places.append((one.key, unit))
                unit += 1
    if not places:
        return
    count = len(places)

    def fill() -> list[Command]:
        return [
            PlaceDevice(rack.id, model, unit, face=None if full_depth else "front")
            for model, unit in places
        ]

    units = sum(round(context.catalog[m].height_u) for m, _ in places)
    yield Plan(
        f"Blank {units} open units of rack {rack.id} ({count} blanking panels)",
        fill,
    )


@fixer("PLC007")
def turn_around(context: Context) -> Iterator[Plan]:
    """A half-depth device blowing the wrong way is mounted on the other face (which
    reverses its airflow), where those units are free; a full-depth one needs the other
    airflow variant of its model, a purchase."""
    subject = context.finding.subject
    device = context.index.device(subject[1]) if subject else None
    dtype = context.index.type_of(device) if device is not None else None
    if device is None or dtype is None or dtype.full_depth or device.position is None:
        return
    face = "front" if device.face == "rear" else "rear"
    device_id = device.id
    yield Plan(
        f"Mount {device_id} on the {face} face (its airflow then runs with the rack's)",
        lambda: [MoveDevice(device_id, face=face)],
    )
