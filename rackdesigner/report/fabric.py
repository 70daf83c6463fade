"""The report's network section: per fabric and tier, and the acceptance test to run.

Per fabric: GPUs and nodes; per tier the switch count, the worst oversubscription
(v1.1: downlink ÷ (uplink + lateral)) and the cables by media and stock length;
the fabric oversubscription and global ratio; the bisection by maximum flow; the
hops between the farthest GPUs; the expected all-reduce bus bandwidth (NET007);
single points of failure; and the nccl-tests ``mpirun`` line that checks the
cluster against that expectation, naming the hostfile ``export --hostfile`` writes.
"""

from __future__ import annotations

import math
import shlex
from typing import TYPE_CHECKING, Any

from rackdesigner.analysis.rack_scale import SU_DOMAINS
from rackdesigner.analysis.stock import metres
from rackdesigner.export.slurm import hostfile_name
from rackdesigner.model.units import BANDWIDTH, BYTE_RATE, RATIO, fmt
from rackdesigner.model.wording import first_of
from rackdesigner.rules.network.allreduce_bandwidth import (
    DomainFigures,
    acceptance_tests,
    domain_figures,
)
from rackdesigner.topology.collectives import intra_node
from rackdesigner.topology.figures import FabricFigures, TierFigures, all_fabric_figures

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.analysis.fabric_graph import Fabric

NCCL_TEST = "all_reduce_perf -b 128M -e 8G -f 2 -g 1"


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else value


def nccl_command(hostfile: str, gpus: int) -> str:
    return f"mpirun --hostfile {shlex.quote(hostfile)} -np {gpus} {NCCL_TEST}"


def _acceptance(
    analysis: Analysis, fabric: Fabric, hostfile: str
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The fabric's nccl-tests runs (NET007's figures, :func:`acceptance_tests`) with their
    command lines, and the run over the whole fabric (``nccl_test``)."""
    if not fabric.nodes or not fabric.gpus:
        return [], None
    tests = acceptance_tests(fabric, analysis.thresholds["nccl_efficiency"])
    runs = [
        {
            "scope": t.scope,
            "np": t.gpus,
            "where": t.where,
            "command": nccl_command(hostfile, t.gpus),
            "expected_busbw": t.busbw,
        }
        for t in tests
    ]
    whole = next((t for t in reversed(tests) if t.gpus == fabric.gpus), None)
    nccl = {
        "hostfile": hostfile,
        "np": fabric.gpus,
        "command": nccl_command(hostfile, fabric.gpus),
        "expected_busbw": whole.busbw if whole else None,
    }
    return runs, nccl


def _bus_fields(fig: FabricFigures, domains: DomainFigures | None) -> dict[str, Any]:
    """The expected bus bandwidths; a fabric of NVLink domains has no node-level figures
    (its trays reach each other over NVLink) and NVIDIA's scalable units (8 racks)."""
    if domains is None:
        return {
            "allreduce_intra_node": fig.intra,
            "allreduce_inter_node": fig.inter,
            "scalable_units": fig.sus,
            "allreduce_within_su": fig.within_su,
            "allreduce_across_su": fig.across_su,
        }
    return {
        "allreduce_intra_node": None,
        "allreduce_intra_domain": domains.intra,
        "nvlink_domains": domains.domains,
        "allreduce_inter_node": domains.across,
        "scalable_units": math.ceil(domains.domains / SU_DOMAINS),
        "allreduce_within_su": None,
        "allreduce_across_su": None,
    }


def _tier(t: TierFigures, top: int) -> dict[str, Any]:
    return {
        "tier": t.tier,
        "switches": t.switches,
        "oversubscription": t.oversubscription,
        "top": t.tier == top,
        "cables": [
            {"media": media, "stock_length": stock, "count": count}
            for (media, stock), count in sorted(
                t.cables.items(),
                key=lambda kv: (kv[0][0], kv[0][1] is None, kv[0][1] or 0),
            )
        ],
        "cable_count": sum(t.cables.values()),
        "lateral_cables": t.lateral_cables,
    }


