"""A training node's GPUs have less memory bandwidth than the floor for training.

Why it matters:
    Training streams weights, activations and optimizer state through GPU memory every
    step; memory bandwidth, more than peak FLOPS, sets how fast a step runs. The field
    guide's advice is "don't buy a GPU with less than 2 TB/s for training": an H100 SXM
    has 3.35 TB/s, an RTX A6000 768 GB/s. Checked per GPU-node model when the workload
    is training or fine-tuning.

Example:
    [workload]
    kind = "training"
    model_params = 7e9

    [catalog.g493-sb0]
    gpu = "rtx-a6000"    # 768 GB/s

Fix:
    Use a GPU with at least the floor's bandwidth (H100 SXM 3.35 TB/s, H200 4.8 TB/s,
    B200 7.7 TB/s, MI300X 5.3 TB/s), or lower `gpu_bandwidth_min` for a workload known
    to be compute-bound.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import BYTE_RATE, fmt
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.compute._common import gpu_name, gpu_node_types


@rule("CMP001", "warning", scope="device", thresholds=("gpu_bandwidth_min",))
def gpu_bandwidth(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.is_training:
        return
    floor = float(analysis.thresholds["gpu_bandwidth_min"])
    for key, devices, _ in gpu_node_types(analysis):
        gpu = devices[0].gpu
        if gpu is None or gpu.bandwidth is None or gpu.bandwidth >= floor:
            continue
        entity, subject = analysis.type_site(key)
        yield Finding(
            entity,
            subject,
            f"model {key} ({plural(len(devices), 'node')}) has {gpu_name(gpu)} GPUs "
            f"with {fmt(float(gpu.bandwidth), BYTE_RATE)} memory bandwidth, below the "
            f"{fmt(floor, BYTE_RATE)} floor for training (gpu_bandwidth_min)",
            hint=f"use a GPU with at least {fmt(floor, BYTE_RATE)} of memory bandwidth "
            "(H100 SXM, H200, B200, MI300X)",
            values={"bandwidth": float(gpu.bandwidth), "floor": floor},
        )
