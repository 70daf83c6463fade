"""Facts per rack: load, heat, weight, units, feed capacity per side and line currents.

Pure functions of a rack, its devices' facts and a way to find a device elsewhere
(a rack's CDU stands in another rack): :func:`rack_facts` recomputes one rack
without touching the others, which is what incremental checking needs.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Protocol

from rackdesigner.analysis.cdu_groups import cdu_groups
from rackdesigner.analysis.devices import liquid_fraction
from rackdesigner.analysis.facts import (
    ZERO_DRAW_KINDS,
    CduLoad,
    DeviceFacts,
    FeedFacts,
    PhaseConflict,
    RackFacts,
)
from rackdesigner.analysis.geometry import RackPlace
from rackdesigner.analysis.power_sides import (
    SQRT3,
    feed_derate,
    feed_power,
    side_capacity,
    worst_case_shares,
)
from rackdesigner.model.layout import Feed, Rack

if TYPE_CHECKING:
    from rackdesigner.analysis.failures import RackPower


def rack_facts(
    rack: Rack,
    index: int,
    place: RackPlace,
    devices: Sequence[DeviceFacts],
    thresholds: dict[str, float],
    lookup: Callable[[str], DeviceFacts | None],
    failed: Collection[str] = (),
) -> RackFacts:
    """The facts of ``rack`` over its devices' facts, whose heat split (liquid and air) it
    sets, since that depends on the rack's cooling. ``lookup`` finds a device by id
    anywhere in the layout (the CDU a rack names); ``failed``: device ids that have failed
    (what-if): a failed rear door takes no heat."""
    facts = RackFacts(rack, index, place)
    facts.devices.extend(devices)
    for dev in devices:
        dev.liquid_heat = dev.air_heat = 0.0
    cooling = rack.cooling_mode
    occupied: set[int] = set()
    for dev in facts.devices:
        if dev.power is None:
            if dev.type is not None:
                facts.unknown_power.append(dev)
        else:
            facts.load += dev.power
            facts.estimated_power |= dev.power_estimated
            heat = dev.power
            if cooling == "liquid":
                dev.liquid_heat = heat * liquid_fraction(dev)
            elif cooling == "immersion":
                dev.liquid_heat = heat
            dev.air_heat = heat - dev.liquid_heat
            facts.liquid_heat += dev.liquid_heat
            facts.air_heat += dev.air_heat
        if dev.weight is None:
            if dev.type is not None and dev.type.kind not in ZERO_DRAW_KINDS:
                facts.unknown_weight.append(dev)
        else:
            facts.weight += dev.weight
        if dev.mounted and dev.device.position is not None:
            # Two half-depth devices on opposite faces share a unit: count units, not
            # heights.
            start = dev.device.position
            occupied.update(range(start, start + max(1, round(dev.height_u))))
        if dev.is_gpu_node:
            facts.gpu_nodes += 1
        facts.gpus += dev.gpus
    facts.units_used = float(len(occupied))
    if cooling in ("rear-door", "liquid") and rack.door:
        _door(facts, rack.door, lookup, failed)
    if rack.cdu:
        facts.cdus = [lookup(cdu) for cdu in rack.cdus]
        facts.cdu = facts.cdus[0] if facts.cdus else None
    _feeds(facts, thresholds)
    return facts


def _door(
    facts: RackFacts,
    name: str,
    lookup: Callable[[str], DeviceFacts | None],
    failed: Collection[str],
) -> None:
    """The rear door's share of the heat: its coil takes the air heat, up to its capacity,
    to chilled water. (v1.3) A liquid rack may name one too: it takes the residual air heat
    the cold plates leave (an NVL72 rack's fans, NICs and switch trays), and COOL001 judges
    what is left. A failed door (what-if) takes nothing."""
    door = _find_in(facts, name, lookup)
    facts.door = door
    facts.door_failed = door is not None and door.id in failed
    if door is None or door.type is None or door.type.kind != "rear-door" or facts.door_failed:
        return
    removed = min(facts.air_heat, float(door.type.capacity or 0.0))
    facts.air_heat -= removed
    facts.liquid_heat += removed
    facts.door_heat = removed


def _find_in(
    facts: RackFacts, device_id: str, lookup: Callable[[str], DeviceFacts | None]
) -> DeviceFacts | None:
    for dev in facts.devices:
        if dev.device.id == device_id:
            return dev
    return lookup(device_id)


def _feeds(facts: RackFacts, thresholds: dict[str, float]) -> None:
    feeds = facts.rack.feeds
    if not feeds:
        return
    power_factor = thresholds["power_factor"]
    for feed in feeds:
        voltage = float(feed.voltage or 0.0)
        derate = feed_derate(feed, thresholds)
        wiring = feed.effective_wiring
        # A feed of S kVA delivers S × PF kW (v1.1).
        capacity = feed_power(
            voltage,
            float(feed.current or 0.0),
            feed.phases,
            derate=derate,
            power_factor=power_factor,
        )
        if feed.outlet_voltage is not None:
            outlet = float(feed.outlet_voltage)
        elif wiring == "wye":
            outlet = voltage / SQRT3
        else:
            outlet = voltage
        facts.feeds.append(FeedFacts(feed, capacity, derate, outlet, wiring, feed.side or ""))
    # k ≥ 2 sides: (k − 1) × the smallest side; else the feeds add up (v1.1).
    sides = side_capacity(feeds, [f.capacity for f in facts.feeds])
    facts.side_capacity = dict(sides.sides)
    facts.capacity = sides.capacity
    for part in worst_case_shares(feeds):
        _phase_loads(facts, [facts.feeds[i] for i in part.feeds], part.share, power_factor)


def _phase_loads(
    facts: RackFacts, group: list[FeedFacts], share: float, power_factor: float
) -> None:
    """Line currents of each feed in its worst case: its side carrying ``share`` of the
    rack's load per feed (rules.md v1.1, Phase load); currents are P ÷ (V × PF)."""
    for feed in group:
        _feed_lines(facts, feed, lambda dev: share, power_factor)


def running_loads(facts: RackFacts, running: RackPower, power_factor: float) -> None:
    """Each feed's load and line currents as the rack runs with parts lost (what-if): a
    dead feed carries nothing, a live one its share of each device (:meth:`RackPower.share`),
    no further loss assumed."""
    for number, feed in enumerate(facts.feeds):
        feed.load, feed.lines, feed.imbalance = 0.0, {}, None
        if number not in running.dead:
            _feed_lines(facts, feed, partial(_share, running, number), power_factor)


def _share(running: RackPower, feed: int, dev: DeviceFacts) -> float:
    return running.share(dev, feed)


def _feed_lines(
    facts: RackFacts,
    feed: FeedFacts,
    share_of: Callable[[DeviceFacts], float],
    power_factor: float,
) -> None:
    """One feed's load and line currents, ``share_of(device)`` of each device's draw on it."""
    voltage = float(feed.feed.voltage or 0.0) * power_factor
    if voltage <= 0:
        return
    lines: dict[str, float] = defaultdict(float)
    load = 0.0
    for dev in facts.devices:
        phase = dev.device.phase
        if phase:
            reason = phase_misfit(phase, feed.wiring)
            if reason is not None:
                # Wrong whatever the device draws; its load spreads evenly instead.
                _conflict(facts, dev, feed.feed, reason)
                phase = None
        if not dev.power:
            continue
        power = dev.power * share_of(dev)
        load += power
        _add_current(lines, power, voltage, feed.wiring, phase)
    if feed.wiring == "delta":
        i12, i23, i31 = lines["L1-L2"], lines["L2-L3"], lines["L3-L1"]
        lines = {
            "L1": math.sqrt(i12 * i12 + i31 * i31 + i12 * i31),
            "L2": math.sqrt(i12 * i12 + i23 * i23 + i12 * i23),
            "L3": math.sqrt(i23 * i23 + i31 * i31 + i23 * i31),
        }
    elif feed.wiring == "wye":
        lines = {line: lines.get(line, 0.0) for line in ("L1", "L2", "L3")}
    if load >= feed.load:  # a shared feed belongs to every side; keep the worst
        feed.load = load
        feed.lines = dict(lines)
        if feed.wiring is not None and load > 0:
            average = sum(lines.values()) / 3
            feed.imbalance = max(abs(i - average) for i in lines.values()) / average


def _add_current(
    lines: dict[str, float], power: float, voltage: float, wiring: str | None, phase: str | None
) -> None:
    """``power`` (W) drawn at ``voltage`` (V × PF) onto the lines of a feed of ``wiring``."""
    if wiring is None:
        lines["L"] += power / voltage
    elif wiring == "wye":
        if phase:
            lines[phase] += power / (voltage / SQRT3)
        else:
            for line in ("L1", "L2", "L3"):
                lines[line] += power / 3 / (voltage / SQRT3)
    elif phase:
        lines[phase] += power / voltage
    else:
        for pair in ("L1-L2", "L2-L3", "L3-L1"):
            lines[pair] += power / 3 / voltage


def _conflict(facts: RackFacts, dev: DeviceFacts, feed: Feed, reason: str) -> None:
    if not any(c.device is dev and c.feed is feed for c in facts.phase_conflicts):
        facts.phase_conflicts.append(PhaseConflict(dev, feed, reason))


def phase_misfit(phase: str, wiring: str | None) -> str | None:
    """Why a device's ``phase`` does not fit a feed's wiring (None: it fits)."""
    if wiring is None:
        return "a single-phase feed has no phases"
    if wiring == "wye" and "-" in phase:
        return f"{phase} is a line-to-line pair but the feed is wye (use L1, L2 or L3)"
    if wiring == "delta" and "-" not in phase:
        return f"{phase} is a line but the feed is delta (use L1-L2, L2-L3 or L3-L1)"
    return None


def cdu_named(rack: RackFacts) -> tuple[str, ...]:
    """The ids of the CDUs a rack names that are CDUs (kind "cdu"): what groups it."""
    return tuple(
        cdu.id
        for cdu in rack.cdus
        if cdu is not None and cdu.type is not None and cdu.kind == "cdu"
    )


def cdu_loads(racks: Sequence[RackFacts], lost: Collection[str] = ()) -> list[CduLoad]:
    """Each CDU group (the CDUs racks name together; lists that share a CDU join), with
    the liquid heat of every rack it serves. Only devices of kind "cdu" count.

    ``racks`` may be some of a layout's racks, in order, as long as every rack of a group
    is among them (:func:`cdu_loads_after` passes the racks of the groups an edit
    touched): groups come in the order of their first rack, so those of a part of the
    racks are the whole layout's groups over that part."""
    named: list[list[str]] = []
    by_id: dict[str, DeviceFacts] = {}
    for rack in racks:
        ids = []
        for cdu in rack.cdus:
            if cdu is not None and cdu.type is not None and cdu.kind == "cdu":
                by_id.setdefault(cdu.id, cdu)
                ids.append(cdu.id)
        named.append(ids)
    loads = [
        _load([by_id[c] for c in group.cdus], [racks[index] for index in group.racks])
        for group in cdu_groups(named)
    ]
    if lost:  # (what-if) failed CDUs carry nothing
        for load in loads:
            load.lost = frozenset(c.id for c in load.cdus if c.id in lost)
    return loads


def _load(cdus: list[DeviceFacts], racks: list[RackFacts]) -> CduLoad:
    """A group's load over its racks, in their order (the heat summed in that order: the
    figures of a group recomputed alone are those of the whole layout's pass)."""
    load = CduLoad(cdus)
    for rack in racks:
        load.racks.append(rack)
        load.indexes.add(rack.index)
        load.heat += rack.loop_heat  # a rear door's heat goes to chilled water, not the CDU
        load.heat_unknown |= rack.load_unknown
    return load


def cdu_loads_after(
    loads: Sequence[CduLoad],
    racks: Sequence[RackFacts],
    touched: Mapping[int, tuple[str, ...]],
    group_of: Callable[[int], CduLoad | None],
) -> tuple[list[CduLoad], list[CduLoad], list[CduLoad]]:
    """``loads`` (:func:`cdu_loads` before an edit) after the racks at the indexes
    ``touched`` got new facts, each index mapped to what the rack named before
    (:func:`cdu_named`); equal to ``cdu_loads(racks)``. The racks must be the same racks
    at the same indexes, their devices' ids unique (the common edit: a device moved, a
    field set); ``group_of`` gives a rack index's group in ``loads``.

    Returns the new loads, the groups dropped and the groups added. Only the touched
    racks' groups are recomputed: when no rack names other CDUs, each such group keeps its
    racks and CDUs and only its figures change; otherwise the groups the touched racks
    were in or now join are grouped again, over their racks only (a union-find over a
    handful of racks instead of every rack of the hall)."""
    old = {id(load): load for index in touched if (load := group_of(index)) is not None}
    if all(cdu_named(racks[index]) == was for index, was in touched.items()):
        added = []
        for load in old.values():
            members = [racks[rack.index] for rack in load.racks]
            by_id: dict[str, DeviceFacts] = {}
            for rack in members:
                for cdu in rack.cdus:
                    if cdu is not None and cdu.type is not None and cdu.kind == "cdu":
                        by_id.setdefault(cdu.id, cdu)
            added.append(_load([by_id[cdu.id] for cdu in load.cdus], members))
    else:
        named = {cdu for index in touched for cdu in cdu_named(racks[index])}
        for load in loads:  # groups, not racks: a hundred or so in a hall
            if id(load) not in old and any(cdu.id in named for cdu in load.cdus):
                old[id(load)] = load
        indexes = set(touched)
        for load in old.values():
            indexes.update(load.indexes)
        added = cdu_loads([racks[index] for index in sorted(indexes)])
    if not old and not added:
        return list(loads), [], []
    kept = [load for load in loads if id(load) not in old]
    new = sorted([*kept, *added], key=_first_rack)
    return new, list(old.values()), added


def _first_rack(load: CduLoad) -> int:
    return load.racks[0].index


class LoadFigures(Protocol):
    """What the cooling verdict reads of a CDU group: a :class:`CduLoad`, or its figures
    computed once (an analysis keeps those per rack)."""

    @property
    def capacity(self) -> float | None: ...
    @property
    def heat(self) -> float: ...
    @property
    def indexes(self) -> Collection[int]: ...
    @property
    def margin(self) -> float | None: ...


def cooling_verdict(
    rack: RackFacts, thresholds: dict[str, float], loads: Sequence[LoadFigures]
) -> str:
    """In a word or three, whether the rack's heat has somewhere to go."""
    limit = thresholds["air_cooling_max"]
    mode = rack.cooling
    if mode == "air":
        return "ok" if rack.air_heat <= limit else "over the air limit"
    if mode == "liquid":
        if not rack.cdus or any(c is None or c.kind != "cdu" for c in rack.cdus):
            return "no CDU"
        if rack.air_heat > limit:
            return "residual air over the limit"
        for load in loads:
            if load.capacity is None or rack.index not in load.indexes:
                continue
            if load.heat > load.capacity:
                return "CDU over capacity"
            if load.margin is not None and load.margin < 0:
                return "CDUs not N+1"
        return "ok"
    if mode == "rear-door":
        door = rack.door
        if door is None or door.type is None or door.type.kind != "rear-door":
            return "no rear door"
        capacity = float(door.type.capacity or 0.0)
        return "ok" if rack.heat <= capacity else "over the door's capacity"
    return "ok"
