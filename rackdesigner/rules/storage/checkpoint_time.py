"""A checkpoint takes longer to write than the interval between checkpoints.

Why it matters:
    The field guide: "checkpoint every 100 steps", "write checkpoints to local NVMe first,
    then async copy to parallel storage". A checkpoint is the model's weights and Adam's
    optimizer state, 14 bytes a parameter in mixed precision (the ZeRO paper's 16 bytes of
    training state less the 2 of gradients, which are not saved): 980 GB for 70e9
    parameters. Every node writes its shard to its NVMe at once, then the shards go over
    the storage fabric to the parallel file system; the checkpoint passes both, so it
    takes its size over the slower of the nodes' NVMe write rates added up and what
    reaches the parallel file system (its appliances' write rate, capped by the fabric
    and the nodes' storage cables). Longer than the interval, the copies fall behind the
    checkpoints and a failure loses more than one interval of work. The interval is
    `checkpoint_interval`, else `checkpoint_steps` (the guide's 100 where not given) over
    `steps_per_second`. Silent without `model_params` or an interval, for adapter
    fine-tuning (LoRA, QLoRA: a checkpoint of the adapters) and for inference.

Example:
    [workload]
    kind = "training"
    model_params = 405e9
    checkpoint_interval = "5 min"
    # 5.67 TB a checkpoint at 10 GB/s to the parallel file system: 9.5 min

Fix:
    Checkpoint less often, or give the path more write rate: faster local NVMe
    (`nvme_write`), more parallel file system appliances, more storage fabric.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.checkpoint import checkpoint_of
from rackdesigner.model.refs import WORKLOAD
from rackdesigner.model.units import INFORMATION, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.storage._common import duration, rate


@rule("STO007", "warning", scope="fabric")
def checkpoint_slower_than_interval(analysis: Analysis) -> Iterator[Finding]:
    found = checkpoint_of(analysis.workload, analysis.storage)
    if found is None or found.seconds is None:
        return
    seconds = found.seconds
    if seconds <= found.interval * (1 + 1e-9):
        return
    parts = []
    if found.local is not None:
        parts.append(f"local NVMe {rate(found.local)}")
    else:
        parts.append("local NVMe rate not given (nvme_write)")
    if found.path is not None:
        parts.append(f"to the parallel file system {rate(found.path)}")
    else:
        parts.append("no parallel file system")
    yield Finding(
        "[workload]",
        WORKLOAD,
        f"a checkpoint of {fmt(found.size, INFORMATION)} takes {duration(seconds)} at "
        f"{rate(found.rate or 0.0)} ({', '.join(parts)}), longer than the "
        f"{duration(found.interval)} between checkpoints ({found.interval_source})",
        hint="checkpoint less often, or add write rate where it is slowest (faster local "
        "NVMe, more appliances or storage fabric)",
        values={
            "size": found.size,
            "seconds": seconds,
            "interval": found.interval,
            "rate": found.rate or 0.0,
        },
    )
