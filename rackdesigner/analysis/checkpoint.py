"""How long a training checkpoint takes to write, against how often one is written.

The field guide: "Write checkpoints to local NVMe first, then async copy to parallel
storage", "checkpoint every 100 steps". A checkpoint is the model's weights and optimizer
state (:attr:`~rackdesigner.analysis.workload_memory.TrainingState.checkpoint`: 14 B a
parameter in mixed precision; a LoRA run's adapters only), written in shards
by every training node at once (PyTorch's distributed checkpoint and Megatron's write each
rank's shard in parallel): to the nodes' local NVMe together, then copied over the storage
fabric to the parallel file system. Each checkpoint passes both, so it takes its size over
the slower of the two rates: the nodes' NVMe write rates added up, and what reaches the
parallel file system (its appliances' write rate, capped by what the storage fabric and
the nodes' storage cables carry). When that takes longer than the interval, the copies
fall behind the checkpoints (STO007).
"""

from __future__ import annotations

from dataclasses import dataclass

from rackdesigner.analysis.storage import DEFAULT_CHECKPOINT_STEPS, StorageFacts
from rackdesigner.analysis.workload_run import training_run
from rackdesigner.model.layout import Workload


@dataclass(frozen=True, slots=True)
class Checkpoint:
    size: float  # bit
    interval: float  # s
    interval_source: str  # how the interval was set, for messages
    local: float | None  # bit/s: the training nodes' NVMe write rates added up
    path: float | None  # bit/s to the parallel file system (appliances, fabric, cables)

    @property
    def rate(self) -> float | None:
        """The slower of the two rates that are known."""
        known = [r for r in (self.local, self.path) if r is not None and r > 0]
        return min(known) if known else None

    @property
    def seconds(self) -> float | None:
        rate = self.rate
        return self.size / rate if rate else None

    @property
    def local_seconds(self) -> float | None:
        return self.size / self.local if self.local else None

    @property
    def copy_seconds(self) -> float | None:
        return self.size / self.path if self.path else None


def interval_of(workload: Workload) -> tuple[float, str] | None:
    """Seconds between checkpoints and how that was set: ``checkpoint_interval``, or
    ``checkpoint_steps`` (else the guide's 100) over ``steps_per_second``."""
    if workload.checkpoint_interval is not None:
        return float(workload.checkpoint_interval), "checkpoint_interval"
    rate = workload.steps_per_second
    if not rate:
        return None
    steps = workload.checkpoint_steps or DEFAULT_CHECKPOINT_STEPS
    guide = "" if workload.checkpoint_steps else ", the guide's"
    return steps / float(rate), f"{steps} steps at {float(rate):g} steps/s{guide}"


def checkpoint_of(workload: Workload | None, facts: StorageFacts) -> Checkpoint | None:
    """The checkpoint of a full training run of the workload's model, or None where the
    layout does not say enough (no model size or interval, adapters it cannot count)."""
    if workload is None or not workload.is_training or not workload.model_params:
        return None
    interval = interval_of(workload)
    if interval is None:
        return None
    nodes = facts.nodes
    local: float | None = None
    if nodes and all(d.type is not None and d.type.nvme_write for d in nodes):
        local = sum(float(d.type.nvme_write or 0.0) for d in nodes if d.type is not None)
    path = None
    if facts.pfs.devices:
        cables = sum(facts.node_bandwidth.values())
        to_pfs = facts.path_write()
        path = min(cables, to_pfs) if to_pfs is not None else cables
    run = training_run(workload)
    if run is None or run.state.checkpoint <= 0:
        return None
    size = run.state.checkpoint * 8.0  # bytes to bits
    return Checkpoint(size, interval[0], interval[1], local, path)