def fabric_section(analysis: Analysis, hostfile: str = "hostfile") -> list[dict[str, Any]]:
    """Plain data (SI) per fabric, in the order ``analysis.fabrics`` lists them."""
    figures = all_fabric_figures(analysis)
    with_nodes = [f for f in analysis.fabrics if f.nodes]
    efficiency = analysis.thresholds["nccl_efficiency"]
    out = []
    for fig in figures:
        fabric = fig.fabric
        tiers = [t for t in fig.tiers if t.tier >= 1]
        name = hostfile_name(hostfile, fabric.name if len(with_nodes) > 1 else None)
        runs, nccl = _acceptance(analysis, fabric, name)
        domains = domain_figures(fabric, efficiency) if fabric.nodes else None
        out.append(
            {
                "fabric": fabric.name,
                "tech": fabric.tech,
                "gpus": fabric.gpus,
                "gpu_nodes": len(fabric.nodes),
                "switches_by_tier": {str(t.tier): t.switches for t in tiers if t.switches},
                "oversubscription_by_tier": {
                    str(t.tier): t.oversubscription for t in tiers if t.switches
                },
                "tiers": [_tier(t, fabric.max_tier) for t in fig.tiers],
                "oversubscription": fig.oversubscription,
                "global_ratio": fig.global_ratio,
                "groups": [
                    {
                        "group": g.anchor,
                        "gpu_nodes": g.gpu_nodes,
                        "global_bandwidth": g.global_bandwidth,
                        "node_bandwidth": g.node_bandwidth,
                        "ratio": g.ratio,
                    }
                    for g in fig.groups
                ],
                "injection": fabric.injection,
                "bisection": fig.bisection.bandwidth,
                "bisection_ratio": fig.bisection.ratio,
                "bisection_graph_vertices": fig.bisection.classes,
                "hops": fig.hops.hops,
                "hops_through_nodes": fig.hops.through_nodes,
                "hops_exact": fig.hops.exact,
                **_bus_fields(fig, domains),
                "nccl_efficiency": fig.efficiency,
                "nccl_test": nccl,
                "acceptance_tests": runs,
                "single_point_switches": [d.id for d, _ in fabric.cut_switches],
                "single_point_links": [link.entity for link, _ in fabric.cut_links],
            }
        )
    return out


