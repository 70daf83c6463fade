"""The storage fabric carries less between the appliances and the GPU nodes than the level asks.

Why it matters:
    However fast the appliances, the GPU nodes get no more than the storage fabric
    carries between them: the appliances' cables to their leaves, the leaves' uplinks to
    the spines (the RA's storage leaves take the appliances at 1:1 and the DGX nodes
    "slightly oversubscribed with a ratio near 4:3") and the nodes' cables. What it
    carries is the maximum flow from the parallel-fs appliances to the GPU nodes over the
    cables' rates (full duplex: reads and writes alike), against the aggregate read the
    level asks for the cluster's GPUs (Table 6: 15, 40 or 125 GB/s per 256 GPUs). Silent
    without a parallel file system or with no node cabled to it (STO004), and for
    inference.

Example:
    [workload]
    storage_level = "better"
    # 1,024 GPUs (160 GB/s wanted); the appliances' leaf has 4 x 400 Gb/s uplinks: 200 GB/s
    # from the appliances, but the nodes' leaves reach them over 2 x 400 Gb/s: 100 GB/s

Fix:
    Add uplinks from the storage leaves to the storage spines (or spines), or cable the
    appliances with more ports.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.storage import level_of, requirement
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.storage._common import LEVEL_HINT, level_words, rate


@rule("STO006", "warning", scope="fabric")
def fabric_below_level(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.is_training:
        return
    facts = analysis.storage
    if not facts.pfs.devices or not facts.reached:
        return
    level, declared = level_of(analysis.workload)
    need = requirement(level, facts.gpus)
    if facts.flow >= need.read * (1 - 1e-9):
        return
    ratio = facts.oversubscription()
    over = f"; its leaves are {ratio:.2g}:1 oversubscribed" if ratio and ratio > 1 else ""
    first = (
        next(d for d in facts.pfs.devices if d.id in facts.fabric.edges)
        if any(d.id in facts.fabric.edges for d in facts.pfs.devices)
        else facts.pfs.devices[0]
    )
    yield Finding(
        f"device {first.id}",
        first.ref,
        f"the storage fabric carries {rate(facts.flow)} between the parallel file system "
        f"and the GPU nodes, below the {rate(need.read)} NVIDIA's guidance gives "
        f"{facts.gpus:,} GPUs at {level_words(level, declared)}{over}",
        hint="add storage leaf uplinks and spines, or cable the appliances with more ports"
        + ("" if declared else f"; or {LEVEL_HINT}"),
        values={"flow": facts.flow, "required": need.read},
    )
