"""What a failure does to cooling: racks that trip on a CDU group without capacity or
throttle on coolant too warm, CDU groups not rated at the approach warmer water leaves
them, rear doors lost, the room's air.

The liquid plant's physics is :mod:`rackdesigner.analysis.liquid`'s (each CDU's capacity
at the approach it runs at, flows and temperatures): :func:`~.liquid.loop_impacts` judges
the CDU groups a failure touches, given the CDUs lost (failed, dark with their rack's
power, or on a water loop lost) and the facility water's rise. Here its verdict becomes
devices down and degraded, with the heat the racks still make (down devices make none).
A verdict the layout already has with nothing failed (a group short or a rack throttling
as designed) is not the failure's, except where the failure took a CDU of that group.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rackdesigner.analysis.liquid import (
    NOT_RATED,
    inrow_groups,
    is_in_row_cooler,
    loop_impacts,
)
from rackdesigner.model.units import POWER, fmt
from rackdesigner.whatif.losses import device_loss
from rackdesigner.whatif.results import EPSILON, CoolingLoss, Gone, Impact, NotRated

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis, RackFacts
    from rackdesigner.analysis.facts import CduLoad
    from rackdesigner.analysis.liquid import GroupState, Impacts, RackImpact, Shortfall
    from rackdesigner.whatif.parts import Lost


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


class Liquid:
    """What judging the liquid plant shares between the failures of one layout: each CDU's
    group, and the plant's verdict with nothing failed (as designed, and on the warmer
    water ``--each`` may run on), each computed once."""

    def __init__(self, analysis: Analysis) -> None:
        self.analysis = analysis
        self._groups: dict[str, list[CduLoad]] | None = None
        self._verdicts: dict[float, Impacts] = {}

    def groups_of(self, cdus: set[str]) -> list[CduLoad]:
        """The CDU groups with a CDU among ``cdus``, in the layout's order."""
        if self._groups is None:
            self._groups = {}
            for load in self.analysis.cdu_loads:
                for cdu in load.cdus:
                    self._groups.setdefault(cdu.id, []).append(load)
        found = {id(g): g for c in cdus for g in self._groups.get(c, ())}
        return [g for g in self.analysis.cdu_loads if id(g) in found] if found else []

    def verdict(self, warmer: float) -> Impacts:
        """The plant with nothing failed, on water ``warmer`` kelvin above its design."""
        found = self._verdicts.get(warmer)
        if found is None:
            found = self._verdicts[warmer] = loop_impacts(self.analysis, warmer=warmer)
        return found

    def judge(self, cdus: set[str], loops: set[str], warmer: float) -> list[_Verdict]:
        """Each CDU group the failure touches, judged: its shortfall, its racks that
        throttle, whether it is not rated; the groups it takes a CDU of, and every group on
        warmer water."""
        touched = self.groups_of(cdus)
        out: dict[int, _Verdict] = {}
        if warmer:
            for verdict in _verdicts(self.verdict(warmer)):
                out[id(verdict.load)] = verdict
        if touched:
            judged = loop_impacts(
                self.analysis,
                failed_cdus=cdus,
                failed_loops=loops,
                warmer=warmer,
                groups=touched,
            )
            for verdict in _verdicts(judged, touched):
                out[id(verdict.load)] = verdict
        before = {id(v.load): v for v in _verdicts(self.verdict(0.0))} if out else {}
        kept = []
        for key, verdict in out.items():
            was = before.get(key)
            if was is not None:  # what the layout has as designed is not the failure's
                took = any(c.id in cdus for c in verdict.load.cdus)
                verdict = verdict.without(was, keep_short=took)
            if verdict:
                kept.append(verdict)
        order = {id(load): n for n, load in enumerate(self.analysis.cdu_loads)}
        return sorted(kept, key=lambda v: order.get(id(v.load), 0))


class _Verdict:
    """One CDU group's verdict: short of capacity, not rated, its racks that throttle."""

    __slots__ = ("group", "load", "short", "throttle", "unrated")

    def __init__(self, group: GroupState) -> None:
        self.group = group
        self.load = group.load
        self.short: Shortfall | None = None
        self.unrated = False
        self.throttle: list[RackImpact] = []

    def __bool__(self) -> bool:
        return bool(self.short or self.unrated or self.throttle)

    def without(self, was: _Verdict, *, keep_short: bool) -> _Verdict:
        """This verdict less what the layout has as designed (``was``); ``keep_short``: its
        shortfall stays (the failure took one of its CDUs: its racks trip on that)."""
        out = _Verdict(self.group)
        out.short = self.short if was.short is None or keep_short else None
        out.unrated = self.unrated and not was.unrated
        known = {r.rack.index for r in was.throttle}
        out.throttle = [r for r in self.throttle if r.rack.index not in known]
        return out


