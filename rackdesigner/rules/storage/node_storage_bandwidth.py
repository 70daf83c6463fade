"""A GPU node's storage cables carry less than NVIDIA's single-node guidance.

Why it matters:
    A node reads its dataset and writes its checkpoint shard through its storage ports:
    their cabled rates are the most it gets from the parallel file system, whatever the
    appliances can give. The DGX SuperPOD reference architecture's Table 6 asks a DGX H100
    (8 GPUs) for a single-node read of 4, 8 or 40 GB/s at the levels good, better and best,
    scaled here by the node's GPUs (a GB200 tray's 4 GPUs: half); its storage fabric gives
    each DGX H100 "at least 40 GBps". Reported per GPU node whose storage cables (both ends
    storage ports) add up to less; silent for nodes with no storage cable at all (STO004
    reports them) and for inference.

Example:
    [workload]
    storage_level = "best"
    # a DGX H100 with one of its two 400 Gb/s storage ports cabled: 50 GB/s, enough;
    # on 100 GbE: 12.5 GB/s, below 40 GB/s

Fix:
    Cable both storage ports, at the rate the adapters run (400 Gb/s on a DGX H100).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.storage import level_of, requirement
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.storage._common import LEVEL_HINT, level_words, rate


@rule("STO005", "warning", scope="fabric")
def node_storage_below_level(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.is_training:
        return
    facts = analysis.storage
    if not facts.pfs.devices:
        return
    level, declared = level_of(analysis.workload)
    need = requirement(level, facts.gpus)
    bandwidth = facts.node_bandwidth
    if not bandwidth:
        return
    # Every cabled node at or above what the largest node should read: none is below.
    lowest = min(bandwidth.values())
    largest = max(dev.gpus for dev in facts.nodes) if lowest > 0 else 0
    if lowest > 0 and lowest >= need.node(largest)[0] * (1 - 1e-9):
        return
    wants: dict[int, float] = {}  # what a node of so many GPUs should read (a few sizes)
    for dev in facts.nodes:
        have = bandwidth.get(dev.id, 0.0)
        gpus = dev.gpus
        if have <= 0 or not gpus:
            continue
        want = wants.get(gpus)
        if want is None:
            want = wants[gpus] = need.node(gpus)[0]
        if have >= want * (1 - 1e-9):
            continue
        yield Finding(
            f"device {dev.id}",
            dev.ref,
            f"{dev.id}'s storage cables carry {rate(have)}, below the {rate(want)} a node of "
            f"{dev.gpus} GPUs should read at {level_words(level, declared)}",
            hint="cable every storage port, at the rate the node's adapters run"
            + ("" if declared else f"; or {LEVEL_HINT}"),
            values={"bandwidth": have, "required": want},
        )
