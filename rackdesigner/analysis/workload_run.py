"""How a training run keeps its model, from ``[workload]`` alone: the method, the precision,
the ZeRO stage and the training state (workload_memory.py), every key the layout leaves out
given the value workload_fit.py's docstring says. Shared by the memory fit (CMP009), the
gradient traffic (NET003) and the checkpoint's size (STO007), none of which needs more than
the workload to say what a run holds."""

from __future__ import annotations

from dataclasses import dataclass

from rackdesigner.analysis.workload_memory import (
    DEFAULT_LORA_RANK,
    TrainingState,
    training_state_bytes,
)
from rackdesigner.model.layout import Workload
from rackdesigner.model.llm_shapes import SHAPES

# bytes_per_param's width, read as the weights' precision where none is declared.
_WIDTH_PRECISION = {4.0: "fp32", 2.0: "bf16", 1.0: "fp8", 0.5: "int4"}
_SHARDED = ("fsdp", "zero3")


@dataclass(frozen=True, slots=True)
class Shape:
    """The model's shape as far as it is known (declared keys over the named model's)."""

    layers: int | None = None
    hidden: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    lora: float | None = None  # adapter parameters at the run's rank, from a named shape


def shape_of(workload: Workload) -> Shape:
    """The model's shape: the declared keys, else the named model's."""
    named = SHAPES.get(workload.model or "")
    rank = workload.lora_rank or DEFAULT_LORA_RANK
    return Shape(
        workload.layers or (named.layers if named else None),
        workload.hidden_size or (named.hidden if named else None),
        workload.kv_heads or (named.kv_heads if named else None),
        workload.head_dim or (named.head_dim if named else None),
        named.lora_params(rank) if named else None,
    )


def precision_of(workload: Workload, method: str | None) -> tuple[str, bool]:
    """The weights' precision and whether it was assumed (not declared)."""
    if workload.precision is not None:
        return workload.precision, False
    if method == "qlora":
        return "nf4", False  # QLoRA's own format, not a choice
    width = workload.bytes_per_param
    if width is not None and float(width) in _WIDTH_PRECISION:
        return _WIDTH_PRECISION[float(width)], False
    return "bf16", True


def zero_stage_of(workload: Workload) -> tuple[int, bool]:
    """The ZeRO stage and whether it was assumed (no parallelism and no stage declared)."""
    if workload.zero_stage is not None:
        return workload.zero_stage, False
    if workload.parallelism is None:
        return 3, True
    return (3 if workload.parallelism in _SHARDED else 0), False


@dataclass(frozen=True, slots=True)
class Run:
    """How a training run keeps its model: the method, the precision, the state."""

    method: str
    precision: str
    state: TrainingState


def training_run(
    workload: Workload, assumed: list[str] | None = None, uncounted: list[str] | None = None
) -> Run | None:
    """The training state of a training or fine-tuning workload, its undeclared keys given
    the values the module's docstring says (named in ``assumed``, what cannot be counted
    in ``uncounted``); None without a model size or for inference."""
    params = workload.params
    if not workload.is_training or not params:
        return None
    assumed = [] if assumed is None else assumed
    uncounted = [] if uncounted is None else uncounted
    method = workload.method
    if method is None:
        method = "full" if workload.kind == "training" else "lora"
        if method == "lora":  # pre-training trains every weight: no assumption
            assumed.append("method lora (fine-tuning without a method)")
    precision, guessed = precision_of(workload, method)
    if guessed and method == "lora":  # full training holds 16 B a parameter either way
        assumed.append(f"{precision} weights")
    adapters = 0.0
    if method != "full":
        shape = shape_of(workload)
        if workload.adapter_params is not None:
            adapters = float(workload.adapter_params)
        elif shape.lora is not None:
            adapters = shape.lora
            if workload.lora_rank is None:
                assumed.append("LoRA rank 64 on every linear layer")
        else:
            uncounted.append("adapters (declare adapter_params or a named model)")
    return Run(method, precision, training_state_bytes(float(params), method, precision, adapters))
