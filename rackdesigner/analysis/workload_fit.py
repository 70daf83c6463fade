"""Whether the declared model fits the memory of the GPUs that would run it (CMP009, report).

The layout's ``[workload]`` is resolved into one plan, every key it leaves out given the
most favourable value a run could choose (the rule fires only when the model cannot fit)
and named in ``assumed``:

- the model's shape: the declared keys, else the named model's (model/llm_shapes.py);
- the method: declared, else full for ``training``, LoRA for ``fine-tuning`` (weights kept
  at their precision);
- the precision: declared, else NF4 for QLoRA, else ``bytes_per_param``'s width (1 fp8,
  2 bf16, 4 fp32), else bf16;
- the ZeRO stage: declared, else 0 for ``ddp``, ``tensor`` and ``pipeline``, 3 for ``fsdp``
  and ``zero3`` and when no ``parallelism`` is given (the least memory a GPU);
- the tensor and pipeline degrees: declared, else for ``tensor`` the GPUs of the smallest
  node, for ``pipeline`` one stage a node, for inference the smallest replica that holds
  the model (a power of two within a node, whole nodes beyond);
- activations: ``activation_memory``, else training's lower bound from the shape with
  ``context_length`` and ``batch_size`` (1 sequence), else inference's 20 % of the weights;
  what cannot be counted (no shape or no context) is named in ``uncounted``.

Training runs on every GPU node of the layout; a layout of several GPU models is judged at
the smallest memory among them. Memory figures are bytes (workload_memory.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.workload_memory import (
    BITS_PER_BYTE,
    PRECISION_BYTES,
    PerGpu,
    Split,
    TrainingState,
    activation_bytes,
    inference_per_gpu,
    kv_cache_bytes,
    memory_per_gpu,
    smallest_replica,
    smallest_training_gpus,
    weight_width,
)
from rackdesigner.analysis.workload_run import (
    Shape,
    precision_of,
    shape_of,
    training_run,
    zero_stage_of,
)
from rackdesigner.model.layout import Workload

_MOST_SUGGESTED = 3


@dataclass(frozen=True, slots=True)
class Cluster:
    """The GPUs that would run the workload."""

    gpus: int
    nodes: int
    node_gpus: int  # the smallest node's GPUs
    gpu: str  # the catalog key of the GPU with the least memory
    memory: float  # bytes a GPU


@dataclass(frozen=True, slots=True)
class Fit:
    mode: str  # the workload's kind: training, fine-tuning or inference
    method: str | None  # full, lora, qlora; None for inference
    precision: str
    params: float
    cluster: Cluster
    split: Split  # over the GPUs that hold one copy: the job, or one replica
    need: PerGpu
    state: TrainingState | None
    smallest: int | None  # fewest GPUs of this GPU that hold it; None: no count does
    alternative: tuple[str, int] | None = None  # a stage that would fit, and its GPU count
    larger: tuple[tuple[str, float], ...] = ()  # node types whose GPUs hold it: (key, bytes)
    assumed: tuple[str, ...] = field(default_factory=tuple)
    uncounted: tuple[str, ...] = field(default_factory=tuple)

    @property
    def gpus_short(self) -> bool:
        """The split needs more GPUs than the layout has (a replica, or t × p)."""
        return max(self.split.gpus, self.split.model_parallel) > self.cluster.gpus

    @property
    def fits(self) -> bool:
        return self.need.total <= self.cluster.memory * (1 + 1e-9) and not self.gpus_short


def workload_fit(analysis: Analysis) -> Fit | None:
    """The fit of the declared model, or None where it cannot be judged: no workload or
    no parameter count, no GPU node, or a GPU node whose GPU memory is not known."""
    workload = analysis.workload
    params = workload.params if workload is not None else None
    if workload is None or not params or workload.kind is None:
        return None
    cluster = _cluster(analysis)
    if cluster is None:
        return None
    assumed: list[str] = []
    uncounted: list[str] = []
    shape = shape_of(workload)
    if workload.is_training:
        fit = _training(workload, float(params), cluster, shape, assumed, uncounted)
    else:
        fit = _inference(workload, float(params), cluster, shape, assumed, uncounted)
    larger = _larger_gpus(analysis, fit.need.total, cluster.memory)
    return replace(fit, larger=larger, assumed=tuple(assumed), uncounted=tuple(uncounted))


def _cluster(analysis: Analysis) -> Cluster | None:
    gpus = nodes = 0
    node_gpus: int | None = None
    least: tuple[float, str] | None = None
    for dev in analysis.devices:
        if not dev.is_gpu_node or not dev.gpus:
            continue
        if dev.gpu is None or not dev.gpu.memory:
            return None  # a GPU whose memory is not known: the fit cannot be judged
        memory = float(dev.gpu.memory) / BITS_PER_BYTE
        if least is None or memory < least[0]:
            least = (memory, dev.gpu.key)
        gpus += dev.gpus
        nodes += 1
        node_gpus = dev.gpus if node_gpus is None else min(node_gpus, dev.gpus)
    if least is None or node_gpus is None:
        return None
    return Cluster(gpus, nodes, node_gpus, least[1], least[0])


def _training(
    workload: Workload,
    params: float,
    cluster: Cluster,
    shape: Shape,
    assumed: list[str],
    uncounted: list[str],
) -> Fit:
    run = training_run(workload, assumed, uncounted)
    assert run is not None  # a training workload with a model size
    method, precision, state = run.method, run.precision, run.state
    stage, guessed = zero_stage_of(workload)
    if guessed:
        assumed.append("ZeRO-3 (no parallelism declared)")
    tensor, pipeline = _training_degrees(workload, cluster, assumed)
    split = Split(cluster.gpus, tensor, pipeline, stage)
    activations = _training_activations(workload, shape, tensor, uncounted)
    need = memory_per_gpu(state, split, activations)
    smallest = smallest_training_gpus(state, split, activations, cluster.memory, cluster.node_gpus)
    alternative = None
    if stage < 3:
        sharded = Split(cluster.gpus, tensor, pipeline, 3)
        count = smallest_training_gpus(
            state, sharded, activations, cluster.memory, cluster.node_gpus
        )
        if count is not None and (smallest is None or count < smallest):
            alternative = ("ZeRO-3", count)
    return Fit(
        workload.kind or "training",
        method,
        precision,
        params,
        cluster,
        split,
        need,
        state,
        smallest,
        alternative,
    )


def _training_degrees(workload: Workload, cluster: Cluster, assumed: list[str]) -> tuple[int, int]:
    tensor = workload.tensor_parallel
    pipeline = workload.pipeline_parallel
    if tensor is None:
        tensor = cluster.node_gpus if workload.parallelism == "tensor" else 1
        if workload.parallelism == "tensor":
            assumed.append(f"tensor parallel over a node's {tensor} GPUs")
    if pipeline is None:
        pipeline = cluster.nodes if workload.parallelism == "pipeline" else 1
        if workload.parallelism == "pipeline":
            assumed.append(f"{pipeline} pipeline stages, one a node")
    return tensor, pipeline


def _training_activations(
    workload: Workload, shape: Shape, tensor: int, uncounted: list[str]
) -> float:
    if workload.activation_memory is not None:
        return float(workload.activation_memory) / BITS_PER_BYTE
    if shape.layers and shape.hidden and workload.context_length:
        batch = workload.batch_size or 1
        return activation_bytes(shape.layers, shape.hidden, workload.context_length, batch, tensor)
    uncounted.append(
        "activations (declare context_length with the model's shape, or activation_memory)"
    )
    return 0.0


def _inference(
    workload: Workload,
    params: float,
    cluster: Cluster,
    shape: Shape,
    assumed: list[str],
    uncounted: list[str],
) -> Fit:
    precision, guessed = precision_of(workload, None)
    if guessed:
        assumed.append(f"{precision} weights")
    weights = params * weight_width(precision)
    kv = 0.0
    if shape.layers and shape.kv_heads and shape.head_dim and workload.context_length:
        # Weight-only formats (int8, int4, nf4) keep a 16-bit KV cache; fp8 and fp32 their own.
        width = PRECISION_BYTES[precision] if precision in ("fp32", "fp8") else 2.0
        batch = workload.batch_size or 1
        kv = kv_cache_bytes(
            shape.layers, shape.kv_heads, shape.head_dim, workload.context_length, batch, width
        )
    else:
        uncounted.append("KV cache (declare context_length with the model's shape)")
    declared = (
        float(workload.activation_memory) / BITS_PER_BYTE
        if workload.activation_memory is not None
        else None
    )
    whole = inference_per_gpu(weights, kv, Split(1), declared)
    # One GPU's need with nothing split: the activations a GPU, declared, stay whole.
    spread = whole.total - (declared or 0.0)
    room = cluster.memory - (declared or 0.0)
    smallest = smallest_replica(spread, room, cluster.node_gpus) if room > 0 else None
    tensor, pipeline = workload.tensor_parallel, workload.pipeline_parallel
    if tensor is None and pipeline is None:
        count = min(smallest or cluster.gpus, cluster.gpus)
        tensor, pipeline = min(count, cluster.node_gpus), max(count // cluster.node_gpus, 1)
        assumed.append(f"a replica on {tensor * pipeline} GPUs")
    split = Split((tensor or 1) * (pipeline or 1), tensor or 1, pipeline or 1)
    need = inference_per_gpu(weights, kv, split, declared)
    return Fit("inference", None, precision, params, cluster, split, need, None, smallest)


def _larger_gpus(analysis: Analysis, need: float, memory: float) -> tuple[tuple[str, float], ...]:
    """Catalog GPU-node types whose GPUs hold ``need`` bytes, smallest memory first."""
    if need <= memory:
        return ()
    found: list[tuple[float, str]] = []
    gpus = analysis.catalog.gpus
    for key, dtype in analysis.catalog.devices.items():
        gpu = gpus.get(dtype.gpu or "") if dtype.kind == "gpu-node" else None
        if gpu is None or not gpu.memory:
            continue
        size = float(gpu.memory) / BITS_PER_BYTE
        if size >= need:
            found.append((size, key))
    found.sort()
    return tuple((key, size) for size, key in found[:_MOST_SUGGESTED])
