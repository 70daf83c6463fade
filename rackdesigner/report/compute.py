"""The report's compute section: the GPUs by model, the GPU nodes by size, and the largest
failure domains (a node, a rack)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rackdesigner.analysis import Analysis
from rackdesigner.model.wording import plural


def compute_section(analysis: Analysis) -> dict[str, Any]:
    nodes = [d for d in analysis.devices if d.is_gpu_node]
    by_model: Counter[str] = Counter()
    for node in nodes:
        by_model[node.gpu.key if node.gpu else "unknown"] += node.gpus
    racks = analysis.racks
    return {
        "gpus": analysis.total_gpus,
        "gpu_nodes": len(nodes),
        "gpus_by_model": dict(by_model),
        "nodes_by_size": {str(k): v for k, v in sorted(Counter(n.gpus for n in nodes).items())},
        "failure_domain": {
            "largest_node_gpus": max((n.gpus for n in nodes), default=0),
            "largest_rack_gpus": max((r.gpus for r in racks), default=0),
            "racks_with_gpus": sum(1 for r in racks if r.gpus),
        },
    }


def compute_text(report: dict[str, Any]) -> list[str]:
    m = report["compute"]
    models = ", ".join(f"{n} × {k}" for k, n in m["gpus_by_model"].items()) or "none"
    sizes = ", ".join(f"{plural(n, 'node')} of {k}" for k, n in m["nodes_by_size"].items())
    fd = m["failure_domain"]
    return [
        "",
        f"Compute: {plural(m['gpus'], 'GPU')} in {plural(m['gpu_nodes'], 'GPU node')} ({models})",
        f"  node sizes: {sizes or 'none'}",
        f"  failure domains: a node holds up to {plural(fd['largest_node_gpus'], 'GPU')}, a rack "
        f"up to {fd['largest_rack_gpus']} ({plural(fd['racks_with_gpus'], 'rack')} "
        f"{'holds' if fd['racks_with_gpus'] == 1 else 'hold'} GPUs)",
    ]


def compute_csv_rows(report: dict[str, Any]) -> list[list[Any]]:
    c = report["compute"]
    rows: list[list[Any]] = [["compute", "site", "gpus", c["gpus"], ""]]
    rows += [["compute", "site", f"gpus {model}", n, ""] for model, n in c["gpus_by_model"].items()]
    return rows
