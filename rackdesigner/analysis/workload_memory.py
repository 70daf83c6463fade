"""The memory a model needs on each GPU: training state, KV cache and activations.

Pure arithmetic in **bytes** (the unit every source below counts in; callers convert to
the layout's bits at their edge, ``BITS_PER_BYTE``). docs/workload.md works the examples.

Training state, per parameter (Rajbhandari et al., *ZeRO: Memory Optimizations Toward
Training Trillion Parameter Models*, SC 2020, arXiv:1910.02054, §3.1): mixed-precision
Adam keeps fp16/bf16 weights (2 B) and gradients (2 B) and K = 12 B of optimizer state (an
fp32 master copy and two fp32 moments): 16 B a parameter. Trained in fp32 the weights are
their own master: 4 + 4 + 8 = 16 B as well. FP8 training keeps 16-bit weights beside its
FP8 casts, so it is counted as bf16. ZeRO shards over the data-parallel GPUs N_d (§5,
Figure 1): stage 1 the optimizer state, stage 2 the gradients too, stage 3 (FSDP's full
shard) the weights too; tensor and pipeline degrees split every part of a replica.

LoRA and QLoRA train adapters on frozen weights: the frozen weights at their precision
(QLoRA: 4-bit NormalFloat plus its quantization constants, 0.127 bit a parameter after
double quantization: Dettmers et al., *QLoRA*, 2023, arXiv:2305.14314, §3), the adapters
with the same 16 B a parameter as full training.

Activations (Korthikanti et al., *Reducing Activation Recomputation in Large Transformer
Models*, MLSys 2023, arXiv:2205.05198, §4): with full recomputation a layer keeps only its
input, 2·s·b·h bytes (s tokens, b sequences, h width), and recomputes one layer at a time,
whose activations are s·b·h·34 with fused attention (the 5·a·s/h term of eq. 1 is the
attention matrix that FlashAttention never stores); tensor parallelism with sequence
parallelism divides both by t. That is the least a training step can hold: a lower bound,
right for a rule that fires only when the model cannot fit.

Inference: the weights at their precision, the KV cache (2 × layers × KV heads × head size
× tokens × sequences × bytes per value) and an allowance of 20 % of the weights for
activations and buffers (EleutherAI, *Transformer Math 101*, 2023: "Total Inference Memory
≈ 1.2 × Model Memory").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

BITS_PER_BYTE = 8.0

# QLoRA §3: NF4 is 4 bits a weight; double quantization brings its constants from 0.5 to
# 0.127 bit a parameter (8-bit constants per block of 64, 32-bit ones per 256 of those).
NF4_BYTES = (4 + 0.127) / BITS_PER_BYTE
PRECISION_BYTES: dict[str, float] = {
    "fp32": 4.0,
    "bf16": 2.0,
    "fp16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "int4": 0.5,
    "nf4": NF4_BYTES,
}
# ZeRO §3.1: Adam's state in mixed precision, K = 12 (fp32 master copy and two moments);
# in fp32 the weights are the master, and the moments are 8.
ADAM_STATE_MIXED = 12.0
ADAM_STATE_FP32 = 8.0
# The 16-bit weight and gradient of a parameter trained in mixed precision.
TRAINED_WIDTH = 2.0
# Korthikanti et al. §4: bytes per token and unit of width of a layer's stored input (full
# recomputation) and of one layer's activations with fused attention.
LAYER_INPUT_BYTES = 2.0
LAYER_WORKING_BYTES = 34.0
# Transformer Math 101: inference needs about 1.2 × the weights, before the KV cache.
INFERENCE_OVERHEAD = 0.2
# The QLoRA paper's adapters: rank 64 on every linear layer of every block (§4, Table 9).
DEFAULT_LORA_RANK = 64


@dataclass(frozen=True, slots=True)
class TrainingState:
    """What a training run keeps, for the whole model, in bytes."""

    frozen: float  # weights not trained (LoRA and QLoRA's base)
    weights: float  # the trained weights' working copy
    gradients: float
    optimizer: float  # Adam's moments, and the fp32 master copy in mixed precision
    trainable: float  # parameters trained

    @property
    def total(self) -> float:
        return self.frozen + self.weights + self.gradients + self.optimizer

    @property
    def checkpoint(self) -> float:
        """What a checkpoint writes: the trained weights and the optimizer state (the
        gradients are recomputed; a frozen base is already on disk). 14 B a parameter in
        mixed precision."""
        return self.weights + self.optimizer


def weight_width(precision: str) -> float:
    """Bytes a weight takes at ``precision``."""
    return PRECISION_BYTES[precision]


def training_state_bytes(
    params: float, method: str = "full", precision: str = "bf16", adapter_params: float = 0.0
) -> TrainingState:
    """The training state of ``params`` parameters trained by ``method`` (full, lora,
    qlora), the weights held at ``precision``; ``adapter_params`` are LoRA's trained ones."""
    if method == "full":
        width = 4.0 if precision == "fp32" else TRAINED_WIDTH
        adam = ADAM_STATE_FP32 if precision == "fp32" else ADAM_STATE_MIXED
        return TrainingState(0.0, params * width, params * width, params * adam, params)
    base = NF4_BYTES if method == "qlora" else weight_width(precision)
    trained = adapter_params
    return TrainingState(
        params * base,
        trained * TRAINED_WIDTH,
        trained * TRAINED_WIDTH,
        trained * ADAM_STATE_MIXED,
        trained,
    )


