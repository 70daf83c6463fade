"""The cluster is smaller than the field guide's minimum for the declared workload.

Why it matters:
    The guide's rules of thumb: fine-tuning wants at least one 8-GPU node (the model,
    its gradients and optimizer state sharded over NVLink), and pre-training even a
    model under 10B parameters wants about 32 GPUs to finish in weeks rather than
    months. This is advice, not an error: a smaller cluster works, slowly. Silent where
    a device's model or a GPU node's GPU count is not known.

Example:
    [workload]
    kind = "training"
    model_params = 7e9
    # the layout holds 2 x DGX H100: 16 GPUs

Fix:
    Add nodes (fine-tuning: an 8-GPU node; pre-training: 32 GPUs or more), or accept
    the longer run time.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.refs import WORKLOAD
from rackdesigner.model.units import fmt_count
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule

FINE_TUNING_MIN_NODE_GPUS = 8  # FAQ: fine-tuning wants one 8-GPU node


# The FAQ's minimum for pre-training a model under 10B parameters: 32 GPUs.
PRETRAINING_SMALL_PARAMS = 10e9


PRETRAINING_SMALL_MIN_GPUS = 32


@rule("CMP007", "info", scope="site", reads=())
def below_workload_minimum(analysis: Analysis) -> Iterator[Finding]:
    workload = analysis.workload
    if workload is None:
        return
    if any(
        dev.type is None or (dev.type.kind == "gpu-node" and dev.type.gpus is None)
        for dev in analysis.devices
    ):
        return  # an unknown model or GPU count: the counts below would be lower bounds
    nodes = [dev for dev in analysis.devices if dev.is_gpu_node]
    site = ("[workload]", WORKLOAD)
    if workload.kind == "fine-tuning":
        largest = max((dev.gpus for dev in nodes), default=0)
        if largest >= FINE_TUNING_MIN_NODE_GPUS:
            return
        have = (
            f"the largest GPU node has {plural(largest, 'GPU')}"
            if nodes
            else "the layout has no GPU node"
        )
        yield Finding(
            *site,
            f"fine-tuning with no {FINE_TUNING_MIN_NODE_GPUS}-GPU node ({have}); the "
            f"guide's minimum is one {FINE_TUNING_MIN_NODE_GPUS}-GPU node",
            hint="use at least one 8-GPU node (DGX/HGX class) for fine-tuning",
            values={
                "largest_node_gpus": float(largest),
                "minimum": float(FINE_TUNING_MIN_NODE_GPUS),
            },
        )
    elif workload.kind == "training" and workload.params is not None:
        params = workload.params
        total = analysis.total_gpus
        if params >= PRETRAINING_SMALL_PARAMS or total >= PRETRAINING_SMALL_MIN_GPUS:
            return
        yield Finding(
            *site,
            f"pre-training a {fmt_count(params)}-parameter model on {plural(total, 'GPU')}; the "
            f"guide's minimum for models under {fmt_count(PRETRAINING_SMALL_PARAMS)} "
            f"is {PRETRAINING_SMALL_MIN_GPUS} GPUs",
            hint=f"add GPU nodes to reach {PRETRAINING_SMALL_MIN_GPUS} GPUs, or expect a long run",
            values={
                "gpus": float(total),
                "model_params": params,
                "minimum": float(PRETRAINING_SMALL_MIN_GPUS),
            },
        )
