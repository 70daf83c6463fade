"""The workload's memory fit and gradient sync in a few short lines: the designer's summary
view and its Layout settings page say them (``rackdesigner report`` works them through in
full, report/workload.py). Plain text, no Textual; each line fits 80 columns where its
figures allow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rackdesigner.analysis.workload_memory import BITS_PER_BYTE
from rackdesigner.analysis.workload_text import gb
from rackdesigner.model.units import BYTE_RATE, fmt, fmt_count
from rackdesigner.model.wording import plural

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis

# A line: its label ("" continues the one above), its text and its level ("" plain,
# "error", "m" for muted detail).
Line = tuple[str, str, str]


def workload_lines(section: dict[str, Any] | None, analysis: Analysis) -> list[Line]:
    """The report's workload section in a few short lines (label, text, level: "" plain,
    "error", "m" for muted detail): CMP009's memory a GPU against the GPU's and the
    smallest fit, NET003's gradient sync a step. A workload with nothing to work through
    says what it lacks; no workload, no lines."""
    if section is None:
        workload = analysis.workload
        if workload is None or not workload.kind:
            return []
        if not workload.params:
            lacks = "no model size (model_params, or a named model; Layout settings)"
        else:
            lacks = "no GPU node whose GPU memory is known"
        return [("Workload", f"{workload.kind}; {lacks}: nothing to fit", "m")]
    named = f" ({section['model']})" if section["model"] else ""
    memory = section["memory"]
    if memory is None:
        params = fmt_count(section["params"]) if section["params"] else "?"
        out = [("Workload", f"{section['kind']}, {params} parameters{named}", "")]
    else:
        text = memory["text"]
        level = "" if memory["fits"] else "error"
        verdict = "fits" if memory["fits"] else "does not fit"
        out = [
            ("Workload", f"{text['job']}{named}", ""),
            (
                "Memory",
                f"{_gb(memory['need'])} a GPU of {_gb(memory['gpu_memory'])} "
                f"({memory['gpu']}) on {text['split']}: {verdict}",
                level,
            ),
            ("", text["parts"], "m"),
        ]
        if text["options"]:
            out.append(("Smallest", text["options"], level))
        if text["notes"]:
            out.append(("", text["notes"], "m"))
    return out + _sync_lines(section["gradient_sync"])


def _sync_lines(sync: dict[str, Any] | None) -> list[Line]:
    """NET003's figures a step, each line short enough for 80 columns: what a GPU's
    collectives move and, sharded, the shard it keeps (the field guide's "4.4 GB per step"
    is the shard, docs/workload.md), then what crosses the fabric."""
    if sync is None:
        return []
    sharded = sync["factor"] != 2  # ZeRO-3 / FSDP: a GPU keeps a shard of the weights
    how = "ZeRO-3 / FSDP" if sharded else "DDP, ZeRO-1/2"
    if sync["lora"]:
        how += ", adapters"
    shard = f", its shard {_gb(sync['shard'])}" if sharded else ""
    out = [("Sync", f"{_gb(sync['per_gpu'])} a GPU a step{shard} ({how})", "")]
    if sync["nodes"] > 1:
        across = f"fabric: {_gb(sync['per_node'])} a node, {_gb(sync['per_port'])} a port"
        if sync["per_port_rate"] is not None:
            rate = fmt(sync["per_port_rate"], BYTE_RATE)
            across += f", {rate} at {sync['steps_per_second']:g} steps/s"
        out.append(("", across, ""))
    else:
        out.append(("", "one node: the collectives stay on NVLink", "m"))
    return out


def _gb(bits: float) -> str:
    """A size the report gives in bits, in bytes: ``8.75 GB``."""
    return gb(bits / BITS_PER_BYTE)


def workload_brief(section: dict[str, Any] | None) -> str:
    """The fit and the sync in one phrase of under 75 characters, for where a line is all
    there is room for: ``workload fits (8.75 GB of 80 GB a GPU; ≥ 16 GPUs) · sync 417 GB
    a step``."""
    if section is None:
        return ""
    parts = []
    memory = section["memory"]
    if memory is not None:
        verdict = "fits" if memory["fits"] else "does not fit"
        room = f"{_gb(memory['need'])} of {_gb(memory['gpu_memory'])} a GPU"
        if memory["smallest_gpus"] is not None:
            room += f"; ≥ {plural(memory['smallest_gpus'], 'GPU')}"
        parts.append(f"workload {verdict} ({room})")
    sync = section["gradient_sync"]
    if sync is not None:
        parts.append(f"sync {_gb(sync['per_gpu'])} a step")
    return " · ".join(parts)
