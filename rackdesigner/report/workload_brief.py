"""The workload's memory fit and gradient sync, what the storage gives a GPU and the
checkpoint's time, in a few short lines: the designer's summary view and its Layout settings
page say them (``rackdesigner report`` works them through in full, report/workload.py and
report/storage.py). Plain text, no Textual; each line fits 80 columns where its figures
allow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rackdesigner.analysis.workload_memory import BITS_PER_BYTE
from rackdesigner.analysis.workload_text import gb
from rackdesigner.model.units import BYTE_RATE, INFORMATION, fmt, fmt_count
from rackdesigner.model.wording import duration, plural

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


def storage_lines(section: dict[str, Any] | None, analysis: Analysis) -> list[Line]:
    """The report's storage section in two short lines: what the parallel file system gives
    a GPU against NVIDIA's level (STO002/STO003's figures a GPU) and the checkpoint's time
    against its interval (STO007's). None for a layout without a workload; a training
    layout without a parallel file system says so."""
    workload = analysis.workload
    if section is None or workload is None or not workload.kind:
        return []
    out: list[Line] = []
    per, level, pfs = section["per_gpu"], section["level"], section["parallel_fs"]
    if per["read"] is not None and level["gpus"]:
        need_read, need_write = level["read"] / level["gpus"], level["write"] / level["gpus"]
        if pfs["write"] is None:  # the appliances give none: the fabric's is no verdict
            short = per["read"] < need_read
            text = f"{_rate(per['read'])} read a GPU, write not given"
            text += f" (level {level['name']}: {_rate(need_read)})"
        else:
            short = per["read"] < need_read or (per["write"] or 0.0) < need_write
            text = f"{_rate(per['read'])} read, {_rate(per['write'])} write a GPU"
            text += f" (level {level['name']}: {_rate(need_read)}, {_rate(need_write)})"
        out.append(("Storage", text, "error" if short else ""))
    elif not pfs["appliances"] and workload.is_training:
        out.append(("Storage", "no parallel file system", "m"))
    found = section["checkpoint"]
    if found is not None:
        size, every = fmt(found["size"], INFORMATION), duration(found["interval"])
        seconds = found["seconds"]
        label = "" if out else "Storage"
        if seconds is None:
            out.append((label, f"checkpoint {size} every {every}: no write rate to time it", "m"))
        else:
            late = seconds > found["interval"]
            text = f"checkpoint {size} written in {duration(seconds)}, every {every}"
            out.append((label, text, "error" if late else ""))
    return out


def storage_brief(storage: dict[str, Any] | None) -> str:
    """What the storage gives a GPU and the checkpoint's time in one phrase, for a summary
    with room for the workload's lines but not these: ``storage 1.42 GB/s read a GPU ·
    checkpoint 4.9 s``."""
    if storage is None:
        return ""
    parts = []
    read = storage["per_gpu"]["read"]
    if read is not None:
        parts.append(f"storage {_rate(read)} read a GPU")
    found = storage["checkpoint"]
    if found is not None and found["seconds"] is not None:
        parts.append(f"checkpoint {duration(found['seconds'])}")
    return " · ".join(parts)


def _rate(bits: float | None) -> str:
    return "–" if bits is None else fmt(bits, BYTE_RATE)


def workload_brief(section: dict[str, Any] | None, storage: dict[str, Any] | None = None) -> str:
    """The fit, the checkpoint's time and the sync in one phrase of under 75 characters,
    for where a line is all there is room for: ``workload fits (8.75 GB of 80 GB a GPU) ·
    checkpoint 4.9 s · sync 417 GB a step``; the longest of the fit's wordings that fits,
    the sync left out before the checkpoint."""
    if section is None:
        return ""
    fits: list[str] = []
    memory = section["memory"]
    if memory is not None:
        verdict = "fits" if memory["fits"] else "does not fit"
        room = f"{_gb(memory['need'])} of {_gb(memory['gpu_memory'])} a GPU"
        if memory["smallest_gpus"] is not None:
            fits.append(f"workload {verdict} ({room}; ≥ {plural(memory['smallest_gpus'], 'GPU')})")
        fits += [f"workload {verdict} ({room})", f"workload {verdict}"]
    found = storage["checkpoint"] if storage is not None else None
    checkpoint = []
    if found is not None and found["seconds"] is not None:
        checkpoint = [f"checkpoint {duration(found['seconds'])}"]
    sync = section["gradient_sync"]
    syncs = [f"sync {_gb(sync['per_gpu'])} a step"] if sync is not None else []
    fits = fits or [""]
    tries = [[fit, *checkpoint, *syncs] for fit in fits[:2]]
    tries += [[fit, *checkpoint] for fit in fits]
    for parts in tries:
        text = " · ".join(p for p in parts if p)
        if len(text) < BRIEF_MAX:
            return text
    return " · ".join(p for p in tries[-1] if p)


BRIEF_MAX = 75  # characters: the summary's lower border at 80 columns
