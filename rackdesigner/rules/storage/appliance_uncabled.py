"""A storage appliance no storage cable joins to a GPU node.

Why it matters:
    An appliance's bandwidth counts only where its client ports are cabled to the
    storage fabric and that fabric reaches the GPU nodes: racked but uncabled (or cabled
    to a switch that reaches no node), it adds capacity and read rate on paper only.
    Reported per appliance of either tier with storage ports none of whose cables lead,
    through switches, to a GPU node.

Example:
    [[racks.devices]]
    id = "s01-pfs3"
    model = "storage-node"   # racked, no [[links]] to its ib ports

Fix:
    Cable its client ports to the storage leaves.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.rules.base import Finding, rule


@rule("STO010", "warning", scope="fabric")
def appliance_uncabled(analysis: Analysis) -> Iterator[Finding]:
    facts = analysis.storage
    if not facts.nodes or not (facts.pfs.devices or facts.objects.devices):
        return  # no node, or no appliance to judge
    edges = facts.fabric.edges
    nodes = facts.node_ids()
    reaches = _Reaches(edges, set(facts.switches), nodes)
    for dev in [*facts.pfs.devices, *facts.objects.devices]:
        near = edges.get(dev.id, {})
        if any(o in nodes or reaches(o) for o in near):
            continue
        cabled = bool(near)
        yield Finding(
            f"device {dev.id}",
            dev.ref,
            f"{dev.id} ({dev.device.model}) "
            + (
                "is cabled to switches that reach no GPU node"
                if cabled
                else "has no storage cable: its bandwidth reaches no GPU node"
            ),
            hint="cable its client ports to the storage leaves",
            values={"cabled": float(cabled)},
        )


class _Reaches:
    """Whether a switch reaches a GPU node through switches: searched from the switches an
    appliance is cabled to, until a node is found (a few steps in a storage pod), each
    switch's answer kept for the next appliance (not a search from all 12,500 nodes)."""

    def __init__(self, edges: dict[str, dict[str, float]], switches: set[str], nodes: set[str]):
        self.edges, self.switches, self.nodes = edges, switches, nodes
        self.known: dict[str, bool] = {}

    def __call__(self, start: str) -> bool:
        if start not in self.switches:
            return False
        known = self.known.get(start)
        if known is not None:
            return known
        edges, switches, nodes = self.edges, self.switches, self.nodes
        seen, queue, found = {start}, deque([start]), False
        while queue and not found:
            for other in edges.get(queue.popleft(), ()):
                if other in nodes:
                    found = True
                    break
                if other in switches and other not in seen:
                    if self.known.get(other) is not None:
                        found = self.known[other]  # a part searched before: its answer
                        break
                    seen.add(other)
                    queue.append(other)
        # Every switch seen joins ``start`` through switches: the same answer. Where none
        # was found the search went through the whole part.
        for switch in seen:
            self.known[switch] = found
        return found
