"""The report's storage section: the tiers, what they give each GPU, the storage fabric and
the checkpoint's time (docs/storage.md). Figures in SI (bit, bit/s, s); None where unknown."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.checkpoint import checkpoint_of
from rackdesigner.analysis.storage import StorageFacts, Tier, level_of, requirement
from rackdesigner.model.units import BYTE_RATE, INFORMATION, fmt
from rackdesigner.model.wording import duration, plural

Section = dict[str, Any]


def storage_section(analysis: Analysis) -> Section:
    """The report's ``storage`` key: the v1 keys (``storage_nodes``, ``capacity``,
    ``gpu_node_nvme``) as before, and the tiers, level, per-GPU rates, fabric and checkpoint."""
    storage_nodes = [d for d in analysis.devices if d.kind == "storage"]
    facts = analysis.storage
    level, declared = level_of(analysis.workload)
    need = requirement(level, facts.gpus)
    read, write = facts.path_read(), facts.path_write()
    gpus = facts.gpus
    found = checkpoint_of(analysis.workload, facts)
    return {
        "storage_nodes": len(storage_nodes),
        "capacity": sum(
            float(d.type.nvme)
            for d in storage_nodes
            if d.type is not None and d.type.nvme is not None
        ),
        "gpu_node_nvme": {
            key: float(devs[0].type.nvme)
            for key, devs in analysis.types_used.items()
            if devs[0].is_gpu_node and devs[0].type is not None and devs[0].type.nvme is not None
        },
        "local_nvme": _local(analysis),
        "parallel_fs": _tier(facts.pfs),
        "object": _tier(facts.objects),
        "level": {
            "name": level.name,
            "declared": declared,
            "gpus": gpus,
            "read": need.read,
            "write": need.write,
            "node_read_per_gpu": need.node(1)[0],
        },
        "per_gpu": {
            "read": read / gpus if read is not None and gpus else None,
            "write": write / gpus if write is not None and gpus else None,
        },
        "fabric": _fabric(facts),
        "checkpoint": None
        if found is None
        else {
            "size": found.size,
            "interval": found.interval,
            "interval_source": found.interval_source,
            "local": found.local,
            "path": found.path,
            "seconds": found.seconds,
        },
    }


def _local(analysis: Analysis) -> list[dict[str, Any]]:
    out = []
    for key, devs in analysis.types_used.items():
        dtype = devs[0].type
        if not devs[0].is_gpu_node or dtype is None:
            continue
        out.append(
            {
                "model": key,
                "nodes": len(devs),
                "capacity": float(dtype.nvme) if dtype.nvme is not None else None,
                "read": float(dtype.nvme_read) if dtype.nvme_read is not None else None,
                "write": float(dtype.nvme_write) if dtype.nvme_write is not None else None,
            }
        )
    return out


def _tier(tier: Tier) -> dict[str, Any]:
    models = Counter(dev.device.model for dev in tier.devices)
    return {
        "appliances": len(tier.devices),
        "models": dict(models),
        "read": tier.read if tier.read_known else None,
        "write": tier.write if tier.write_known else None,
        "read_unknown": tier.read_unknown,
        "write_unknown": tier.write_unknown,
        "usable": tier.usable if tier.devices and tier.usable_unknown < len(tier.devices) else None,
        "raw": tier.raw if tier.raw else None,
    }


def _fabric(facts: StorageFacts) -> dict[str, Any]:
    bandwidths = [facts.node_bandwidth.get(dev.id, 0.0) for dev in facts.nodes]
    return {
        "cables": facts.fabric.links,
        "switches": len(facts.switches),
        "leaves": len(facts.leaves),
        "converged": facts.fabric.converged,
        "carries": facts.flow if facts.pfs.devices else None,
        "oversubscription": facts.oversubscription(),
        "nodes": len(facts.nodes),
        "nodes_cabled": facts.cabled_nodes,
        "nodes_reached": len(facts.reached),
        "node_bandwidth_min": min(bandwidths) if bandwidths else None,
    }


def _rate(value: float | None) -> str:
    return "not given" if value is None else fmt(value, BYTE_RATE)


def storage_text(section: Section) -> list[str]:
    """The section for people."""
    pfs, obj, level = section["parallel_fs"], section["object"], section["level"]
    out = ["", "Storage:"]
    for local in section["local_nvme"]:
        capacity = "–" if local["capacity"] is None else fmt(local["capacity"], INFORMATION)
        out.append(
            f"  local NVMe: {local['model']} {capacity} a node, read {_rate(local['read'])}, "
            f"write {_rate(local['write'])} ({plural(local['nodes'], 'node')})"
        )
    for name, tier in (("parallel file system", pfs), ("object store", obj)):
        if not tier["appliances"]:
            out.append(f"  {name}: none")
            continue
        models = ", ".join(f"{n} x {m}" for m, n in tier["models"].items())
        usable = "usable not given" if tier["usable"] is None else fmt(tier["usable"], INFORMATION)
        raw = "" if tier["raw"] is None else f" ({fmt(tier['raw'], INFORMATION)} raw)"
        out.append(
            f"  {name}: {models}; {usable}{raw}; reads {_rate(tier['read'])}, writes "
            f"{_rate(tier['write'])}"
        )
    shown = "" if level["declared"] else ", the default"
    out.append(
        f"  NVIDIA level {level['name']}{shown} for {level['gpus']:,} GPUs: read "
        f"{_rate(level['read'])}, write {_rate(level['write'])}; a node of 8 GPUs reads "
        f"{_rate(level['node_read_per_gpu'] * 8)}"
    )
    per = section["per_gpu"]
    if per["read"] is not None:
        bound = (
            "" if pfs["write"] is not None else " (what the fabric carries: no write rate given)"
        )
        out.append(f"  per GPU: read {_rate(per['read'])}, write {_rate(per['write'])}{bound}")
    out += _fabric_text(section["fabric"])
    found = section["checkpoint"]
    if found is not None and found["seconds"] is not None:
        out.append(
            f"  checkpoint: {fmt(found['size'], INFORMATION)} every "
            f"{duration(found['interval'])} ({found['interval_source']}), written in "
            f"{duration(found['seconds'])} (local NVMe {_rate(found['local'])}, to the "
            f"parallel file system {_rate(found['path'])})"
        )
    return out


def _fabric_text(fabric: dict[str, Any]) -> list[str]:
    if not fabric["cables"]:
        return ["  storage fabric: no storage cables"]
    ratio = fabric["oversubscription"]
    over = f", nodes' leaves {ratio:.2g}:1" if ratio else ""
    kind = "converged with the compute fabric" if fabric["converged"] else "its own"
    return [
        f"  storage fabric ({kind}): {plural(fabric['cables'], 'cable')}, "
        f"{plural(fabric['switches'], 'switch', 'switches')}{over}; carries "
        f"{_rate(fabric['carries'])} to the GPU nodes; {fabric['nodes_reached']} of "
        f"{plural(fabric['nodes'], 'GPU node')} reach the parallel file system, the least "
        f"cabled {_rate(fabric['node_bandwidth_min'])}"
    ]


def storage_csv_rows(section: Section) -> list[list[object]]:
    rows: list[list[object]] = [
        ["storage", "site", "storage_nodes", section["storage_nodes"], ""],
        ["storage", "site", "capacity", section["capacity"], "bit"],
    ]
    for name in ("parallel_fs", "object"):
        tier = section[name]
        for metric in ("read", "write", "usable"):
            if tier[metric] is not None:
                unit = "bit" if metric == "usable" else "bit/s"
                rows.append(["storage", name, metric, tier[metric], unit])
    if section["fabric"]["carries"] is not None:
        rows.append(["storage", "fabric", "carries", section["fabric"]["carries"], "bit/s"])
    found = section["checkpoint"]
    if found is not None and found["seconds"] is not None:
        rows.append(["storage", "checkpoint", "seconds", found["seconds"], "s"])
    return rows
