"""A node's compute port is cabled to another leaf than its rail's (a crossed rail).

Why it matters:
    A rail-optimised fabric keeps GPU k of every node on leaf k, so that NCCL's rail
    traffic stays on one leaf and never climbs to the spines. A rail group is the GPU
    nodes joined through shared leaves; a port's rail leaf is the leaf that more than
    half of the group's nodes cable that port (`ib3`) to, and a group whose rail leaves
    include two or more leaves is rail-optimised. A node port that goes to another leaf
    sends that rail through the spines, or, in a rail-only fabric, nowhere. One finding
    per crossed cable.

Example:
    # ib1 of every node on leaf1, ib2 on leaf2; node n4's two cables swapped
    [[links]]
    a = "a01-n4:ib1"
    b = "a01-leaf2:p4"

Fix:
    Cable the port to its rail leaf (swap the crossed cables back).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.rules.base import Finding, rule


@rule("NET008", "warning", scope="fabric")
def crossed_rail(analysis: Analysis) -> Iterator[Finding]:
    for fabric in analysis.fabrics:
        if len(fabric.nodes) < 2:
            continue
        for crossed in fabric.crossed_rails:
            link = crossed.link
            yield Finding(
                link.entity,
                link.ref,
                f"port {crossed.port} of node {crossed.node} goes to {crossed.leaf}, not to "
                f"rail leaf {crossed.rail_leaf} (where {crossed.on_rail} of the group's "
                f"{crossed.nodes} nodes cable {crossed.port}): a crossed rail",
                hint=f"cable {crossed.node}:{crossed.port} to {crossed.rail_leaf}",
                values={"nodes": float(crossed.nodes), "on_rail": float(crossed.on_rail)},
                related=(
                    analysis.device_by_id[crossed.node].ref,
                    analysis.device_by_id[crossed.rail_leaf].ref,
                ),
            )
