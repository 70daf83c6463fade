"""``rackdesigner report``: power, cooling, compute, network, storage and cost of a layout.

:func:`build` turns the shared analysis into plain data (SI floats), which the
renderers print as text, JSON or CSV. Nothing is recomputed here that the
analysis already knows.
"""

from __future__ import annotations

import io
import json
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from rackdesigner.analysis import Analysis
from rackdesigner.export.tables import bom_items, cord_summary
from rackdesigner.model.spreadsheet import Writer
from rackdesigner.model.terminal import shown
from rackdesigner.model.units import CURRENT, POWER, fmt
from rackdesigner.model.wording import plural
from rackdesigner.report.domains import build_domains, domains_csv_rows, domains_text
from rackdesigner.report.fabric import (
    fabric_csv_rows,
    fabric_section,
    fabric_text,
    node_test,
    node_test_text,
)
from rackdesigner.report.liquid_loops import (
    build_liquid_loops,
    liquid_loops_csv_rows,
    liquid_loops_text,
)
from rackdesigner.report.power_chain import power_chain_section, power_chain_table
from rackdesigner.report.single_failures import single_failures, single_failures_text
from rackdesigner.report.storage import storage_csv_rows, storage_section, storage_text
from rackdesigner.report.workload import build_workload, workload_csv_rows, workload_text

Report = dict[str, Any]


