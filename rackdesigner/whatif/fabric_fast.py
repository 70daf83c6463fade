"""A failure's fabric figures derived from the fabric before, without building it again.

``whatif --each switch`` fails every switch of a hall; building the fabric left and its
figures for each one costs the whole fabric per failure (quadratic in the hall). A failure
that takes a few switches or nodes out of a big fabric changes little of it: the switches
and nodes next to what went, the bisection's flow through it. :class:`FabricBase` keeps
what every failure of one fabric shares and derives each failure's
:class:`~rackdesigner.whatif.results.FabricImpact` from it:

- **Twins.** The fabric's devices are grouped into twins (the same neighbours at the same
  bandwidths, the same half of the leaves), as the bisection's definition merges them
  (:mod:`rackdesigner.topology.bisection`): twins are cabled alike, so the flow on the
  classes is the flow on the devices, whichever twins are merged. A failure takes members
  out of classes (their capacities shrink) and may move a leaf to the other half (a class
  of its own); twins before are twins after, and twins the failure makes (merged by the
  definition, not here) change no flow.
- **Bisection**: the flow before, warm (:class:`~rackdesigner.topology.flow.WarmFlow`): the
  flow the failure takes away is taken back along the paths that carried it, then the
  flow augmented again: the maximum flow of the fabric left.
- **Connectivity** on the class graph (a twin class is joined to each class next to it
  through every member): nothing is cut off where no class empties, or the one that does is
  no articulation point.
- **Expected bus bandwidth** (NET007): the least node bandwidth and the fabric's
  oversubscription, each the fabric before's with the switches and nodes next to the
  failure derived again.

Where a failure would change what this rests on (a switch's tier, a cut-off node, lateral
links, one scalable unit left, fewer than two leaves) it returns
None and the fabric is built again (:class:`rackdesigner.whatif.fabric.FabricLosses`):
the figures are always those of the fabric left, exactly (``tests/whatif/
test_fabric_fast.py`` holds them to it).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rackdesigner.analysis.grouping import Groups
from rackdesigner.topology.collectives import intra_node
from rackdesigner.topology.flow import WarmFlow
from rackdesigner.whatif.domain_bus import DomainBus
from rackdesigner.whatif.results import EPSILON, FabricImpact

if TYPE_CHECKING:
    from rackdesigner.analysis.fabric_graph import Fabric
    from rackdesigner.topology.figures import FabricFigures

Adjacency = Mapping[str, Mapping[str, float]]


@dataclass(slots=True)
class _Classes:
    """The fabric's twin classes and the graph between them."""

    of: dict[str, int]
    members: list[list[str]]
    keys: dict[tuple[Any, ...], int]
    cap: dict[int, dict[int, float]]


