"""What a failure does: devices down or degraded, heat without cooling, the fabric left.

:func:`what_if` is a pure function of an analysis and a list of failures; a
:class:`WhatIf` keeps what every failure of one layout shares (the fabric figures before)
so that :meth:`WhatIf.rank` runs every single failure of a kind cheaply. A failure touches
few racks: only those racks' power and heat are derived again, and the fabric only when a
switch, a node or a cable is gone.

The model (docs/whatif.md):

- **Power.** A feed is dead when it failed (or its side did) or when every PDU on it failed
  (``pdu_feeds``: a PDU's ``feed``, else round-robin). With k ≥ 2 sides a side is dead when
  all its feeds are; a device's PSUs go round-robin over the sides in label order
  (``psu_split``) and it keeps those on live sides: none left is **down**, fewer than
  ``psus_required`` is **degraded** (power-capped). A type without ``psus`` is taken as
  corded to every side. With one side or none the devices are down when every feed is.
  A live side that must now carry more than its feeds deliver is a power shortfall.
- **Cooling.** A CDU (failed, or down) leaves its group the other CDUs' capacity; a lost rear
  door sends its rack's heat to the room air. Down devices make no heat; degraded ones are
  counted at full heat.
- **Fabric.** Failed and down switches and nodes and failed cables leave the fabric graph;
  the figures (bisection, expected bus bandwidth) are those of the largest part left (by
  GPUs), the part the largest full-size job runs on. GPU nodes outside it are cut off;
  nodes in it with fewer cables than before have a rail cut.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from rackdesigner.analysis.fabric_graph import build_fabrics
from rackdesigner.analysis.facts import ZERO_DRAW_KINDS
from rackdesigner.analysis.power_sides import pdu_feeds, psu_split, side_labels
from rackdesigner.whatif.parts import Failure, Lost, PartIndex, candidates, resolve

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis, DeviceFacts, RackFacts
    from rackdesigner.analysis.fabric_graph import Fabric
    from rackdesigner.model.diagnostics import Diagnostic
    from rackdesigner.model.layout import Layout
    from rackdesigner.topology.figures import FabricFigures
    from rackdesigner.whatif.incremental import Grouped

EPSILON = 1e-6  # W and bit/s: below this a difference is rounding


@dataclass(frozen=True, slots=True)
class DeviceLoss:
    id: str
    rack: str
    kind: str | None
    gpus: int
    psus: int  # PSUs it has (1 where the type does not say)
    psus_left: int  # on live sides
    required: int | None  # psus_required
    why: str  # "rack lost", "failed", "no powered PSU", "fewer PSUs than needed"


@dataclass(frozen=True, slots=True)
class PowerShort:
    rack: str
    side: str  # "" without sides
    load: float  # W the live feeds of that side must now carry
    capacity: float  # W they deliver

    @property
    def over(self) -> float:
        return self.load - self.capacity


@dataclass(frozen=True, slots=True)
class CoolingLoss:
    racks: tuple[str, ...]  # () for the room's air
    cause: str  # "CDU cdu-1 lost", "rear door a01-door lost", "room air"
    heat: float  # W that must go somewhere
    capacity: float  # W the cooling left takes

    @property
    def over(self) -> float:
        return self.heat - self.capacity


@dataclass(slots=True)
class FabricImpact:
    name: str
    gpus: int  # GPUs in the fabric before
    switches: int
    switches_lost: int
    cables: int
    cables_lost: int
    nodes_down: int
    cut_off: list[str] = field(default_factory=list)  # live GPU nodes outside the largest part
    gpus_cut_off: int = 0
    largest_gpus: int = 0  # GPUs still all connected (the largest full-size job)
    rails_cut: list[str] = field(default_factory=list)  # nodes in it with fewer cables
    bisection: float = 0.0  # bit/s before
    bisection_left: float = 0.0  # bit/s, the largest part's
    bus: float | None = None  # bit/s expected all-reduce bus bandwidth between nodes, before
    bus_left: float | None = None

    @property
    def bisection_ratio(self) -> float | None:
        return self.bisection_left / self.bisection if self.bisection > 0 else None


@dataclass(slots=True)
class Impact:
    failures: list[Failure]
    down: list[DeviceLoss] = field(default_factory=list)
    degraded: list[DeviceLoss] = field(default_factory=list)
    power: list[PowerShort] = field(default_factory=list)
    cooling: list[CoolingLoss] = field(default_factory=list)
    fabrics: list[FabricImpact] = field(default_factory=list)
    # Rule findings of the failed layout that the layout did not have (None: not run).
    findings: list[Diagnostic] | None = None

    @property
    def gpus_down(self) -> int:
        return sum(d.gpus for d in self.down)

    @property
    def gpus_degraded(self) -> int:
        return sum(d.gpus for d in self.degraded)

    @property
    def gpus_cut_off(self) -> int:
        return sum(f.gpus_cut_off for f in self.fabrics)

    @property
    def gpus_lost(self) -> int:
        """GPUs down, degraded or cut off from their fabric's largest part: what ranks."""
        return self.gpus_down + self.gpus_degraded + self.gpus_cut_off

    @property
    def worst_bisection(self) -> float | None:
        ratios = [f.bisection_ratio for f in self.fabrics if f.bisection_ratio is not None]
        return min(ratios) if ratios else None

    @property
    def harmless(self) -> bool:
        return not (self.gpus_lost or self.power or self.cooling) and all(
            f.switches_lost == 0 and f.cables_lost == 0 for f in self.fabrics
        )


