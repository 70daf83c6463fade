"""Dragonfly+ (the field guide's choice from 128 GPUs): groups of leaves and spines, the
spines of different groups joined by global links.

Within a group every leaf has k/2 ports down (at 1:1) and as many up, cabled evenly to every
spine of its group; every spine has as many global ports as leaf-facing ports, so a group's
global bandwidth equals its nodes' (global ratio 1, balanced). Global links are spread
evenly: every pair of groups gets the same number, taken round-robin from the spines.

Groups for N nodes of p ports on radix-k switches: a group holds at most k/2 leaves of k/2
node ports, k²/4 node ports (1,024 with 64-port switches, 128 eight-port nodes), and its
spines have k/2 global ports each. The generator takes the fewest groups g, at least 2 and
at least ⌈N·p ÷ k²/4⌉, for which the global links divide evenly and still carry every
group's node bandwidth: every pair of groups gets ⌊G ÷ (g − 1)⌋ links, G being a group's
global ports, and (g − 1) × that must be at least the group's node ports. The nodes are
split over the groups as evenly as possible (their sizes differ by at most one node).
With QM9700 and 8-port nodes (DGX H100) at 1:1:

* 16 nodes (128 GPUs): 2 groups of 8 nodes (2 leaves, 2 spines each), 64 global links
  between the two;
* 32 nodes (256 GPUs): 2 groups of 16, 128 links;
* 128 nodes (1,024 GPUs): 2 groups of 64, 512 links;
* 1,024 nodes (8,192 GPUs): 9 groups of 113-114 nodes, 128 links per pair;
* 12,500 nodes (100,000 GPUs): 101 groups of 123-124 nodes, 10 links per pair;
* 16,384 nodes (131,072 GPUs): 129 groups of 127-128 nodes, 8 links per pair.

Its bisection is about half the nodes' bandwidth: the topology's known cost, only reported.
"""

from __future__ import annotations

import math

from rackdesigner.analysis.reach import link_tech
from rackdesigner.design.generators.base import FabricPlan, FabricRequest, GenerateError
from rackdesigner.design.generators.build import Builder, Switch
from rackdesigner.model.layout import Layout
from rackdesigner.topology.sizing import DragonflyShape, SizingError, down_ports, dragonfly_shape

Shape = DragonflyShape


def shape(n: int, rails: int, leaf_ports: int, spine_ports: int, ratio: float) -> Shape:
    """The balanced Dragonfly+ for ``n`` nodes of ``rails`` ports (module docstring)."""
    try:
        return dragonfly_shape(n, rails, leaf_ports, spine_ports, ratio)
    except SizingError as error:
        raise GenerateError(str(error)) from None


def generate(layout: Layout, request: FabricRequest) -> FabricPlan:
    b = Builder(layout, request)
    leaf_model, spine_model = b.switch_models(2)
    nodes = b.nodes
    n = len(nodes.ids)
    rails = nodes.rails
    plan_shape = shape(n, rails, leaf_model.ports, spine_model.ports, request.oversubscription)
    down = down_ports(leaf_model.ports, request.oversubscription)
    speed = min(nodes.speed, leaf_model.speed)
    group_spines: list[list[Switch]] = []
    all_leaves: list[Switch] = []
    start = 0
    for g, size in enumerate(plan_shape.sizes):
        members = list(range(start, start + size))
        start += size
        spots = [b.node_spot(i) for i in members]
        target = b.centre(spots)
        near = b.floor.rows_of(spots)
        chunk = min(size, down)
        per_leaf = max(1, down // chunk)
        leaves: list[Switch] = []
        for c0 in range(0, size, chunk):
            part = members[c0 : c0 + chunk]
            for first in range(0, rails, per_leaf):
                rail_set = range(first, min(rails, first + per_leaf))
                leaf = b.switch(leaf_model, "leaf", target, near, f"group {g + 1} leaf")
                for r in rail_set:
                    b.attach(part, r, leaf)
                leaf.want_up = b.uplinks_for(leaf.down, speed, leaf_model, spine_model)
                leaf.next_port = chunk * per_leaf + 1
                leaves.append(leaf)
        full_up = math.ceil(chunk * per_leaf / request.oversubscription - 1e-9)
        count = plan_shape.spines[g]
        spines = [
            b.switch(spine_model, "spine", target, near, f"group {g + 1} spine {j + 1}")
            for j in range(count)
        ]
        for index, leaf in enumerate(leaves):
            b.round_robin(leaf, spines, leaf.want_up, index)
        assert all(leaf.up <= full_up for leaf in leaves)
        group_spines.append(spines)
        all_leaves.extend(leaves)
    # Global ports: each spine k/2, as many as its leaf-facing ports, taken round-robin over
    # the group's spines so every pair of groups lands on several spines.
    half = spine_model.ports // 2
    pools: list[list[Switch]] = []
    for spines in group_spines:
        pools.append([s for _ in range(half) for s in spines])
    cursor = [0] * plan_shape.groups
    groups = plan_shape.groups
    global_links = 0
    for _ in range(plan_shape.per_pair):
        for i in range(groups):
            for j in range(i + 1, groups):
                a = pools[i][cursor[i]]
                c = pools[j][cursor[j]]
                cursor[i] += 1
                cursor[j] += 1
                b.cable(
                    a.id,
                    a.port(),
                    c.id,
                    c.port(),
                    min(a.model.speed, c.model.speed),
                    link_tech(a.model.tech, c.model.tech),
                )
                a.up += 1
                c.up += 1
                global_links += 1
    counts = {
        "nodes": n,
        "groups": groups,
        "leaves": len(all_leaves),
        "spines": sum(len(s) for s in group_spines),
        "cores": 0,
        "tiers": 2,
        "node_leaf_cables": n * rails,
        "leaf_spine_cables": sum(leaf.up for leaf in all_leaves),
        "global_cables": global_links,
        "global_per_pair": plan_shape.per_pair,
    }
    notes = [
        f"dragonfly: {groups} groups of {min(plan_shape.sizes)}-{max(plan_shape.sizes)} nodes, "
        f"{plan_shape.per_pair} global links between every two groups (global ratio 1)"
    ]
    return b.finish(counts, notes)
