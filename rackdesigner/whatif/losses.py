"""What a failure does to power and cooling: devices down and degraded, feeds that trip,
heat without cooling, racks that trip on a loop without capacity.

Power is the analysis's own model of a rack with parts lost
(:func:`rackdesigner.analysis.failures.rack_power`), which the rules judge a failed layout
by as well. Only the racks a failure touches are derived again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rackdesigner.analysis.facts import ZERO_DRAW_KINDS
from rackdesigner.analysis.failures import rack_power
from rackdesigner.model.units import POWER, fmt
from rackdesigner.whatif.results import EPSILON, CoolingLoss, DeviceLoss, Gone, Impact, PowerShort

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis, DeviceFacts, RackFacts
    from rackdesigner.analysis.facts import CduLoad
    from rackdesigner.whatif.parts import Lost


def device_loss(dev: DeviceFacts, left: int, why: str) -> DeviceLoss:
    dtype = dev.type
    return DeviceLoss(
        dev.id,
        dev.rack.id,
        dev.kind,
        dev.gpus if dev.is_gpu_node else 0,
        (dtype.psus if dtype is not None and dtype.psus else 1),
        left,
        dtype.psus_required if dtype is not None else None,
        why,
    )


def capping(analysis: Analysis) -> bool:
    """Whether the layout caps its GPUs when supply runs short (``[workload]``, v1.4)."""
    workload = analysis.workload
    return bool(workload is not None and workload.power_capping)


# -- power ---------------------------------------------------------------------------------


def power_losses(analysis: Analysis, lost: Lost, impact: Impact) -> Gone:
    """Devices down and degraded in the racks the failures touch."""
    gone = Gone()
    for ident in sorted(lost.devices):
        dev = analysis.device_by_id[ident]
        gone.down.add(ident)
        impact.down.append(device_loss(dev, 0, "failed"))
    capped = capping(analysis)
    for index in sorted(lost.touched_racks(analysis)):
        rack = analysis.racks[index]
        gone.racks.add(index)
        if index in lost.racks:
            _rack_lost(rack, gone, impact)
        else:
            _rack_power(rack, lost, gone, impact, capped)
    return gone


def _rack_lost(rack: RackFacts, gone: Gone, impact: Impact) -> None:
    gone.dead_feeds.update((rack.index, n) for n in range(len(rack.rack.feeds)))
    for dev in rack.devices:
        if dev.id not in gone.down:
            gone.down.add(dev.id)
            if dev.type is not None and dev.kind not in ZERO_DRAW_KINDS:
                impact.down.append(device_loss(dev, 0, "rack lost"))


def _rack_power(rack: RackFacts, lost: Lost, gone: Gone, impact: Impact, capped: bool) -> None:
    failed = {d.id for d in rack.devices if d.id in lost.devices}
    feeds = lost.feeds_of(rack.index)
    state = rack_power(rack, feeds, failed, down=gone.down, capping=capped)
    gone.dead_feeds.update((rack.index, n) for n in state.dead)
    by_id = {d.id: d for d in rack.devices}
    for loss in state.down.values():
        gone.down.add(loss.id)
        impact.down.append(device_loss(by_id[loss.id], loss.psus_left, loss.why))
    for loss in state.degraded.values():
        gone.degraded.add(loss.id)
        impact.degraded.append(device_loss(by_id[loss.id], loss.psus_left, loss.why))
    names = rack.rack.feeds
    for shelf, feed in state.shelves:  # a shelf has one AC input: dead with its feed
        if feed in state.dead and shelf.id not in failed:
            impact.down.append(device_loss(shelf, 0, f"its feed {names[feed].id} is dead"))
    for over in state.overloads:
        impact.power.append(
            PowerShort(rack.rack.id, over.side, over.load, over.capacity, over.feed, over.capped)
        )


# -- cooling -------------------------------------------------------------------------------


class _Heat:
    """Racks' heat after the failures: (heat, to the CDU loop, to the rear door, to air),
    each rack derived once."""

    def __init__(self, lost: Lost, gone: Gone, doors_lost: set[str]) -> None:
        self.lost, self.gone, self.doors_lost = lost, gone, doors_lost
        self._cache: dict[int, tuple[float, float, float, float]] = {}
        self.changed: set[int] = set()  # racks whose heat the failures change

    def of(self, rack: RackFacts) -> tuple[float, float, float, float]:
        found = self._cache.get(rack.index)
        if found is None:
            found = self._cache[rack.index] = self._after(rack)
        return found

    def forget(self) -> None:
        self._cache.clear()

    def _after(self, rack: RackFacts) -> tuple[float, float, float, float]:
        """As :func:`rackdesigner.analysis.racks.rack_facts` splits it, without the devices
        down and the door lost."""
        if rack.index in self.lost.racks:
            return 0.0, 0.0, 0.0, 0.0
        door = rack.door
        door_lost = door is not None and door.id in self.doors_lost
        down = self.gone.down
        if not door_lost and not any(d.id in down for d in rack.devices):
            return rack.heat, rack.loop_heat, rack.door_heat, rack.air_heat
        heat = loop = air = 0.0
        for dev in rack.devices:
            if dev.id in down or dev.power is None:
                continue
            heat += dev.power
            loop += dev.liquid_heat
            air += dev.air_heat
        door_heat = 0.0
        if (
            rack.cooling in ("rear-door", "liquid")
            and door is not None
            and not door_lost
            and door.type is not None
            and door.kind == "rear-door"
        ):
            door_heat = min(air, float(door.type.capacity or 0.0))
            air -= door_heat
        return heat, loop, door_heat, air


def cooling_losses(
    analysis: Analysis, lost: Lost, gone: Gone, impact: Impact, air_before: float
) -> None:
    """CDU groups short of capacity (their racks trip), racks whose rear door is lost, and
    the room's air."""
    by_id = analysis.device_by_id
    doors_lost = {i for i in gone.down if (d := by_id.get(i)) and d.kind == "rear-door"}
    heat = _Heat(lost, gone, doors_lost)
    cdus_lost = {i for i in gone.down if (d := by_id.get(i)) and d.kind == "cdu"}
    if cdus_lost:
        for load in analysis.cdu_loads:
            _cdu_group(load, cdus_lost, heat, impact)
        heat.forget()  # the racks that tripped make no heat
    limit = analysis.thresholds["air_cooling_max"]
    door_racks: set[int] = set()
    if doors_lost:
        for rack in analysis.racks:
            door = rack.door
            if door is None or door.id not in doors_lost or rack.index in lost.racks:
                continue
            door_racks.add(rack.index)
            air = heat.of(rack)[3]
            if rack.cooling in ("rear-door", "liquid") and air > limit + EPSILON:
                impact.cooling.append(
                    CoolingLoss((rack.rack.id,), f"rear door {door.id} lost", air, limit)
                )
    _room_air(analysis, gone, heat, door_racks, air_before, impact)


