"""Bisection bandwidth by maximum flow, and the farthest GPUs, on a fabric's merged graph.

rules.md (v1.1, Definitions) defines the bisection: the fabric's leaves in layout
order split into the first ⌊L/2⌋ and the rest; a source feeds each first-half leaf
with its downlink bandwidth, a sink drains each second-half leaf's, and the
maximum flow between them on the fabric graph (each cabled pair one edge of their
summed bandwidth, both directions; a flow may cross a GPU node between two of its
leaves, as NCCL does over NVLink) is the bisection bandwidth.

A 100,000-GPU fabric has tens of thousands of vertices, but most of them are
alike: GPU nodes cabled to the same leaves, spines cabled to the same leaves. The
definition merges those first (nodes that share the same leaves; then switches
that share the same neighbours, never a first-half leaf with a second-half one),
so the flow runs on a graph of a few hundred classes. Twins are cabled alike (the
same bandwidth to each neighbour): then every member of a class carries its share
of the class's flow, and the flow on the classes is the flow on the devices. The
same class graph gives the hop count between the farthest GPUs cheaply: twins are
at equal distances from everything else.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import networkx as nx

# Beyond this many GPU-node classes the farthest pair is found by repeated sweeps (a
# lower bound, flagged as such) instead of one search per class.
EXACT_HOPS_CLASSES = 2000


@dataclass(slots=True)
class ClassGraph:
    """A fabric with twin vertices merged. Class ids are ints; members keep their order."""

    members: list[list[str]] = field(default_factory=list)
    is_switch: list[bool] = field(default_factory=list)
    has_gpus: list[bool] = field(default_factory=list)
    half: list[int] = field(default_factory=list)  # 1 first-half leaf, 2 second-half, 0 none
    adj: list[dict[int, float]] = field(default_factory=list)  # class -> class -> bit/s
    of: dict[str, int] = field(default_factory=dict)


def merge_twins(
    adjacency: dict[str, dict[str, float]],
    switches: set[str],
    gpu_nodes: set[str],
    halves: dict[str, int],
    order: list[str],
) -> ClassGraph:
    """Merge endpoints that share the same neighbours, then switches that do (per half).

    ``adjacency`` maps each device to its neighbours and the bit/s between them;
    ``order`` lists the devices in layout order, which fixes the class numbering.
    """
    graph = ClassGraph()
    keys: dict[tuple[object, ...], int] = {}

    def new_class(key: tuple[object, ...], device: str, switch: bool) -> int:
        number = len(graph.members)
        keys[key] = number
        graph.members.append([device])
        graph.is_switch.append(switch)
        graph.has_gpus.append(device in gpu_nodes)
        graph.half.append(halves.get(device, 0))
        graph.adj.append({})
        return number

    # Endpoints (GPU nodes, other hosts on compute ports) by the exact set of neighbours
    # and the bandwidth to each (merged, nodes cabled unlike carry more than they can).
    key: tuple[object, ...]
    for device in order:
        if device in switches or device not in adjacency:
            continue
        key = ("n", frozenset(adjacency[device].items()))
        number = keys.get(key)
        if number is None:
            number = new_class(key, device, False)
        else:
            graph.members[number].append(device)
            graph.has_gpus[number] |= device in gpu_nodes
        graph.of[device] = number
    # Switches by their neighbours once endpoints are classes (a switch's other switch
    # neighbours stay themselves: one pass, as the definition says).
    of = graph.of
    for device in order:
        if device not in switches or device not in adjacency:
            continue
        around = frozenset((of.get(n, n), b) for n, b in adjacency[device].items())
        key = ("s", halves.get(device, 0), around)
        number = keys.get(key)
        if number is None:
            number = new_class(key, device, True)
        else:
            graph.members[number].append(device)
        of[device] = number
    _class_edges(graph, adjacency)
    return graph


def _class_edges(graph: ClassGraph, adjacency: dict[str, dict[str, float]]) -> None:
    """Each class's bandwidth to each other class: its members' cables summed."""
    adj = graph.adj
    class_of = graph.of.get
    for device, neighbours in adjacency.items():
        a = class_of(device)
        if a is None:
            continue
        row = adj[a]
        add = row.get
        for neighbour, bandwidth in neighbours.items():
            b = class_of(neighbour)
            if b is not None and b != a:
                row[b] = add(b, 0.0) + bandwidth


def max_flow(graph: ClassGraph, supply: dict[int, float], demand: dict[int, float]) -> float:
    """Maximum flow from a source feeding ``supply`` to a sink draining ``demand``."""
    if not supply or not demand:
        return 0.0
    flow: nx.DiGraph[int | str] = nx.DiGraph()
    for a, row in enumerate(graph.adj):
        for b, capacity in row.items():
            # Each direction carries the cable bundle's bandwidth on its own (full duplex).
            flow.add_edge(a, b, capacity=capacity)
    for number, capacity in supply.items():
        flow.add_edge("source", number, capacity=capacity)
    for number, capacity in demand.items():
        flow.add_edge(number, "sink", capacity=capacity)
    return float(nx.maximum_flow_value(flow, "source", "sink"))


@dataclass(frozen=True, slots=True)
class Bisection:
    bandwidth: float  # bit/s
    ratio: float | None  # ÷ the smaller half's downlink bandwidth
    leaves: int
    classes: int  # vertices of the merged graph the flow ran on


def bisection(
    graph: ClassGraph,
    first: list[str],
    second: list[str],
    downlink: dict[str, float],
    injection: float,
) -> Bisection:
    """The bisection of a fabric whose leaves split into ``first`` and ``second``."""
    leaves = len(first) + len(second)
    if leaves < 2:
        return Bisection(injection / 2, 1.0, leaves, len(graph.members))
    supply: dict[int, float] = {}
    demand: dict[int, float] = {}
    for leaf in first:
        number = graph.of[leaf]
        supply[number] = supply.get(number, 0.0) + downlink.get(leaf, 0.0)
    for leaf in second:
        number = graph.of[leaf]
        demand[number] = demand.get(number, 0.0) + downlink.get(leaf, 0.0)
    value = max_flow(graph, supply, demand)
    smaller = min(sum(supply.values()), sum(demand.values()))
    return Bisection(value, value / smaller if smaller > 0 else None, leaves, len(graph.members))


@dataclass(frozen=True, slots=True)
class Hops:
    hops: int | None  # cables on the shortest path between the farthest two GPU nodes
    through_nodes: bool  # some pair is joined only through another GPU node (NVLink)
    exact: bool  # False: a lower bound from sweeps (very irregular fabrics)


def _distances(graph: ClassGraph, start: int, through_nodes: bool) -> dict[int, int]:
    """Hops from class ``start`` to every class; endpoints relay only with ``through_nodes``."""
    seen = {start: 0}
    queue = deque([start])
    adj, is_switch = graph.adj, graph.is_switch
    while queue:
        current = queue.popleft()
        if current != start and not is_switch[current] and not through_nodes:
            continue
        step = seen[current] + 1
        for neighbour in adj[current]:
            if neighbour not in seen:
                seen[neighbour] = step
                queue.append(neighbour)
    return seen


def farthest_gpus(graph: ClassGraph) -> Hops:
    """Cables between the two GPU nodes farthest apart (over switches; else via nodes)."""
    gpu_classes = [n for n, flag in enumerate(graph.has_gpus) if flag and not graph.is_switch[n]]
    gpu_count = sum(len(graph.members[n]) for n in gpu_classes)
    if gpu_count < 2:
        return Hops(None, False, True)
    # Two nodes of one class share their leaves: two cables apart.
    base = 2 if any(len(graph.members[n]) > 1 for n in gpu_classes) else 0
    targets = set(gpu_classes)
    for through_nodes in (False, True):
        best = base
        complete = True
        exact = len(gpu_classes) <= EXACT_HOPS_CLASSES
        sources = gpu_classes if exact else _sweep_sources(graph, gpu_classes, through_nodes)
        for start in sources:
            seen = _distances(graph, start, through_nodes)
            for target in targets:
                distance = seen.get(target)
                if distance is None:
                    complete = False
                    break
                if distance > best:
                    best = distance
            if not complete:
                break
        if complete:
            return Hops(best, through_nodes, exact)
    return Hops(None, True, True)


def _sweep_sources(graph: ClassGraph, gpu_classes: list[int], through_nodes: bool) -> list[int]:
    """A few sweep starts: each the farthest GPU class from the previous one."""
    targets = set(gpu_classes)
    sources = [gpu_classes[0]]
    for _ in range(4):
        seen = _distances(graph, sources[-1], through_nodes)
        far = max(targets, key=lambda n: (seen.get(n, -1), -n))
        if far in sources:
            break
        sources.append(far)
    return sources
