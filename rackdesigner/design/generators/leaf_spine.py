"""Two-tier leaf-spine for Ethernet, inference and storage fabrics, at any oversubscription.

All the nodes' compute ports on one switch when they fit (a one-switch fabric is
non-blocking); else leaves with ``k × r ÷ (1 + r)`` ports down (r the oversubscription:
32 of 64 at 1:1, 51 at 4:1) and the rest up, and one tier of spines with every leaf cabled
equally to every spine. Nodes are spread over the leaves rail by rail: a leaf takes whole
rails of a group of nodes, so losing one leaf costs every node of the group some bandwidth
instead of cutting a few nodes off. Two tiers close at k²/2 node ports at 1:1 (2,048 with
64-port switches); beyond that use ``rail`` (core tier) or ``dragonfly``.
"""

from __future__ import annotations

from rackdesigner.design.generators.base import FabricPlan, FabricRequest, GenerateError
from rackdesigner.design.generators.build import Builder, Switch, spines_for
from rackdesigner.model.layout import Layout
from rackdesigner.model.wording import plural


def down_ports(ports: int, oversubscription: float) -> int:
    """Downlinks of a ``ports``-port leaf at ``oversubscription``:1 (equal port speeds)."""
    return max(1, int(ports * oversubscription / (1.0 + oversubscription) + 1e-9))


def spread(b: Builder, leaf_model, down: int, spine_model, label: str) -> list[Switch]:
    """Leaves for every node, each taking whole rails of a group of up to ``down`` nodes."""
    nodes = b.nodes
    n = len(nodes.ids)
    rails = nodes.rails
    group = min(n, down)
    per_leaf = max(1, down // group)  # rails of the group one leaf takes
    leaves: list[Switch] = []
    speed = min(nodes.speed, leaf_model.speed)
    for start in range(0, n, group):
        members = list(range(start, min(n, start + group)))
        spots = [b.node_spot(i) for i in members]
        target = b.centre(spots)
        near = b.floor.rows_of(spots)
        for first in range(0, rails, per_leaf):
            rail_set = range(first, min(rails, first + per_leaf))
            leaf = b.switch(
                leaf_model,
                "leaf",
                target,
                near,
                f"{label}nodes {start + 1}-{members[-1] + 1} rails {first + 1}-{rail_set[-1] + 1}",
            )
            for r in rail_set:
                b.attach(members, r, leaf)
            leaf.want_up = b.uplinks_for(leaf.down, speed, leaf_model, spine_model)
            leaf.next_port = group * per_leaf + 1
            leaves.append(leaf)
    return leaves


def generate(
    layout: Layout, request: FabricRequest, *, power_limit: float | None = None
) -> FabricPlan:
    b = Builder(layout, request, power_limit=power_limit)
    nodes = b.nodes
    n = len(nodes.ids)
    leaf_model = b.model(request.leaf, "leaf")
    spine_model = b.model(request.spine, "spine", leaf_model)
    ports = n * nodes.rails
    if ports <= leaf_model.ports:
        spots = [b.node_spot(i) for i in range(n)]
        switch = b.switch(leaf_model, "leaf", b.centre(spots), b.floor.rows_of(spots), "leaf")
        for i in range(n):
            for r in range(nodes.rails):
                b.node_to_switch(i, r, switch)
        counts = {
            "nodes": n,
            "leaves": 1,
            "spines": 0,
            "cores": 0,
            "tiers": 1,
            "node_leaf_cables": ports,
            "leaf_spine_cables": 0,
        }
        return b.finish(counts, [f"leaf-spine: one {leaf_model.key} for {ports} node ports"])
    down = down_ports(leaf_model.ports, request.oversubscription)
    group = min(n, down)
    full_up = b.uplinks_for(
        group * max(1, down // group), min(nodes.speed, leaf_model.speed), leaf_model, spine_model
    )
    if down + full_up > leaf_model.ports or down < 1:
        raise GenerateError(
            f"leaf {leaf_model.key} has {leaf_model.ports} ports: too few for "
            f"{down} down and {full_up} up at {request.oversubscription:g}:1"
        )
    leaves_needed = -(-n // group) * -(-nodes.rails // max(1, down // group))
    if spines_for(leaves_needed, full_up, spine_model.ports) is None:
        raise GenerateError(
            f"leaf-spine: {ports:,} node ports need {leaves_needed:,} leaves, more than one "
            f"tier of {spine_model.ports}-port {spine_model.key} spines can join (two tiers "
            f"close at {spine_model.ports * down:,} node ports); use --fabric rail (core tier) "
            "or dragonfly"
        )
    leaves = spread(b, leaf_model, down, spine_model, "")
    spines = b.two_tier(leaves, full_up, spine_model, b.floor.centre, None, "")
    counts = {
        "nodes": n,
        "leaves": len(leaves),
        "spines": len(spines),
        "cores": 0,
        "tiers": 2,
        "node_leaf_cables": ports,
        "leaf_spine_cables": sum(leaf.up for leaf in leaves),
    }
    notes = [
        f"leaf-spine: {plural(len(leaves), 'leaf', 'leaves')} ({down} ports down), "
        f"{plural(len(spines), 'spine')}, {request.oversubscription:g}:1"
    ]
    return b.finish(counts, notes)
