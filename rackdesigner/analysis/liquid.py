"""The liquid loop (v1.4, docs/liquid-cooling.md): facility water loops, each CDU's
capacity at the approach it runs at, the flows and temperatures of each CDU group's
secondary loop and of each facility loop, the in-row coolers' share of the air heat, and
what failed CDUs or loops and warmer water do to all of it.

Plain functions over an :class:`~rackdesigner.analysis.Analysis`'s facts; the cooling
rules (COOL003, COOL009, COOL011-COOL020), ``report`` and the what-if read them.

The physics, every figure cited in docs/liquid-cooling.md:

- A CDU's **approach** is its secondary (TCS) supply less the facility (FWS) supply. Its
  capacity is rated at one approach (or a table of them). A larger approach never cools
  less, so at or above the rated approach the rated capacity holds (a lower bound); below
  it nothing is published and the CDU is **not rated** there (``capacity`` None): no
  figure is made up. Between two points of a table the capacity is interpolated.
- The secondary supply is the CDU's ``supply_setpoint``, else the facility supply plus
  the rated approach (the CDU at its rating point).
- Heat, flow and temperature rise: ``ΔT = P / (V̇ · ρ·cp)``, with the fluid's volumetric
  heat capacity ρ·cp at 35 °C (``FLUIDS``).
- A cold plate needs its type's ``coolant_flow``, else ``coolant_flow_per_kw`` (OCP: about
  1.5 L/min per kW) of its liquid heat.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rackdesigner.analysis.cdu_groups import cdu_groups
from rackdesigner.analysis.facts import CduLoad, DeviceFacts, RackFacts
from rackdesigner.analysis.loops import Loops as Loops
from rackdesigner.analysis.loops import loops_by_id as loops_by_id
from rackdesigner.model.layout import CoolingLoop

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis

# Volumetric heat capacity ρ·cp (J/(m³·K)) at 35 °C and 2 bar, from CoolProp 8.0.0: water
# (IAPWS-95) ρ 994.1 kg/m³ × cp 4,179 J/(kg·K); PG25 (INCOMP::MPG[0.25], 25 % propylene
# glycol by mass, Melinder 2010) ρ 1,012.5 kg/m³ × cp 3,956.7 J/(kg·K). Both move less
# than 1 % between 25 and 45 °C.
FLUIDS = {"water": 994.1 * 4179.0, "pg25": 1012.5 * 3956.7}
DEFAULT_SECONDARY = "pg25"
LPM = 1e-3 / 60  # m³/s in one L/min
# How a rating was found at the approach it runs at.
TABLE, RATED, AT_LEAST, NOT_RATED, NOMINAL, NO_CAPACITY = (
    "table",
    "rated",
    "at least",
    "not rated",
    "nominal",
    "no capacity",
)


@dataclass(frozen=True, slots=True)
class Rating:
    """A CDU's capacity at the approach it runs at.

    ``basis``: ``table`` (from its table), ``rated`` (at its rated approach), ``at least``
    (above the rated approach: the rated capacity, a lower bound), ``not rated`` (below
    anything published: ``capacity`` None), ``nominal`` (no loop, or no rating condition:
    its ``capacity`` as given) or ``no capacity`` (the type gives none)."""

    capacity: float | None  # W
    basis: str
    approach: float | None = None  # K, the approach it runs at
    rated_approach: float | None = None  # K, the lowest approach it is rated at
    rated_capacity: float | None = None  # W at rated_approach


def facility_supply(loop: CoolingLoop | None, warmer: float = 0.0) -> float | None:
    """The water a loop supplies (°C), ``warmer`` kelvin above its design where it is a
    facility loop (a chilled-water loop's plant is another, held at its own supply)."""
    if loop is None:
        return None
    supply = loop.supply
    if supply is None:
        return None
    return supply + warmer if loop.loop_kind == "facility" else supply


def secondary_supply(cdu: DeviceFacts, loops: Loops, warmer: float = 0.0) -> float | None:
    """A CDU's secondary supply (°C): its setpoint, else its loop's design supply plus its
    rated approach (the CDU at its rating point). The CDU holds it: warmer facility water
    shrinks the approach instead, and below the rated one the CDU is not rated (the rules
    say so; no capacity is made up)."""
    del warmer  # the setpoint is held whatever the facility water does
    setpoint = cdu.device.supply_setpoint
    if setpoint is not None:
        return float(setpoint)
    supply = facility_supply(loops.of(cdu))
    rated = _lowest_rated_approach(cdu)
    if supply is None or rated is None:
        return None
    return supply + rated


def _lowest_rated_approach(cdu: DeviceFacts) -> float | None:
    dtype = cdu.type
    if dtype is None:
        return None
    if dtype.capacity_table:
        return float(dtype.capacity_table[0][0])
    return float(dtype.rated_approach) if dtype.rated_approach is not None else None


def cdu_rating(cdu: DeviceFacts, loops: Loops, warmer: float = 0.0) -> Rating:
    """The CDU's capacity at the approach it runs at (``warmer`` kelvin of warmer facility
    water). Without loops, or on none, its ``capacity`` as given (today's figure)."""
    dtype = cdu.type
    nominal = float(dtype.capacity) if dtype is not None and dtype.capacity is not None else None
    if dtype is None or (nominal is None and not dtype.capacity_table):
        return Rating(None, NO_CAPACITY)
    loop = loops.of(cdu)
    supply = facility_supply(loop, warmer)
    table = [(float(a), float(c)) for a, c in dtype.capacity_table or ()]
    if not table and dtype.rated_approach is not None and nominal is not None:
        table = [(float(dtype.rated_approach), nominal)]
    if not loops or supply is None or not table:
        return Rating(nominal if nominal is not None else table[-1][1], NOMINAL)
    setpoint = cdu.device.supply_setpoint
    approach = (float(setpoint) - supply) if setpoint is not None else table[0][0] - warmer
    low_approach, low_capacity = table[0]
    if approach < low_approach:
        return Rating(None, NOT_RATED, approach, low_approach, low_capacity)
    for (a0, c0), (a1, c1) in itertools.pairwise(table):
        if a0 <= approach <= a1:
            capacity = c0 + (c1 - c0) * (approach - a0) / (a1 - a0)
            return Rating(capacity, TABLE, approach, low_approach, low_capacity)
    top_approach, top_capacity = table[-1]
    basis = RATED if approach == top_approach else AT_LEAST
    if len(table) > 1 and basis == RATED:
        basis = TABLE
    return Rating(top_capacity, basis, approach, low_approach, low_capacity)


def group_capacities(
    load: CduLoad,
    loops: Loops,
    failed: Collection[str] = (),
    warmer: float = 0.0,
) -> list[float] | None:
    """Each working CDU's capacity at its approach; None where one is not known (no
    capacity, or not rated at this approach). Without loops: the capacities as given.
    A CDU a what-if failed (``load.lost``) works no more than one named in ``failed``."""
    if not loops and not failed and not warmer:
        return load.capacities
    out = []
    for cdu in load.cdus:
        if cdu.id in failed or cdu.id in load.lost:
            continue
        rating = cdu_rating(cdu, loops, warmer)
        if rating.capacity is None:
            return None
        out.append(rating.capacity)
    return out


def device_flow(dev: DeviceFacts, per_kw: float) -> float:
    """The coolant flow (m³/s) a device's cold plates need at full load: its type's
    ``coolant_flow``, else ``per_kw`` L/min per kW of its liquid heat."""
    if dev.liquid_heat <= 0:
        return 0.0
    if dev.type is not None and dev.type.coolant_flow is not None:
        return float(dev.type.coolant_flow)
    return dev.liquid_heat / 1000.0 * per_kw * LPM


def rise(heat: float, flow: float, fluid: str) -> float | None:
    """The temperature rise (K) of ``flow`` m³/s of ``fluid`` carrying ``heat`` W."""
    if flow <= 0:
        return None
    return heat / (flow * FLUIDS.get(fluid, FLUIDS["water"]))


@dataclass(slots=True)
class GroupState:
    """A CDU group's secondary loop: the CDUs racks name together and their racks."""

    load: CduLoad
    live: list[DeviceFacts]  # its CDUs not failed, and not on a failed loop
    ratings: list[Rating]  # of ``live``
    heat: float  # W to the CDUs (cold plates; a rear door's share goes to chilled water)
    flow_needed: float  # m³/s over its cold plates
    pump_flow: float | None  # m³/s, all live CDUs' pumps; None where one gives none
    supply: float | None  # °C, the warmest live CDU's secondary supply
    fluid: str
    loop_ids: list[str]  # the loops its CDUs hang on, in order
    live_loops: list[str | None] = field(default_factory=list)  # each live CDU's loop

    @property
    def capacity(self) -> float | None:
        """All live CDUs at their approach; None where one is not rated there."""
        if any(r.capacity is None for r in self.ratings):
            return None
        return sum(r.capacity or 0.0 for r in self.ratings)

    @property
    def n_plus_one(self) -> float | None:
        capacity = self.capacity
        if capacity is None:
            return None
        return capacity - max((r.capacity or 0.0 for r in self.ratings), default=0.0)

    @property
    def flow(self) -> float:
        """The flow its pumps deliver: what the cold plates need, or less where the pumps
        give less."""
        if self.pump_flow is None:
            return self.flow_needed
        return min(self.flow_needed, self.pump_flow)

    @property
    def delta_t(self) -> float | None:
        return rise(self.heat, self.flow, self.fluid)

    @property
    def return_temperature(self) -> float | None:
        dt = self.delta_t
        return None if self.supply is None or dt is None else self.supply + dt

    @property
    def racks(self) -> list[RackFacts]:
        return self.load.racks


@dataclass(slots=True)
class LoopState:
    """One facility or chilled water loop and what hangs on it."""

    loop: CoolingLoop
    supply: float | None  # °C, with any warmer water
    failed: bool = False
    cdus: list[DeviceFacts] = field(default_factory=list)
    doors: list[DeviceFacts] = field(default_factory=list)
    inrows: list[DeviceFacts] = field(default_factory=list)
    cdu_heat: float = 0.0  # W, the CDUs' share of their groups' heat
    door_heat: float = 0.0  # W, taken by the rear doors on it
    inrow_heat: float = 0.0  # W, taken by the in-row coolers on it
    secondary_return: float | None = None  # °C, the coolest secondary return it cools

    @property
    def heat(self) -> float:
        return self.cdu_heat + self.door_heat + self.inrow_heat

    @property
    def return_temperature(self) -> float | None:
        """The water it returns (°C), where it gives a flow."""
        flow = self.loop.flow
        if self.supply is None or flow is None:
            return None
        dt = rise(self.heat, float(flow), self.loop.loop_fluid)
        return None if dt is None else self.supply + dt


@dataclass(slots=True)
class InrowGroup:
    """In-row coolers racks name together and the racks whose air heat they take."""

    coolers: list[DeviceFacts]
    racks: list[RackFacts]
    heat: float  # W of the racks' air heat (after their rear doors)
    capacity: float | None  # W; None where a cooler gives none

    @property
    def taken(self) -> float:
        return min(self.heat, self.capacity or 0.0)


@dataclass(slots=True)
class LiquidPlant:
    """Every loop, CDU group and in-row group of a layout, as :func:`liquid_plant` finds
    them for a set of failures and a supply rise."""

    loops: list[LoopState]
    groups: list[GroupState]
    inrows: list[InrowGroup]
    failed_cdus: frozenset[str] = frozenset()
    failed_loops: frozenset[str] = frozenset()
    warmer: float = 0.0

    def loop(self, loop_id: str) -> LoopState | None:
        for state in self.loops:
            if state.loop.id == loop_id:
                return state
        return None

    def group_of(self, rack_index: int) -> list[GroupState]:
        return [g for g in self.groups if rack_index in g.load.indexes]


def liquid_plant(
    analysis: Analysis,
    *,
    failed_cdus: Iterable[str] = (),
    failed_loops: Iterable[str] = (),
    warmer: float = 0.0,
    groups: Sequence[CduLoad] | None = None,
) -> LiquidPlant:
    """The plant with ``failed_cdus`` and every CDU, door and in-row cooler on
    ``failed_loops`` lost, and the facility supply ``warmer`` kelvin above its design.
    ``groups``: only these CDU groups (of ``analysis.cdu_loads``), without the loops'
    totals and the in-row coolers: what a what-if that touches a few CDUs reads."""
    loops = analysis.loops
    lost_loops = frozenset(failed_loops)
    lost = set(failed_cdus)
    for loop_id in lost_loops:
        lost.update(loops.by_id[loop_id].devices or () if loop_id in loops.by_id else ())
    per_kw = analysis.thresholds["coolant_flow_per_kw"]
    if groups is not None:
        some = [_group(load, loops, lost, warmer, per_kw) for load in groups]
        return LiquidPlant([], some, [], frozenset(lost), lost_loops, warmer)
    states = {
        loop.id: LoopState(loop, facility_supply(loop, warmer), loop.id in lost_loops)
        for loop in loops.by_id.values()
    }
    every = [_group(load, loops, lost, warmer, per_kw) for load in analysis.cdu_loads]
    for group_state in every:
        _share(group_state, states, loops)
    for rack in analysis.racks:
        door = rack.door
        if door is not None and rack.door_heat > 0 and door.id not in lost:
            on = states.get(loops.id_of(door) or "")
            if on is not None:
                on.doors.append(door)
                on.door_heat += rack.door_heat
    inrows = inrow_groups(analysis.racks, analysis.device_by_id, lost)
    for group in inrows:
        taken, total = group.taken, group.capacity or 0.0
        for cooler in group.coolers:
            fed = states.get(loops.id_of(cooler) or "")
            if fed is None:
                continue
            fed.inrows.append(cooler)
            share = _nominal(cooler) / total if total else 1 / len(group.coolers)
            fed.inrow_heat += taken * share
    return LiquidPlant(list(states.values()), every, inrows, frozenset(lost), lost_loops, warmer)


def plant_of(analysis: Analysis) -> LiquidPlant:
    """:func:`liquid_plant` with nothing failed, kept until the analysis's facts change
    (every refresh makes new ``cdu_loads``): the cooling rules and the report share it."""
    loads, racks = analysis.cdu_loads, analysis.racks
    cached = getattr(analysis, "_liquid_plant", None)
    if (
        cached is not None
        and cached[0] is loads
        and cached[1] is racks
        and cached[2] == len(analysis.layout.cooling_loops)
    ):
        plant: LiquidPlant = cached[3]
        return plant
    plant = liquid_plant(analysis)
    setattr(  # noqa: B010 (a cache slot the analysis does not declare)
        analysis, "_liquid_plant", (loads, racks, len(analysis.layout.cooling_loops), plant)
    )
    return plant


def _group(
    load: CduLoad,
    loops: Loops,
    lost: Collection[str],
    warmer: float,
    per_kw: float,
) -> GroupState:
    live = [c for c in load.cdus if c.id not in lost]
    ratings = [cdu_rating(c, loops, warmer) for c in live]
    flow = sum(device_flow(d, per_kw) for rack in load.racks for d in rack.devices)
    pumps = [c.type.pump_flow if c.type is not None else None for c in live]
    pump = None if not live or any(p is None for p in pumps) else sum(float(p or 0) for p in pumps)
    if not live:
        pump = 0.0
    supplies = [s for c in live if (s := secondary_supply(c, loops, warmer)) is not None]
    fluids = {c.type.coolant for c in live if c.type is not None and c.type.coolant}
    fluid = "water" if fluids == {"water"} else DEFAULT_SECONDARY
    loop_ids = list(dict.fromkeys(i for c in load.cdus if (i := loops.id_of(c)) is not None))
    return GroupState(
        load,
        live,
        ratings,
        load.heat,
        flow,
        pump,
        max(supplies) if supplies else None,
        fluid,
        loop_ids,
        [loops.id_of(c) for c in live],
    )


def _nominal(dev: DeviceFacts) -> float:
    return float(dev.type.capacity or 0.0) if dev.type is not None else 0.0


def _share(group: GroupState, states: dict[str, LoopState], loops: Loops) -> None:
    """A group's heat over its live CDUs' loops, in proportion to their capacity (equal
    where one is not known)."""
    if not group.live:
        return
    weights = [r.capacity for r in group.ratings]
    if any(w is None for w in weights) or not sum(w or 0.0 for w in weights):
        weights = [1.0] * len(group.live)
    total = sum(w or 0.0 for w in weights)
    back = group.return_temperature
    for cdu, weight in zip(group.live, weights, strict=True):
        state = states.get(loops.id_of(cdu) or "")
        if state is None:
            continue
        state.cdus.append(cdu)
        state.cdu_heat += group.heat * (weight or 0.0) / total
        if back is not None:
            was = state.secondary_return
            state.secondary_return = back if was is None else min(was, back)


def is_in_row_cooler(dev: DeviceFacts) -> bool:
    """An in-row cooler (v1.4): a type that says ``in_row = true``."""
    return dev.type is not None and dev.type.is_in_row_cooler


def inrow_groups(
    racks: Sequence[RackFacts],
    by_id: dict[str, DeviceFacts],
    lost: Collection[str] = (),
) -> list[InrowGroup]:
    """The in-row coolers racks name together (lists that share a cooler join) and the air
    heat of their racks (what the rear doors leave); ``lost`` coolers take nothing."""
    named: list[list[str]] = []
    for rack in racks:
        ids = [
            name
            for name in rack.rack.inrows
            if (dev := by_id.get(name)) is not None and is_in_row_cooler(dev)
        ]
        named.append(ids)
    if not any(named):
        return []
    out = []
    for group in cdu_groups(named):
        coolers = [by_id[c] for c in group.cdus if c not in lost]
        members = [racks[i] for i in group.racks]
        caps = [c.type.capacity if c.type is not None else None for c in coolers]
        capacity = None if any(c is None for c in caps) else sum(float(c or 0) for c in caps)
        out.append(InrowGroup(coolers, members, sum(r.air_heat for r in members), capacity))
    return out


def inrow_taken(analysis: Analysis) -> dict[int, float]:
    """Each rack's air heat its in-row coolers take (W), by rack index: a group's coolers
    take up to their capacity, shared in proportion to each rack's air heat."""
    taken: dict[int, float] = {}
    if not analysis.names_inrows():  # no rack names one (told once for a failed layout's)
        return taken
    for group in inrow_groups(analysis.racks, analysis.device_by_id):
        if group.heat <= 0:
            continue
        share = group.taken / group.heat
        for rack in group.racks:
            taken[rack.index] = rack.air_heat * share
    return taken


# -- what a failure or warmer water does -------------------------------------------------


@dataclass(frozen=True, slots=True)
class RackImpact:
    """A rack whose cooling a failure or warmer water takes: ``trip`` (its cold plates lose
    their loop: GPUs down) or ``throttle`` (coolant warmer than its nodes take: degraded)."""

    rack: RackFacts
    state: str  # trip | throttle
    why: str

    @property
    def gpus(self) -> int:
        return self.rack.gpus


@dataclass(frozen=True, slots=True)
class Shortfall:
    """A CDU group that cannot carry its heat: ``capacity`` None where it is not rated at
    the approach it now runs at."""

    group: GroupState
    capacity: float | None
    why: str


@dataclass(slots=True)
class Impacts:
    plant: LiquidPlant
    shortfalls: list[Shortfall] = field(default_factory=list)
    racks: list[RackImpact] = field(default_factory=list)
    unrated: list[GroupState] = field(default_factory=list)  # not rated: not judged

    @property
    def gpus_down(self) -> int:
        return sum(r.gpus for r in self.racks if r.state == "trip")

    @property
    def gpus_degraded(self) -> int:
        return sum(r.gpus for r in self.racks if r.state == "throttle")


def loop_impacts(
    analysis: Analysis,
    *,
    failed_cdus: Iterable[str] = (),
    failed_loops: Iterable[str] = (),
    warmer: float = 0.0,
    groups: Sequence[CduLoad] | None = None,
) -> Impacts:
    """Given these failed CDUs and loops and a facility supply ``warmer`` kelvin above its
    design: which CDU groups fall short (their racks trip: the cold plates lose their
    loop), and which racks throttle (their secondary supply above a node's
    ``max_supply_temperature``, or its return above a node's or CDU's
    ``max_return_temperature``). A group not rated at the approach it now runs at is
    listed as not judged, its racks counted in neither. ``groups``: judge only these
    (:func:`liquid_plant`'s), so that each of many failures costs the groups it touches."""
    plant = liquid_plant(
        analysis,
        failed_cdus=failed_cdus,
        failed_loops=failed_loops,
        warmer=warmer,
        groups=groups,
    )
    out = Impacts(plant)
    hit: set[int] = set()
    for group in plant.groups:
        if group.heat <= 0:
            continue
        capacity = group.capacity
        if not group.live:
            why = "every CDU of its group is lost"
        elif capacity is None:
            out.unrated.append(group)
            continue
        elif capacity < group.heat:
            why = f"its CDUs left carry {capacity / 1000:,.0f} kW of {group.heat / 1000:,.0f} kW"
        else:
            why = ""
        if why:
            out.shortfalls.append(Shortfall(group, capacity if group.live else 0.0, why))
            for rack in group.racks:
                if rack.index not in hit and rack.loop_heat > 0:
                    hit.add(rack.index)
                    out.racks.append(RackImpact(rack, "trip", f"thermal trip: {why}"))
    for group in plant.groups:
        for rack in group.racks:
            if rack.index in hit:
                continue
            why = too_warm(group, rack)
            if why:
                hit.add(rack.index)
                out.racks.append(RackImpact(rack, "throttle", why))
    return out


def too_warm(group: GroupState, rack: RackFacts) -> str:
    """Why ``rack``'s nodes throttle on ``group``'s coolant, or ""."""
    supply = group.supply
    if supply is None:
        return ""
    for dev in rack.devices:
        dtype = dev.type
        if dtype is None or dev.liquid_heat <= 0:
            continue
        most = dtype.max_supply_temperature
        if most is not None and supply > most:
            return f"coolant supply {supply:.1f} °C above {dev.device.model}'s {float(most):g} °C"
    back = group.return_temperature
    if back is None:
        return ""
    for cdu in group.live:
        most = cdu.type.max_return_temperature if cdu.type is not None else None
        if most is not None and back > most:
            return f"secondary return {back:.1f} °C above CDU {cdu.id}'s {float(most):g} °C"
    return ""
