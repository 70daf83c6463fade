"""Rail-optimised fat tree: the NVIDIA DGX SuperPOD compute fabric.

Nodes are taken in layout order in scalable units (SU) of ``su_nodes`` (default half the
leaf's ports: 32 on a 64-port QM9700, 72 on a 144-port Q3400; one SU of all the nodes when
there are fewer). Each SU has one leaf per rail: port k of every node
of the SU goes to the SU's rail-k leaf, so GPU k of every node is one hop from GPU k of every
other node of the SU. A leaf has ``su_nodes`` ports down and, at 1:1, as many up (its uplink
bandwidth equals its downlink bandwidth; a last, partial SU's leaves get uplinks for the nodes
they have).

Above the leaves, with radix-k switches and 1:1:

* a two-tier tree while one spine tier closes (every rail shares it): k²/2 node ports,
  k²/2 ÷ rails nodes (64 ports, 8 rails: 8 SU, 256 nodes). The spine count is the fewest
  over which every leaf's uplinks spread evenly within the spines' ports (the same number
  to every spine where it divides; so 16 spines at 3 SU, not 12): 1 SU 8 leaves / 4 spines,
  2 SU 16 / 8, 3 SU 24 / 16, 4 SU 32 / 16, 8 SU 64 / 32 (NVIDIA DGX H100 and B200 SuperPOD
  reference architectures; 31-node SUs as in the H100 one give the same counts);
* above that a core tier (three tiers close at k³/4 node ports): pods of k/2 leaves (whole
  SUs) with their own spines, half their ports down and half up, and core group j joining
  spine j of every pod. 16 SU: 128 leaves / 128 spines / 64 cores, as in the DGX B200
  SuperPOD reference architecture (it adds the core tier from 16 SU); with 144-port XDR
  switches (Q3400, 72-node SUs) one spine tier closes at 144²/2 = 10,368 node ports, 18 SU:
  1 SU 8 / 4, 2 SU 16 / 8, 4 SU 32 / 18, 8 SU 64 / 36, 18 SU 144 / 72, as in the DGX
  SuperPOD B300 XDR reference architecture;
* above k³/4 ÷ rails nodes (or with ``rail_planes``) one spine plane per rail: each rail's
  leaves get their own two- or three-tier tree, and the nodes, which have a port on every
  rail, join the planes (cross-rail traffic goes over NVLink inside the node).
"""

from __future__ import annotations

import math

from rackdesigner.design.generators.base import (
    FabricPlan,
    FabricRequest,
    GenerateError,
    SwitchModel,
)
from rackdesigner.design.generators.build import Builder, Switch, spines_for
from rackdesigner.model.layout import Layout


