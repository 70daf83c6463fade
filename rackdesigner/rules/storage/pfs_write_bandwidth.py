"""The parallel file system writes slower than NVIDIA's guidance for the cluster's GPUs.

Why it matters:
    Checkpoints are written synchronously: training stops while they are written (the DGX
    SuperPOD reference architecture: "If you are looking for best end-to-end training
    performance, do not ignore I/O operations for checkpoints"). Its Table 6 asks, for a
    scalable unit of 256 GPUs, an aggregate write of 7, 20 or 62 GB/s at the levels good,
    better and best, scaled here by GPU; the appliances' write rates (`write_bandwidth`)
    add up. Silent without a parallel file system, where no appliance gives its write
    rate, and for inference.

Example:
    [workload]
    kind = "training"
    storage_level = "better"
    # 1,024 GPUs: 80 GB/s of writes wanted; two appliances of 25 GB/s give 50

Fix:
    Add appliances, or choose ones that write faster; write checkpoints to local NVMe
    first and copy them asynchronously (STO007 times that).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.storage._common import pfs_shortfall


@rule("STO003", "warning", scope="site", reads=())
def pfs_write_below_level(analysis: Analysis) -> Iterator[Finding]:
    yield from pfs_shortfall(analysis, "write")