def what_if(analysis: Analysis, failures: Sequence[Failure], *, findings: bool = False) -> Impact:
    """What ``failures`` do to the layout ``analysis`` is of (a :class:`PartError` for a
    failure that names no part). ``findings``: also run the rules on the failed layout and
    keep the findings it has that the layout has not (slower: two checks)."""
    return WhatIf(analysis).run(failures, findings=findings)


class FabricBudget(Exception):
    """More fabric work than :attr:`WhatIf.fabric_budget` allows (the report's bound)."""


class WhatIf:
    """Failures of one layout; shares the fabric figures before between failures.

    ``fabric_budget``: fabric edges the failures may rebuild in all, beyond which
    :class:`FabricBudget` is raised (None: no bound)."""

    def __init__(self, analysis: Analysis, *, fabric_budget: int | None = None) -> None:
        self.analysis = analysis
        self.fabric_budget = fabric_budget
        self._index: PartIndex | None = None
        self._before: dict[int, FabricFigures] = {}
        self._fabric_of: dict[str, Fabric] | None = None
        self._air: float | None = None
        self._checked: tuple[Grouped, list[Diagnostic]] | None = None  # the layout's findings

    # -- one scenario ----------------------------------------------------------------------

    def run(self, failures: Sequence[Failure], *, findings: bool = False) -> Impact:
        if self._index is None:
            self._index = PartIndex(self.analysis)
        lost = resolve(self.analysis, failures, self._index)
        impact = Impact(list(failures))
        gone = self._power(lost, impact)
        self._cooling(lost, gone, impact)
        self._fabric(lost, gone, impact)
        if findings:
            impact.findings = self._findings(lost, gone)
        return impact

    def rank(self, kind: str, *, findings: bool = False) -> list[Impact]:
        """Every single failure of ``kind``, worst first: by GPUs lost, then the bisection
        left, then cooling and power shortfalls; ties in layout order. ``findings``: each
        failure's new findings too (the rules run again where the failure changed the
        layout: about a check per failure where it takes a whole side)."""
        impacts = [
            self.run([failure], findings=findings) for failure in candidates(self.analysis, kind)
        ]
        order = {id(impact): number for number, impact in enumerate(impacts)}

        def key(impact: Impact) -> tuple[Any, ...]:
            ratio = impact.worst_bisection
            return (
                -impact.gpus_lost,
                ratio if ratio is not None else 1.0,
                -sum(c.over for c in impact.cooling),
                -sum(p.over for p in impact.power),
                order[id(impact)],
            )

        return sorted(impacts, key=key)

    # -- power -----------------------------------------------------------------------------

    def _power(self, lost: Lost, impact: Impact) -> _Gone:
        """Devices down and degraded in the racks the failures touch."""
        analysis = self.analysis
        gone = _Gone()
        for ident in lost.devices:
            dev = analysis.device_by_id[ident]
            gone.down.add(ident)
            impact.down.append(_loss(dev, 0, "failed"))
        for index in sorted(lost.touched_racks(analysis)):
            rack = analysis.racks[index]
            gone.racks.add(index)
            if index in lost.racks:
                for dev in rack.devices:
                    if dev.id not in gone.down:
                        gone.down.add(dev.id)
                        if dev.type is not None and dev.kind not in ZERO_DRAW_KINDS:
                            impact.down.append(_loss(dev, 0, "rack lost"))
                continue
            self._rack_power(rack, lost, gone, impact)
        return gone

    def _rack_power(self, rack: RackFacts, lost: Lost, gone: _Gone, impact: Impact) -> None:
        feeds = rack.rack.feeds
        if not feeds:
            return
        index = rack.index
        pdus = [d for d in rack.devices if d.kind == "pdu"]
        on_feed = pdu_feeds([d.device for d in pdus], feeds)
        live_pdus: dict[str, bool] = {}
        for pdu in pdus:
            feed_id = on_feed.get(pdu.id)
            if feed_id is not None:
                alive = pdu.id not in lost.devices
                live_pdus[feed_id] = live_pdus.get(feed_id, False) or alive
        live = [
            (index, number) not in lost.feeds and live_pdus.get(feed.id, True)
            for number, feed in enumerate(feeds)
        ]
        for pdu in pdus:  # a PDU on a dead feed carries nothing (not counted as a loss)
            feed_id = on_feed.get(pdu.id)
            if feed_id is not None and not any(
                ok for ok, feed in zip(live, feeds, strict=True) if feed.id == feed_id
            ):
                gone.dead_pdus.add(pdu.id)
        labels = side_labels(feeds)
        capacity = {f.feed.id: f.capacity for f in rack.feeds}
        if len(labels) >= 2:
            side_live = {
                label: any(ok for ok, f in zip(live, feeds, strict=True) if f.side == label)
                for label in labels
            }
            side_capacity = dict.fromkeys(labels, 0.0)
            for ok, feed in zip(live, feeds, strict=True):
                if ok and feed.side:
                    side_capacity[feed.side] += capacity.get(feed.id, 0.0)
            keys = labels
        else:
            counted = [ok for ok, f in zip(live, feeds, strict=True) if not labels or f.side]
            side_live = {"": any(counted)}
            side_capacity = {
                "": sum(
                    capacity.get(f.id, 0.0)
                    for ok, f in zip(live, feeds, strict=True)
                    if ok and (not labels or f.side)
                )
            }
            keys = [""]
        if all(side_live.values()) and all(live):
            return  # nothing lost here (a PDU lost beside another on its feed)
        side_load = dict.fromkeys(keys, 0.0)
        for dev in rack.devices:
            dtype = dev.type
            if dtype is None or dev.kind in ZERO_DRAW_KINDS or dev.kind == "pdu":
                continue
            if dev.id in gone.down:
                continue
            psus = dtype.psus or 0
            # No PSU count: taken as corded to every side.
            split = psu_split(psus, len(keys)) if psus else [1] * len(keys)
            left = sum(n for n, key in zip(split, keys, strict=True) if side_live[key])
            if left == 0:
                gone.down.add(dev.id)
                impact.down.append(_loss(dev, 0, "no powered PSU"))
                continue
            required = dtype.psus_required
            if psus and required and left < required:
                gone.degraded.add(dev.id)
                impact.degraded.append(_loss(dev, left, "fewer PSUs than needed"))
            power = dev.power or 0.0
            if not power:
                continue
            for n, key in zip(split, keys, strict=True):
                if side_live[key]:
                    side_load[key] += power * n / left
        for key in keys:
            if side_live[key] and side_load[key] > side_capacity[key] + EPSILON:
                impact.power.append(
                    PowerShort(rack.rack.id, key, side_load[key], side_capacity[key])
                )

    # -- cooling ---------------------------------------------------------------------------

    def _cooling(self, lost: Lost, gone: _Gone, impact: Impact) -> None:
        analysis = self.analysis
        dead = gone.down
        cdus_lost = {i for i in dead if (d := analysis.device_by_id.get(i)) and d.kind == "cdu"}
        doors_lost = {
            i for i in dead if (d := analysis.device_by_id.get(i)) and d.kind == "rear-door"
        }
        heat_cache: dict[int, tuple[float, float, float]] = {}

        def heat(rack: RackFacts) -> tuple[float, float, float]:
            """(heat, to liquid, to air) after the failures."""
            found = heat_cache.get(rack.index)
            if found is None:
                found = heat_cache[rack.index] = _heat_after(rack, gone, lost, doors_lost)
            return found

        if cdus_lost:
            for load in analysis.cdu_loads:
                names = [c.id for c in load.cdus if c.id in cdus_lost]
                capacities = load.capacities
                if not names or capacities is None:
                    continue
                left = sum(
                    c
                    for cdu, c in zip(load.cdus, capacities, strict=True)
                    if cdu.id not in cdus_lost
                )
                racks = [r for r in load.racks if r.index not in lost.racks]
                liquid = sum(heat(r)[1] for r in racks)
                if liquid > left + EPSILON:
                    which = " + ".join(names)
                    impact.cooling.append(
                        CoolingLoss(
                            tuple(r.rack.id for r in racks if heat(r)[1] > 0),
                            f"CDU{'s' if len(names) > 1 else ''} {which} lost",
                            liquid,
                            left,
                        )
                    )
        limit = analysis.thresholds["air_cooling_max"]
        if doors_lost:
            for rack in analysis.racks:
                door = rack.door
                if (
                    door is None
                    or door.id not in doors_lost
                    or rack.cooling != "rear-door"
                    or rack.index in lost.racks
                ):
                    continue
                _, _, air = heat(rack)
                if air > limit + EPSILON:
                    impact.cooling.append(
                        CoolingLoss((rack.rack.id,), f"rear door {door.id} lost", air, limit)
                    )
        site = analysis.layout.site
        room = site.cooling_capacity if site is not None else None
        if room is not None and (gone.racks or doors_lost):
            before = self._air_before()
            after = before
            with_doors = (
                {r.index for r in analysis.racks if r.door is not None and r.door.id in doors_lost}
                if doors_lost
                else set()
            )
            for index in gone.racks | with_doors:
                rack = analysis.racks[index]
                after += heat(rack)[2] - rack.air_heat
            if after > float(room) + EPSILON and after > before + EPSILON:
                impact.cooling.append(CoolingLoss((), "room air", after, float(room)))

    def _air_before(self) -> float:
        if self._air is None:
            self._air = sum(r.air_heat for r in self.analysis.racks)
        return self._air

    # -- fabric ----------------------------------------------------------------------------

    def _fabric(self, lost: Lost, gone: _Gone, impact: Impact) -> None:
        analysis = self.analysis
        removed = gone.down
        edges = analysis.compute_edges
        fabric_of = self._fabrics_by_device()
        touched: set[int] = set()
        for ident in removed:
            fabric = fabric_of.get(ident)
            if fabric is not None:
                touched.add(fabric.index)
        links = analysis.links
        for number in lost.links:
            link = links[number]
            if link.compute and link.a.device is not None:
                fabric = fabric_of.get(link.a.device.id)
                if fabric is not None:
                    touched.add(fabric.index)
        if not touched:
            return
        if self.fabric_budget is not None:
            self.fabric_budget -= len(edges)
            if self.fabric_budget < 0:
                raise FabricBudget
        new_edges: dict[tuple[str, str], dict[str, Any]] = {}
        for pair, data in edges.items():
            a, b = pair
            if a in removed or b in removed:
                continue
            fabric = fabric_of.get(a)
            if fabric is None or fabric.index not in touched:
                continue  # another fabric: left as it is
            cables = data["links"]
            if lost.links and any(c.index in lost.links for c in cables):
                cables = [c for c in cables if c.index not in lost.links]
                if not cables:
                    continue
                data = {
                    "links": cables,
                    "count": len(cables),
                    "bandwidth": sum(c.speed or 0.0 for c in cables),
                }
            new_edges[pair] = data
        kept_links = [
            link
            for link in links
            if link.compute
            and link.a.device is not None
            and link.b.device is not None
            and link.a.device is not link.b.device
            and link.index not in lost.links
            and link.a.device.id not in removed
            and link.b.device.id not in removed
            and (fabric := fabric_of.get(link.a.device.id)) is not None
            and fabric.index in touched
        ]
        parts = build_fabrics(kept_links, new_edges, analysis.device_by_id)
        adj: dict[str, dict[str, float]] = {}
        for (a, b), data in new_edges.items():
            adj.setdefault(a, {})[b] = data["bandwidth"]
            adj.setdefault(b, {})[a] = data["bandwidth"]
        efficiency = analysis.thresholds["nccl_efficiency"]
        from rackdesigner.topology.figures import fabric_figures

        by_origin: dict[int, list[Fabric]] = {}
        for part in parts:
            origin = fabric_of[part.devices[0].id]
            by_origin.setdefault(origin.index, []).append(part)
        for fabric in analysis.fabrics:
            if fabric.index not in touched:
                continue
            before = self._figures_before(fabric)
            mine = by_origin.get(fabric.index, [])
            largest = max(mine, key=lambda p: p.gpus, default=None)
            kept_cables = sum(len(p.links) for p in mine)
            result = FabricImpact(
                name=fabric.name,
                gpus=fabric.gpus,
                switches=len(fabric.switches),
                switches_lost=sum(1 for s in fabric.switches if s in removed),
                cables=len(fabric.links),
                cables_lost=len(fabric.links) - kept_cables,
                nodes_down=sum(1 for n in fabric.nodes if n.id in removed),
                bisection=before.bisection.bandwidth,
                bus=before.inter,
            )
            inside = {n.id for n in largest.nodes} if largest is not None else set()
            for node in fabric.nodes:
                if node.id in removed:
                    continue
                if node.id not in inside:
                    result.cut_off.append(node.id)
                    result.gpus_cut_off += node.gpus
                elif largest is not None and largest.node_bandwidth.get(node.id, 0.0) < (
                    fabric.node_bandwidth.get(node.id, 0.0) - EPSILON
                ):
                    result.rails_cut.append(node.id)
            if largest is not None and largest.nodes:
                after = fabric_figures(analysis, largest, adj, efficiency)
                result.largest_gpus = largest.gpus
                result.bisection_left = after.bisection.bandwidth
                result.bus_left = after.inter
            impact.fabrics.append(result)

    def _fabrics_by_device(self) -> dict[str, Fabric]:
        if self._fabric_of is None:
            self._fabric_of = {
                dev.id: fabric for fabric in self.analysis.fabrics for dev in fabric.devices
            }
        return self._fabric_of

    def _figures_before(self, fabric: Fabric) -> FabricFigures:
        found = self._before.get(fabric.index)
        if found is None:
            from rackdesigner.topology.figures import adjacency, fabric_figures

            analysis = self.analysis
            efficiency = analysis.thresholds["nccl_efficiency"]
            found = self._before[fabric.index] = fabric_figures(
                analysis, fabric, adjacency(analysis), efficiency
            )
        return found

    # -- findings --------------------------------------------------------------------------

    def _findings(self, lost: Lost, gone: _Gone) -> list[Diagnostic]:
        """The failed layout's findings that the layout has not: the layout is checked once
        (its findings kept per scope), each failed layout only where it differs
        (:mod:`rackdesigner.whatif.incremental`)."""
        from rackdesigner.analysis import Analysis
        from rackdesigner.check.suppressions import baseline_key
        from rackdesigner.whatif.incremental import Incremental, grouped_check

        layout = self.analysis.layout
        if self._checked is None:
            grouped = grouped_check(self.analysis)
            self._checked = grouped, grouped.findings(layout)
        grouped, before = self._checked
        failed = failed_layout(layout, lost, gone.down | gone.dead_pdus)
        plan = Incremental(layout, failed)
        after = plan.check(Analysis(failed)).complete(grouped, failed)
        known = Counter(baseline_key(d) for d in before if not d.suppressed)
        new = []
        for diagnostic in after:
            if diagnostic.suppressed:
                continue
            key = baseline_key(diagnostic)
            if known[key] > 0:
                known[key] -= 1
            else:
                new.append(diagnostic)
        return new


