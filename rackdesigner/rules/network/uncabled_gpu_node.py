"""A GPU node has no compute-fabric link while the layout holds several GPU nodes.

Why it matters:
    GPU nodes are bought to work together: a job that spans nodes, or an inference
    service that moves a model between them, goes over the compute fabric (ports with
    `role = "compute"`). A node with no compute link is an island, and every fabric
    rule (oversubscription, single points of failure, bandwidth) is silent about it:
    deleting the only leaf would make the warnings fewer and the design look
    healthier. Applies with two or more GPU nodes when the workload is not training
    (for training, NET006 reports the same node as an error).

Example:
    [workload]
    kind = "inference"

    # a01-n01 and a01-n02 are both GPU nodes; only a01-n01 is cabled to the leaf
    [[links]]
    a = "a01-n01:ib1"
    b = "a01-leaf1:p1"

Fix:
    Cable the node's compute ports to the fabric's leaves (or ignore NET009 on the
    device when it is meant to stand alone).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule


@rule("NET009", "warning", scope="fabric")
def uncabled_gpu_node(analysis: Analysis) -> Iterator[Finding]:
    if analysis.is_training:
        return  # NET006
    failed = analysis.failed.devices  # (what-if) down, not uncabled
    nodes = [dev for dev in analysis.devices if dev.is_gpu_node and dev.id not in failed]
    if len(nodes) < 2:
        return
    cabled = {id(node) for fabric in analysis.fabrics for node in fabric.nodes}
    others = len(nodes) - 1
    for node in nodes:
        if id(node) in cabled:
            continue
        has_ports = any(
            group.effective_role(node.kind) == "compute" for group in node.ports.values()
        )
        yield Finding(
            f"device {node.id}",
            node.ref,
            f"GPU node ({plural(node.gpus, 'GPU')}) has no compute-fabric link: it cannot "
            f"work with the {plural(others, 'other GPU node')} of the layout",
            hint="cable its compute ports to the fabric's leaves"
            if has_ports
            else 'give its type compute ports (ports with role = "compute") and cable them '
            "to the fabric's leaves",
            values={"gpus": float(node.gpus), "gpu_nodes": float(len(nodes))},
        )