@dataclass(frozen=True, slots=True)
class Split:
    """How one copy of the model is spread: over ``gpus`` GPUs, ``tensor`` × ``pipeline``
    of them holding one replica's parts, the rest data-parallel copies that ZeRO shards."""

    gpus: int
    tensor: int = 1
    pipeline: int = 1
    zero_stage: int = 0

    @property
    def model_parallel(self) -> int:
        return self.tensor * self.pipeline

    @property
    def data(self) -> int:
        return max(self.gpus // self.model_parallel, 1)


@dataclass(frozen=True, slots=True)
class PerGpu:
    """Bytes one GPU holds."""

    frozen: float = 0.0
    weights: float = 0.0
    gradients: float = 0.0
    optimizer: float = 0.0
    kv_cache: float = 0.0
    activations: float = 0.0

    @property
    def total(self) -> float:
        return (
            self.frozen
            + self.weights
            + self.gradients
            + self.optimizer
            + self.kv_cache
            + self.activations
        )


def memory_per_gpu(state: TrainingState, split: Split, activations: float = 0.0) -> PerGpu:
    """A training GPU's share of ``state`` under ``split``, plus ``activations`` (bytes a
    GPU, already for its tensor degree)."""
    mp, data, stage = split.model_parallel, split.data, split.zero_stage
    return PerGpu(
        frozen=state.frozen / mp / (data if stage >= 3 else 1),
        weights=state.weights / mp / (data if stage >= 3 else 1),
        gradients=state.gradients / mp / (data if stage >= 2 else 1),
        optimizer=state.optimizer / mp / (data if stage >= 1 else 1),
        activations=activations,
    )


def inference_per_gpu(
    weights: float, kv_cache: float, split: Split, activations: float | None = None
) -> PerGpu:
    """An inference GPU's share of a replica: the weights and KV cache over its tensor ×
    pipeline GPUs, plus ``activations`` a GPU (None: 20 % of its weights)."""
    mp = split.model_parallel
    share = weights / mp
    extra = share * INFERENCE_OVERHEAD if activations is None else activations
    return PerGpu(weights=share, kv_cache=kv_cache / mp, activations=extra)


def kv_cache_bytes(
    layers: int, kv_heads: int, head_dim: int, context: int, batch: int, width: float
) -> float:
    """Keys and values of every layer for ``batch`` sequences of ``context`` tokens."""
    return 2.0 * layers * kv_heads * head_dim * context * batch * width


def activation_bytes(layers: int, hidden: int, context: int, batch: int, tensor: int = 1) -> float:
    """The least a training GPU holds for activations: every layer's input and one layer
    recomputed (full recomputation, fused attention, sequence parallel over ``tensor``)."""
    tokens = float(context) * batch * hidden
    return tokens * (LAYER_INPUT_BYTES * layers + LAYER_WORKING_BYTES) / tensor


def smallest_training_gpus(
    state: TrainingState, split: Split, activations: float, memory: float, step: int
) -> int | None:
    """The fewest GPUs, a multiple of ``step``, over which ``state`` fits in ``memory``
    bytes a GPU, the tensor and pipeline degrees and ZeRO stage kept; None when no count
    does (the parts ZeRO does not shard fill a GPU on their own).

    Per GPU: U / (t·p) + S / N + activations, S the parts the stage shards, U the rest."""
    mp, stage = split.model_parallel, split.zero_stage
    sharded = (
        (state.optimizer if stage >= 1 else 0.0)
        + (state.gradients if stage >= 2 else 0.0)
        + (state.weights + state.frozen if stage >= 3 else 0.0)
    )
    room = memory - activations - (state.total - sharded) / mp
    if room <= 0:
        return None
    step = math.lcm(max(step, 1), mp)
    if sharded <= 0:
        return step
    return max(math.ceil(sharded / room / step - 1e-9), 1) * step


def smallest_replica(need: float, memory: float, node_gpus: int) -> int:
    """The fewest GPUs one inference replica of ``need`` bytes fits on at ``memory`` bytes
    a GPU: a power of two within a node (tensor-parallel degrees divide the heads), whole
    nodes beyond it (pipeline stages across nodes)."""
    count = max(math.ceil(need / memory - 1e-9), 1)
    if count <= node_gpus:
        return min(1 << (count - 1).bit_length(), node_gpus)
    return math.ceil(count / node_gpus) * node_gpus
