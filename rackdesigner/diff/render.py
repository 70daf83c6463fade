"""A :class:`~rackdesigner.diff.compare.Diff` as plain data, text, JSON and Markdown."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from rackdesigner.diff.compare import Change, Diff, Figures
from rackdesigner.model import markdown as md
from rackdesigner.model.units import BANDWIDTH, BYTE_RATE, MASS, POWER, TEMPERATURE, fmt
from rackdesigner.model.wording import plural

_DIMENSIONS = {
    "load": POWER,
    "peak": POWER,  # (v1.4) power-chain elements
    "rating": POWER,
    "margin": POWER,
    "liquid_heat": POWER,
    "air_heat": POWER,
    "weight": MASS,
    "bisection": BANDWIDTH,
    "busbw": BYTE_RATE,
    "loop_heat": POWER,
    "supply_temperature": TEMPERATURE,
    "return_temperature": TEMPERATURE,
}
_LABELS = {
    "load": "kW",
    "liquid_heat": "to liquid",
    "air_heat": "to air",
    "units_used": "U used",
    "weight": "weight",
    "gpus": "GPUs",
    "switches": "switches",
    "cables": "cables",
    "oversubscription": "oversubscription",
    "bisection": "bisection",
    "busbw": "busbw",
    "peak": "peak",
    "rating": "rating",
    "margin": "margin",
    "loop_heat": "heat",
    "supply_temperature": "supply",
    "return_temperature": "return",
}


def _change(c: Change) -> dict[str, Any]:
    return {
        "kind": c.kind,
        "id": c.id,
        "change": c.what,
        "fields": [{"field": n, "before": b, "after": a} for n, b, a in c.fields],
    }


def _figures(f: Figures) -> dict[str, Any]:
    return {"id": f.id, "before": f.before, "after": f.after, "changed": f.changed()}


def _finding(d: Any) -> dict[str, Any]:
    return {"code": d.code, "severity": d.severity, "entity": d.entity, "message": d.message}


def diff_data(d: Diff, old: str, new: str) -> dict[str, Any]:
    """The diff as plain data (JSON): SI units, ids."""
    return {
        "old": old,
        "new": new,
        "changed": not d.empty,
        "totals": {k: {"before": b, "after": a} for k, (b, a) in d.totals.items()},
        "racks": [_change(c) for c in d.racks],
        "devices": [_change(c) for c in d.devices],
        "links": [_change(c) for c in d.links],
        "other": [_change(c) for c in d.other],
        "loops": [_change(c) for c in d.loops],
        "loop_figures": [_figures(f) for f in d.loop_figures],
        "rack_figures": [_figures(f) for f in d.rack_figures],
        "fabric_figures": [_figures(f) for f in d.fabric_figures],
        "findings": {
            "new": [_finding(x) for x in d.findings_new],
            "fixed": [_finding(x) for x in d.findings_fixed],
        },
        "cost": {"before": d.cost[0], "after": d.cost[1]},
        # (v1.4) the power chain: elements changed, and their figures (W) before and after
        "power_chain": {
            "changes": [_change(c) for c in d.power],
            "figures": [_figures(f) for f in d.power_figures],
        },
    }


def to_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _value(key: str, value: float | None) -> str:
    if value is None:
        return "–"
    dim = _DIMENSIONS.get(key)
    if dim is not None:
        return fmt(value, dim)
    if key == "oversubscription":
        return f"{value:.2g}:1"
    if key == "cost":
        return f"${value:,.0f}"
    return f"{value:g}"


def _figures_line(f: Figures) -> str:
    if f.before is None:
        assert f.after is not None
        body = ", ".join(f"{_LABELS[k]} {_value(k, v)}" for k, v in f.after.items())
        return f"{f.kind} {f.id} (new): {body}"
    if f.after is None:
        body = ", ".join(f"{_LABELS[k]} {_value(k, v)}" for k, v in f.before.items())
        return f"{f.kind} {f.id} (gone): {body}"
    body = ", ".join(
        f"{_LABELS[k]} {_value(k, f.before[k])} → {_value(k, f.after.get(k))}" for k in f.changed()
    )
    return f"{f.kind} {f.id}: {body}"


def _counts(changes: list[Change]) -> str:
    counts = Counter(c.what for c in changes)
    return ", ".join(f"{n} {what}" for what, n in counts.items())


def _sections(d: Diff) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for title, changes in (
        ("Racks", d.racks),
        ("Devices", d.devices),
        ("Links", d.links),
        ("Site, workload and catalog", d.other),
        ("Power chain", d.power),
        ("Water loops", d.loops),
    ):
        if changes:
            out.append((f"{title}: {_counts(changes)}", [c.text() for c in changes]))
    if d.rack_figures:
        out.append(
            (
                f"Per rack, before → after: {plural(len(d.rack_figures), 'rack')}",
                [_figures_line(f) for f in d.rack_figures],
            )
        )
    if d.fabric_figures:
        out.append(
            (
                f"Per fabric, before → after: {plural(len(d.fabric_figures), 'fabric')}",
                [_figures_line(f) for f in d.fabric_figures],
            )
        )
    if d.power_figures:
        out.append(
            (
                "Per power element, before → after: " + plural(len(d.power_figures), "element"),
                [_figures_line(f) for f in d.power_figures],
            )
        )
    if d.loop_figures:
        out.append(
            (
                f"Per water loop, before → after: {plural(len(d.loop_figures), 'loop')}",
                [_figures_line(f) for f in d.loop_figures],
            )
        )
    if d.findings_new or d.findings_fixed:
        lines = [f"+ {x.severity} {x.code} {x.entity}: {x.message}" for x in d.findings_new]
        lines += [f"- {x.severity} {x.code} {x.entity}: {x.message}" for x in d.findings_fixed]
        out.append((f"Findings: {len(d.findings_new)} new, {len(d.findings_fixed)} fixed", lines))
    return out


def _cost_line(d: Diff) -> str:
    before, after = d.cost
    delta = after - before
    sign = "+" if delta >= 0 else "−"
    return f"Cost: ${before:,.0f} → ${after:,.0f} ({sign}${abs(delta):,.0f})"


def diff_text(d: Diff, old: str, new: str) -> str:
    if d.empty:
        return f"{old} → {new}: no change\n"
    out = [f"{old} → {new}:"]
    for title, lines in _sections(d):
        out += ["", title, *[f"  {line}" for line in lines]]
    if d.cost[0] != d.cost[1]:
        out += ["", _cost_line(d)]
    return "\n".join(out) + "\n"


_TOTAL_LABELS = {
    "racks": "racks",
    "devices": "devices",
    "links": "cables",
    "gpus": "GPUs",
    "load": "power",
    "cost": "cost",
    "errors": "errors",
    "warnings": "warnings",
}


def diff_markdown(d: Diff, old: str, new: str) -> str:
    """A pull-request comment: the summary table first, the details folded; every name
    escaped for GitHub (:mod:`rackdesigner.model.markdown`)."""
    out = [f"### rackdesigner diff: {md.code(old)} → {md.code(new)}", ""]
    if d.empty:
        return "\n".join([*out, "No change in racks, power, heat, cooling or the fabric.", ""])
    out += ["| | before | after |", "|---|---:|---:|"]
    for key, (before, after) in d.totals.items():
        mark = "" if before == after else " **Δ**"
        out.append(f"| {_TOTAL_LABELS[key]}{mark} | {_value(key, before)} | {_value(key, after)} |")
    out.append("")
    counts = []
    for name, changes in (
        ("racks", d.racks),
        ("devices", d.devices),
        ("links", d.links),
        ("power elements", d.power),
    ):
        if changes:
            counts.append(f"{name}: {_counts(changes)}")
    if d.findings_new or d.findings_fixed:
        counts.append(f"findings: {len(d.findings_new)} new, {len(d.findings_fixed)} fixed")
    if counts:
        out += ["; ".join(counts), ""]
    for error in d.new_errors:
        out.append(
            f"- :x: **{md.text(error.code)}** {md.text(error.entity)}: {md.text(error.message)}"
        )
    if d.new_errors:
        out.append("")
    for title, lines in _sections(d):
        out += [f"<details><summary>{title}</summary>", "", *md.fenced(lines)]
        out += ["", "</details>", ""]
    return "\n".join(out)