def _count(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def node_test(analysis: Analysis, hostfile: str = "hostfile") -> dict[str, Any] | None:
    """Without a compute fabric the acceptance test runs inside a node, not across nodes
    that nothing joins: ``-np`` one node's GPUs (the first node's, the hostfile's first
    slots), run on each node in turn, with the figure NVLink gives inside it."""
    if any(f.nodes for f in analysis.fabrics):
        return None
    nodes = [d for d in analysis.devices if d.is_gpu_node and d.gpus]
    if not nodes:
        return None
    first = nodes[0]
    return {
        "hostfile": hostfile,
        "np": first.gpus,
        "nodes": len(nodes),
        "command": nccl_command(hostfile, first.gpus),
        "expected_busbw": intra_node(first, analysis.thresholds["nccl_efficiency"]),
    }


def node_test_text(test: dict[str, Any] | None) -> list[str]:
    if test is None:
        return []
    out = [f"  acceptance test inside the node (nccl-tests): {test['command']}"]
    if test.get("nodes", 1) > 1:
        out.append(
            f"    no fabric joins the {test['nodes']} GPU nodes: run it on each node in turn "
            "(a hostfile of that node alone)"
        )
    if test["expected_busbw"] is not None:
        out.append(
            f"    expect a busbw of about {fmt(test['expected_busbw'], BYTE_RATE)} at the "
            "large sizes; well below it, something is wrong"
        )
    return out


def _ratio(value: float | None) -> str:
    if value is None:
        return "–"
    return "no uplinks" if not math.isfinite(value) else f"{value:.3g}:1"


def _cables(cables: list[dict[str, Any]]) -> str:
    parts = []
    for entry in cables:
        stock = entry["stock_length"]
        length = "length unknown" if stock is None else f"{metres(stock)} m"
        parts.append(f"{entry['media']} {length} × {entry['count']}")
    return ", ".join(parts) if parts else "none"


def fabric_text(fabrics: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for f in fabrics:
        out.append(
            f"  fabric {f['fabric']}: {f['tech']}, {_count(f['gpus'], 'GPU', 'GPUs')} on "
            f"{_count(f['gpu_nodes'], 'node', 'nodes')}"
        )
        for tier in f["tiers"]:
            if tier["tier"] == 0:
                out.append(
                    f"    between nodes: {_count(tier['cable_count'], 'cable', 'cables')}: "
                    f"{_cables(tier['cables'])}"
                )
                continue
            over = (
                "top tier"
                if tier["top"]
                else f"oversubscription {_ratio(tier['oversubscription'])}"
            )
            lateral = f", {tier['lateral_cables']} lateral" if tier["lateral_cables"] else ""
            out.append(
                f"    tier {tier['tier']}: "
                f"{_count(tier['switches'], 'switch', 'switches')}, {over}; "
                f"{_count(tier['cable_count'], 'cable', 'cables')} up to it{lateral}: "
                f"{_cables(tier['cables'])}"
            )
        line = f"    fabric oversubscription {_ratio(f['oversubscription'])}"
        if f["global_ratio"] is not None:
            line += f" (global ratio {f['global_ratio']:.3g} over {len(f['groups'])} groups)"
        ratio = f["bisection_ratio"]
        line += f"; bisection {fmt(f['bisection'], BANDWIDTH)}"
        line += f" (ratio {ratio:.3g})" if ratio is not None else ""
        out.append(line)
        if f["hops"] is not None:
            how = " through a GPU node" if f["hops_through_nodes"] else ""
            bound = "at least " if not f["hops_exact"] else ""
            out.append(f"    farthest GPUs: {bound}{f['hops']} cables apart{how}")
        out += _acceptance_text(f)
        spof = f["single_point_switches"] + f["single_point_links"]
        out.append(f"    single points of failure: {first_of(spof, 5) if spof else 'none'}")
    return out


def _acceptance_text(f: dict[str, Any]) -> list[str]:
    """The fabric's acceptance runs, one line each: the command, the -np it applies to and
    the busbw it should reach (NET007's figures, from one function)."""
    runs = f["acceptance_tests"]
    nccl = f["nccl_test"]
    if not runs:
        return [f"    acceptance test (nccl-tests): {nccl['command']}"] if nccl else []
    efficiency = fmt(f["nccl_efficiency"], RATIO)
    out = [
        f"    acceptance tests (nccl-tests busbw at the large sizes, {efficiency} of the "
        "hardware's; well below it, something is wrong; -np N runs on the hostfile's first "
        "N slots):"
    ]
    for run in runs:
        out.append(
            f"      {run['command']}: about {fmt(run['expected_busbw'], BYTE_RATE)} "
            f"({run['where']})"
        )
    return out


def fabric_csv_rows(fabrics: list[dict[str, Any]]) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for f in fabrics:
        entity = f"fabric {f['fabric']}"
        rows.append(["network", entity, "tech", f["tech"], ""])
        rows.append(["network", entity, "gpus", f["gpus"], ""])
        for tier in f["tiers"]:
            if tier["tier"] >= 1:
                rows.append(
                    ["network", entity, f"switches tier {tier['tier']}", tier["switches"], ""]
                )
                ratio = _finite(tier["oversubscription"])
                rows.append(
                    [
                        "network",
                        entity,
                        f"oversubscription tier {tier['tier']}",
                        "" if ratio is None else ratio,
                        "",
                    ]
                )
            for cable in tier["cables"]:
                stock = cable["stock_length"]
                length = "unknown" if stock is None else f"{metres(stock)} m"
                rows.append(
                    [
                        "network",
                        entity,
                        f"cables tier {tier['tier']} {cable['media']} {length}",
                        cable["count"],
                        "",
                    ]
                )
        rows.append(["network", entity, "oversubscription", _finite(f["oversubscription"]), ""])
        if f["global_ratio"] is not None:
            rows.append(["network", entity, "global_ratio", f["global_ratio"], ""])
        rows.append(["network", entity, "bisection", f["bisection"], "bit/s"])
        if f["bisection_ratio"] is not None:
            rows.append(["network", entity, "bisection_ratio", f["bisection_ratio"], ""])
        if f["hops"] is not None:
            rows.append(["network", entity, "hops", f["hops"], ""])
        if f["allreduce_intra_node"] is not None:
            rows.append(
                ["network", entity, "allreduce_intra_node", f["allreduce_intra_node"], "bit/s"]
            )
        if f["allreduce_inter_node"] is not None:
            rows.append(
                ["network", entity, "allreduce_inter_node", f["allreduce_inter_node"], "bit/s"]
            )
        for key in ("allreduce_within_su", "allreduce_across_su"):
            if f[key] is not None:
                rows.append(["network", entity, key, f[key], "bit/s"])
        if f["nccl_test"] is not None:
            rows.append(["network", entity, "nccl_test", f["nccl_test"]["command"], ""])
        for run in f["acceptance_tests"]:
            rows.append(
                ["network", entity, f"busbw -np {run['np']}", run["expected_busbw"], "bit/s"]
            )
    return rows
