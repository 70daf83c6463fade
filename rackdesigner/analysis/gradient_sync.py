"""The gradient synchronisation of one data-parallel training step, in bytes (NET003, report).

A ring all-reduce of S bytes over n ranks sends and receives 2 (n − 1) / n × S on each rank
(NVIDIA nccl-tests, doc/PERFORMANCE.md, "AllReduce": n − 1 additions and n assignments per
element over n links; the ring of Patarasuk and Yuan 2009 that Baidu brought to deep
learning in 2017): a reduce-scatter and an all-gather of (n − 1) / n × S each. DDP, and
ZeRO stages 1 and 2, which reduce-scatter the gradients and all-gather the updated
weights, move that: k = 2 (Rajbhandari et al., ZeRO, §7.2.1). ZeRO-3 (FSDP's full shard)
also all-gathers the parameters for the forward and the backward pass: k = 3, 1.5 × DDP
(§7.2.2). So a GPU's collectives move k × Ψ × b × (N − 1) / N a step (Ψ parameters of b
bytes over N GPUs), whatever the shard it keeps is (Ψ / N with ZeRO-3).

Across the fabric, NCCL's hierarchical collectives reduce inside a node over NVLink first
and run one ring per rail between nodes, so each of n nodes sends k × Ψ × b × (n − 1) / n
over its fabric ports (the figure NET003 holds against the ports' rate).

LoRA and QLoRA (v1.4 ``method``) train adapters only: their gradients are what is
reduced (k = 2), and under ZeRO-3 the frozen weights, sharded, are all-gathered for the
forward and the backward pass (2 × their bytes), as FSDP does for every sharded weight.
"""

from __future__ import annotations

from dataclasses import dataclass

from rackdesigner.analysis.workload_run import Run
from rackdesigner.model.layout import Workload

# k per sharding: DDP and ZeRO-1/2 one all-reduce's worth, ZeRO-3 half as much again.
ALL_REDUCE = 2.0
FULL_SHARD = 3.0
_DATA_PARALLEL = ("ddp", "fsdp", "zero3")
_SHARDED = ("fsdp", "zero3")


def sync_factor(workload: Workload) -> float | None:
    """k for the workload's data parallelism, or None where the traffic is not a gradient
    sync the layout describes (tensor or pipeline parallelism, none declared)."""
    if workload.parallelism not in _DATA_PARALLEL:
        return None
    stage = workload.zero_stage
    if stage is None:
        stage = 3 if workload.parallelism in _SHARDED else 0
    return FULL_SHARD if stage >= 3 else ALL_REDUCE


def gradient_width(workload: Workload) -> float | None:
    """Bytes a gradient value takes on the wire: ``bytes_per_param``, else the declared
    precision's (v1.4: 4 for fp32, 2 for every 16-bit and 8-bit format, whose gradients
    are 16-bit), else None."""
    if workload.bytes_per_param:
        return float(workload.bytes_per_param)
    if workload.precision is None:
        return None
    return 4.0 if workload.precision == "fp32" else 2.0


@dataclass(frozen=True, slots=True)
class SyncStep:
    factor: float  # k
    params: float  # Ψ, the parameters whose gradients are synchronised
    width: float  # b, bytes a value
    gpus: int  # N
    nodes: int  # n
    # (LoRA and QLoRA under ZeRO-3) bytes of frozen weights all-gathered twice a step, for
    # the forward and the backward pass; their gradients are never synchronised.
    frozen: float = 0.0
    adapters_only: bool = False  # LoRA / QLoRA: only the adapters' gradients

    @property
    def volume(self) -> float:
        """k × Ψ × b (+ 2 × the frozen weights): the bytes a step reduces and gathers."""
        return self.factor * self.params * self.width + 2.0 * self.frozen

    @property
    def shard_params(self) -> float:
        """The trained parameters a GPU keeps with ZeRO-3: Ψ / N."""
        return self.params / self.gpus

    @property
    def shard_bytes(self) -> float:
        return self.shard_params * self.width

    @property
    def per_gpu(self) -> float:
        """Bytes each GPU's collectives move a step: k × Ψ × b × (N − 1) / N."""
        return self.volume * (self.gpus - 1) / self.gpus

    @property
    def per_node(self) -> float:
        """Bytes each node sends across the fabric a step: k × Ψ × b × (n − 1) / n."""
        return self.volume * (self.nodes - 1) / self.nodes if self.nodes else 0.0


def sync_step(workload: Workload, gpus: int, nodes: int, run: Run | None = None) -> SyncStep | None:
    """The step's synchronisation over ``gpus`` GPUs in ``nodes`` nodes, or None where the
    workload does not say enough (kind, data parallelism, model size and gradient width).

    ``run`` is the run's method and state as the memory fit takes them
    (``workload_run.training_run``: a fine-tune without a method is LoRA there, so here
    too). With LoRA or QLoRA only the adapters' gradients are synchronised (without a
    ``run`` or adapters to count the step is unknown), and under ZeRO-3 the frozen
    weights are all-gathered for the forward and backward passes."""
    if not workload.is_training or gpus < 1:
        return None
    factor = sync_factor(workload)
    params = workload.params
    width = gradient_width(workload)
    if factor is None or not params or not width:
        return None
    method = run.method if run is not None else workload.method
    if method not in ("lora", "qlora"):
        return SyncStep(factor, float(params), width, gpus, nodes)
    if run is None or not run.state.trainable:
        return None
    frozen = run.state.frozen if factor == FULL_SHARD else 0.0
    return SyncStep(ALL_REDUCE, run.state.trainable, width, gpus, nodes, frozen, True)
