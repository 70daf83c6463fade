"""Consumer GPUs train a model larger than they are practical for.

Why it matters:
    Consumer cards (GeForce) have no datacenter ECC and RAS and no NVLink: memory errors
    go unnoticed over weeks of training, and every collective crosses PCIe. The field
    guide calls them "impractical for training over 7B" parameters. Checked per
    GPU-node model whose GPU is marked `consumer = true`, when the workload is training
    or fine-tuning.

Example:
    [workload]
    kind = "training"
    model_params = 13e9

    [catalog.g493-sb0]
    gpu = "rtx-4090"

Fix:
    Use datacenter GPUs (H100, H200, B200, MI300X) for models above 7B parameters, or
    keep consumer cards for smaller models and inference.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import fmt_count
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.compute._common import gpu_name, gpu_node_types, training_params


@rule("CMP006", "warning", scope="device", thresholds=("consumer_gpu_model_params_max",))
def consumer_gpus_for_training(analysis: Analysis) -> Iterator[Finding]:
    params = training_params(analysis)
    if params is None:
        return
    limit = float(analysis.thresholds["consumer_gpu_model_params_max"])
    if params <= limit:
        return
    for key, devices, _ in gpu_node_types(analysis):
        gpu = devices[0].gpu
        if gpu is None or not gpu.consumer:
            continue
        entity, subject = analysis.type_site(key)
        yield Finding(
            entity,
            subject,
            f"model {key} ({plural(len(devices), 'node')}) has consumer GPUs "
            f"({gpu_name(gpu)}) for training a {fmt_count(params)}-parameter model, "
            f"above {fmt_count(limit)} (consumer_gpu_model_params_max)",
            hint="use datacenter GPUs with ECC and NVLink (H100, H200, B200, MI300X) "
            f"for models above {fmt_count(limit)} parameters",
            values={"model_params": params, "limit": limit},
        )
