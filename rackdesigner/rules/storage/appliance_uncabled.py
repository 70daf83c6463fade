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
    switches = set(facts.switches)
    nodes = {dev.id for dev in facts.nodes}
    # Which switches reach a GPU node: one search from all the nodes at once.
    reaches: set[str] = set()
    queue = deque(n for n in nodes if n in edges)
    seen = set(queue)
    while queue:
        current = queue.popleft()
        for other in edges.get(current, ()):
            if other in switches and other not in seen:
                seen.add(other)
                reaches.add(other)
                queue.append(other)
    for dev in [*facts.pfs.devices, *facts.objects.devices]:
        near = edges.get(dev.id, {})
        if any(o in nodes or o in reaches for o in near):
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
