"""A node type carries more GPUs than the most one node should.

Why it matters:
    Eight GPUs is the size the GPU vendors' baseboards, NVSwitch domains and rack power
    plans are built around. A 16-GPU node draws over 14 kW on its own, which few racks
    can feed and cool more than once, and one failure (a PSU, a board, a NIC) takes
    sixteen GPUs out of the job at once. Checked per model, whatever the workload.

Example:
    [catalog.big-node]
    kind = "gpu-node"
    gpu = "h100-pcie"
    gpus = 16

Fix:
    Use nodes of at most 8 GPUs, or raise `gpus_per_node_max` for a platform built for
    more.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule


@rule("CMP005", "warning", scope="device", thresholds=("gpus_per_node_max",))
def too_many_gpus_per_node(analysis: Analysis) -> Iterator[Finding]:
    limit = float(analysis.thresholds["gpus_per_node_max"])
    for key, devices in analysis.types_used.items():
        dtype = devices[0].type
        if dtype is None or dtype.gpus is None or dtype.gpus <= limit:
            continue
        entity, subject = analysis.type_site(key)
        yield Finding(
            entity,
            subject,
            f"model {key} ({plural(len(devices), 'node')}) has {dtype.gpus} GPUs per "
            f"node, more than {limit:g} (gpus_per_node_max)",
            hint=f"use nodes of at most {limit:g} GPUs: smaller power per node and a "
            "smaller blast radius",
            values={"gpus": float(dtype.gpus), "limit": limit},
        )
