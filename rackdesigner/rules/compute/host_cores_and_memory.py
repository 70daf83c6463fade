"""A training node has fewer CPU cores or less host RAM than the floor.

Why it matters:
    The host decodes, augments and stages the training data and checkpoints for every
    GPU in the node; "slow CPUs mean slow data loading", and GPUs that wait for input
    are idle money. The floors (32 cores, 512 GB RAM by default) are per node. Checked
    per GPU-node model when the workload is training or fine-tuning; a figure the
    catalog does not give is not checked.

Example:
    [workload]
    kind = "training"
    model_params = 7e9

    [catalog.g493-sb0]
    gpu = "h100-pcie"
    cpu_cores = 24
    memory = "256 GB"

Fix:
    Order the node with more cores and memory (set `cpu_cores` and `memory` in the
    layout's `[catalog.KEY]` to the configuration bought).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import INFORMATION, fmt
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.compute._common import gpu_node_types


@rule("CMP003", "warning", scope="device", thresholds=("host_cores_min", "host_memory_min"))
def weak_host(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.is_training:
        return
    cores_min = float(analysis.thresholds["host_cores_min"])
    memory_min = float(analysis.thresholds["host_memory_min"])
    for key, devices, dtype in gpu_node_types(analysis):
        parts: list[str] = []
        values: dict[str, float] = {}
        if dtype.cpu_cores is not None and dtype.cpu_cores < cores_min:
            parts.append(f"{dtype.cpu_cores} CPU cores (floor {cores_min:g}, host_cores_min)")
            values.update(cores=float(dtype.cpu_cores), cores_min=cores_min)
        if dtype.memory is not None and dtype.memory < memory_min:
            parts.append(
                f"{fmt(float(dtype.memory), INFORMATION)} RAM (floor "
                f"{fmt(memory_min, INFORMATION)}, host_memory_min)"
            )
            values.update(memory=float(dtype.memory), memory_min=memory_min)
        if not parts:
            continue
        entity, subject = analysis.type_site(key)
        yield Finding(
            entity,
            subject,
            f"model {key} ({plural(len(devices), 'node')}) has "
            + " and ".join(parts)
            + " for training",
            hint=f"use at least {cores_min:g} cores and "
            f"{fmt(memory_min, INFORMATION)} RAM per node so data loading "
            "keeps the GPUs busy",
            values=values,
        )
