"""Expected collective (all-reduce) bus bandwidth: what a healthy cluster should measure.

nccl-tests report "bus bandwidth", the rate each link direction carries per GPU.
Inside a node it is the GPUs' interconnect per direction. Between nodes NCCL's
hierarchical algorithms (NVLink inside the node, one rail per GPU across) drive
all of the node's fabric ports at once, so the figure is the node's whole
compute-fabric bandwidth, divided by the fabric oversubscription r and capped at
the inside figure (rules.md v1.1, NET007): a DGX H100 with 8 x 400 Gbit/s at 1:1
gives 8 x 50 GB/s x 85 % = 340 GB/s, as nccl-tests measures. Collectives reach
about ``nccl_efficiency`` of either. Rules (NET007) and reports read these figures;
nothing here formats for people.

Within a scalable unit (v1.2) the leaf ratio does not apply: in a rail-optimised rail group
(rules.md Definitions) port k of every node is on the group's rail-k leaf, so ring and tree
collectives among its nodes run rail by rail through one leaf and never reach the spines
(NVIDIA's DGX H100 SuperPOD reference architecture: traffic per rail is "always one hop away
from the other 31 nodes in a SU"). The figure there is the node's whole fabric bandwidth x
efficiency, capped at the inside figure (340 GB/s for DGX H100 at any leaf ratio); across
scalable units it is divided by r as above.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackdesigner.analysis.grouping import Groups

if TYPE_CHECKING:
    from rackdesigner.analysis import DeviceFacts
    from rackdesigner.analysis.fabric_graph import Fabric


def per_direction(dev: DeviceFacts) -> float | None:
    """GPU-to-GPU bandwidth per direction inside the node, bit/s.

    The catalog gives NVLink and Infinity Fabric (``nvlink = true``) as the total of
    both directions (H100 SXM: 900 GB/s) and PCIe figures as one direction. A chassis
    whose form factor is not its GPU's (CMP008: an SXM module in a PCIe server) gets none.
    """
    gpu = dev.gpu
    if gpu is None or not gpu.interconnect or dev.gpus < 2:
        return None
    chassis = dev.type.form_factor if dev.type is not None else None
    if chassis is not None and gpu.form_factor is not None and chassis != gpu.form_factor:
        return None  # CMP008: the node cannot be built, so it has no NVLink to measure
    return float(gpu.interconnect) / 2 if gpu.nvlink else float(gpu.interconnect)


def intra_node(dev: DeviceFacts, efficiency: float) -> float | None:
    """Expected all-reduce bus bandwidth inside one node, bit/s."""
    figure = per_direction(dev)
    return None if figure is None else figure * efficiency


def intra_nodes(efficiency: float) -> Callable[[DeviceFacts], float | None]:
    """:func:`intra_node` at ``efficiency``, worked out once per GPU, GPU count and device
    type among the nodes it is asked of (a fabric's thousands of nodes are of a few)."""
    memo: dict[tuple[int, int, int], float | None] = {}

    def of(dev: DeviceFacts) -> float | None:
        key = (id(dev.gpu), dev.gpus, id(dev.type))
        if key not in memo:
            memo[key] = intra_node(dev, efficiency)
        return memo[key]

    return of


def scalable_units(fabric: Fabric) -> list[list[DeviceFacts]]:
    """The fabric's scalable units: its rail-optimised rail groups (rules.md Definitions) of
    two or more GPU nodes whose every node-to-leaf cable lands on its port's rail leaf (no
    crossed rail, NET008), in the order of their first node. Linear in the cables."""
    by_id = {node.id: node for node in fabric.nodes}
    return units_of(_node_leaf_cables(fabric, by_id), by_id)


def units_of(
    cables: list[tuple[str, str, str]], by_id: dict[str, DeviceFacts]
) -> list[list[DeviceFacts]]:
    """The scalable units of the node-to-leaf ``cables`` (node, its port, leaf) of the GPU
    nodes ``by_id`` (in node order): :func:`scalable_units` of the rail groups they make.
    Each rail group's units are its own (a what-if derives a failed fabric's units for the
    groups a failure touches only)."""
    root_of, members = _rail_groups(cables, by_id)
    rail = _rails(cables, root_of, members)
    clean = {root for root, nodes in members.items() if len(nodes) >= 2}
    for node, port, leaf in cables:
        root = root_of[node]
        if rail.get((root, port)) != leaf:
            clean.discard(root)
    # Each group's rail leaves, gathered in one pass over the rails (asking every group of
    # every rail was groups × rails: 0.35 s of a 100,000-GPU hall's validate).
    rail_leaves: dict[object, set[str]] = {}
    for (root, _), leaf in rail.items():
        rail_leaves.setdefault(root, set()).add(leaf)
    units = []
    for root, nodes in members.items():
        if root in clean and len(rail_leaves.get(root, ())) >= 2:
            units.append([by_id[node] for node in nodes])
    return units


def _node_leaf_cables(fabric: Fabric, by_id: dict[str, DeviceFacts]) -> list[tuple[str, str, str]]:
    """Each cable from a GPU node to a leaf, as (node, its port, leaf)."""
    leaves = {name for name, s in fabric.switches.items() if s.tier == 1}
    cables: list[tuple[str, str, str]] = []
    for link in fabric.links:
        a, b = link.a, link.b
        da, db = a.device, b.device
        if da is None or db is None:
            continue
        if da.id in by_id and db.id in leaves:
            cables.append((da.id, a.text.partition(":")[2], db.id))
        elif db.id in by_id and da.id in leaves:
            cables.append((db.id, b.text.partition(":")[2], da.id))
    return cables


def _rail_groups(
    cables: list[tuple[str, str, str]], by_id: dict[str, DeviceFacts]
) -> tuple[dict[str, object], dict[object, list[str]]]:
    """Nodes joined through the leaves they are cabled to: each cabled node's group (its
    root), and each group's nodes in node order."""
    leaves_of: dict[str, set[str]] = {}
    for node, _, leaf in cables:
        leaves_of.setdefault(node, set()).add(leaf)
    groups = Groups()
    for reached in {tuple(sorted(r)) for r in leaves_of.values()}:
        groups.add(reached[0])
        for leaf in reached[1:]:
            groups.join(reached[0], leaf)
    root_of = {node: groups.find(min(reached)) for node, reached in leaves_of.items()}
    members: dict[object, list[str]] = {}
    for node in by_id:
        root = root_of.get(node)
        if root is not None:
            members.setdefault(root, []).append(node)
    return root_of, members


def _rails(
    cables: list[tuple[str, str, str]],
    root_of: dict[str, object],
    members: dict[object, list[str]],
) -> dict[tuple[object, str], str]:
    """Each group's rails: port -> the leaf more than half of the group's nodes cable that
    port to."""
    counts: dict[tuple[object, str, str], int] = {}
    for node, port, leaf in cables:
        key = (root_of[node], port, leaf)
        counts[key] = counts.get(key, 0) + 1
    rail: dict[tuple[object, str], str] = {}
    for (root, port, leaf), count in counts.items():
        if count * 2 > len(members[root]):
            rail[(root, port)] = leaf
    return rail


@dataclass(frozen=True, slots=True)
class WithinUnits:
    """The expected bus bandwidth within scalable units (v1.2), for the lowest node."""

    units: int  # scalable units of the fabric (0: none, the fabric figure applies)
    covers: bool  # one unit holds every GPU node of the fabric
    figure: float | None  # bit/s
    node: DeviceFacts | None
    capped: bool


Best = tuple[float, "DeviceFacts", bool]  # a figure, its node, whether the inside caps it


def unit_best(
    unit: list[DeviceFacts],
    bandwidths: dict[str, float],
    efficiency: float,
    inside_of: Callable[[DeviceFacts], float | None],
) -> Best | None:
    """The lowest figure within one scalable unit, its first node with it (``bandwidths``:
    each node's fabric bandwidth; ``inside_of``: :func:`intra_node` at ``efficiency``)."""
    best: Best | None = None
    for node in unit:
        bandwidth = bandwidths.get(node.id, 0.0)
        if bandwidth <= 0:
            continue
        figure = bandwidth * efficiency
        inside = inside_of(node)
        capped = inside is not None and inside < figure
        if capped:
            assert inside is not None
            figure = inside
        if best is None or figure < best[0]:
            best = (figure, node, capped)
    return best


def within_units(fabric: Fabric, efficiency: float) -> WithinUnits:
    units = fabric.units  # found once per fabric: a fabric is not changed once built
    if units is None:
        units = fabric.units = scalable_units(fabric) if len(fabric.nodes) >= 2 else []
    found = fabric.unit_bests  # each unit's lowest, once per fabric and efficiency
    if found is None or found[0] != efficiency:
        inside_of = intra_nodes(efficiency)
        bests = [unit_best(u, fabric.node_bandwidth, efficiency, inside_of) for u in units]
        found = fabric.unit_bests = (efficiency, bests)
    best: Best | None = None
    for candidate in found[1]:  # the first lowest in unit order, then node order
        if candidate is not None and (best is None or candidate[0] < best[0]):
            best = candidate
    return WithinUnits(
        units=len(units),
        covers=len(units) == 1 and len(units[0]) == len(fabric.nodes),
        figure=best[0] if best else None,
        node=best[1] if best else None,
        capped=best[2] if best else False,
    )


NodeKey = tuple[int, int, int, float]


def node_key(node: DeviceFacts, bandwidth: float) -> NodeKey:
    """What the bus figures read of a GPU node: its GPU, their count, its device type (by
    identity: the catalog's) and its fabric bandwidth."""
    return (id(node.gpu), node.gpus, id(node.type), bandwidth)


def node_kinds(fabric: Fabric) -> dict[NodeKey, tuple[int, DeviceFacts]]:
    """Each kind of GPU node of the fabric (:func:`node_key`) and the first node of that
    kind (its index in the fabric's nodes, the node), found once per fabric: nodes of a
    kind have the same figures, so the lowest figure's first node is a kind's first."""
    if fabric.kinds is None:
        kinds: dict[NodeKey, tuple[int, DeviceFacts]] = {}
        bandwidths = fabric.node_bandwidth
        for at, node in enumerate(fabric.nodes):
            kinds.setdefault(node_key(node, bandwidths.get(node.id, 0.0)), (at, node))
        fabric.kinds = kinds
    return fabric.kinds


@dataclass(frozen=True, slots=True)
class FabricBusBandwidth:
    intra: float | None  # bit/s, the lowest of the fabric's nodes
    intra_node: DeviceFacts | None
    inter: float | None  # bit/s between nodes
    inter_node: DeviceFacts | None  # the node with the lowest figure between nodes
    node_bandwidth: float | None  # bit/s of that node's compute-fabric ports
    uniform: bool  # every node has the same compute-fabric bandwidth
    oversubscription: float  # the fabric oversubscription r (1 when non-blocking)
    capped: bool  # the inside figure limits the figure between nodes
    # (v1.2) Within scalable units; where one unit holds every node, ``inter`` is its figure.
    within: WithinUnits | None = None
    across: float | None = None  # bit/s across units: bandwidth x efficiency / r


def fabric_bus_bandwidth(
    fabric: Fabric, efficiency: float, *, ratio: float | None = None
) -> FabricBusBandwidth:
    """The expected bus bandwidths of ``fabric`` (NET007, the report's fabric figures and
    diff's), each for the node with the lowest. Between nodes the figure is divided by
    ``ratio``, the fabric oversubscription r: by default the fabric's own
    (:attr:`~rackdesigner.analysis.fabric_graph.Fabric.oversubscription`); the report's
    fabric figures pass the r they print."""
    if ratio is None:
        ratio = fabric.oversubscription if len(fabric.nodes) >= 2 else 1.0
    intra, inter, bandwidths = _lowest_figures(fabric, efficiency, ratio)
    within = within_units(fabric, efficiency)
    across = inter[0] if inter else None
    if within.covers and within.figure is not None:
        assert within.node is not None
        bandwidth = fabric.node_bandwidth.get(within.node.id, 0.0)
        inter = (within.figure, within.node, bandwidth, within.capped)
    return FabricBusBandwidth(
        intra=intra[0] if intra else None,
        intra_node=intra[1] if intra else None,
        inter=inter[0] if inter else None,
        inter_node=inter[1] if inter else None,
        node_bandwidth=inter[2] if inter else None,
        uniform=len(bandwidths) <= 1,
        oversubscription=ratio,
        capped=inter[3] if inter else False,
        within=within if within.units else None,
        across=across,
    )


def lowest_bandwidth(fabric: Fabric) -> tuple[float, DeviceFacts] | None:
    """The lowest fabric bandwidth of the fabric's nodes (of those with one) and the first
    node with it (NET003), from the kinds of node: no walk over the nodes."""
    found: tuple[float, int, DeviceFacts] | None = None
    for key, (at, node) in node_kinds(fabric).items():
        bandwidth = key[3]
        if bandwidth > 0 and (found is None or (bandwidth, at) < found[:2]):
            found = (bandwidth, at, node)
    return (found[0], found[2]) if found is not None else None


def _lowest_figures(
    fabric: Fabric, efficiency: float, ratio: float
) -> tuple[
    tuple[float, DeviceFacts] | None,
    tuple[float, DeviceFacts, float, bool] | None,
    set[float],
]:
    """The lowest figure inside a node (with the node), the lowest between nodes (with the
    node, its fabric bandwidth and whether the inside figure caps it: bandwidth ×
    efficiency ÷ r), and the nodes' fabric bandwidths."""
    intra: tuple[float, DeviceFacts] | None = None
    inter: tuple[float, DeviceFacts, float, bool] | None = None
    bandwidths = set()
    inside_of = intra_nodes(efficiency)
    firsts = sorted(node_kinds(fabric).values(), key=lambda first: first[0])
    for _, node in firsts:  # nodes of one kind have one figure: the first can be lowest
        inside = inside_of(node)
        if inside is not None and (intra is None or inside < intra[0]):
            intra = (inside, node)
        bandwidth = fabric.node_bandwidth.get(node.id, 0.0)
        if bandwidth <= 0 or len(fabric.nodes) < 2:
            continue
        bandwidths.add(bandwidth)
        between = bandwidth * efficiency / ratio if math.isfinite(ratio) else 0.0
        capped = inside is not None and inside < between
        if capped:
            assert inside is not None
            between = inside
        if inter is None or between < inter[0]:
            inter = (between, node, bandwidth, capped)
    return intra, inter, bandwidths
