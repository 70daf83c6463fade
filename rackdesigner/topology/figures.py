"""The per-fabric figures ``report`` prints: tiers, cables, oversubscription, bisection.

These follow rules.md v1.1's Definitions, computed here for the report (no rule
reads the bisection):

- **switch oversubscription**: downlink ÷ (uplink + lateral) bandwidth below the
  top tier; links between two switches of one tier are lateral links (the v1
  graph code ignores them, so they are counted here);
- **lateral groups and global ratio**: where top-tier switches have lateral
  links, a group is a connected part of the fabric once those links are removed;
  its global ratio is their bandwidth ÷ its GPU nodes' fabric bandwidth, capped
  at 1;
- **fabric oversubscription** r: the largest of 1, every switch's
  oversubscription and 1 ÷ the smallest group's global ratio;
- **bisection** by maximum flow on the merged graph (:mod:`.bisection`);
- **expected all-reduce bus bandwidth** (NET007 v1.1): inside a node the GPUs'
  interconnect per direction × efficiency; between nodes min(the node's whole
  fabric bandwidth × efficiency ÷ r, the inside figure), for the node with the
  lowest figure; within a scalable unit (v1.2, rail-local) without the ÷ r
  (:func:`.collectives.within_units`).

Everything is SI (bit/s, m); nothing here formats for people.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rackdesigner.analysis.stock import stock_length
from rackdesigner.topology.bisection import (
    Bisection,
    ClassGraph,
    Hops,
    bisection,
    farthest_gpus,
    merge_twins,
)
from rackdesigner.topology.collectives import intra_node, within_units

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis, DeviceFacts, LinkFacts
    from rackdesigner.analysis.fabric_graph import Fabric

UNSPECIFIED_MEDIA = "unspecified"
NOT_SEARCHED = Hops(None, False, False)  # fabric_figures(detail=False): hops not searched


@dataclass(slots=True)
class TierFigures:
    tier: int  # 0: cables between GPU nodes; 1 leaves; 2 spines; 3 cores (switch tier)
    switches: int = 0
    oversubscription: float | None = None  # the tier's worst switch (v1.1); None at the top
    # Cables whose higher end is at this tier, by (media, stock length m or None).
    cables: dict[tuple[str, float | None], int] = field(default_factory=dict)
    lateral_cables: int = 0  # of those, between two switches of this tier
    down: float = 0.0  # bit/s of the tier's switches towards GPU nodes
    up: float = 0.0
    lateral: float = 0.0


@dataclass(slots=True)
class GroupFigures:
    """A lateral group (Dragonfly+ group, or one leaf's island of a directly joined pair)."""

    index: int
    anchor: str  # its first switch in layout order
    gpu_nodes: int
    node_bandwidth: float  # bit/s of its GPU nodes' fabric ports
    global_bandwidth: float  # bit/s of its top-tier lateral links to other groups
    ratio: float | None  # global ÷ node bandwidth, capped at 1


@dataclass(slots=True)
class FabricFigures:
    fabric: Fabric
    tiers: list[TierFigures]
    oversubscription_by_switch: dict[str, float | None]  # v1.1, None where it does not apply
    groups: list[GroupFigures]
    global_ratio: float | None  # the smallest group's; None without lateral groups
    oversubscription: float  # r, fabric oversubscription (v1.1)
    bisection: Bisection
    hops: Hops
    intra: float | None  # bit/s, expected all-reduce bus bandwidth inside a node
    intra_node: DeviceFacts | None
    inter: float | None  # bit/s, between nodes (NET007 v1.1)
    inter_node: DeviceFacts | None
    efficiency: float
    classes: ClassGraph | None = None
    # (v1.2) Within scalable units (rail-local, no ÷ r) and across them; ``inter`` is the
    # within figure where one unit holds every node, else the across figure.
    sus: int = 0
    within_su: float | None = None
    across_su: float | None = None


def adjacency(analysis: Analysis) -> dict[str, dict[str, float]]:
    """Every compute-fabric device's neighbours and the summed bit/s to each."""
    analysis.links  # noqa: B018  (resolving the links collects the cabled pairs)
    adj: dict[str, dict[str, float]] = defaultdict(dict)
    for (a, b), data in analysis.compute_edges.items():
        bandwidth = data["bandwidth"]
        adj[a][b] = bandwidth
        adj[b][a] = bandwidth
    return adj


def all_fabric_figures(
    analysis: Analysis, *, flow: bool = True, detail: bool = True
) -> list[FabricFigures]:
    """The figures of every fabric, in the order of ``analysis.fabrics``."""
    adj = adjacency(analysis)
    efficiency = analysis.thresholds["nccl_efficiency"]
    return [
        fabric_figures(analysis, f, adj, efficiency, flow=flow, detail=detail)
        for f in analysis.fabrics
    ]


def fabric_figures(
    analysis: Analysis,
    fabric: Fabric,
    adj: dict[str, dict[str, float]],
    efficiency: float,
    *,
    flow: bool = True,
    detail: bool = True,
) -> FabricFigures:
    """One fabric's figures. Without ``detail`` the tiers' cable counts stay empty and the
    farthest GPUs are not searched (``hops`` is :data:`NOT_SEARCHED`): what ``diff``
    compares (the ratio, the bisection, the bus bandwidth) does not read them, and on
    100,000 GPUs they are a third of the time."""
    tier = _device_tiers(fabric)
    switches = _switch_figures(fabric, adj, tier)
    if detail:
        _count_cables(fabric, tier, switches.by_tier)
    groups = _lateral_groups(fabric, adj, switches.lateral_edges)
    ratios = [g.ratio for g in groups if g.ratio is not None and g.ratio > 0]
    global_ratio = min(ratios) if ratios else None
    r = _fabric_oversubscription(switches.over, global_ratio)
    classes, cut = _merged_bisection(fabric, adj, tier, flow)
    bus = _bus_bandwidth(fabric, efficiency, r)
    return FabricFigures(
        fabric=fabric,
        tiers=[switches.by_tier[level] for level in sorted(switches.by_tier)],
        oversubscription_by_switch=switches.over,
        groups=groups,
        global_ratio=global_ratio,
        oversubscription=r,
        bisection=cut,
        hops=farthest_gpus(classes) if detail else NOT_SEARCHED,
        intra=bus.intra[0] if bus.intra else None,
        intra_node=bus.intra[1] if bus.intra else None,
        inter=bus.inter[0] if bus.inter else None,
        inter_node=bus.inter[1] if bus.inter else None,
        efficiency=efficiency,
        classes=classes,
        sus=bus.sus,
        within_su=bus.within_su,
        across_su=bus.across_su,
    )


def _device_tiers(fabric: Fabric) -> dict[str, int]:
    """Each device's tier: 0 for GPU nodes, the switch's tier for switches that have one."""
    tier: dict[str, int] = {n.id: 0 for n in fabric.nodes}
    for sid, switch in fabric.switches.items():
        if switch.tier is not None:
            tier[sid] = switch.tier
    return tier


@dataclass(slots=True)
class _Switches:
    """What the switches add up to: each tier's figures, each switch's oversubscription
    and the top tier's lateral links (switch, switch, bit/s)."""

    by_tier: dict[int, TierFigures]
    over: dict[str, float | None]
    lateral_edges: list[tuple[str, str, float]]


def _switch_figures(
    fabric: Fabric, adj: dict[str, dict[str, float]], tier: dict[str, int]
) -> _Switches:
    """Lateral bandwidth and v1.1 oversubscription per switch (downlink ÷ (uplink +
    lateral), none at the top tier), summed per tier with the tier's worst switch."""
    top = fabric.max_tier
    switch_ids = set(fabric.switches)
    found = _Switches({}, {}, [])
    for sid, switch in fabric.switches.items():
        level = switch.tier
        if level is None:
            found.over[sid] = None
            continue
        figures = found.by_tier.setdefault(level, TierFigures(level))
        figures.switches += 1
        lateral = 0.0
        for neighbour, bandwidth in adj.get(sid, {}).items():
            if neighbour in switch_ids and tier.get(neighbour) == level:
                lateral += bandwidth
                if level == top and sid < neighbour:
                    found.lateral_edges.append((sid, neighbour, bandwidth))
        figures.down += switch.down
        figures.up += switch.up
        figures.lateral += lateral
        if level == top or switch.down <= 0:
            found.over[sid] = None
        else:
            away = switch.up + lateral
            found.over[sid] = switch.down / away if away > 0 else math.inf
    for sid, ratio in found.over.items():
        level = fabric.switches[sid].tier
        if ratio is None or level is None:
            continue
        figures = found.by_tier[level]
        if figures.oversubscription is None or ratio > figures.oversubscription:
            figures.oversubscription = ratio
    return found


def _count_cables(fabric: Fabric, tier: dict[str, int], by_tier: dict[int, TierFigures]) -> None:
    """Count the cables into ``by_tier`` by the tier of their higher end, media and stock
    length; and those between two switches of one tier."""
    counts: dict[tuple[int, str, float | None], int] = defaultdict(int)
    lateral_count: dict[int, int] = defaultdict(int)
    get_tier = tier.get
    # Lengths and parts repeat across a regular hall: each (length, part's stocks) once.
    stock_of: dict[tuple[float | None, tuple[float, ...]], float | None] = {}
    stocks_by: dict[tuple[object, ...], tuple[float, ...]] = {}
    for link in fabric.links:
        da, db = link.a.device, link.b.device
        if da is None or db is None:
            continue
        ta, tb = get_tier(da.id), get_tier(db.id)
        if ta is None or tb is None:
            continue  # a switch no GPU node reaches
        level = ta if ta > tb else tb
        length = link.length
        stocks = _stocks(link, stocks_by)
        stock = stock_of.get((length, stocks), -1.0)
        if stock == -1.0:
            stock = stock_of[length, stocks] = stock_length(length, stocks)
        counts[level, link.link.media or UNSPECIFIED_MEDIA, stock] += 1
        if ta == tb and ta > 0:
            lateral_count[level] += 1
    for (level, media, stock), count in counts.items():
        figures = by_tier.setdefault(level, TierFigures(level))
        figures.cables[media, stock] = count
    for level, count in lateral_count.items():
        by_tier[level].lateral_cables = count


def _fabric_oversubscription(over: dict[str, float | None], global_ratio: float | None) -> float:
    """r: the largest of 1, every switch's (finite) oversubscription and 1 ÷ the smallest
    group's global ratio."""
    r = 1.0
    for ratio in over.values():
        if ratio is not None and math.isfinite(ratio) and ratio > r:
            r = ratio
    if global_ratio is not None and 1.0 / global_ratio > r:
        r = 1.0 / global_ratio
    return r


def _merged_bisection(
    fabric: Fabric, adj: dict[str, dict[str, float]], tier: dict[str, int], flow: bool
) -> tuple[ClassGraph, Bisection]:
    """The graph with twin devices merged, and the bisection between the two halves of
    the leaves in layout order: by maximum flow, or (without ``flow``) the fabric's
    own estimate."""
    switch_ids = set(fabric.switches)
    order = [d.id for d in fabric.devices]
    leaves = [sid for sid in order if tier.get(sid) == 1 and sid in switch_ids]
    half = len(leaves) // 2
    halves = {leaf: 1 for leaf in leaves[:half]} | {leaf: 2 for leaf in leaves[half:]}
    if len(leaves) < 2:
        halves = {}
    members = {d.id: adj[d.id] for d in fabric.devices if d.id in adj}
    classes = merge_twins(members, switch_ids, {n.id for n in fabric.nodes}, halves, order)
    downlink = {sid: fabric.switches[sid].down for sid in leaves}
    if flow:
        cut = bisection(classes, leaves[:half], leaves[half:], downlink, fabric.injection)
    else:
        cut = Bisection(fabric.bisection, None, len(leaves), len(classes.members))
    return classes, cut


@dataclass(slots=True)
class _BusBandwidth:
    """Expected all-reduce bus bandwidth (NET007 v1.1), each with the node that has it:
    inside a node, between nodes, and within and across scalable units (v1.2)."""

    intra: tuple[float, DeviceFacts] | None = None
    inter: tuple[float, DeviceFacts] | None = None
    sus: int = 0
    within_su: float | None = None
    across_su: float | None = None


def _bus_bandwidth(fabric: Fabric, efficiency: float, r: float) -> _BusBandwidth:
    """Inside a node: the GPUs' interconnect × efficiency; between nodes: min(the node's
    fabric bandwidth × efficiency ÷ r, the inside figure); each for the node with the
    lowest figure. Where one scalable unit holds every node, the within-unit figure
    (no ÷ r) is the between figure."""
    bus = _BusBandwidth()
    for node in fabric.nodes:
        inside = intra_node(node, efficiency)
        if inside is not None and (bus.intra is None or inside < bus.intra[0]):
            bus.intra = (inside, node)
        bandwidth = fabric.node_bandwidth.get(node.id, 0.0)
        if bandwidth <= 0:
            continue
        between = bandwidth * efficiency / r
        if inside is not None and inside < between:
            between = inside
        if bus.inter is None or between < bus.inter[0]:
            bus.inter = (between, node)
    if len(fabric.nodes) < 2:
        bus.inter = None
    within = within_units(fabric, efficiency)
    bus.sus = within.units
    bus.within_su = within.figure if within.units else None
    if bus.inter and within.units and not within.covers:
        bus.across_su = bus.inter[0]
    if within.covers and within.figure is not None and within.node is not None:
        bus.inter = (within.figure, within.node)
    return bus


def _lateral_groups(
    fabric: Fabric, adj: dict[str, dict[str, float]], lateral: list[tuple[str, str, float]]
) -> list[GroupFigures]:
    """The fabric's parts once its top-tier lateral links are removed, with global ratios."""
    if not lateral:
        return []
    removed = {(a, b) for a, b, _ in lateral} | {(b, a) for a, b, _ in lateral}
    group_of, anchors = _parts_without(fabric, adj, removed)
    if len(anchors) < 2:
        return []  # the lateral links join switches of one group: nothing global
    global_bw = [0.0] * len(anchors)
    for a, b, bandwidth in lateral:
        ga, gb = group_of[a], group_of[b]
        if ga != gb:
            global_bw[ga] += bandwidth
            global_bw[gb] += bandwidth
    nodes = [0] * len(anchors)
    node_bw = [0.0] * len(anchors)
    for node in fabric.nodes:
        group = group_of.get(node.id)
        if group is None:
            continue
        nodes[group] += 1
        node_bw[group] += fabric.node_bandwidth.get(node.id, 0.0)
    switch_anchor: dict[int, str] = {}
    for device in fabric.devices:
        group = group_of.get(device.id)
        if group is not None and device.kind == "switch":
            switch_anchor.setdefault(group, device.id)
    return [
        GroupFigures(
            index=number + 1,
            anchor=switch_anchor.get(number, anchors[number]),
            gpu_nodes=nodes[number],
            node_bandwidth=node_bw[number],
            global_bandwidth=global_bw[number],
            ratio=min(1.0, global_bw[number] / node_bw[number]) if node_bw[number] > 0 else None,
        )
        for number in range(len(anchors))
    ]


def _parts_without(
    fabric: Fabric, adj: dict[str, dict[str, float]], removed: set[tuple[str, str]]
) -> tuple[dict[str, int], list[str]]:
    """The fabric's connected parts once the ``removed`` edges are gone: each device's part
    number, and each part's first device in layout order."""
    group_of: dict[str, int] = {}
    anchors: list[str] = []
    for device in fabric.devices:
        start = device.id
        if start in group_of or start not in adj:
            continue
        number = len(anchors)
        anchors.append(start)
        group_of[start] = number
        stack = [start]
        while stack:
            current = stack.pop()
            for neighbour in adj[current]:
                if neighbour not in group_of and (current, neighbour) not in removed:
                    group_of[neighbour] = number
                    stack.append(neighbour)
    return group_of, anchors


def _stocks(
    link: LinkFacts, cache: dict[tuple[object, ...], tuple[float, ...]]
) -> tuple[float, ...]:
    """The stock lengths of a link's part (the media table's), as the cable schedule orders
    it (v1.4); none for a channel (its parts have their own) or an unsized medium."""
    if link.channel is not None or link.link.media is None:
        return ()
    from rackdesigner.analysis.optics import link_shape
    from rackdesigner.analysis.reach import medium

    tech, form = link_shape(link)
    key = (link.link.media, link.speed, link.link.grade, form, tech)
    found = cache.get(key)
    if found is None:
        row = medium(link.link.media, link.speed, link.link.grade, form, tech)
        found = cache[key] = row.stock if row is not None else ()
    return found