@dataclass(slots=True)
class _Gone:
    down: set[str] = field(default_factory=set)  # device ids: failed or without power
    degraded: set[str] = field(default_factory=set)
    dead_pdus: set[str] = field(default_factory=set)
    racks: set[int] = field(default_factory=set)  # indexes whose power was derived again


def _loss(dev: DeviceFacts, left: int, why: str) -> DeviceLoss:
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


def _heat_after(
    rack: RackFacts, gone: _Gone, lost: Lost, doors_lost: set[str]
) -> tuple[float, float, float]:
    """A rack's heat, to liquid and to air once the failures take devices (and its door)
    away; as :func:`rackdesigner.analysis.racks.rack_facts` splits it."""
    if rack.index in lost.racks:
        return 0.0, 0.0, 0.0
    door_lost = rack.door is not None and rack.door.id in doors_lost
    if rack.index not in gone.racks and not door_lost:
        return rack.heat, rack.liquid_heat, rack.air_heat
    heat = liquid = air = 0.0
    for dev in rack.devices:
        if dev.id in gone.down or dev.power is None:
            continue
        heat += dev.power
        liquid += dev.liquid_heat
        air += dev.air_heat
    door = rack.door
    if (
        rack.cooling == "rear-door"
        and door is not None
        and not door_lost
        and door.type is not None
        and door.kind == "rear-door"
    ):
        removed = min(air, float(door.type.capacity or 0.0))
        air -= removed
        liquid += removed
    return heat, liquid, air


def failed_layout(layout: Layout, lost: Lost, removed: Iterable[str]) -> Layout:
    """The layout with the failed parts taken out: failed racks, failed feeds, the devices
    ``removed`` (failed or without power) and the cables to them and failed cables. The
    model objects that do not change are shared."""
    gone = set(removed)
    racks = []
    for index, rack in enumerate(layout.racks):
        if index in lost.racks:
            gone.update(d.id for d in rack.devices)
            continue
        feeds = [f for number, f in enumerate(rack.feeds) if (index, number) not in lost.feeds]
        devices = [d for d in rack.devices if d.id not in gone]
        if len(feeds) == len(rack.feeds) and len(devices) == len(rack.devices):
            racks.append(rack)
        else:
            racks.append(replace(rack, feeds=feeds, devices=devices))
    links = [
        link
        for number, link in enumerate(layout.links)
        if number not in lost.links
        and link.a.partition(":")[0] not in gone
        and link.b.partition(":")[0] not in gone
    ]
    return replace(layout, racks=racks, links=links)