def build(
    analysis: Analysis, hostfile: str = "hostfile", *, network: bool = True, cords: bool = True
) -> Report:
    """The report's figures. ``network`` False leaves out the fabric figures (bisection,
    reach: most of the time on a large fabric) and ``cords`` False the power-cord counts:
    the designer's summary reads neither (``network`` is then empty, ``cords`` None)."""
    layout = analysis.layout
    site = layout.site
    racks = analysis.racks

    power_racks = [
        {
            "rack": r.rack.id,
            "load": r.load,
            "load_is_lower_bound": r.load_unknown,
            "estimated": r.estimated_power,
            "capacity": r.capacity,
            "utilisation": r.utilisation,
            "sides": dict(r.side_capacity),
            # (v1.1) with k ≥ 2 sides: every side working, and with any one side lost
            "all_sides": sum(r.side_capacity.values()) if r.redundant else r.capacity,
            "one_side_lost": r.capacity if r.redundant else None,
        }
        for r in racks
    ]
    feeds = [
        {
            "rack": r.rack.id,
            "feed": f.feed.id,
            "side": f.feed.side,
            "circuit": f.feed.circuit,
            "voltage": float(f.feed.voltage or 0),
            "phases": f.feed.phases,
            "current": float(f.feed.current or 0),
            "derate": f.derate,
            "capacity": f.capacity,
            "load": f.load,
            "utilisation": f.utilisation,
            "lines": dict(f.lines),
            "imbalance": f.imbalance,
        }
        for r in racks
        for f in r.feeds
    ]
    budget = float(site.power_budget) if site and site.power_budget is not None else None
    power = {
        "site": {
            "load": analysis.site_load,
            "load_is_lower_bound": analysis.site_load_unknown,
            "budget": budget,
            "headroom": budget - analysis.site_load if budget is not None else None,
        },
        "racks": power_racks,
        "feeds": feeds,
        "cords": cord_summary(analysis) if cords else None,
    }

    cdus = [
        {
            "cdu": load.cdu.id,
            "cdus": [c.id for c in load.cdus],
            "capacity": load.capacity,
            "n_plus_one": load.n_plus_one,
            "margin": load.margin,
            "load": load.heat,
            "load_is_lower_bound": load.heat_unknown,
            "racks": [r.rack.id for r in load.racks],
        }
        for load in analysis.cdu_loads
    ]
    capacity = float(site.cooling_capacity) if site and site.cooling_capacity is not None else None
    cooling = {
        "site": {
            "air_heat": sum(r.air_heat for r in racks),
            # v1.2: liquid is the CDU loops' (cold plates, immersion); the rear doors' coils
            # take theirs to the chilled water, apart.
            "liquid_heat": sum(r.loop_heat for r in racks),
            "door_heat": sum(r.door_heat for r in racks),
            "cooling_capacity": capacity,
        },
        "racks": [
            {
                "rack": r.rack.id,
                "cooling": r.cooling,
                "heat": r.heat,
                "liquid_heat": r.loop_heat,
                "door_heat": r.door_heat,
                "air_heat": r.air_heat,
                "verdict": analysis.cooling_verdict(r),
            }
            for r in racks
        ],
        "cdus": cdus,
    }

    nodes = [d for d in analysis.devices if d.is_gpu_node]
    by_model: Counter[str] = Counter()
    for node in nodes:
        by_model[node.gpu.key if node.gpu else "unknown"] += node.gpus
    compute = {
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

    fabrics = fabric_section(analysis, hostfile) if network else []

    storage = storage_section(analysis)

    bom = bom_items(analysis)
    known_total = sum(item["total"] for item in bom if item["total"] is not None)
    unpriced = sum(
        item["count"]
        for item in bom
        if item["item"] == "device"
        and item["total"] is None
        and item["kind"] not in ("blank", "patch-panel")
    )
    cost = {
        "bom": bom,
        "total": known_total,
        "unpriced_devices": unpriced,
        # Devices without a price: the total and the figure per GPU are lower bounds.
        "total_is_lower_bound": unpriced > 0,
        "per_gpu": known_total / analysis.total_gpus
        if analysis.total_gpus and known_total
        else None,
    }
    report: Report = {
        "layout": layout.name,
        "file": analysis.file,
        "power": power,
        "cooling": cooling,
        "compute": compute,
        "network": {
            "fabrics": fabrics,
            "node_test": node_test(analysis, hostfile) if network else None,
        },
        "storage": storage,
        "cost": cost,
        "single_failures": single_failures(analysis) if network else None,
        # (v1.4) the power chain behind the feeds: [] where the layout declares none
        "power_chain": power_chain_section(analysis),
    }
    # (v1.2) Only where the layout has NVLink domains: other reports are as before.
    nvlink = build_domains(analysis)
    if nvlink is not None:
        report["domains"] = nvlink
    # (v1.4) Only where [workload] gives something to work through.
    workload = build_workload(analysis)
    if workload is not None:
        report["workload"] = workload
    # (v1.4) Only where the layout declares water loops.
    loops = build_liquid_loops(analysis)
    if loops is not None:
        report["liquid_loops"] = loops
    return report


# -- rendering ------------------------------------------------------------------------------


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


def to_json(report: Report) -> str:
    return json.dumps(_json_safe(report), indent=2, ensure_ascii=False) + "\n"


def to_csv(report: Report) -> str:
    """One flat table: section, entity, metric, value, unit (SI)."""
    out = io.StringIO()
    writer = Writer(out)  # RFC 4180 and no formulas, as every CSV export
    writer.writerow(["section", "entity", "metric", "value", "unit"])
    p = report["power"]
    writer.writerow(["power", "site", "load", p["site"]["load"], "W"])
    if p["site"]["budget"] is not None:
        writer.writerow(["power", "site", "budget", p["site"]["budget"], "W"])
    for r in p["racks"]:
        writer.writerow(["power", f"rack {r['rack']}", "load", r["load"], "W"])
        if r["capacity"] is not None:
            writer.writerow(["power", f"rack {r['rack']}", "capacity", r["capacity"], "W"])
        if r["one_side_lost"] is not None:
            writer.writerow(
                ["power", f"rack {r['rack']}", "capacity one side lost", r["one_side_lost"], "W"]
            )
    for r in p["cords"]:
        writer.writerow(["power", f"rack {r['rack']}", "psu_cords", r["cords"], ""])
    for f in p["feeds"]:
        entity = f"rack {f['rack']} feed {f['feed']}"
        writer.writerow(["power", entity, "capacity", f["capacity"], "W"])
        writer.writerow(["power", entity, "load", f["load"], "W"])
        for line, amps in f["lines"].items():
            writer.writerow(["power", entity, f"current {line}", amps, "A"])
    for row in report.get("power_chain") or []:  # (v1.4) in W, as every CSV figure
        entity = f"power element {row['id']}"
        for metric in ("load", "peak", "rating", "margin"):
            value = row[f"{metric}_kw"]
            if value is not None:
                writer.writerow(["power", entity, metric, value * 1e3, "W"])
    for r in report["cooling"]["racks"]:
        entity = f"rack {r['rack']}"
        writer.writerow(["cooling", entity, "heat", r["heat"], "W"])
        writer.writerow(["cooling", entity, "air_heat", r["air_heat"], "W"])
        if r["door_heat"]:
            writer.writerow(["cooling", entity, "door_heat", r["door_heat"], "W"])
        writer.writerow(["cooling", entity, "verdict", r["verdict"], ""])
    for g in report["cooling"]["cdus"]:
        entity = f"cdu {' + '.join(g['cdus'])}"
        writer.writerow(["cooling", entity, "load", g["load"], "W"])
        if g["capacity"] is not None:
            writer.writerow(["cooling", entity, "capacity", g["capacity"], "W"])
        if g["margin"] is not None:
            writer.writerow(["cooling", entity, "n_plus_one_margin", g["margin"], "W"])
    c = report["compute"]
    writer.writerow(["compute", "site", "gpus", c["gpus"], ""])
    for model, count in c["gpus_by_model"].items():
        writer.writerow(["compute", "site", f"gpus {model}", count, ""])
    for row in fabric_csv_rows(report["network"]["fabrics"]):
        writer.writerow(row)
    for row in storage_csv_rows(report["storage"]):
        writer.writerow(row)
    for item in report["cost"]["bom"]:
        writer.writerow(["cost", f"{item['item']} {item['model']}", "count", item["count"], ""])
        if item["total"] is not None:
            writer.writerow(
                ["cost", f"{item['item']} {item['model']}", "total", item["total"], "USD"]
            )
    writer.writerow(["cost", "site", "total", report["cost"]["total"], "USD"])
    if report["cost"]["per_gpu"] is not None:
        writer.writerow(["cost", "site", "per_gpu", report["cost"]["per_gpu"], "USD"])
    for row in domains_csv_rows(report.get("domains")):
        writer.writerow(row)
    for row in workload_csv_rows(report.get("workload")):
        writer.writerow(row)
    for row in liquid_loops_csv_rows(report.get("liquid_loops")):
        writer.writerow(row)
    return out.getvalue()


def _table(table: Sequence[tuple[str, ...]]) -> list[str]:
    # Names (racks, catalog entries) are anyone's text: one line per row, controls shown.
    rows = [tuple(shown(cell) for cell in row) for row in table]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [
        "  "
        + "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in rows
    ]
    lines.insert(1, "  " + "  ".join("-" * w for w in widths))
    return lines


def _p(value: float | None) -> str:
    return "–" if value is None else fmt(value, POWER)


def _ratio(value: float | None) -> str:
    if value is None:
        return "–"
    return "no uplinks" if not math.isfinite(value) else f"{value:.3g}:1"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.0f} %"