def _verdicts(impacts: Impacts, only: list[CduLoad] | None = None) -> list[_Verdict]:
    """``loop_impacts``' result per CDU group (those of ``only``, where given)."""
    wanted = None if only is None else {id(load) for load in only}
    by_load: dict[int, _Verdict] = {}
    rack_group: dict[int, int] = {}
    for group in impacts.plant.groups:
        if wanted is not None and id(group.load) not in wanted:
            continue
        by_load[id(group.load)] = _Verdict(group)
        rack_group.update((index, id(group.load)) for index in group.load.indexes)
    for short in impacts.shortfalls:
        if id(short.group.load) in by_load:
            by_load[id(short.group.load)].short = short
    for group in impacts.unrated:
        if id(group.load) in by_load and any(r.basis == NOT_RATED for r in group.ratings):
            by_load[id(group.load)].unrated = True
    for rack in impacts.racks:
        key = rack_group.get(rack.rack.index)
        if rack.state == "throttle" and key is not None:
            by_load[key].throttle.append(rack)
    return [v for v in by_load.values() if v]


def cooling_losses(
    analysis: Analysis,
    lost: Lost,
    gone: Gone,
    impact: Impact,
    air_before: float,
    liquid: Liquid,
) -> None:
    """Water loops lost (their CDUs, doors and in-row coolers stop), CDU groups short of
    capacity (their racks trip) or not rated, racks whose coolant is too warm (they
    throttle), racks whose rear door is lost, and the room's air."""
    by_id = analysis.device_by_id
    _loops_lost(analysis, lost, gone, impact)
    doors_lost = {i for i in gone.down if (d := by_id.get(i)) and d.kind == "rear-door"}
    heat = _Heat(lost, gone, doors_lost)
    cdus_lost = {i for i in gone.down if (d := by_id.get(i)) and d.kind == "cdu"}
    if cdus_lost or lost.warmer:
        for verdict in liquid.judge(cdus_lost, lost.loops, lost.warmer):
            cause = _cause(verdict.load, cdus_lost, lost, analysis)
            _judged(verdict, cause, lost, heat, impact)
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
    to_room = _inrows_lost(analysis, gone, impact)
    _room_air(analysis, gone, heat, door_racks, (air_before, to_room), impact)


def _inrows_lost(analysis: Analysis, gone: Gone, impact: Impact) -> float:
    """In-row coolers lost (their loop, or their rack's power): where the coolers left in a
    group take less than its racks' air heat, the rest goes to the room (a shortfall, no
    GPU lost, as for a rear door). The W of air heat they no longer take."""
    by_id = analysis.device_by_id
    lost = {i for i in gone.down if (d := by_id.get(i)) is not None and is_in_row_cooler(d)}
    if not lost:
        return 0.0
    to_room = 0.0
    before = inrow_groups(analysis.racks, by_id)
    after = inrow_groups(analysis.racks, by_id, lost)
    for was, now in zip(before, after, strict=True):
        names = [c.id for c in was.coolers if c.id in lost]
        if not names:
            continue
        to_room += was.taken - now.taken
        left = now.capacity or 0.0
        if now.heat > left + EPSILON:
            cause = f"in-row cooler{'s' if len(names) > 1 else ''} {' + '.join(names)} lost"
            racks = tuple(r.rack.id for r in now.racks)
            impact.cooling.append(CoolingLoss(racks, cause, now.heat, left))
    return to_room


def _loops_lost(analysis: Analysis, lost: Lost, gone: Gone, impact: Impact) -> None:
    """The CDUs, rear doors and in-row coolers on a water loop lost: they stop."""
    if not lost.loops:
        return
    by_id = analysis.device_by_id
    for loop in analysis.layout.cooling_loops:
        if loop.id not in lost.loops:
            continue
        for name in loop.devices or ():
            dev = by_id.get(name)
            if dev is not None and name not in gone.down:
                gone.down.add(name)
                impact.down.append(device_loss(dev, 0, f"its loop {loop.id} lost"))