def su_size(request: FabricRequest, leaf: SwitchModel) -> int:
    """Nodes per SU: the request's, or half the leaf's ports (at least one): the DGX
    SuperPOD SU, whose rail leaves take one port of every node of the SU on half their
    ports and go up on the other half (32 on a QM9700, 72 on a Q3400)."""
    if request.su_nodes is not None:
        return request.su_nodes
    return max(1, leaf.ports // 2)


def generate(layout: Layout, request: FabricRequest) -> FabricPlan:
    b = Builder(layout, request)
    leaf_model, spine_model, core_model = b.switch_models(3)
    nodes = b.nodes
    n = len(nodes.ids)
    rails = nodes.rails
    su = min(su_size(request, leaf_model), n)
    uplinks = b.uplinks_for(su, min(nodes.speed, leaf_model.speed), leaf_model, spine_model)
    if su + uplinks > leaf_model.ports:
        raise GenerateError(
            f"leaf {leaf_model.key} has {leaf_model.ports} {leaf_model.group} ports; an SU of "
            f"{su} nodes needs {su} down + {uplinks} up at {request.oversubscription:g}:1 "
            f"({su + uplinks}): use a smaller --su-nodes or a larger switch"
        )
    sus = [list(range(i, min(n, i + su))) for i in range(0, n, su)]
    leaves_total = len(sus) * rails

    # The shape: which tiers close the tree.
    half = spine_model.ports // 2
    pod_sus = max(1, half // rails)
    shared_two = spines_for(leaves_total, uplinks, spine_model.ports) is not None
    pod_leaves_shared = pod_sus * rails if rails <= half else half
    shared_three = (
        pod_leaves_shared <= half
        and spines_for(pod_leaves_shared, uplinks, half) is not None
        and math.ceil(leaves_total / pod_leaves_shared) <= core_model.ports
    )
    if request.rail_planes or not (shared_two or shared_three):
        planes = rails
        plane_two = spines_for(len(sus), uplinks, spine_model.ports) is not None
        plane_three = (
            spines_for(min(half, len(sus)), uplinks, half) is not None
            and math.ceil(len(sus) / half) <= core_model.ports
        )
        if not (plane_two or plane_three):
            raise GenerateError(
                f"{n:,} nodes need more than three tiers of {spine_model.ports}-port "
                f"switches even with one spine plane per rail (k³/4 = "
                f"{spine_model.ports**3 // 4:,} node ports per plane)"
            )
        tiers = 2 if plane_two else 3
    else:
        planes = 1
        tiers = 2 if shared_two else 3

    # Leaves: per SU one per rail, in the rack nearest the centre of the SU's nodes.
    leaves: list[list[Switch]] = []  # [su][rail]
    node_speed = min(nodes.speed, leaf_model.speed)
    for s, members in enumerate(sus):
        spots = [b.node_spot(i) for i in members]
        target = b.centre(spots)
        near = b.floor.rows_of(spots)
        row: list[Switch] = []
        for r in range(rails):
            leaf = b.switch(leaf_model, "leaf", target, near, f"SU {s + 1} rail {r + 1}")
            leaf.want_up = b.uplinks_for(len(members), node_speed, leaf_model, spine_model)
            b.attach(members, r, leaf)
            # Uplinks come after the SU's downlinks (p1..p32 down, p33..p64 up on QM9700).
            leaf.next_port = su + 1
            row.append(leaf)
        leaves.append(row)

    spines: list[Switch] = []
    cores: list[Switch] = []
    pods = 0
    if planes == 1:
        flat = [leaf for row in leaves for leaf in row]
        if tiers == 2:
            spines = b.two_tier(flat, uplinks, spine_model, b.floor.centre, None, "")
        else:
            spines, cores, pods = b.three_tier(
                flat, uplinks, pod_leaves_shared, spine_model, core_model, ""
            )
    else:
        for r in range(rails):
            plane = [row[r] for row in leaves]
            if tiers == 2:
                spines += b.two_tier(
                    plane, uplinks, spine_model, b.floor.centre, None, f"rail {r + 1}"
                )
            else:
                more_spines, more_cores, pods_r = b.three_tier(
                    plane,
                    uplinks,
                    min(half, len(plane)),
                    spine_model,
                    core_model,
                    f"rail {r + 1} ",
                )
                spines += more_spines
                cores += more_cores
                pods += pods_r
    node_links = n * rails
    leaf_spine = sum(leaf.up for row in leaves for leaf in row)
    counts = {
        "nodes": n,
        "sus": len(sus),
        "leaves": leaves_total,
        "spines": len(spines),
        "cores": len(cores),
        "tiers": tiers,
        "planes": planes,
        "node_leaf_cables": node_links,
        "leaf_spine_cables": leaf_spine,
        "spine_core_cables": sum(s.up for s in spines),
    }
    shape = (
        "one spine tier"
        if planes == 1 and tiers == 2
        else "a core tier (three tiers; one spine tier would not close)"
        if planes == 1
        else f"one spine plane per rail ({rails} planes of {tiers} tiers)"
    )
    notes = [
        f"rail: {len(sus)} SU of {su} nodes, {leaves_total:,} leaves, {len(spines):,} spines"
        + (f", {len(cores):,} cores in {pods} pods" if cores else "")
        + f"; {shape}"
    ]
    return b.finish(counts, notes)
