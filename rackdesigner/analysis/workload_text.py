"""The memory fit in words, as CMP009 and the report say it (one wording for both)."""

from __future__ import annotations

from rackdesigner.analysis.workload_fit import Fit
from rackdesigner.analysis.workload_memory import BITS_PER_BYTE, PerGpu
from rackdesigner.model.units import INFORMATION, fmt, fmt_count
from rackdesigner.model.wording import plural

_METHOD = {"full": "full", "lora": "LoRA", "qlora": "QLoRA"}


def gb(value: float) -> str:
    """Bytes as people read them: ``812 GB``."""
    return fmt(value * BITS_PER_BYTE, INFORMATION)


def job_text(fit: Fit) -> str:
    """``full fine-tuning of a 405.9B-parameter model (16 B a parameter)``."""
    size = f"a {fmt_count(fit.params)}-parameter model"
    if fit.mode == "inference":
        return f"inference of {size} ({fit.precision} weights)"
    method = _METHOD.get(fit.method or "", fit.method or "")
    state = fit.state
    if fit.method == "full" and state is not None and state.trainable:
        width = f"{state.total / state.trainable:g} B a parameter"
    else:
        width = f"{fit.precision} base weights"
    return f"{method} {fit.mode} of {size} ({width})"


def split_text(fit: Fit) -> str:
    """``8 GPUs, ZeRO-3``, ``a replica of 8 GPUs (tensor 8)``."""
    split = fit.split
    degrees = []
    if split.tensor > 1:
        degrees.append(f"tensor {split.tensor}")
    if split.pipeline > 1:
        degrees.append(f"pipeline {split.pipeline}")
    if fit.mode == "inference":
        shown = f"a replica of {plural(split.gpus, 'GPU')}"
        return shown + (f" ({', '.join(degrees)})" if degrees else "")
    stage = f"ZeRO-{split.zero_stage}" if split.zero_stage else "no ZeRO sharding"
    return ", ".join([plural(split.gpus, "GPU"), *degrees, stage])


def parts_text(need: PerGpu) -> str:
    """The parts of a GPU's need that are not zero: ``weights 101 GB, optimizer 609 GB``."""
    parts = (
        ("frozen weights", need.frozen),
        ("weights", need.weights),
        ("gradients", need.gradients),
        ("optimizer", need.optimizer),
        ("KV cache", need.kv_cache),
        ("activations", need.activations),
    )
    return ", ".join(f"{name} {gb(value)}" for name, value in parts if value > 0)


def smallest_text(fit: Fit) -> str | None:
    """What would fit: the fewest GPUs of this GPU, a ZeRO stage, larger GPUs."""
    cluster = fit.cluster
    options: list[str] = []
    if fit.smallest is not None:
        nodes = -(-fit.smallest // cluster.node_gpus)
        what = "a replica" if fit.mode == "inference" else "the job"
        options.append(
            f"{what} fits on {plural(fit.smallest, 'GPU')} "
            f"({plural(nodes, 'node')} of {cluster.node_gpus} GPUs)"
        )
    elif fit.alternative is None:
        options.append(f"no number of {cluster.gpu} GPUs holds it as split")
    if fit.alternative is not None:
        stage, count = fit.alternative
        options.append(f"with {stage} it fits on {plural(count, 'GPU')}")
    if fit.larger:
        shown = ", ".join(f"{key} ({gb(size)})" for key, size in fit.larger)
        options.append(f"on GPUs of {gb(fit.need.total)} or more: {shown}")
    return "; ".join(options) or None


def notes_text(fit: Fit) -> str:
    """What was assumed and left uncounted, in parentheses, or nothing."""
    notes = []
    if fit.assumed:
        notes.append("assumed: " + ", ".join(fit.assumed))
    if fit.uncounted:
        notes.append("not counted: " + ", ".join(u.partition(" (")[0] for u in fit.uncounted))
    return f" ({'; '.join(notes)})" if notes else ""
