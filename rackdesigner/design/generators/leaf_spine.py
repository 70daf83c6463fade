"""Two-tier leaf-spine for Ethernet, inference and storage fabrics, at any oversubscription.

Redundant (the default for two or more nodes of two or more ports): no one switch splits
the nodes (NET005). Where all the nodes' compute ports would fit one switch, two leaves
take half of every node's ports each (rails 1-4 and 5-8 of an 8-port node) and at least two
spines join them at the asked ratio: the field guide's 32-GPU inference cluster (4 DGX B200
on QM8700 at 2:1, ``layouts/inference-32-b200.toml``), 2 leaves of 16 ports down and 8 up,
2 spines. Without redundancy (``redundant=False``) such nodes go on one switch, which is
non-blocking: asked for more than 1:1 the generator refuses rather than drop the ratio.
Else leaves with ``k × r ÷ (1 + r)`` ports down (r the oversubscription:
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
from rackdesigner.topology.sizing import down_ports


def spread(
    b: Builder, leaf_model, down: int, spine_model, label: str, min_up: int = 1
) -> list[Switch]:
    """Leaves for every node, each taking whole rails of a group of up to ``down`` nodes
    (at least ``min_up`` uplinks each)."""
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
            leaf.want_up = max(min_up, b.uplinks_for(leaf.down, speed, leaf_model, spine_model))
            leaf.next_port = group * per_leaf + 1
            leaves.append(leaf)
    return leaves


def _ratio(b: Builder, leaf: Switch, spine_speed: float) -> float:
    """The leaf's downlink ÷ uplink bandwidth as built."""
    down = leaf.down * min(b.nodes.speed, leaf.model.speed)
    return down / (leaf.want_up * min(leaf.model.speed, spine_speed) or 1.0)


def _pair(b: Builder, leaf_model, spine_model) -> FabricPlan | None:
    """Two leaves with half of every node's ports each and at least two spines; None where
    a leaf cannot take its half and the uplinks the ratio needs."""
    nodes = b.nodes
    n, rails = len(nodes.ids), nodes.rails
    first = (rails + 1) // 2
    halves = (range(0, first), range(first, rails))
    speed = min(nodes.speed, leaf_model.speed)
    downs = [n * len(half) for half in halves]
    # At least two uplinks a leaf: one to each of two spines.
    ups = [max(2, b.uplinks_for(d, speed, leaf_model, spine_model)) for d in downs]
    if any(d + u > leaf_model.ports for d, u in zip(downs, ups, strict=True)):
        return None
    if spines_for(2, max(ups), spine_model.ports, 2) is None:
        return None
    spots = [b.node_spot(i) for i in range(n)]
    target, near = b.centre(spots), b.floor.rows_of(spots)
    # Each leaf (and spine) in its own half of the nodes' racks, in the rack of that half
    # nearest the centre (a leaf and a spine in each of two racks, as the guide's inference
    # cluster has them; the middle two of four): losing a rack leaves the other racks'
    # nodes a leaf and a spine, and no run is longer than with both in the middle.
    racks = sorted({id(s): s for s in spots}.values(), key=lambda s: (s.y, s.x or 0.0))
    aims = [
        min(((s.x or 0.0, s.y) for s in share), key=lambda p: b.floor.distance_to(p, target))
        for share in (racks[: len(racks) // 2], racks[len(racks) // 2 :])
        if len(racks) > 1
    ]
    leaves: list[Switch] = []
    for k, half in enumerate(halves):
        aim = aims[k] if aims else target
        leaf = b.switch(
            leaf_model, "leaf", aim, near, f"leaf {k + 1} rails {half[0] + 1}-{half[-1] + 1}"
        )
        for r in half:
            b.attach(range(n), r, leaf)
        leaf.want_up = ups[k]
        leaves.append(leaf)
    spines = b.two_tier(
        leaves,
        max(ups),
        spine_model,
        b.floor.centre,
        None,
        "",
        minimum=2,
        spread=aims,
    )
    built = max(_ratio(b, leaf, spine_model.speed) for leaf in leaves)
    counts = {
        "nodes": n,
        "leaves": 2,
        "spines": len(spines),
        "cores": 0,
        "tiers": 2,
        "node_leaf_cables": n * rails,
        "leaf_spine_cables": sum(leaf.up for leaf in leaves),
    }
    note = (
        f"leaf-spine: 2 leaves ({downs[0]} ports down, {ups[0]} up), "
        f"{plural(len(spines), 'spine')}, {built:g}:1; each node on both leaves (redundant: "
        "no one switch splits the nodes)"
    )
    notes = [note]
    if built < b.request.oversubscription - 1e-9:
        notes.append(
            f"leaf-spine: {built:g}:1, not the {b.request.oversubscription:g}:1 asked: "
            "each leaf needs an uplink to each of two spines"
        )
    return b.finish(counts, notes)


def generate(layout: Layout, request: FabricRequest) -> FabricPlan:
    b = Builder(layout, request)
    leaf_model, spine_model = b.switch_models(2)
    nodes = b.nodes  # the nodes' compute ports at the leaf's rate where it set them
    n = len(nodes.ids)
    redundant = request.wants_redundancy(n, nodes.rails)
    ports = n * nodes.rails
    if ports <= leaf_model.ports:
        if redundant:
            plan = _pair(b, leaf_model, spine_model)
            if plan is not None:
                return plan
        elif request.oversubscription > 1.0:
            raise GenerateError(
                f"leaf-spine: without redundancy the {ports} node ports go on one "
                f"{leaf_model.key}, which is non-blocking (1:1), not the "
                f"{request.oversubscription:g}:1 asked: give --oversubscription 1 for one "
                f"switch, or --redundant for two leaves and two spines at "
                f"{request.oversubscription:g}:1"
            )
        else:
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
    minimum = 2 if redundant else 1
    down = down_ports(leaf_model.ports, request.oversubscription)
    group = min(n, down)
    full_up = max(
        minimum,
        b.uplinks_for(
            group * max(1, down // group),
            min(nodes.speed, leaf_model.speed),
            leaf_model,
            spine_model,
        ),
    )
    if down + full_up > leaf_model.ports or down < 1:
        raise GenerateError(
            f"leaf {leaf_model.key} has {leaf_model.ports} ports: too few for "
            f"{down} down and {full_up} up at {request.oversubscription:g}:1"
        )
    leaves_needed = -(-n // group) * -(-nodes.rails // max(1, down // group))
    if spines_for(leaves_needed, full_up, spine_model.ports, minimum) is None:
        raise GenerateError(
            f"leaf-spine: {ports:,} node ports need {leaves_needed:,} leaves, more than one "
            f"tier of {spine_model.ports}-port {spine_model.key} spines can join (two tiers "
            f"close at {spine_model.ports * down:,} node ports); use --fabric rail (core tier) "
            "or dragonfly"
        )
    leaves = spread(b, leaf_model, down, spine_model, "", minimum)
    spines = b.two_tier(leaves, full_up, spine_model, b.floor.centre, None, "", minimum=minimum)
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
