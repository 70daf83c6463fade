"""The per-fabric figures ``report`` prints: tiers, cables, oversubscription, bisection.

These follow rules.md v1.1's Definitions, computed here for the report (no rule
reads the bisection):

- **switch oversubscription**: downlink ÷ (uplink + lateral) bandwidth below the
  top tier; links between two switches of one tier are lateral links (the v1
  graph code ignores them, so they are counted here);
- **lateral groups and global ratio**: where top-tier switches have lateral
  links, a group is a connected part of the fabric once those links are removed
  (through switches: a host forwards no fabric traffic); its global ratio is their
  bandwidth ÷ its GPU nodes' fabric bandwidth, capped at 1. The groups are the
  fabric's own (:mod:`rackdesigner.analysis.lateral`, those NET002 judges);
- **fabric oversubscription** r: the largest of 1, every switch's
  oversubscription and 1 ÷ the smallest group's global ratio;
- **bisection** by maximum flow on the merged graph (:mod:`.bisection`);
- **expected all-reduce bus bandwidth** (NET007 v1.1): inside a node the GPUs'
  interconnect per direction × efficiency; between nodes min(the node's whole
  fabric bandwidth × efficiency ÷ r, the inside figure), for the node with the
  lowest figure; within a scalable unit (v1.2, rail-local) without the ÷ r
  (:func:`.collectives.fabric_bus_bandwidth`, as NET007 computes them, with this r).

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
from rackdesigner.topology.collectives import fabric_bus_bandwidth

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
    groups = _group_figures(fabric)
    ratios = [g.ratio for g in groups if g.ratio is not None and g.ratio > 0]
    global_ratio = min(ratios) if ratios else None
    r = _fabric_oversubscription(switches.over, global_ratio)
    classes, cut = _merged_bisection(fabric, adj, tier, flow)
    bus = fabric_bus_bandwidth(fabric, efficiency, ratio=r)
    units = bus.within.units if bus.within is not None else 0
    return FabricFigures(
        fabric=fabric,
        tiers=[switches.by_tier[level] for level in sorted(switches.by_tier)],
        oversubscription_by_switch=switches.over,
        groups=groups,
        global_ratio=global_ratio,
        oversubscription=r,
        bisection=cut,
        hops=farthest_gpus(classes) if detail else NOT_SEARCHED,
        intra=bus.intra,
        intra_node=bus.intra_node,
        inter=bus.inter,
        inter_node=bus.inter_node,
        efficiency=efficiency,
        classes=classes,
        sus=units,
        within_su=bus.within.figure if bus.within is not None else None,
        # Across units only where there are two or more of them.
        across_su=bus.across if bus.within is not None and not bus.within.covers else None,
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
    """What the switches add up to: each tier's figures and each switch's
    oversubscription."""

    by_tier: dict[int, TierFigures]
    over: dict[str, float | None]


def _switch_figures(
    fabric: Fabric, adj: dict[str, dict[str, float]], tier: dict[str, int]
) -> _Switches:
    """Lateral bandwidth and v1.1 oversubscription per switch (downlink ÷ (uplink +
    lateral), none at the top tier), summed per tier with the tier's worst switch."""
    top = fabric.max_tier
    switch_ids = set(fabric.switches)
    found = _Switches({}, {})
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


def _group_figures(fabric: Fabric) -> list[GroupFigures]:
    """The fabric's lateral groups (:func:`~rackdesigner.analysis.lateral.lateral_groups`,
    found with the fabric) with their GPU nodes counted and their first switch named."""
    if not fabric.groups:
        return []
    nodes = {node.id for node in fabric.nodes}
    switches = fabric.switches
    return [
        GroupFigures(
            index=number + 1,
            anchor=next((m for m in group.members if m in switches), group.members[0]),
            gpu_nodes=sum(1 for m in group.members if m in nodes),
            node_bandwidth=group.node_bandwidth,
            global_bandwidth=group.global_bandwidth,
            ratio=group.ratio,
        )
        for number, group in enumerate(fabric.groups)
    ]


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