def _cause(load: CduLoad, cdus: set[str], lost: Lost, analysis: Analysis) -> str:
    """What took a group's cooling: ``CDU cy1 lost``, ``water loop fws-1 lost``,
    ``facility water 5 K warmer``."""
    parts = []
    on_loops = {
        name
        for loop in analysis.layout.cooling_loops
        if loop.id in lost.loops
        for name in loop.devices or ()
    }
    names = [c.id for c in load.cdus if c.id in cdus and c.id not in on_loops]
    if names:
        parts.append(f"CDU{'s' if len(names) > 1 else ''} {' + '.join(names)} lost")
    loops = [
        loop.id
        for loop in analysis.layout.cooling_loops
        if loop.id in lost.loops and any(c.id in (loop.devices or ()) for c in load.cdus)
    ]
    if loops:
        parts.append(f"water loop{'s' if len(loops) > 1 else ''} {' + '.join(loops)} lost")
    if lost.warmer:
        parts.append(f"facility water {lost.warmer:g} K warmer")
    return ", ".join(parts)


def _judged(verdict: _Verdict, cause: str, lost: Lost, heat: _Heat, impact: Impact) -> None:
    """A group's verdict as losses: its racks trip where the CDUs left cannot carry the
    cold plates they still cool (a rear door's share goes to chilled water), its nodes
    throttle on coolant too warm; a group not rated at its approach is listed."""
    racks = [r for r in verdict.load.racks if r.index not in lost.racks]
    if verdict.short is not None:
        _trip(verdict.short, racks, cause, heat, impact)
    if verdict.unrated:
        _not_rated(verdict.group, racks, heat, impact)
    for throttled in verdict.throttle:
        rack = throttled.rack
        if rack.index in lost.racks:
            continue
        for dev in rack.devices:
            gone = heat.gone
            if dev.liquid_heat > 0 and dev.id not in gone.down and dev.id not in gone.degraded:
                gone.degraded.add(dev.id)
                impact.degraded.append(device_loss(dev, 0, f"throttled: {throttled.why}"))


def _trip(
    short: Shortfall, racks: list[RackFacts], cause: str, heat: _Heat, impact: Impact
) -> None:
    left = short.capacity or 0.0
    loop = sum(heat.of(r)[1] for r in racks)
    if loop <= left + EPSILON:
        return  # the devices down make no heat: what is left fits
    hot = tuple(r.rack.id for r in racks if heat.of(r)[1] > 0)
    impact.cooling.append(CoolingLoss(hot, cause, loop, left, tripped=True))
    why = f"thermal trip: {cause}, cold plates {fmt(loop, POWER)} on {fmt(left, POWER)}"
    for rack in racks:
        for dev in rack.devices:
            if dev.liquid_heat > 0 and dev.id not in heat.gone.down:
                heat.gone.down.add(dev.id)
                heat.gone.degraded.discard(dev.id)
                impact.down.append(device_loss(dev, 0, why))


def _not_rated(group: GroupState, racks: list[RackFacts], heat: _Heat, impact: Impact) -> None:
    rating = next(r for r in group.ratings if r.basis == NOT_RATED)
    gpus = sum(
        d.gpus for r in racks for d in r.devices if d.is_gpu_node and d.id not in heat.gone.down
    )
    impact.not_rated.append(
        NotRated(
            tuple(r.rack.id for r in racks),
            tuple(c.id for c in group.live),
            rating.approach,
            rating.rated_approach,
            rating.rated_capacity,
            gpus,
        )
    )


def _room_air(
    analysis: Analysis,
    gone: Gone,
    heat: _Heat,
    door_racks: set[int],
    air: tuple[float, float],
    impact: Impact,
) -> None:
    """The room's air handlers against the air heat left, where that grows; ``air``: the
    room's air heat before, and what in-row coolers lost no longer take."""
    site = analysis.layout.site
    room = site.cooling_capacity if site is not None else None
    before, to_room = air
    if room is None or not (gone.racks or door_racks or to_room):
        return
    by_id = analysis.device_by_id
    changed = gone.racks | door_racks
    changed.update(d.rack_index for i in gone.down if (d := by_id.get(i)) is not None)
    after = before + to_room
    for index in changed:
        rack = analysis.racks[index]
        after += heat.of(rack)[3] - rack.air_heat
    if after > float(room) + EPSILON and after > before + EPSILON:
        impact.cooling.append(CoolingLoss((), "room air", after, float(room)))
