"""The compute fabric as a networkx graph, and what it says about the cluster.

Devices are nodes; links between compute ports are edges (parallel cables
between two devices collapse into one edge carrying their summed bandwidth
and their count). Each connected part is one fabric. A switch's tier is its
hop distance from the nearest GPU node (leaf = 1): links to a lower tier are
downlinks, to a higher tier uplinks. Single points of failure come from one
biconnected-components pass: a block-cut tree weighted by GPU nodes tells
which switch or cable, lost, leaves GPU nodes on two sides.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import networkx as nx

from rackdesigner.analysis.lateral import CrossedRail, LateralGroup, crossed_rails, lateral_groups
from rackdesigner.analysis.tiers import switch_tiers
from rackdesigner.model.refs import Ref

if TYPE_CHECKING:
    from rackdesigner.analysis.facts import DeviceFacts, LinkFacts


@dataclass(slots=True, eq=False)
class SwitchFacts:
    device: DeviceFacts
    tier: int | None = None  # None: not connected to any GPU node
    down: float = 0.0  # bit/s towards GPU nodes
    up: float = 0.0  # bit/s away from them
    lateral: float = 0.0  # bit/s to switches of its own tier (v1.1)
    top: bool = False  # of the fabric's highest tier: never oversubscribed

    @property
    def oversubscription(self) -> float | None:
        """downlink ÷ (uplink + lateral) bandwidth (v1.1: lateral links carry traffic out
        too); None where it does not apply, inf with neither."""
        if self.top or self.tier is None or self.down <= 0:
            return None
        out = self.up + self.lateral
        return self.down / out if out > 0 else float("inf")


@dataclass(slots=True, eq=False)
class SwitchRatios:
    """The switches' oversubscription ratios (those that have one), highest first, each
    with its switch's place among the fabric's switches: NET002 and the fabric's r read
    only the top of it. A what-if's failed fabric shares its fabric's list (``base``) less
    the switches ``skip`` (down, or touched) and with ``extra`` (the touched ones worked
    out again, their places the fabric's: a failed fabric's switches keep their order)."""

    base: list[tuple[float, int, str]]  # (-ratio, place, id), ascending
    skip: frozenset[str] = frozenset()
    extra: list[tuple[float, int, str]] = field(default_factory=list)  # likewise

    @classmethod
    def of(cls, switches: Mapping[str, SwitchFacts]) -> SwitchRatios:
        ranked: list[tuple[float, int, str]] = []
        for place, (ident, switch) in enumerate(switches.items()):
            ratio = switch.oversubscription
            if ratio is not None:
                ranked.append((-ratio, place, ident))
        ranked.sort()
        return cls(ranked)

    def ranked(self) -> Iterator[tuple[float, int, str]]:
        """(ratio, place, switch id), highest ratio first (ties in the switches' order)."""
        skip = self.skip
        kept = (item for item in self.base if item[2] not in skip) if skip else self.base
        for negative, place, ident in heapq.merge(kept, self.extra):
            yield -negative, place, ident

    def above(self, limit: float) -> list[str]:
        """The switches whose ratio is above ``limit``, in the switches' order."""
        found: list[tuple[int, str]] = []
        for ratio, place, ident in self.ranked():
            if ratio <= limit:
                break
            found.append((place, ident))
        found.sort()
        return [ident for _, ident in found]

    def worst(self) -> float:
        """The largest of 1 and every finite ratio."""
        for ratio, _, _ in self.ranked():
            if math.isfinite(ratio):
                return ratio if ratio > 1.0 else 1.0
        return 1.0


@dataclass(slots=True, eq=False)
class Fabric:
    index: int
    devices: list[DeviceFacts]
    links: list[LinkFacts]
    nodes: list[DeviceFacts] = field(default_factory=list)  # GPU nodes
    switches: dict[str, SwitchFacts] = field(default_factory=dict)
    techs: set[str] = field(default_factory=set)
    gpus: int = 0
    max_tier: int = 0
    injection: float = 0.0  # bit/s of all GPU nodes' fabric ports
    bisection: float = 0.0  # bit/s, estimated
    node_bandwidth: dict[str, float] = field(default_factory=dict)  # device id -> bit/s
    cut_switches: list[tuple[DeviceFacts, int]] = field(default_factory=list)
    cut_links: list[tuple[LinkFacts, int]] = field(default_factory=list)
    # (v1.1) Groups left when the top tier's lateral links are removed; [] without any.
    groups: list[LateralGroup] = field(default_factory=list)
    # Its scalable units once found (topology.collectives.within_units): NET007 and the
    # fabric figures both ask, and on 100,000 GPUs each search is a walk over every cable.
    units: list[list[DeviceFacts]] | None = None
    # Its crossed rails and each GPU node's cabled ports once found (NET008; NET003 and
    # NET004): each is a walk over every cable. A what-if's failed fabric is given them,
    # derived from the fabric before (rackdesigner.whatif.fabric_derived).
    crossed: list[CrossedRail] | None = None
    node_ports: dict[str, int] | None = None
    # What the bus figures read of its nodes, once found (topology.collectives: each kind
    # of node's first; each scalable unit's lowest figure, at an efficiency).
    kinds: dict[tuple[int, int, int, float], tuple[int, DeviceFacts]] | None = None
    unit_bests: tuple[float, list[tuple[float, DeviceFacts, bool] | None]] | None = None
    # Its switches' ratios, highest first, once asked (NET002 and r read the top of it;
    # a failed fabric's is the fabric before's with the switches touched worked out again).
    switch_ratios: SwitchRatios | None = None
    # Its leaves' models, each with how many and its first leaf, once asked (NET004's
    # radix: a model's ports are its first leaf's; a failed fabric's derived).
    leaf_models: dict[str | None, tuple[int, DeviceFacts]] | None = None

    def models_of_leaves(self) -> dict[str | None, tuple[int, DeviceFacts]]:
        """Each model of its leaves (tier 1), how many of them and the first, in order."""
        if self.leaf_models is None:
            found: dict[str | None, tuple[int, DeviceFacts]] = {}
            for switch in self.switches.values():
                if switch.tier == 1:
                    model = switch.device.device.model
                    count, first = found.get(model, (0, switch.device))
                    found[model] = (count + 1, first)
            self.leaf_models = found
        return self.leaf_models

    def ratios(self) -> SwitchRatios:
        if self.switch_ratios is None:
            self.switch_ratios = SwitchRatios.of(self.switches)
        return self.switch_ratios

    @property
    def oversubscription(self) -> float:
        """Fabric oversubscription r (rules.md v1.1): the largest of 1, every switch's
        (finite) oversubscription and 1 ÷ the smallest group's global ratio."""
        worst = self.ratios().worst()
        for group in self.groups:
            ratio = group.ratio
            worst = max(worst, 1.0 / ratio if ratio > 0 else math.inf)
        return worst

    def worst_group(self) -> LateralGroup | None:
        return min(self.groups, key=lambda g: g.ratio, default=None)

    @property
    def crossed_rails(self) -> list[CrossedRail]:
        """Crossed rails of the fabric's rail-optimised rail groups (NET008), cable order."""
        if self.crossed is None:
            self.crossed = crossed_rails(self.node_leaf_cables())
        return self.crossed

    def node_leaf_cables(self) -> list[tuple[str, str, str, LinkFacts]]:
        """Each cable between a GPU node and a leaf, as (node, its port, leaf, the cable),
        in cable order."""
        leaves = {name for name, s in self.switches.items() if s.tier == 1}
        nodes = {node.id for node in self.nodes}
        cables: list[tuple[str, str, str, LinkFacts]] = []
        append = cables.append
        for link in self.links:
            a, b = link.a, link.b
            da, db = a.device, b.device
            if da is None or db is None:
                continue
            ia, ib = da.id, db.id
            if ia in nodes and ib in leaves:
                append((ia, a.text.partition(":")[2], ib, link))
            elif ib in nodes and ia in leaves:
                append((ib, b.text.partition(":")[2], ia, link))
        return cables

    def ports_by_node(self) -> dict[str, int]:
        """Each GPU node's cabled fabric ports (parallel cables counted one by one; nodes
        with none left out)."""
        if self.node_ports is None:
            nodes = {node.id for node in self.nodes}
            ports: dict[str, int] = {}
            for link in self.links:
                for end in (link.a.device, link.b.device):
                    if end is not None and end.id in nodes:
                        ports[end.id] = ports.get(end.id, 0) + 1
            self.node_ports = ports
        return self.node_ports

    @property
    def anchor(self) -> DeviceFacts:
        """The device a fabric is named after (editing.md): its first leaf in file order,
        else its first switch, else its first GPU node, else its first device.

        A leaf keeps its tier while switches are added above it or devices elsewhere, so the
        name survives the edits a designer makes.
        """
        switches = self.switches
        first_switch = None
        for dev in self.devices:
            if dev.kind == "switch":
                facts = switches.get(dev.id)
                if facts is not None and facts.tier == 1:
                    return dev
                if first_switch is None:
                    first_switch = dev
        if first_switch is not None:
            return first_switch
        return self.nodes[0] if self.nodes else self.devices[0]

    @property
    def name(self) -> str:
        return self.anchor.id

    @property
    def ref(self) -> Ref:
        return Ref("fabric", self.name)

    def site(self) -> tuple[str, Ref]:
        """Who a finding about the fabric is about: ``fabric <name>``, and its reference (the
        source map reports it at its anchor device's line)."""
        name = self.name
        return f"fabric {name}", Ref("fabric", name)

    @property
    def tech(self) -> str:
        if len(self.techs) == 1:
            return next(iter(self.techs))
        return "mixed" if self.techs else "unknown"

    @property
    def generations(self) -> dict[str, list[DeviceFacts]]:
        found: dict[str, list[DeviceFacts]] = {}
        for node in self.nodes:
            if node.gpu is not None and node.gpu.generation:
                found.setdefault(node.gpu.generation, []).append(node)
        return found

    def tier_switches(self, tier: int) -> list[SwitchFacts]:
        return [s for s in self.switches.values() if s.tier == tier]

    @property
    def is_fat_tree(self) -> bool:
        return self.max_tier >= 2


def graph_of(edges: Mapping[tuple[str, str], dict[str, Any]]) -> nx.Graph:
    """The compute fabric: one node per device, one edge per cabled pair of devices."""
    graph: nx.Graph[str] = nx.Graph()
    graph.add_edges_from((a, b, data) for (a, b), data in edges.items())
    return graph


def build_fabrics(
    links: Sequence[LinkFacts],
    edges: Mapping[tuple[str, str], dict[str, Any]],
    device_by_id: Mapping[str, DeviceFacts],
    graph: nx.Graph | None = None,
) -> list[Fabric]:
    """The fabrics of resolved links (:func:`rackdesigner.analysis.links.resolve_links`),
    in file order of their first device. ``graph`` is ``graph_of(edges)`` when the caller
    keeps one current (an editing session updates it edge by edge)."""
    if graph is None:
        graph = graph_of(edges)
    by_id = device_by_id
    fabrics: list[Fabric] = []
    components = sorted(
        nx.connected_components(graph), key=lambda part: min(by_id[n].order for n in part)
    )
    fabric_of: dict[str, int] = {}
    for index, part in enumerate(components):
        devices = sorted((by_id[n] for n in part), key=lambda d: d.order)
        fabrics.append(Fabric(index + 1, devices, []))
        for n in part:
            fabric_of[n] = index
    # Each compute cable belongs to the fabric of its ends, in the layout's order.
    for link in links:
        if link.compute and link.a.device is not link.b.device:
            assert link.a.device is not None  # a compute link's ends are resolved
            fabric = fabrics[fabric_of[link.a.device.id]]
            fabric.links.append(link)
            for end in (link.a, link.b):
                if end.group is not None and end.group.tech is not None:
                    fabric.techs.add(end.group.tech)
    for fabric, part in zip(fabrics, components, strict=True):
        # A subgraph view costs on every lookup; the common one-fabric case needs none.
        sub = graph if len(components) == 1 else graph.subgraph(part)
        _describe(fabric, sub, by_id)
    return fabrics


def _describe(fabric: Fabric, graph: nx.Graph, by_id: Mapping[str, DeviceFacts]) -> None:
    switch_ids = {d.id for d in fabric.devices if d.kind == "switch"}
    fabric.nodes = [d for d in fabric.devices if d.is_gpu_node]
    fabric.gpus = sum(d.gpus for d in fabric.nodes)
    adjacency = graph.adj
    for node in fabric.nodes:
        bandwidth = 0.0
        for data in adjacency[node.id].values():
            bandwidth += data["bandwidth"]
        fabric.node_bandwidth[node.id] = bandwidth
        fabric.injection += bandwidth
    tier = switch_tiers([node.id for node in fabric.nodes], adjacency, switch_ids)
    for dev in fabric.devices:
        if dev.kind == "switch":
            fabric.switches[dev.id] = SwitchFacts(dev, tier.get(dev.id))
    tiers = [s.tier for s in fabric.switches.values() if s.tier is not None]
    fabric.max_tier = max(tiers, default=0)
    _switch_bandwidth(fabric, adjacency, tier, switch_ids)
    fabric.groups = lateral_groups(
        [d.id for d in fabric.devices], adjacency, tier, fabric.max_tier, fabric.node_bandwidth
    )
    crossing = [fabric.injection]
    for level in range(1, fabric.max_tier):
        crossing.append(sum(s.up for s in fabric.tier_switches(level)))
    fabric.bisection = min(crossing) / 2 if fabric.nodes else 0.0
    if len(fabric.nodes) >= 2:
        _single_points_of_failure(fabric, graph, by_id)


def _switch_bandwidth(
    fabric: Fabric, adjacency: Any, tier: dict[str, int], switch_ids: set[str]
) -> None:
    """Each tiered switch's bandwidth down (to a lower tier or any endpoint that is not a
    switch), up and lateral (to its own tier); switches no GPU node reaches are left out."""
    for switch in fabric.switches.values():
        if switch.tier is None:
            continue
        switch.top = switch.tier == fabric.max_tier
        for neighbour, data in adjacency[switch.device.id].items():
            other = tier.get(neighbour)
            if other is None:
                if neighbour in switch_ids:
                    continue  # a switch no GPU node reaches
                other = 0  # any other endpoint: its port on this switch is a downlink
            if other == switch.tier:
                switch.lateral += data["bandwidth"]
            elif other < switch.tier:
                switch.down += data["bandwidth"]
            else:
                switch.up += data["bandwidth"]


_Key = tuple[str, object]  # a block-cut tree's vertex: ("b", block number) or ("c", node)


@dataclass(slots=True)
class _BlockCutTree:
    """The block-cut tree of a graph's biconnected blocks and cut vertices, rooted at a cut
    vertex: each vertex's parent, a depth-first order and the GPU nodes below each."""

    children: dict[_Key, list[_Key]]
    parent: dict[_Key, _Key | None]
    order: list[_Key]
    below: dict[_Key, int]
    total: int

    def gpu_sides(self, key: _Key) -> int:
        """How many of the parts a cut vertex's loss leaves hold GPU nodes."""
        parts = [self.below[child] for child in self.children[key] if self.parent.get(child) == key]
        if self.parent[key] is not None:
            parts.append(self.total - self.below[key])
        return sum(1 for p in parts if p > 0)


def _block_cut_tree(
    block_nodes: list[set[str]], membership: dict[str, list[int]], cut: set[str], gpu: set[str]
) -> _BlockCutTree:
    """Blocks weigh the GPU nodes only they hold; a cut vertex weighs 1 if it is one."""
    weight: dict[_Key, int] = {}
    tree: dict[_Key, list[_Key]] = {}
    for number, nodes in enumerate(block_nodes):
        weight["b", number] = sum(1 for n in nodes if n in gpu and n not in cut)
        tree["b", number] = [("c", n) for n in nodes if n in cut]
    for n in cut:
        weight["c", n] = 1 if n in gpu else 0
        tree["c", n] = [("b", number) for number in membership[n]]
    root: _Key = ("c", next(iter(sorted(cut))))
    parent: dict[_Key, _Key | None] = {root: None}
    order = [root]
    stack = [root]
    while stack:
        current = stack.pop()
        for neighbour in tree[current]:
            if neighbour not in parent:
                parent[neighbour] = current
                order.append(neighbour)
                stack.append(neighbour)
    below = dict(weight)
    for key in reversed(order):
        up = parent[key]
        if up is not None:
            below[up] += below[key]
    return _BlockCutTree(tree, parent, order, below, sum(weight.values()))


def _single_points_of_failure(
    fabric: Fabric, graph: nx.Graph, by_id: Mapping[str, DeviceFacts]
) -> None:
    """Switches and cables whose loss leaves GPU nodes of this fabric on two sides."""
    gpu = {node.id for node in fabric.nodes}
    # A well-built fabric has no articulation point, and then the only possible bridge is a
    # fabric of one cable. The articulation-point pass is the cheap one; build the blocks
    # only when there is something to find.
    if len(graph) > 2 and next(nx.articulation_points(graph), None) is None:
        return
    blocks = [set(edges) for edges in nx.biconnected_component_edges(graph)]
    block_nodes = [{n for edge in edges for n in edge} for edges in blocks]
    membership: dict[str, list[int]] = {}
    for number, nodes in enumerate(block_nodes):
        for n in nodes:
            membership.setdefault(n, []).append(number)
    cut = {n for n, owners in membership.items() if len(owners) > 1}
    if not cut:
        _back_to_back(fabric, graph, blocks, gpu)
        return
    tree = _block_cut_tree(block_nodes, membership, cut, gpu)
    for kind, name in tree.order:
        if kind == "c":
            device = by_id[str(name)]
            sides = tree.gpu_sides((kind, name)) if device.kind == "switch" else 0
            if sides >= 2:
                fabric.cut_switches.append((device, sides))
        else:
            assert isinstance(name, int)  # a block's number
            _bridge(fabric, graph, blocks[name], tree.below[kind, name], tree.total)
    fabric.cut_switches.sort(key=lambda item: item[0].order)
    fabric.cut_links.sort(key=lambda item: item[0].index)


def _back_to_back(
    fabric: Fabric, graph: nx.Graph, blocks: list[set[tuple[str, str]]], gpu: set[str]
) -> None:
    """Without an articulation point the only possible bridge is a fabric of one edge: two
    GPU nodes cabled back to back by one cable."""
    if len(blocks) == 1 and len(blocks[0]) == 1:
        ((a, b),) = blocks[0]
        data = graph.edges[a, b]
        if data["count"] == 1 and a in gpu and b in gpu:
            fabric.cut_links.append((data["links"][0], 1))


def _bridge(
    fabric: Fabric, graph: nx.Graph, edges: set[tuple[str, str]], side: int, total: int
) -> None:
    """A block of one edge of one cable is a bridge: its cable is a single point of failure
    where GPU nodes are on both sides (``side`` below it of ``total``)."""
    if len(edges) != 1:
        return
    ((a, b),) = edges
    data = graph.edges[a, b]
    if data["count"] > 1:
        return  # parallel cables: losing one leaves the other
    if side > 0 and total - side > 0:
        fabric.cut_links.append((data["links"][0], min(side, total - side)))
