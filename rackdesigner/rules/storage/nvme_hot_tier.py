"""A training node type has less local NVMe than the hot-tier floor.

Why it matters:
    Training nodes cache their dataset shards and write checkpoints to local NVMe
    before the shared file system takes them; the field guide's advice is 4-8 TB per
    node. With less, data loading and checkpointing wait on the network. Reported once
    per GPU-node type (at its `[catalog]` entry in the layout, else at its first device),
    for training and fine-tuning workloads; silent where a type gives no `nvme`.

Example:
    [workload]
    kind = "training"

    [catalog.g493-sb0]
    gpu = "h100-pcie"
    nvme = "3.84 TB"     # one drive

Fix:
    Order the nodes with more NVMe drives (`nvme` of 4 TB or more).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import INFORMATION, fmt
from rackdesigner.rules.base import Finding, rule


@rule("STO001", "info", scope="device", thresholds=("nvme_per_node_min",))
def nvme_below_floor(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.is_training:
        return
    floor = analysis.thresholds["nvme_per_node_min"]
    for key, devices in analysis.types_used.items():
        dtype = devices[0].type
        if dtype is None or dtype.kind != "gpu-node" or dtype.nvme is None:
            continue
        nvme = float(dtype.nvme)
        if nvme >= floor:
            continue
        entity, subject = analysis.type_site(key)
        count = len(devices)
        yield Finding(
            entity,
            subject,
            f"{key} has {fmt(nvme, INFORMATION)} of local NVMe per node, below the "
            f"{fmt(floor, INFORMATION)} hot-tier floor for training "
            f"({count} node{'s' if count != 1 else ''})",
            hint=f"order the nodes with at least {fmt(floor, INFORMATION)} of NVMe "
            "for checkpoints and dataset caching",
            values={"nvme": nvme, "floor": floor},
        )
