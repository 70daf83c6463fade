"""Switch tiers: how many hops a switch is from the GPU nodes (leaves are tier 1).

Apart from :mod:`.fabric_graph` so that the quick topology sketches
(:mod:`rackdesigner.topology.structure`) read tiers without importing networkx.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Container, Iterable, Mapping


def switch_tiers(
    nodes: Iterable[str], adjacency: Mapping[str, Iterable[str]], switches: Container[str]
) -> dict[str, int]:
    """Each reached device's tier: 0 for the GPU ``nodes``, then one more per hop, found by
    a breadth-first search from all nodes at once through ``switches`` only. An endpoint
    that is not a GPU node (a head or storage node on compute ports) gets no tier."""
    tier: dict[str, int] = dict.fromkeys(nodes, 0)
    queue = deque(tier)
    while queue:
        current = queue.popleft()
        for neighbour in adjacency[current]:
            if neighbour not in tier and neighbour in switches:
                tier[neighbour] = tier[current] + 1
                queue.append(neighbour)
    return tier
