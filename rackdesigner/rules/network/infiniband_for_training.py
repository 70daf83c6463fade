"""A training fabric spans more GPUs than the threshold and is not InfiniBand.

Why it matters:
    Gradient all-reduce over many GPUs is bound by the slowest, most congested path.
    The field guide's advice is that above 32 GPUs InfiniBand is the only option that
    works reliably: credit-based, lossless flow control and adaptive routing out of the
    box. RoCE (Ethernet) can work at scale, but only with carefully tuned PFC/ECN and
    congestion control, hence a warning and not an error. The rule applies to training
    and fine-tuning workloads; without `[workload]` it stays silent. A fabric whose
    ports declare no technology is not judged. (v1.2) The GPUs counted are those that
    talk over the fabric: a fabric whose GPU nodes all sit in one NVLink domain (a
    rack's `nvlink_domain`) carries no GPU-to-GPU traffic the domain does not, and
    counts none.

Example:
    [workload]
    kind = "training"

    [catalog.g493-sb0]
    gpu = "h100-pcie"    # 2 x 200 Gbps Ethernet compute ports

    # five g493-sb0 nodes (40 GPUs) cabled to one Ethernet leaf

Fix:
    Build the compute fabric from InfiniBand switches and adapters (QM9700 with
    ConnectX-7), or keep the Ethernet fabric and plan RoCE tuning (lossless classes,
    ECN, adaptive routing) explicitly.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.network._common import nodes_text

_TECH_NAMES = {
    "infiniband": "InfiniBand",
    "ethernet": "Ethernet",
    "mixed": "mixed InfiniBand and Ethernet",
}


def _one_domain(nodes: list[DeviceFacts]) -> bool:
    """Every GPU node is a rack-scale tray of one and the same NVLink domain."""
    domains = set()
    for dev in nodes:
        if dev.type is None or dev.type.nvl_domain is None or dev.rack.nvlink_domain is None:
            return False
        domains.add(dev.rack.nvlink_domain)
    return len(domains) == 1


@rule("NET001", "warning", scope="fabric", thresholds=("infiniband_min_gpus",))
def not_infiniband(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.is_training:
        return
    limit = analysis.thresholds["infiniband_min_gpus"]
    for fabric in analysis.fabrics:
        tech = fabric.tech
        if fabric.gpus <= limit or tech in ("infiniband", "unknown"):
            continue
        if _one_domain(fabric.nodes):
            continue
        entity, subject = fabric.site()
        yield Finding(
            entity,
            subject,
            f"training fabric of {nodes_text(fabric)} runs over "
            f"{_TECH_NAMES.get(tech, tech)}, not InfiniBand (more than {limit:g} GPUs)",
            hint="use InfiniBand switches and adapters for the compute fabric, or "
            "plan RoCE tuning (lossless traffic classes, ECN, adaptive routing)",
            values={"gpus": float(fabric.gpus), "limit": float(limit)},
        )
