"""The report's workload section (v1.4, docs/workload.md): whether the model fits the GPUs'
memory (CMP009's arithmetic, part by part) and the gradient sync of one training step
(NET003's), worked through for the layout.

Layouts without ``[workload]``, or whose workload gives neither a model size nor a GPU
node to judge, have no ``workload`` section: their reports are as before. Memory figures
are bits (SI, as every figure of the report); the gradient width is bytes a value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rackdesigner.analysis.gradient_sync import SyncStep, sync_step
from rackdesigner.analysis.workload_fit import Fit, training_run, workload_fit
from rackdesigner.analysis.workload_memory import BITS_PER_BYTE
from rackdesigner.analysis.workload_text import (
    gb,
    job_text,
    notes_text,
    parts_text,
    smallest_text,
    split_text,
)
from rackdesigner.model.units import BYTE_RATE, fmt, fmt_count
from rackdesigner.model.wording import plural

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis

_PARTS = ("frozen", "weights", "gradients", "optimizer", "kv_cache", "activations")


def build_workload(analysis: Analysis) -> dict[str, Any] | None:
    """The section, or None where there is nothing to work through."""
    workload = analysis.workload
    if workload is None:
        return None
    fit = workload_fit(analysis)
    nodes = [d for d in analysis.devices if d.is_gpu_node and d.gpus]
    sync = sync_step(workload, sum(d.gpus for d in nodes), len(nodes), training_run(workload))
    if fit is None and sync is None:
        return None
    node_gpus = min((d.gpus for d in nodes), default=1)
    return {
        "kind": workload.kind,
        "model": workload.model,
        "params": workload.params,
        "memory": _memory(fit) if fit is not None else None,
        "gradient_sync": _sync(sync, node_gpus, workload.steps_per_second, sync.adapters_only)
        if sync is not None
        else None,
    }


def _memory(fit: Fit) -> dict[str, Any]:
    bits = BITS_PER_BYTE
    state = fit.state
    return {
        "mode": fit.mode,
        "method": fit.method,
        "precision": fit.precision,
        "gpus": fit.split.gpus,
        "tensor_parallel": fit.split.tensor,
        "pipeline_parallel": fit.split.pipeline,
        "zero_stage": fit.split.zero_stage if fit.mode != "inference" else None,
        "gpu": fit.cluster.gpu,
        "gpu_memory": fit.cluster.memory * bits,
        "need": fit.need.total * bits,
        "parts": {key: getattr(fit.need, key) * bits for key in _PARTS},
        "fits": fit.fits,
        "smallest_gpus": fit.smallest,
        "alternative": {"stage": fit.alternative[0], "gpus": fit.alternative[1]}
        if fit.alternative
        else None,
        "larger": [{"model": key, "gpu_memory": size * bits} for key, size in fit.larger],
        "training_state": state.total * bits if state is not None else None,
        "checkpoint": state.checkpoint * bits if state is not None else None,
        "assumed": list(fit.assumed),
        "uncounted": list(fit.uncounted),
        "text": {
            "job": job_text(fit),
            "split": split_text(fit),
            "parts": parts_text(fit.need),
            "options": smallest_text(fit),
            "notes": notes_text(fit).strip(" ()"),
        },
    }


def _sync(sync: SyncStep, node_gpus: int, steps: float | None, lora: bool) -> dict[str, Any]:
    bits = BITS_PER_BYTE
    per_port = sync.per_node / max(node_gpus, 1)
    return {
        "factor": sync.factor,
        "lora": lora,
        "params": sync.params,
        "width": sync.width,
        "gpus": sync.gpus,
        "nodes": sync.nodes,
        "frozen_gathered": 2.0 * sync.frozen * bits,
        "shard_params": sync.shard_params,
        "shard": sync.shard_bytes * bits,
        "per_gpu": sync.per_gpu * bits,
        "per_node": sync.per_node * bits,
        "per_port": per_port * bits,
        "ports_per_node": node_gpus,
        "steps_per_second": float(steps) if steps else None,
        "per_port_rate": per_port * bits * float(steps) if steps else None,
    }


def workload_text(section: dict[str, Any] | None) -> list[str]:
    if section is None:
        return []
    params = section["params"]
    named = f" ({section['model']})" if section["model"] else ""
    out = [
        "",
        f"Workload: {section['kind']}, {fmt_count(params) if params else '?'} parameters{named}",
    ]
    memory = section["memory"]
    if memory is not None:
        text = memory["text"]
        verdict = "fits" if memory["fits"] else "does not fit"
        out.append(
            f"  memory: {text['job']} needs {gb(memory['need'] / BITS_PER_BYTE)} a GPU on "
            f"{text['split']}, of {gb(memory['gpu_memory'] / BITS_PER_BYTE)} ({memory['gpu']}): "
            f"{verdict}"
        )
        out.append(f"    {text['parts']}")
        if not memory["fits"] and text["options"]:
            out.append(f"    {text['options']}")
        if memory["checkpoint"]:
            out.append(
                f"    a checkpoint writes {gb(memory['checkpoint'] / BITS_PER_BYTE)} (trained "
                "weights and optimizer state)"
            )
        if text["notes"]:
            out.append(f"    {text['notes']}")
    out += _sync_text(section["gradient_sync"])
    return out


def _shard_line(sync: dict[str, Any]) -> str:
    """1/N of the trained parameters: the shard a GPU holds under ZeRO-3 / FSDP; under
    DDP and ZeRO-1/2 every GPU holds them all (the guide's "4.4 GB" is this figure)."""
    n, shard = sync["gpus"], f"{fmt_count(sync['shard_params'])} trained parameters"
    size = gb(sync["shard"] / BITS_PER_BYTE)
    if sync["factor"] == 2:
        return (
            f"    1/{n} of them is {shard} ({size}), the shard ZeRO-3 would keep; here each "
            "GPU holds them all, and neither is what it sends"
        )
    return f"    each GPU keeps a shard of {shard} ({size}): what it holds, not what it sends"


def _sync_text(sync: dict[str, Any] | None) -> list[str]:
    if sync is None:
        return []
    n, nodes, k, width = sync["gpus"], sync["nodes"], sync["factor"], sync["width"]
    product = f"{k:g} × {fmt_count(sync['params'])} × {width:g} B"
    if sync["frozen_gathered"]:
        product = f"({product} + {gb(sync['frozen_gathered'] / BITS_PER_BYTE)} of frozen weights)"
    why = (
        "a ring all-reduce moves 2(N-1)/N of the gradients"
        if k == 2
        else "a ring all-reduce moves 2(N-1)/N of the gradients; ZeRO-3's parameter "
        "all-gathers for the forward and backward passes add a third"
    )
    what = "the adapters' gradients" if sync["lora"] else "every weight's gradients"
    lines = [
        f"  gradient sync a step ({'DDP, ZeRO-1/2' if k == 2 else 'ZeRO-3 / FSDP'}, "
        f"{what}, {width:g} B a value, {plural(n, 'GPU')} on {plural(nodes, 'node')}):",
        _shard_line(sync),
        f"    each GPU's collectives move {product} × {n - 1}/{n} = "
        f"{gb(sync['per_gpu'] / BITS_PER_BYTE)} ({why})",
    ]
    if nodes > 1:
        lines.append(
            f"    across the fabric each node sends {product} × {nodes - 1}/{nodes} = "
            f"{gb(sync['per_node'] / BITS_PER_BYTE)}, {gb(sync['per_port'] / BITS_PER_BYTE)} "
            f"on each of its {sync['ports_per_node']} ports (one a GPU)"
        )
    else:
        lines.append("    one node: the collectives stay on NVLink, none crosses the fabric")
    if sync["per_port_rate"] is not None:
        lines.append(
            f"    at {sync['steps_per_second']:g} steps/s: {fmt(sync['per_port_rate'], BYTE_RATE)} "
            "a port (NET003 holds it against the ports' rate)"
        )
    return lines


def workload_csv_rows(section: dict[str, Any] | None) -> list[list[Any]]:
    rows: list[list[Any]] = []
    if section is None:
        return rows
    memory = section["memory"]
    if memory is not None:
        rows.append(["workload", "memory", "need_per_gpu", memory["need"], "bit"])
        rows.append(["workload", "memory", "gpu_memory", memory["gpu_memory"], "bit"])
        rows.append(["workload", "memory", "fits", int(memory["fits"]), ""])
        if memory["smallest_gpus"] is not None:
            rows.append(["workload", "memory", "smallest_gpus", memory["smallest_gpus"], ""])
    sync = section["gradient_sync"]
    if sync is not None:
        for key in ("shard", "per_gpu", "per_node", "per_port"):
            rows.append(["workload", "gradient_sync", f"{key}_per_step", sync[key], "bit"])
        if sync["per_port_rate"] is not None:
            rows.append(
                ["workload", "gradient_sync", "per_port_rate", sync["per_port_rate"], "bit/s"]
            )
    return rows
