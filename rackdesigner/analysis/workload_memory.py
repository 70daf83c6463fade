"""What a model's training state weighs: bytes per parameter, and a checkpoint's size.

Mixed-precision training with Adam keeps, per parameter, the fp16/bf16 weights (2 bytes),
their fp16/bf16 gradients (2 bytes) and the optimizer's state: an fp32 copy of the weights,
Adam's momentum and its variance (4 + 4 + 4 = 12 bytes), 16 bytes in all (Rajbhandari et
al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", SC20, section
3.1: "2Ψ + 2Ψ + KΨ = 16Ψ bytes" with K = 12 for mixed-precision Adam).

A checkpoint saves what training needs to resume: the weights and the optimizer state.
The gradients are recomputed by the next step and are not saved, so a checkpoint is
2 + 12 = 14 bytes per parameter (70e9 parameters: 980 GB), not the 16 of the memory the
state takes while training. Plain functions of the parameter count, for the storage rules
(STO007, the checkpoint's time) and for the memory-fit arithmetic of the workload rules.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class StateBytes:
    """Bytes per parameter of one kind of training state."""

    weights: float
    gradients: float
    optimizer: float

    @property
    def training(self) -> float:
        """What training holds in memory per parameter, before any sharding."""
        return self.weights + self.gradients + self.optimizer

    @property
    def checkpoint(self) -> float:
        """What a checkpoint saves per parameter: weights and optimizer state."""
        return self.weights + self.optimizer


# The ZeRO paper's mixed-precision Adam: 2 + 2 + 12 = 16 bytes per parameter.
MIXED_PRECISION_ADAM = StateBytes(weights=2.0, gradients=2.0, optimizer=12.0)


def training_state_bytes(params: float, state: StateBytes = MIXED_PRECISION_ADAM) -> float:
    """Bytes of model state (weights, gradients, optimizer) for ``params`` parameters,
    unsharded: 16 bytes per parameter for mixed-precision Adam."""
    return params * state.training


def checkpoint_bytes(params: float, state: StateBytes = MIXED_PRECISION_ADAM) -> float:
    """Bytes a full checkpoint of ``params`` parameters writes: the weights and the
    optimizer state, 14 bytes per parameter for mixed-precision Adam."""
    return params * state.checkpoint
