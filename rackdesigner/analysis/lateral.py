"""Lateral links and rail groups of a fabric (rules.md v1.1, Definitions): pure functions.

Lateral groups: where switches of a fabric's top tier are cabled to each other (two leaves
joined directly, Dragonfly+ global links between spines of different groups), a group is a
connected part of the fabric once those top-tier lateral links are removed, joined through
switches and GPU nodes (a head or storage node on compute ports forwards no traffic); its global
ratio is the bandwidth of its top-tier lateral links to other groups ÷ its GPU nodes'
compute-fabric bandwidth, capped at 1.

Rail groups: GPU nodes joined through shared leaves. A port's rail leaf is the leaf that
more than half of the group's nodes cable that port (``ib3``) to; a group whose rail
leaves include two or more leaves is rail-optimised, and a node port cabled to another
leaf than its rail leaf is a crossed rail (NET008).

Inputs are plain mappings (device ids, tiers, bandwidths), so these run on any fabric
representation in linear time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rackdesigner.analysis.grouping import Groups


@dataclass(slots=True)
class LateralGroup:
    members: list[str]  # device ids, in the order the fabric lists them
    switches: list[str] = field(default_factory=list)  # its top-tier switches with global links
    global_bandwidth: float = 0.0  # bit/s of top-tier lateral links to other groups
    node_bandwidth: float = 0.0  # bit/s of its GPU nodes' compute-fabric ports

    @property
    def ratio(self) -> float:
        """Global ratio, capped at 1 (1 for a group without GPU-node bandwidth)."""
        if self.node_bandwidth <= 0:
            return 1.0
        return min(1.0, self.global_bandwidth / self.node_bandwidth)


def lateral_groups(
    order: Iterable[str],
    adjacency: Mapping[str, Mapping[str, Mapping[str, Any]]],
    tier: Mapping[str, int],
    top_tier: int,
    node_bandwidth: Mapping[str, float],
) -> list[LateralGroup]:
    """The fabric's lateral groups; [] when its top tier has no lateral links.

    ``order`` lists the fabric's devices (group order follows it), ``adjacency`` maps a
    device to its neighbours and each edge's ``bandwidth``, ``tier`` gives GPU nodes 0 and
    switches their tier, ``node_bandwidth`` each GPU node's compute-fabric bandwidth.
    """
    if top_tier < 1:
        return []
    order = [d for d in order if d in tier]
    top = [d for d in order if tier[d] == top_tier]
    if not any(tier.get(n) == top_tier for d in top for n in adjacency[d]):
        return []
    groups = Groups(order)
    for device in order:
        level = tier[device]
        for neighbour in adjacency[device]:
            other = tier.get(neighbour)
            if other is None or (level == top_tier and other == top_tier):
                continue
            groups.join(device, neighbour)
    found = _bandwidths(groups, order, adjacency, tier, top_tier, node_bandwidth)
    groups_with_nodes = [g for g in found.values() if g.node_bandwidth > 0]
    # One group: the top tier's lateral links stay inside it, there is no rest to reach.
    return groups_with_nodes if len(groups_with_nodes) >= 2 else []


def _bandwidths(
    groups: Groups,
    order: list[str],
    adjacency: Mapping[str, Mapping[str, Mapping[str, Any]]],
    tier: Mapping[str, int],
    top_tier: int,
    node_bandwidth: Mapping[str, float],
) -> dict[object, LateralGroup]:
    """Each group (by its root) with its GPU nodes' bandwidth, and its top-tier switches'
    lateral links to other groups (the global bandwidth, and which switches have one)."""
    found: dict[object, LateralGroup] = {}
    for members in groups.sets():
        found[groups.find(members[0])] = LateralGroup([str(m) for m in members])
    for device in order:
        group = found[groups.find(device)]
        if device in node_bandwidth:
            group.node_bandwidth += node_bandwidth[device]
        if tier[device] != top_tier:
            continue
        crossing = 0.0
        for neighbour, data in adjacency[device].items():
            if tier.get(neighbour) == top_tier and groups.find(neighbour) != groups.find(device):
                crossing += float(data.get("bandwidth", 0.0) or 0.0)
        if crossing > 0:
            group.global_bandwidth += crossing
            group.switches.append(device)
    return found


@dataclass(frozen=True, slots=True)
class CrossedRail:
    node: str
    port: str  # "ib3"
    leaf: str  # where it goes
    rail_leaf: str  # where the group's rail for that port is
    link: Any  # the caller's link object
    nodes: int  # GPU nodes in the rail group
    on_rail: int  # of them, cabled that port to the rail leaf


def crossed_rails(cables: Iterable[tuple[str, str, str, Any]]) -> list[CrossedRail]:
    """Crossed rails from the fabric's node-to-leaf cables ``(node, port, leaf, link)``,
    in the order given (one per crossed cable).

    Linear: rail groups are found by joining the leaves each node reaches (nodes of one
    scalable unit share their set of leaves, so only distinct sets are joined), then one
    count per (group, port, leaf).
    """
    cables = list(cables)
    leaves_of: dict[str, list[str]] = {}
    for node, _, leaf, _ in cables:
        reached = leaves_of.get(node)
        if reached is None:
            leaves_of[node] = [leaf]
        elif reached[-1] != leaf:
            reached.append(leaf)
    groups = Groups()
    for joined in {tuple(sorted(set(r))) for r in leaves_of.values()}:
        first = joined[0]
        groups.add(first)
        for leaf in joined[1:]:
            groups.join(first, leaf)
    root_of = {node: groups.find(reached[0]) for node, reached in leaves_of.items()}
    nodes_in: dict[object, int] = {}
    for root in root_of.values():
        nodes_in[root] = nodes_in.get(root, 0) + 1
    counts: dict[tuple[object, str, str], int] = {}
    for node, port, leaf, _ in cables:
        key = (root_of[node], port, leaf)
        counts[key] = counts.get(key, 0) + 1
    rail: dict[tuple[object, str], tuple[str, int]] = {}
    rail_leaves: dict[object, set[str]] = {}
    for (root, port, leaf), count in counts.items():
        if count * 2 > nodes_in[root]:
            rail[(root, port)] = (leaf, count)
            rail_leaves.setdefault(root, set()).add(leaf)
    optimised = {root for root, leaves in rail_leaves.items() if len(leaves) >= 2}
    if not optimised:
        return []
    out: list[CrossedRail] = []
    for node, port, leaf, link in cables:
        root = root_of[node]
        if root not in optimised:
            continue
        found = rail.get((root, port))
        if found is None or found[0] == leaf:
            continue
        out.append(CrossedRail(node, port, leaf, found[0], link, nodes_in[root], found[1]))
    return out
