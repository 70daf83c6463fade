"""What ``[workload]``'s keys say together (v1.4): combinations that contradict each other.

Each key alone is checked by the schema; here, the pairs that cannot both be meant: a
training method on an inference cluster, a ZeRO stage its ``parallelism`` rules out, a
precision the method cannot train in, a ``model_params`` far from the named model's. The
loader reports each as E001 at the key's line; rules never see such a layout.
"""

from __future__ import annotations

from typing import Any

from rackdesigner.model.llm_shapes import SHAPES
from rackdesigner.model.units import sci_text

# A declared parameter count may round the named model's (70e9 for Llama 3.1 70B's
# 70.55e9); more than this apart, one of the two is a slip.
PARAMS_TOLERANCE = 0.1

# Formats a full training run cannot keep its trained weights in: integer formats have no
# gradient (QLoRA trains adapters on such weights; that is method = "qlora").
_NOT_TRAINABLE = ("int8", "int4", "nf4")
# QLoRA's base weights are 4-bit (NF4 in the paper; int4 is the same size).
_QLORA_BASE = ("nf4", "int4")
_ADAPTER_KEYS = ("adapter_params", "lora_rank")


def workload_problems(values: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    """(key, message, hint) for each contradiction among ``[workload]``'s converted values."""
    problems: list[tuple[str, str, str | None]] = []
    kind, method = values.get("kind"), values.get("method")
    if kind == "inference":
        for key in ("method", "zero_stage", *_ADAPTER_KEYS):
            if key in values:
                problems.append(
                    (
                        key,
                        f'{key} is for training and fine-tuning, and kind = "inference"',
                        "inference keeps the weights at `precision` and a KV cache "
                        "(context_length, batch_size); leave it out",
                    )
                )
    problems += _stage_problems(values.get("parallelism"), values.get("zero_stage"))
    problems += _precision_problems(method, values.get("precision"))
    if method == "full":
        for key in _ADAPTER_KEYS:
            if key in values:
                problems.append(
                    (key, f'{key} is for LoRA adapters, and method = "full"', 'use method = "lora"')
                )
    problems += _params_problems(values.get("model"), values.get("model_params"))
    order = list(values)  # the file's order, so the messages come line by line
    return sorted(problems, key=lambda problem: order.index(problem[0]))


def _stage_problems(
    parallelism: str | None, stage: int | None
) -> list[tuple[str, str, str | None]]:
    if stage is None:
        return []
    if parallelism == "zero3" and stage != 3:
        return [
            (
                "zero_stage",
                f'zero_stage = {stage} contradicts parallelism = "zero3"',
                'leave zero_stage out, or say parallelism = "ddp" (ZeRO-1/2) or "fsdp"',
            )
        ]
    if parallelism == "ddp" and stage == 3:
        return [
            (
                "zero_stage",
                'zero_stage = 3 shards the parameters, which parallelism = "ddp" does not',
                'use parallelism = "zero3" or "fsdp" (their parameter all-gathers are '
                "traffic NET003 counts)",
            )
        ]
    return []


def _precision_problems(
    method: str | None, precision: str | None
) -> list[tuple[str, str, str | None]]:
    if precision is None:
        return []
    if method == "full" and precision in _NOT_TRAINABLE:
        return [
            (
                "precision",
                f"a full fine-tune trains every weight and cannot keep them in {precision}",
                'use method = "qlora" (4-bit base weights, 16-bit adapters) or precision = "bf16"',
            )
        ]
    if method == "qlora" and precision not in _QLORA_BASE:
        return [
            (
                "precision",
                f"QLoRA keeps the base weights in 4 bits (nf4), not {precision}",
                f'use method = "lora" for {precision} base weights, or leave precision out',
            )
        ]
    return []


def _params_problems(model: str | None, params: float | None) -> list[tuple[str, str, str | None]]:
    shape = SHAPES.get(model or "")
    if shape is None or params is None:
        return []
    if abs(float(params) - shape.params) <= PARAMS_TOLERANCE * shape.params:
        return []
    return [
        (
            "model_params",
            f"model_params = {sci_text(float(params))} is not {shape.name}'s "
            f"{sci_text(float(f'{shape.params:.4g}'))} "
            f'(model = "{shape.key}")',
            "leave model_params out: the named model gives it",
        )
    ]
