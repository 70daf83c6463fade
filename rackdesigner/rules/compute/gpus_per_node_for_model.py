"""Nodes with too few GPUs for data-parallel training of the declared model size.

Why it matters:
    Data-parallel training (DDP, FSDP, ZeRO-3) all-reduces or all-gathers the whole
    model every step. Inside a node that traffic rides NVLink; between nodes it crosses
    the much slower fabric. The field guide's clustering decision flow: 4-GPU nodes
    only up to about 30B parameters, and 8-GPU nodes from 10B up, so that each node
    keeps eight GPUs' share of the traffic on NVLink. Checked per GPU-node model when
    the workload is training or fine-tuning with data parallelism (or none declared).

Example:
    [workload]
    kind = "training"
    model_params = 70e9
    parallelism = "fsdp"

    [catalog.quad-node]
    kind = "gpu-node"
    gpu = "h100-sxm"
    gpus = 4

Fix:
    Use 8-GPU nodes (DGX/HGX class), or use tensor and pipeline parallelism if the
    smaller nodes must stay.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import fmt_count
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.compute._common import gpu_node_types, training_params

DATA_PARALLEL = (None, "ddp", "fsdp", "zero3")  # unset parallelism counts as data-parallel


EIGHT_GPUS = 8  # the guide's node size for training


@rule(
    "CMP004",
    "warning",
    scope="device",
    thresholds=("four_gpu_model_params_max", "eight_gpu_model_params_min"),
)
def small_nodes_for_model(analysis: Analysis) -> Iterator[Finding]:
    params = training_params(analysis)
    workload = analysis.workload
    if params is None or workload is None or workload.parallelism not in DATA_PARALLEL:
        return
    four_max = float(analysis.thresholds["four_gpu_model_params_max"])
    eight_min = float(analysis.thresholds["eight_gpu_model_params_min"])
    for key, devices, dtype in gpu_node_types(analysis):
        gpus = dtype.gpus
        if not gpus:
            continue
        if gpus <= 4 and params > four_max:
            why = (
                f"above {fmt_count(four_max)}, the most for nodes of 4 GPUs or fewer "
                "(four_gpu_model_params_max)"
            )
            limit = four_max
        elif gpus < EIGHT_GPUS and params >= eight_min:
            why = (
                f"from {fmt_count(eight_min)} parameters the guide wants 8-GPU nodes "
                "(eight_gpu_model_params_min)"
            )
            limit = eight_min
        else:
            continue
        entity, subject = analysis.type_site(key)
        mode = workload.parallelism or "data-parallel"
        yield Finding(
            entity,
            subject,
            f"model {key} ({plural(len(devices), 'node')}) has {gpus} GPUs per node for "
            f"{mode} training of a {fmt_count(params)}-parameter model: {why}",
            hint="use 8-GPU nodes so each node keeps its share of the gradient traffic on NVLink",
            values={"gpus": float(gpus), "model_params": params, "limit": limit},
        )
