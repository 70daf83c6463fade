"""GPU nodes that train a model of 100B+ parameters are cooled by air.

Why it matters:
    The field guide's decision flow for 100B+ parameter models is 8-GPU nodes with
    liquid cooling: such runs keep every GPU at full power for weeks, and air-cooled
    GPUs throttle under that load. Fine-tuning counts as training. Only racks with
    `cooling = "air"` are reported; rear-door racks are checked for capacity by
    COOL007.

Example:
    [workload]
    kind = "training"
    model_params = 175e9

    [[racks]]
    id = "a01"
    cooling = "air"      # holds DGX H100 nodes

Fix:
    Move the GPU nodes to liquid-cooled racks (`cooling = "liquid"` with a CDU).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import fmt_count
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import LIQUID_HINT


@rule("COOL005", "warning", scope="rack", thresholds=("liquid_model_params_min",))
def large_model_on_air(analysis: Analysis) -> Iterator[Finding]:
    threshold = analysis.thresholds["liquid_model_params_min"]
    workload = analysis.workload
    if workload is None or not workload.is_training or workload.model_params is None:
        return
    params = float(workload.model_params)
    if params < threshold:
        return
    for rack in analysis.racks:
        if rack.cooling != "air" or not rack.gpu_nodes:
            continue
        nodes = rack.gpu_nodes
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"{nodes} GPU node{'s' if nodes != 1 else ''} cooled by air for "
            f"{workload.kind} of a {fmt_count(params)}-parameter model (liquid from "
            f"{fmt_count(threshold)})",
            hint=f"{LIQUID_HINT} for the GPU nodes",
            values={
                "model_params": params,
                "threshold": float(threshold),
                "gpu_nodes": float(nodes),
            },
        )
