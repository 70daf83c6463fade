"""A training cluster's GPU nodes are not all on one compute fabric.

Why it matters:
    A training job all-reduces across every GPU it uses, so every GPU node must reach
    every other over the compute fabric (ports with `role = "compute"`; storage and
    management networks do not count). A node with no compute link, or a group of
    nodes on a fabric not cabled to the others, cannot join a job with the rest. The
    rule applies to training and fine-tuning with two or more GPU nodes. Split fabrics
    are reported against the largest one (most GPUs), once per smaller fabric.

Example:
    [workload]
    kind = "training"

    # a01-n03 is cabled to leaf a02-leaf, which has no link to a01-leaf's fabric
    [[links]]
    a = "a01-n03:ib1"
    b = "a02-leaf:p1"

Fix:
    Cable every GPU node's compute ports, and join the fabrics: leaves to common
    spines, or all nodes to the same leaves.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.network._common import nodes_text


@rule("NET006", "error", scope="fabric")
def disconnected_gpus(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.is_training:
        return
    failed = analysis.failed.devices  # (what-if) down, not disconnected
    nodes = [dev for dev in analysis.devices if dev.is_gpu_node and dev.id not in failed]
    if len(nodes) < 2:
        return
    fabrics = [f for f in analysis.fabrics if f.nodes]
    cabled = {id(node) for fabric in fabrics for node in fabric.nodes}
    for node in nodes:
        if id(node) not in cabled:
            yield Finding(
                f"device {node.id}",
                node.ref,
                f"GPU node ({plural(node.gpus, 'GPU')}) has no compute-fabric link: "
                "it cannot join a training job with the other nodes",
                hint="cable its compute ports to the fabric's leaves",
                values={"gpus": float(node.gpus)},
            )
    if len(fabrics) < 2:
        return
    main = max(fabrics, key=lambda f: (f.gpus, len(f.nodes), -f.index))
    main_name = main.site()[0].removeprefix("fabric ")
    others = len(fabrics) - 1
    for fabric in fabrics:
        if fabric is main:
            continue
        entity, subject = fabric.site()
        among = f" (one of {others} fabrics apart from it)" if others > 1 else ""
        yield Finding(
            entity,
            subject,
            f"{nodes_text(fabric)} are not connected to fabric {main_name} "
            f"({nodes_text(main)}){among}: a training job cannot span them",
            hint=f"join the fabrics: cable this fabric's leaves to the spines of "
            f"fabric {main_name}, or its nodes to the same leaves",
            values={"gpus": float(fabric.gpus), "main_gpus": float(main.gpus)},
        )