class FabricBase:
    """What every failure of one fabric shares (:meth:`impact`); ``ok`` is False where the
    fabric itself is outside what is derived here (every failure rebuilds it)."""

    def __init__(
        self,
        fabric: Fabric,
        before: FabricFigures,
        adj: Adjacency,
        counts: Mapping[tuple[str, str], int],
        efficiency: float,
    ) -> None:
        self.fabric = fabric
        self.before = before
        self.adj = adj
        self.counts = counts
        self.efficiency = efficiency
        self.ok = False
        self.domains: DomainBus | None = None
        switches = fabric.switches
        if fabric.groups or any(s.lateral > 0 for s in switches.values()):
            return  # lateral links: groups and their global ratios are not derived here
        self.tier = {sid: s.tier for sid, s in switches.items()}
        self.nodes = {n.id: n for n in fabric.nodes}
        self.leaves = [d.id for d in fabric.devices if self.tier.get(d.id) == 1]
        self.position = {leaf: i for i, leaf in enumerate(self.leaves)}
        self.half = len(self.leaves) // 2
        if len(self.leaves) < 3 or len(self.nodes) < 3:
            return
        classes = self.classes = self._classes()
        self.source, self.sink = len(classes.members), len(classes.members) + 1
        cap = {c: dict(row) for c, row in classes.cap.items()}
        for leaf in self.leaves:
            c = classes.of[leaf]
            role = (self.source, c) if self._half(leaf) == 1 else (c, self.sink)
            cap.setdefault(role[0], {})[role[1]] = cap.get(role[0], {}).get(role[1], 0.0) + (
                switches[leaf].down
            )
            cap.setdefault(self.source, {}).setdefault(c, 0.0)
            cap.setdefault(c, {}).setdefault(self.sink, 0.0)
        self.flow = WarmFlow(cap, self.source, self.sink)
        self.arcs = sum(len(row) for row in cap.values())  # what a search may look at
        self._flows: dict[frozenset[tuple[tuple[int, int], float]], float] = {}
        wanted = before.bisection.bandwidth
        if abs(self.flow.value - wanted) > 1e-6 * max(1.0, wanted):
            return  # the twins do not give the definition's figure: rebuild each time
        self._prepare_figures()
        self.ok = True

    # -- what the failures share -----------------------------------------------------------

    def _half(self, leaf: str, moved: Collection[str] = ()) -> int:
        """A leaf's half (1 or 2) before the failure, or after it where it is ``moved``."""
        side = 1 if self.position[leaf] < self.half else 2
        return 3 - side if leaf in moved else side

    def _key(self, device: str, neighbours: Collection[str], half: int) -> tuple[Any, ...]:
        """Twins: switch or not, the same half, the same neighbours at the same bandwidths
        (so that every two classes are joined by cables of one bandwidth)."""
        row = self.adj[device]
        return (device in self.tier, half, frozenset((n, row[n]) for n in neighbours))

    def _classes(self) -> _Classes:
        """Twin classes, in device order: twins are cabled alike, so the members of two
        classes are all joined, each pair at one bandwidth."""
        of: dict[str, int] = {}
        members: list[list[str]] = []
        keys: dict[tuple[Any, ...], int] = {}
        adj = self.adj
        for dev in self.fabric.devices:
            ident = dev.id
            if ident not in adj:
                continue
            half = self._half(ident) if ident in self.position else 0
            key = self._key(ident, adj[ident], half)
            number = keys.get(key)
            if number is None:
                number = keys[key] = len(members)
                members.append([])
            members[number].append(ident)
            of[ident] = number
        cap: dict[int, dict[int, float]] = {}
        for ident, number in of.items():
            row = cap.setdefault(number, {})
            for other, bandwidth in adj[ident].items():
                there = of[other]
                row[there] = row.get(there, 0.0) + bandwidth
        return _Classes(of, members, keys, cap)

    def _prepare_figures(self) -> None:
        import networkx as nx

        fabric, classes = self.fabric, self.classes
        graph: nx.Graph[int] = nx.Graph()
        graph.add_nodes_from(range(len(classes.members)))
        graph.add_edges_from((a, b) for a, row in classes.cap.items() for b in row)
        self.articulation = set(nx.articulation_points(graph))
        self.max_tier = fabric.max_tier
        self.top = sum(1 for t in self.tier.values() if t == self.max_tier)
        ratios = []
        for sid, switch in fabric.switches.items():
            ratio = switch.oversubscription
            if ratio is not None and math.isfinite(ratio):
                ratios.append((ratio, sid))
        self.ratios = sorted(ratios, reverse=True)
        bandwidth = fabric.node_bandwidth
        self.by_bandwidth = sorted((bandwidth.get(n, 0.0), n) for n in self.nodes)
        inside = [(intra_node(node, self.efficiency), n) for n, node in self.nodes.items()]
        self.by_inside = sorted((figure, n) for figure, n in inside if figure is not None)
        self.unit_of, self.unit_size = self._units()
        self.domains = DomainBus.of(fabric, self.efficiency)

    def _units(self) -> tuple[dict[str, object], Counter[object]]:
        """Each GPU node's group of nodes joined through shared leaves (the scalable units'
        grouping, :func:`rackdesigner.topology.collectives.scalable_units`)."""
        groups = Groups()
        leaves_of: dict[str, list[str]] = {}
        for node in self.nodes:
            reached = sorted(n for n in self.adj[node] if self.tier.get(n) == 1)
            if reached:
                leaves_of[node] = reached
                groups.add(reached[0])
                for leaf in reached[1:]:
                    groups.join(reached[0], leaf)
        unit_of = {node: groups.find(reached[0]) for node, reached in leaves_of.items()}
        return unit_of, Counter(unit_of.values())

    # -- one failure -----------------------------------------------------------------------

    def impact(self, removed: set[str]) -> FabricImpact | None:
        """The fabric left when the devices ``removed`` (of this fabric) go, or None where
        it must be built again."""
        adj, tier = self.adj, self.tier
        near = {n for r in removed for n in adj.get(r, ()) if n not in removed}
        if not self._tiers_kept(removed, near):
            return None
        halves = self._halves(removed)
        if halves is None:
            return None
        _, moved = halves
        emptied = self._emptied(removed)
        if emptied is None or not self._connected(emptied):
            return None
        if not self._units_left(removed):
            return None
        changes = self._capacities(removed, near, moved)
        # Twins fail alike: the same capacities changed give the same flow.
        signature = frozenset(changes.items())
        left = self._flows.get(signature)
        if left is None:
            left = self._flows[signature] = self.flow.changed(changes)
        bus = self._bus(removed, near)
        if bus is None:
            return None
        fabric = self.fabric
        nodes_down = [n for n in removed if n in self.nodes]
        rails = [
            self.nodes[n] for n in near if n in self.nodes and self._bandwidth(n, removed) > EPSILON
        ]
        rails.sort(key=lambda d: d.order)
        return FabricImpact(
            name=fabric.name,
            gpus=fabric.gpus,
            switches=len(fabric.switches),
            switches_lost=sum(1 for r in removed if r in tier),
            cables=len(fabric.links),
            cables_lost=self._cables_lost(removed),
            nodes_down=len(nodes_down),
            largest_gpus=fabric.gpus - sum(self.nodes[n].gpus for n in nodes_down),
            rails_cut=[d.id for d in rails],
            bisection=self.before.bisection.bandwidth,
            bisection_left=left,
            bus=self.before.inter if self.domains is None else self.domains.before,
            bus_left=bus,
        )

    def _bandwidth(self, node: str, removed: set[str]) -> float:
        """What ``node`` loses to the devices removed."""
        row = self.adj[node]
        return sum(row[r] for r in removed if r in row)

    def _tiers_kept(self, removed: set[str], near: set[str]) -> bool:
        """Every switch next to the failure keeps a neighbour one tier down (so every tier
        stays), and the top tier keeps a switch."""
        tier, adj, nodes = self.tier, self.adj, self.nodes
        for ident in near:
            level = tier.get(ident)
            if level is None:
                continue
            below = level - 1
            if not any(
                n not in removed and (n in nodes if below == 0 else tier.get(n) == below)
                for n in adj[ident]
            ):
                return False
        top_lost = sum(1 for r in removed if tier.get(r) == self.max_tier)
        return top_lost < self.top

    def _halves(self, removed: set[str]) -> tuple[int, list[str]] | None:
        """The leaves' new split and the leaves it moves to the other half (each must be a
        class of its own), or None with fewer than two leaves left."""
        gone = sorted(self.position[r] for r in removed if r in self.position)
        if not gone:
            return self.half, []
        count = len(self.leaves) - len(gone)
        if count < 2:
            return None
        half = count // 2
        moved = []
        # Only a leaf within len(gone) of the split can change halves.
        low = max(0, self.half - len(gone) - 1)
        high = min(len(self.leaves), self.half + len(gone) + 1)
        for position in range(low, high):
            leaf = self.leaves[position]
            if leaf in removed:
                continue
            now = position - bisect_left(gone, position)
            if (now < half) != (position < self.half):
                moved.append(leaf)
        return half, moved

    def _emptied(self, removed: set[str]) -> list[int] | None:
        counts = Counter(self.classes.of[r] for r in removed if r in self.classes.of)
        members = self.classes.members
        return [c for c, n in counts.items() if n == len(members[c])]

    def _connected(self, emptied: list[int]) -> bool:
        """The classes left are all joined (so are the devices: a twin class is joined to a
        neighbouring class through every member)."""
        if not emptied or (len(emptied) == 1 and emptied[0] not in self.articulation):
            return True
        cap = self.classes.cap
        gone = set(emptied)
        start = next(c for c in range(len(self.classes.members)) if c not in gone)
        seen = {start}
        stack = [start]
        while stack:
            for other in cap[stack.pop()]:
                if other not in seen and other not in gone:
                    seen.add(other)
                    stack.append(other)
        return len(seen) + len(gone) == len(self.classes.members)

    def _units_left(self, removed: set[str]) -> bool:
        """Two groups of nodes or more keep nodes: no one scalable unit can then hold every
        node (its figure would replace the fabric's)."""
        lost = Counter(self.unit_of[n] for n in removed if n in self.unit_of)
        emptied = sum(1 for unit, n in lost.items() if n == self.unit_size[unit])
        return len(self.unit_size) - emptied >= 2

    def _capacities(
        self, removed: set[str], near: set[str], moved: list[str]
    ) -> dict[tuple[int, int], float]:
        """The class graph's capacities the failure changes, and the source and sink arcs
        of the leaves it touches (their downlinks, their half)."""
        classes, adj, cap = self.classes, self.adj, self.flow.cap
        changes: dict[tuple[int, int], float] = {}

        def move(device: str, to: int | None, skip: Collection[str]) -> None:
            """Take ``device``'s cables off its class's arcs (onto class ``to``'s)."""
            c = classes.of[device]
            for n, bandwidth in adj[device].items():
                if n in skip:
                    continue
                x = classes.of[n]
                for a, b, amount in ((c, x, -bandwidth), (x, c, -bandwidth)):
                    changes[a, b] = changes.get((a, b), cap.get(a, {}).get(b, 0.0)) + amount
                if to is not None:
                    changes[to, x] = changes.get((to, x), 0.0) + bandwidth
                    changes[x, to] = changes.get((x, to), 0.0) + bandwidth

        done: set[str] = set()
        for r in removed:
            move(r, None, done)  # a cable between two devices removed is taken off once
            done.add(r)
        # A leaf moved to the other half leaves its class (its twins stay): a class of its own.
        own = {m: self.sink + 1 + number for number, m in enumerate(moved)}
        for m, k in own.items():
            move(m, k, removed)
        touched = {classes.of[n] for n in near if n in self.position}
        touched.update(classes.of[r] for r in removed if r in self.position)
        touched.update(classes.of[m] for m in moved)
        for c in touched:
            leaves = [
                leaf for leaf in classes.members[c] if leaf not in removed and leaf not in own
            ]
            self._roles(c, leaves, removed, moved, changes)
        for m, k in own.items():
            self._roles(k, [m], removed, moved, changes)
        return changes

    def _roles(
        self,
        c: int,
        leaves: list[str],
        removed: set[str],
        moved: list[str],
        changes: dict[tuple[int, int], float],
    ) -> None:
        """Class ``c``'s source and sink arcs: its ``leaves``' downlinks, by half."""
        adj, switches = self.adj, self.fabric.switches
        supply = demand = 0.0
        for leaf in leaves:
            row = adj[leaf]
            down = switches[leaf].down - sum(
                row[r] for r in removed if r in row and r not in self.tier
            )
            if self._half(leaf, moved) == 1:
                supply += down
            else:
                demand += down
        changes[self.source, c] = supply
        changes[c, self.sink] = demand

    def _bus(self, removed: set[str], near: set[str]) -> float | None:
        """The expected bus bandwidth between nodes of the fabric left (NET007): the least
        node bandwidth x efficiency / r, capped at the least figure inside a node."""
        ratio = 1.0
        changed: set[str] = set()
        for ident in near:
            if ident not in self.tier:
                continue
            changed.add(ident)
            figure = self._ratio(ident, removed)
            if figure is not None and math.isfinite(figure) and figure > ratio:
                ratio = figure
        for figure, sid in self.ratios:
            if sid not in removed and sid not in changed:
                ratio = max(ratio, figure)
                break
        if self.domains is not None:
            lost = {n: self._bandwidth(n, removed) for n in near if n in self.nodes}
            return self.domains.left(lost, [r for r in removed if r in self.nodes], ratio)
        least: float | None = None
        for bandwidth, node in self.by_bandwidth:
            if node not in removed and node not in near and bandwidth > 0:
                least = bandwidth
                break
        for node in near:
            if node in self.nodes:
                bandwidth = self.fabric.node_bandwidth.get(node, 0.0) - self._bandwidth(
                    node, removed
                )
                if bandwidth > 0 and (least is None or bandwidth < least):
                    least = bandwidth
        left = len(self.nodes) - sum(1 for r in removed if r in self.nodes)
        if least is None or left < 2:
            return None
        between = least * self.efficiency / ratio
        for inside, node in self.by_inside:
            if node not in removed:
                return inside if inside < between else between
        return between

    def _ratio(self, sid: str, removed: set[str]) -> float | None:
        """A switch's oversubscription once the devices removed are gone (rules.md v1.1:
        downlink ÷ uplink below the top tier)."""
        switch = self.fabric.switches[sid]
        level = switch.tier
        if level is None or level == self.max_tier:
            return None
        down, up = switch.down, switch.up
        for r in removed:
            bandwidth = self.adj[sid].get(r)
            if bandwidth is None:
                continue
            # As the fabric has it: GPU nodes and other endpoints are below every switch,
            # a switch no GPU node reaches is not counted.
            other = self.tier.get(r, 0)
            if other is None:
                continue
            if other < level:
                down -= bandwidth
            elif other > level:
                up -= bandwidth
        if down <= 0:
            return None
        return down / up if up > 0 else math.inf

    def _cables_lost(self, removed: set[str]) -> int:
        counts, adj = self.counts, self.adj
        lost = 0
        done: set[str] = set()
        for r in removed:
            for n in adj[r]:
                if n not in done:
                    lost += counts[(r, n) if r < n else (n, r)]
            done.add(r)
        return lost
