"""The memory arithmetic of analysis/workload_memory.py, against hand-worked figures."""

from __future__ import annotations

import pytest

from rackdesigner.analysis.workload_memory import (
    NF4_BYTES,
    Split,
    activation_bytes,
    inference_per_gpu,
    kv_cache_bytes,
    memory_per_gpu,
    smallest_replica,
    smallest_training_gpus,
    training_state_bytes,
)
from rackdesigner.model.llm_shapes import SHAPES

GB = 1e9


def test_mixed_precision_adam_is_16_bytes_a_parameter() -> None:
    """ZeRO §3.1: 2 (bf16 weights) + 2 (bf16 gradients) + K = 12 (fp32 master 4, moments 4 + 4)
    = 16 B; in fp32, 4 + 4 + 8 = 16 B as well. A checkpoint keeps weights and optimizer:
    2 + 12 = 14 B (4 + 8 = 12 B in fp32)."""
    mixed = training_state_bytes(1e9, "full", "bf16")
    assert (mixed.weights, mixed.gradients, mixed.optimizer) == (2e9, 2e9, 12e9)
    assert mixed.total == 16e9 and mixed.checkpoint == 14e9
    fp32 = training_state_bytes(1e9, "full", "fp32")
    assert fp32.total == 16e9 and fp32.checkpoint == 12e9
    # FP8 training keeps 16-bit weights beside its casts: counted as bf16.
    assert training_state_bytes(1e9, "full", "fp8").total == 16e9


def test_zero_stages_shard_what_the_paper_says() -> None:
    """ZeRO Figure 1 with Ψ = 7.5e9, N_d = 64, K = 12 (the paper's own example): DDP 16Ψ =
    120 GB; Pos 4Ψ + 12Ψ/64 = 30 + 1.41 = 31.4 GB; Pos+g 2Ψ + 14Ψ/64 = 15 + 1.64 = 16.6 GB;
    Pos+g+p 16Ψ/64 = 1.875 GB."""
    state = training_state_bytes(7.5e9)
    expected = {0: 120.0, 1: 31.40625, 2: 16.640625, 3: 1.875}
    for stage, want in expected.items():
        need = memory_per_gpu(state, Split(64, zero_stage=stage))
        assert need.total / GB == pytest.approx(want), stage


def test_tensor_and_pipeline_degrees_divide_every_part() -> None:
    """70e9 × 16 B = 1120 GB over tensor 8 × pipeline 4 = 35 GB a GPU without ZeRO; with
    ZeRO-1 over the 2 data-parallel copies of 64 GPUs, the optimizer's 840/32 = 26.25 GB
    halves: 4.375 + 4.375 + 13.125 = 21.875 GB."""
    state = training_state_bytes(70e9)
    assert memory_per_gpu(state, Split(32, 8, 4)).total / GB == pytest.approx(35.0)
    need = memory_per_gpu(state, Split(64, 8, 4, zero_stage=1))
    assert need.total / GB == pytest.approx(21.875)


def test_qlora_keeps_nf4_weights_and_16_byte_adapters() -> None:
    """QLoRA §3: 4 bits a weight + 0.127 bit of double-quantized constants = 0.515875 B.
    Llama 3.1 70B (70,553,706,496 parameters): 36.397 GB; rank-64 adapters on all seven
    linear layers of its 80 blocks: 64 × (2 × 16,384 + 2 × 9,216 + 3 × 36,864) × 80 =
    828,375,040 parameters, × 16 B = 13.254 GB; 49.65 GB in all."""
    shape = SHAPES["llama-3.1-70b"]
    adapters = shape.lora_params(64)
    assert adapters == 828_375_040
    state = training_state_bytes(shape.params, "qlora", "nf4", adapters)
    assert pytest.approx(0.515875) == NF4_BYTES
    assert state.frozen / GB == pytest.approx(36.3969, rel=1e-4)
    assert (state.weights + state.gradients + state.optimizer) / GB == pytest.approx(
        13.254, rel=1e-3
    )
    assert state.total / GB == pytest.approx(49.651, rel=1e-3)
    # The checkpoint is the adapters and their optimizer state only: 14 B × 828.4e6.
    assert state.checkpoint / GB == pytest.approx(11.597, rel=1e-3)


def test_lora_keeps_its_base_at_the_declared_precision() -> None:
    """LoRA on a bf16 7e9 model with 20e6 adapters: 14 GB frozen + 20e6 × 16 B = 0.32 GB."""
    state = training_state_bytes(7e9, "lora", "bf16", 20e6)
    assert state.frozen == 14e9 and state.total == pytest.approx(14.32e9)


def test_kv_cache() -> None:
    """Llama 3.1 70B, 8,192 tokens, 32 sequences, bf16: 2 × 80 layers × 8 heads × 128 ×
    8,192 × 32 × 2 B = 85.9 GB."""
    assert kv_cache_bytes(80, 8, 128, 8192, 32, 2.0) == pytest.approx(85.899e9, rel=1e-4)


def test_activations_with_full_recomputation() -> None:
    """Korthikanti et al. §4: 2·s·b·h a layer's input × L layers + 34·s·b·h for the layer
    recomputed, over t. Llama 3.1 70B, 4,096 tokens, 1 sequence, t = 1: 4096 × 8192 ×
    (2 × 80 + 34) = 6.51 GB; at t = 8, 0.814 GB."""
    assert activation_bytes(80, 8192, 4096, 1) == pytest.approx(6.5095e9, rel=1e-4)
    assert activation_bytes(80, 8192, 4096, 1, 8) == pytest.approx(0.81369e9, rel=1e-4)


def test_inference_adds_a_fifth_of_the_weights() -> None:
    """Transformer Math 101: 1.2 × the weights. 70e9 in bf16 = 140 GB over tensor 8: 17.5 GB
    + 3.5 GB + a 16 GB KV cache / 8 = 2 GB: 23 GB a GPU."""
    need = inference_per_gpu(140e9, 16e9, Split(8, tensor=8))
    assert need.total / GB == pytest.approx(23.0)


def test_smallest_training_gpus_for_405b() -> None:
    """405.85e9 × 16 B = 6,493.7 GB with ZeRO-3 at 80 GB a GPU: 81.2 GPUs, so 82, rounded
    up to whole 8-GPU nodes: 88. Without ZeRO the 16 B stay on every GPU: no count fits."""
    state = training_state_bytes(SHAPES["llama-3.1-405b"].params)
    assert smallest_training_gpus(state, Split(8, zero_stage=3), 0.0, 80e9, 8) == 88
    assert smallest_training_gpus(state, Split(8), 0.0, 80e9, 8) is None


def test_smallest_training_gpus_keeps_the_unsharded_part() -> None:
    """ZeRO-1, 13e9: 52 GB of weights and gradients on every GPU, the optimizer's 156 GB
    sharded; at 80 GB a GPU: 156 / (80 − 52) = 5.57, so 6, on 8-GPU nodes 8."""
    state = training_state_bytes(13e9)
    assert smallest_training_gpus(state, Split(8, zero_stage=1), 0.0, 80e9, 8) == 8
    assert smallest_training_gpus(state, Split(8, zero_stage=1), 0.0, 80e9, 1) == 6


def test_smallest_replica_is_a_power_of_two_then_whole_nodes() -> None:
    """974 GB at 80 GB: 12.2 → 13 GPUs, beyond a node of 8: 16; 300 GB: 3.75 → 4; 90 GB:
    1.1 → 2."""
    assert smallest_replica(974e9, 80e9, 8) == 16
    assert smallest_replica(300e9, 80e9, 8) == 4
    assert smallest_replica(90e9, 80e9, 8) == 2