def _cords_text(cords: list[dict[str, Any]]) -> list[str]:
    """One line: the PSU cords the power schedule (export --power) lists, by side and outlet."""
    if not cords:
        return []
    sides: Counter[str] = Counter()
    outlets: Counter[str] = Counter()
    for rack in cords:
        for side, by_outlet in rack["by_side"].items():
            for outlet, count in by_outlet.items():
                sides[side or "no side"] += count
                outlets[outlet] += count
    total = sum(rack["cords"] for rack in cords)
    line = (
        f"  PSU cords: {total} in {len(cords)} racks ("
        + ", ".join(
            f"side {k}: {v}" if k != "no side" else f"no side: {v}"
            for k, v in sorted(sides.items())
        )
        + "; "
        + ", ".join(f"{k}: {v}" for k, v in sorted(outlets.items()))
        + ")"
    )
    assumed = sum(len(rack["assumed_one_psu"]) for rack in cords)
    lines = ["", line]
    if assumed:
        lines.append(f"    {assumed} device(s) without `psus` counted as one cord each")
    return lines


def to_text(report: Report) -> str:
    out = [shown(report["layout"]), ""]  # a name on one line, whatever it holds
    p = report["power"]
    bound = "≥" if p["site"]["load_is_lower_bound"] else ""
    line = f"Power: {bound}{_p(p['site']['load'])} in total"
    if p["site"]["budget"] is not None:
        line += (
            f" of a {_p(p['site']['budget'])} budget ({_p(p['site']['headroom'])} headroom)"
            if p["site"]["headroom"] >= 0
            else f", over the {_p(p['site']['budget'])} budget"
        )
    out += [line]
    if p["racks"]:
        rows: list[tuple[str, ...]] = [
            ("rack", "load", "sides", "all sides", "one side lost", "use")
        ]
        rows += [
            (
                r["rack"],
                ("≥" if r["load_is_lower_bound"] else "") + _p(r["load"]),
                ", ".join(r["sides"]) if r["sides"] else "–",
                _p(r["all_sides"]),
                _p(r["one_side_lost"]),
                _pct(r["utilisation"]),
            )
            for r in p["racks"]
        ]
        out += _table(rows)
    if p["feeds"]:
        out += ["", "Feeds (worst case: another side lost, the rest sharing the load):"]
        rows = [("feed", "supply", "capacity", "load", "L1", "L2", "L3", "imbalance")]
        for f in p["feeds"]:
            lines = f["lines"]
            amps = [fmt(lines[k], CURRENT) if k in lines else "" for k in ("L1", "L2", "L3")]
            if "L" in lines:
                amps = [fmt(lines["L"], CURRENT), "", ""]
            supply = f"{f['voltage']:g} V {f['phases']}-ph {f['current']:g} A"
            rows.append(
                (
                    f"{f['rack']}/{f['feed']}",
                    supply,
                    _p(f["capacity"]),
                    _p(f["load"]),
                    *amps,
                    _pct(f["imbalance"]),
                )
            )
        out += _table(rows)
    out += _cords_text(p["cords"])
    if report.get("power_chain"):
        heading, rows = power_chain_table(report["power_chain"])
        out += ["", heading, *_table(rows)]
    c = report["cooling"]
    out += [
        "",
        f"Cooling: {_p(c['site']['air_heat'])} to room air, "
        f"{_p(c['site']['liquid_heat'])} to liquid"
        + (
            f", {_p(c['site']['door_heat'])} to chilled water (rear doors)"
            if c["site"]["door_heat"]
            else ""
        )
        + (
            f" (room capacity {_p(c['site']['cooling_capacity'])})"
            if c["site"]["cooling_capacity"] is not None
            else ""
        ),
    ]
    if c["racks"]:
        # The rear doors' column only where a door takes heat: other tables stay as they were.
        doors = any(r["door_heat"] for r in c["racks"])
        door_column = ("rear door",) if doors else ()
        rows = [("rack", "cooling", "heat", "liquid", *door_column, "air", "verdict")]
        rows += [
            (
                r["rack"],
                r["cooling"],
                _p(r["heat"]),
                _p(r["liquid_heat"]),
                *((_p(r["door_heat"]),) if doors else ()),
                _p(r["air_heat"]),
                r["verdict"],
            )
            for r in c["racks"]
        ]
        out += _table(rows)
    for cdu in c["cdus"]:
        names = " + ".join(cdu["cdus"])
        kind = "CDU" if len(cdu["cdus"]) == 1 else "CDU group"
        bound = "≥" if cdu["load_is_lower_bound"] else ""
        line = (
            f"  {kind} {names}: {bound}{_p(cdu['load'])} of {_p(cdu['capacity'])} "
            f"for {plural(len(cdu['racks']), 'rack')}"
        )
        if cdu["margin"] is not None:
            margin = cdu["margin"]
            line += (
                f"; N+1 margin {_p(margin)} ({_p(cdu['n_plus_one'])} with its largest CDU lost)"
                if margin >= 0
                else f"; not N+1: {_p(-margin)} short with its largest CDU lost"
            )
        out.append(line)
    m = report["compute"]
    models = ", ".join(f"{n} × {k}" for k, n in m["gpus_by_model"].items()) or "none"
    sizes = ", ".join(f"{plural(n, 'node')} of {k}" for k, n in m["nodes_by_size"].items())
    fd = m["failure_domain"]
    out += [
        "",
        f"Compute: {plural(m['gpus'], 'GPU')} in {plural(m['gpu_nodes'], 'GPU node')} ({models})",
        f"  node sizes: {sizes or 'none'}",
        f"  failure domains: a node holds up to {plural(fd['largest_node_gpus'], 'GPU')}, a rack "
        f"up to {fd['largest_rack_gpus']} ({plural(fd['racks_with_gpus'], 'rack')} "
        f"{'holds' if fd['racks_with_gpus'] == 1 else 'hold'} GPUs)",
    ]
    out += ["", "Network:"]
    if not report["network"]["fabrics"]:
        out.append("  no compute fabric")
    out += fabric_text(report["network"]["fabrics"])
    out += node_test_text(report["network"].get("node_test"))
    out += single_failures_text(report.get("single_failures"))
    out += domains_text(report.get("domains"))
    out += workload_text(report.get("workload"))
    out += liquid_loops_text(report.get("liquid_loops"))
    out += storage_text(report["storage"])
    cost = report["cost"]
    out += ["", "Bill of materials:"]
    rows = [("item", "model", "count", "unit", "total")]
    for item in cost["bom"]:
        rows.append(
            (
                item["item"],
                item["model"],
                str(item["count"]),
                "–" if item["unit_cost"] is None else f"${item['unit_cost']:,.0f}",
                "–" if item["total"] is None else f"${item['total']:,.0f}",
            )
        )
    out += _table(rows)
    bound = "≥ " if cost["unpriced_devices"] else ""
    total = f"  total {bound}${cost['total']:,.0f}"
    if cost["unpriced_devices"]:
        total += f" ({plural(cost['unpriced_devices'], 'device')} without a price)"
    if cost["per_gpu"] is not None:
        total += f"; {bound}${cost['per_gpu']:,.0f} per GPU"
    out.append(total)
    return "\n".join(out) + "\n"
