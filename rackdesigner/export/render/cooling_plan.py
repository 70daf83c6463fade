"""What the cooling diagram draws (``export --cooling-diagram``), as plain data: the water
loops, each CDU group with its racks, and how far each is from its limit.

Built from :func:`rackdesigner.analysis.liquid.plant_of` (the figures ``report`` prints
in its ``liquid_loops`` section) and nothing else; :mod:`.cooling_diagram` places and
draws it. A hall of up to :data:`RACKS_DRAWN` liquid racks shows every rack; above it the
racks alike within a CDU group (the same heat, flow, door and loop) are drawn once with
their count, and above :data:`BANDS_DRAWN` CDU groups the groups alike likewise, so the
drawing of a 100,000-GPU hall stays a few pages.

Levels, by how far a load is from what carries it (a share of 90 % or more is tight, as
the designer's summary marks it; the bundled templates size loops with 10 % spare):
``short`` (over its limit, or a flow or temperature a rule rejects), ``tight`` (90 % or
more of it; a residue that goes nowhere), ``ok``, and ``unjudged`` (no capacity to judge
against: a loop without ``capacity``, a CDU not rated at its approach).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from rackdesigner.analysis.liquid import (
    GroupState,
    LiquidPlant,
    Loops,
    LoopState,
    device_flow,
    inrow_taken,
    loops_by_id,
    plant_of,
    too_warm,
)

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.analysis.facts import RackFacts

OK, TIGHT, SHORT, UNJUDGED = "ok", "tight", "short", "unjudged"
TIGHT_SHARE = 0.9
RACKS_DRAWN = 100  # every liquid rack drawn up to this many; alike racks counted above it
BANDS_DRAWN = 24  # every CDU group drawn up to this many; alike groups counted above it

T = TypeVar("T")


def share_level(load: float, capacity: float | None) -> str:
    """``short`` over ``capacity``, ``tight`` at 90 % of it or more, ``ok`` below, and
    ``unjudged`` without a capacity."""
    if capacity is None:
        return UNJUDGED
    if load > capacity + 1e-9:
        return SHORT
    if load > 0 and load >= TIGHT_SHARE * capacity:
        return TIGHT
    return OK


@dataclass(slots=True)
class RackBox:
    """A liquid rack, or racks alike in one CDU group, drawn as one box."""

    racks: list[RackFacts]
    heat: float  # W of cold plates, each
    flow: float  # m³/s its cold plates need, each
    door_heat: float  # W through its rear door, each
    door: str | None  # the door's id (the first rack's)
    door_loop: str | None
    inrow: float  # W its in-row coolers take, each
    room: float  # W of air heat left to the room (the site states a cooling_capacity)
    nowhere: float  # W of air heat nothing takes (COOL019)
    level: str
    why: str  # why it throttles, or ""

    @property
    def count(self) -> int:
        return len(self.racks)


@dataclass(slots=True)
class Band:
    """One CDU group (or several alike) and its racks; ``group`` None: racks with rear doors
    or in-row coolers on a loop but no CDU."""

    groups: list[GroupState]
    racks: list[RackBox]
    level: str  # its CDU group's (its racks have their own)
    loops: list[str]  # the loops its CDUs hang on
    side_loops: list[str]  # the loops its racks' doors and in-row coolers hang on
    notes: list[str] = field(default_factory=list)  # what its levels say, in words

    @property
    def group(self) -> GroupState | None:
        return self.groups[0] if self.groups else None

    @property
    def count(self) -> int:
        return max(1, len(self.groups))


@dataclass(slots=True)
class LoopBox:
    state: LoopState
    level: str
    flow_short: bool  # its water would return as warm as the secondary it cools (COOL017)
    left: bool  # drawn left of the CDU groups (it feeds CDUs), else right of the racks


@dataclass(slots=True)
class CoolingPlan:
    loops: list[LoopBox]
    bands: list[Band]
    plant: LiquidPlant
    racks: int  # liquid racks, before any were counted together
    aggregated_racks: bool = False
    aggregated_bands: bool = False

    @property
    def empty(self) -> bool:
        return not self.loops and not self.bands


@dataclass(slots=True)
class _Context:
    """What every rack box reads, found once."""

    analysis: Analysis
    loops: Loops
    per_kw: float
    taken: dict[int, float]  # each rack's air heat its in-row coolers take
    room: bool  # the site states a cooling_capacity: the room takes what is left

    def box(self, group: GroupState | None, rack: RackFacts) -> RackBox:
        inrow = self.taken.get(rack.index, 0.0)
        left = max(0.0, rack.air_heat - inrow)
        door = rack.door if rack.door is not None and rack.door_heat > 0 else None
        why = too_warm(group, rack) if group is not None else ""
        nowhere = 0.0 if self.room or rack.cooling != "liquid" else left
        return RackBox(
            [rack],
            rack.loop_heat,
            sum(device_flow(d, self.per_kw) for d in rack.devices),
            rack.door_heat,
            door.id if door is not None else None,
            self.loops.id_of(door) if door is not None else None,
            inrow,
            left if self.room else 0.0,
            nowhere,
            SHORT if why else (TIGHT if nowhere > 0 else OK),
            why,
        )

    def on_loops(self, rack: RackFacts) -> bool:
        """A rack whose door or in-row coolers hang on a loop."""
        return bool(_door_loop(rack, self.loops) or _inrow_loops(rack, self.loops, self.analysis))


def cooling_plan(analysis: Analysis) -> CoolingPlan:
    """The diagram's loops and bands, from the analysis's plant (nothing failed)."""
    plant = plant_of(analysis)
    site = analysis.layout.site
    context = _Context(
        analysis,
        loops_by_id(analysis.layout),
        analysis.thresholds["coolant_flow_per_kw"],
        inrow_taken(analysis),
        site is not None and site.cooling_capacity is not None,
    )
    bands = [
        _band([g], [context.box(g, r) for r in g.racks], context.loops, analysis)
        for g in plant.groups
    ]
    grouped = {r.index for g in plant.groups for r in g.racks}
    rest = [r for r in analysis.racks if r.index not in grouped and context.on_loops(r)]
    if rest:
        bands.append(_band([], [context.box(None, r) for r in rest], context.loops, analysis))
    racks = sum(len(b.racks) for b in bands)
    plan = CoolingPlan(_loop_boxes(plant), bands, plant, racks)
    if racks > RACKS_DRAWN:
        for band in plan.bands:
            band.racks = _alike_racks(band.racks)
        plan.aggregated_racks = True
    if len(plan.bands) > BANDS_DRAWN:
        plan.bands = _alike_bands(plan.bands)
        plan.aggregated_bands = True
    return plan


def _door_loop(rack: RackFacts, loops: Loops) -> str | None:
    door = rack.door
    if door is None or rack.door_heat <= 0:
        return None
    return loops.id_of(door)


def _inrow_loops(rack: RackFacts, loops: Loops, analysis: Analysis) -> list[str]:
    out = []
    for name in rack.rack.inrows:
        dev = analysis.device_by_id.get(name)
        loop = loops.id_of(dev) if dev is not None else None
        if loop is not None:
            out.append(loop)
    return out


def _band(groups: list[GroupState], racks: list[RackBox], loops: Loops, analysis: Analysis) -> Band:
    side: list[str] = []
    for rack_box in racks:
        for rack in rack_box.racks:
            door = _door_loop(rack, loops)
            side.extend([door] if door else [])
            side.extend(_inrow_loops(rack, loops, analysis))
    group = groups[0] if groups else None
    level, notes = group_level(group, bool(loops)) if group is not None else (OK, [])
    on = group.loop_ids if group is not None else []
    return Band(groups, racks, level, list(on), list(dict.fromkeys(side)), notes)


def group_level(group: GroupState, loops: bool = True) -> tuple[str, list[str]]:
    """A CDU group's level and why: its margin with one CDU lost, its pumps against the
    flow its cold plates need (COOL013), its return against its CDUs' limit (COOL014),
    and, where the layout declares ``loops``, its CDUs on none (COOL011)."""
    notes = []
    if not group.live:
        return SHORT, ["no CDU"]
    spare = group.n_plus_one
    level = share_level(group.heat, spare)
    if level == SHORT:
        notes.append("short with one CDU lost")
    elif level == UNJUDGED:
        notes.append("not rated at its approach")
    if group.pump_flow is not None and group.pump_flow < group.flow_needed:
        level = SHORT
        notes.append("pumps short of the flow")
    back = group.return_temperature
    for cdu in group.live:
        most = cdu.type.max_return_temperature if cdu.type is not None else None
        if back is not None and most is not None and back > most:
            level = SHORT
            notes.append(f"return above {cdu.id}'s {float(most):g} °C")
            break
    if loops and not group.loop_ids:
        level = SHORT
        notes.append("its CDUs on no loop: no path to facility water")
    return level, notes


def _loop_boxes(plant: LiquidPlant) -> list[LoopBox]:
    out = []
    for state in plant.loops:
        capacity = float(state.loop.capacity) if state.loop.capacity is not None else None
        level = share_level(state.heat, capacity)
        back, secondary = state.return_temperature, state.secondary_return
        flow_short = back is not None and secondary is not None and back >= secondary
        if flow_short:
            level = SHORT
        left = bool(state.cdus) or (state.loop.loop_kind == "facility" and not state.doors)
        out.append(LoopBox(state, level, flow_short, left))
    return out


def _alike(items: Sequence[T], key: Callable[[T], Hashable]) -> list[list[T]]:
    """``items`` in runs of equal keys, in first-appearance order."""
    runs: dict[Hashable, list[T]] = {}
    for item in items:
        runs.setdefault(key(item), []).append(item)
    return list(runs.values())


def _rack_key(box: RackBox) -> tuple[object, ...]:
    return (
        round(box.heat),
        round(box.flow * 60000, 1),
        round(box.door_heat),
        box.door_loop,
        round(box.inrow),
        round(box.room),
        round(box.nowhere),
        box.level,
        box.why,
    )


def _alike_racks(boxes: list[RackBox]) -> list[RackBox]:
    out = []
    for run in _alike(boxes, _rack_key):
        first = run[0]
        first.racks = [r for box in run for r in box.racks]
        out.append(first)
    return out


def _band_key(band: Band) -> tuple[object, ...]:
    group = band.group
    cdus: tuple[object, ...] = ()
    if group is not None:
        cdus = tuple(
            (
                c.device.model,
                None if r.capacity is None else round(r.capacity),
                r.basis,
                None if r.approach is None else round(r.approach, 2),
                loop,
            )
            for c, r, loop in zip(group.live, group.ratings, group.live_loops, strict=True)
        )
    return (
        group is None,
        cdus,
        round(group.heat) if group is not None else 0,
        band.level,
        tuple(band.notes),
        tuple(band.side_loops),
        tuple((_rack_key(r), r.count) for r in band.racks),
    )


def _alike_bands(bands: list[Band]) -> list[Band]:
    out = []
    for run in _alike(bands, _band_key):
        first = run[0]
        if len(run) > 1:
            first.groups = [g for band in run for g in band.groups]
        out.append(first)
    return out