def _cdu_group(load: CduLoad, cdus_lost: set[str], heat: _Heat, impact: Impact) -> None:
    """A CDU group that lost CDUs: where its live CDUs cannot carry its racks' cold plates
    (a rear door's heat goes to chilled water, not to the loop), the racks trip: their
    liquid-cooled devices are down."""
    names = [c.id for c in load.cdus if c.id in cdus_lost]
    capacities = load.capacities
    if not names or capacities is None:
        return
    left = sum(c for cdu, c in zip(load.cdus, capacities, strict=True) if cdu.id not in cdus_lost)
    racks = [r for r in load.racks if r.index not in heat.lost.racks]
    loop = sum(heat.of(r)[1] for r in racks)
    if loop <= left + EPSILON:
        return
    cause = f"CDU{'s' if len(names) > 1 else ''} {' + '.join(names)} lost"
    hot = tuple(r.rack.id for r in racks if heat.of(r)[1] > 0)
    impact.cooling.append(CoolingLoss(hot, cause, loop, left, tripped=True))
    why = f"thermal trip: {cause}, loop {fmt(loop, POWER)} on {fmt(left, POWER)}"
    for rack in racks:
        for dev in rack.devices:
            if dev.liquid_heat > 0 and dev.id not in heat.gone.down:
                heat.gone.down.add(dev.id)
                impact.down.append(device_loss(dev, 0, why))


def _room_air(
    analysis: Analysis,
    gone: Gone,
    heat: _Heat,
    door_racks: set[int],
    before: float,
    impact: Impact,
) -> None:
    """The room's air handlers against the air heat left, where that grows."""
    site = analysis.layout.site
    room = site.cooling_capacity if site is not None else None
    if room is None or not (gone.racks or door_racks):
        return
    by_id = analysis.device_by_id
    changed = gone.racks | door_racks
    changed.update(d.rack_index for i in gone.down if (d := by_id.get(i)) is not None)
    after = before
    for index in changed:
        rack = analysis.racks[index]
        after += heat.of(rack)[3] - rack.air_heat
    if after > float(room) + EPSILON and after > before + EPSILON:
        impact.cooling.append(CoolingLoss((), "room air", after, float(room)))
