"""The parallel file system reads slower than NVIDIA's guidance for the cluster's GPUs.

Why it matters:
    The DGX SuperPOD reference architecture gives storage rates by workload: "good" (NLP,
    datasets that fit the nodes' cache), "better" (compressed images, most datasets fit
    the cache) and "best" (1080p/4K or uncompressed images, datasets too large to cache).
    Its Table 6 asks, for a scalable unit of 32 DGX H100 (256 GPUs), an aggregate read of
    15, 40 or 125 GB/s; four SUs, four times that. Below it, GPUs wait for data: the field
    guide calls storage "the silent killer". The requirement scales by GPU (125 GB/s / 256
    GPUs = 0.49 GB/s a GPU at "best"); the appliances' read rates add up (their vendors'
    figures, `read_bandwidth`). Silent without a parallel file system (STO004 says so),
    where no appliance gives its read rate, and for inference.

Example:
    [workload]
    kind = "training"
    storage_level = "best"
    # 256 GPUs and one appliance of 90 GB/s: 125 GB/s wanted

Fix:
    Add appliances to the parallel file system until their read rates add up to the
    level's figure, or declare the level the workload needs (`storage_level`).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.storage._common import pfs_shortfall


@rule("STO002", "warning", scope="site", reads=())
def pfs_read_below_level(analysis: Analysis) -> Iterator[Finding]:
    yield from pfs_shortfall(analysis, "read")
