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
from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class _Shape:
    """Which tiers close the tree above the leaves: one shared tree (``planes`` 1) or one
    per rail, of two tiers or three; ``pod_leaves`` a shared three-tier tree's leaves a pod."""

    planes: int
    tiers: int
    pod_leaves: int

    def text(self, rails: int) -> str:
        if self.planes == 1:
            if self.tiers == 2:
                return "one spine tier"
            return "a core tier (three tiers; one spine tier would not close)"
        return f"one spine plane per rail ({rails} planes of {self.tiers} tiers)"


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
    shape = _shape(n, len(sus), rails, uplinks, request, spine_model, core_model)
    groups = _Groups.of(b)
    leaves = _leaves(b, sus, su, leaf_model, spine_model, groups)
    spines, cores, pods = _upper_tiers(b, leaves, shape, uplinks, spine_model, core_model)
    leaves_total = len(sus) * rails
    counts = {
        "nodes": n,
        "sus": len(sus),
        "leaves": leaves_total,
        "spines": len(spines),
        "cores": len(cores),
        "tiers": shape.tiers,
        "planes": shape.planes,
        "node_leaf_cables": n * rails,
        "leaf_spine_cables": sum(leaf.up for row in leaves for leaf in row),
        "spine_core_cables": sum(s.up for s in spines),
    }
    notes = [
        f"rail: {groups.count(len(sus), su)}, {leaves_total:,} leaves, {len(spines):,} spines"
        + (f", {len(cores):,} cores in {pods} pods" if cores else "")
        + f"; {shape.text(rails)}"
    ]
    return b.finish(counts, notes)


@dataclass(frozen=True, slots=True)
class _Groups:
    """What the generator's groups of ``su_nodes`` are called. Of servers, NVIDIA's
    scalable unit (SU). Of an NVLink domain's compute trays (an NVL72 rack's) they are not:
    NVIDIA's SU there is 8 racks (DGX SuperPOD GB200 RA; docs/rack-scale.md), and a group of
    32 trays is a rail group (rules.md, Definitions)."""

    name: str  # "SU", "rail group"
    many: str  # its plural
    members: str  # "nodes", "trays"

    @classmethod
    def of(cls, b: Builder) -> _Groups:
        first = b.nodes.ids[0]
        rack = b.layout.racks[b.nodes.rack_index[0]]
        model = next(d.model for d in rack.devices if d.id == first)
        if b.catalog.devices[model].nvl_domain is not None:
            return cls("rail group", "rail groups", "trays")
        return cls("SU", "SU", "nodes")

    def count(self, groups: int, size: int) -> str:
        """``5 SU of 32 nodes``, ``5 rail groups of 32 trays``."""
        return f"{groups} {self.name if groups == 1 else self.many} of {size} {self.members}"


def _shape(
    nodes: int,
    groups: int,
    rails: int,
    uplinks: int,
    request: FabricRequest,
    spine_model: SwitchModel,
    core_model: SwitchModel,
) -> _Shape:
    """The tiers that close over ``groups`` groups of one leaf a rail (the module docstring
    says which): one shared tree where one closes, else (or with ``rail_planes``) one per
    rail; a GenerateError where neither closes in three tiers."""
    half = spine_model.ports // 2
    leaves_total = groups * rails
    pod_sus = max(1, half // rails)
    shared_two = spines_for(leaves_total, uplinks, spine_model.ports) is not None
    pod_leaves_shared = pod_sus * rails if rails <= half else half
    shared_three = (
        pod_leaves_shared <= half
        and spines_for(pod_leaves_shared, uplinks, half) is not None
        and math.ceil(leaves_total / pod_leaves_shared) <= core_model.ports
    )
    if not request.rail_planes and (shared_two or shared_three):
        return _Shape(1, 2 if shared_two else 3, pod_leaves_shared)
    plane_two = spines_for(groups, uplinks, spine_model.ports) is not None
    plane_three = (
        spines_for(min(half, groups), uplinks, half) is not None
        and math.ceil(groups / half) <= core_model.ports
    )
    if not (plane_two or plane_three):
        raise GenerateError(
            f"{nodes:,} nodes need more than three tiers of {spine_model.ports}-port "
            f"switches even with one spine plane per rail (k³/4 = "
            f"{spine_model.ports**3 // 4:,} node ports per plane)"
        )
    return _Shape(rails, 2 if plane_two else 3, pod_leaves_shared)


def _leaves(
    b: Builder,
    sus: list[list[int]],
    su: int,
    leaf_model: SwitchModel,
    spine_model: SwitchModel,
    groups: _Groups,
) -> list[list[Switch]]:
    """Per SU one leaf per rail, in the rack nearest the centre of the SU's nodes, port k of
    each of its nodes cabled to its rail-k leaf: ``[su][rail]``."""
    nodes = b.nodes
    node_speed = min(nodes.speed, leaf_model.speed)
    leaves: list[list[Switch]] = []
    for s, members in enumerate(sus):
        spots = [b.node_spot(i) for i in members]
        target = b.centre(spots)
        near = b.floor.rows_of(spots)
        row: list[Switch] = []
        for r in range(nodes.rails):
            label = f"{groups.name} {s + 1} rail {r + 1}"
            leaf = b.switch(leaf_model, "leaf", target, near, label)
            leaf.want_up = b.uplinks_for(len(members), node_speed, leaf_model, spine_model)
            b.attach(members, r, leaf)
            # Uplinks come after the SU's downlinks (p1..p32 down, p33..p64 up on QM9700).
            leaf.next_port = su + 1
            row.append(leaf)
        leaves.append(row)
    return leaves


def _upper_tiers(
    b: Builder,
    leaves: list[list[Switch]],
    shape: _Shape,
    uplinks: int,
    spine_model: SwitchModel,
    core_model: SwitchModel,
) -> tuple[list[Switch], list[Switch], int]:
    """The spines (and cores) above the leaves as ``shape`` says: spines, cores, pods."""
    if shape.planes == 1:
        flat = [leaf for row in leaves for leaf in row]
        if shape.tiers == 2:
            return b.two_tier(flat, uplinks, spine_model, b.floor.centre, None, ""), [], 0
        return b.three_tier(flat, uplinks, shape.pod_leaves, spine_model, core_model, "")
    half = spine_model.ports // 2
    spines: list[Switch] = []
    cores: list[Switch] = []
    pods = 0
    for r in range(shape.planes):
        plane = [row[r] for row in leaves]
        if shape.tiers == 2:
            spines += b.two_tier(plane, uplinks, spine_model, b.floor.centre, None, f"rail {r + 1}")
            continue
        more_spines, more_cores, pods_r = b.three_tier(
            plane, uplinks, min(half, len(plane)), spine_model, core_model, f"rail {r + 1} "
        )
        spines += more_spines
        cores += more_cores
        pods += pods_r
    return spines, cores, pods
