"""``whatif`` results as plain data (SI floats), text, JSON and Markdown."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from rackdesigner.model import markdown as md
from rackdesigner.model.diagnostics import SEVERITY_RANK
from rackdesigner.model.units import BANDWIDTH, BYTE_RATE, POWER, fmt
from rackdesigner.model.wording import first_of, plural
from rackdesigner.whatif.results import (
    FEWER_PSUS,
    ChainChange,
    DeviceLoss,
    FabricImpact,
    Impact,
    NotRated,
    OnePath,
)
from rackdesigner.whatif.storage import storage_data, storage_lines, storage_summary

# Devices listed by name in text and Markdown; the rest are counted.
SHOWN = 12


def impact_data(impact: Impact) -> dict[str, Any]:
    """One scenario as plain data (JSON): SI units, ids."""
    return {
        "failures": [str(f) for f in impact.failures],
        "gpus_down": impact.gpus_down,
        "gpus_degraded": impact.gpus_degraded,
        "gpus_cut_off": impact.gpus_cut_off,
        "gpus_lost": impact.gpus_lost,
        "down": [_device(d) for d in impact.down],
        "degraded": [_device(d) for d in impact.degraded],
        "power": [
            {
                "rack": p.rack,
                "side": p.side,
                "feed": p.feed,
                "load": p.load,
                "capacity": p.capacity,
                "over": p.over,
                "outcome": "capped" if p.capped else "tripped",
            }
            for p in impact.power
        ],
        "cooling": [
            {
                "racks": list(c.racks),
                "cause": c.cause,
                "heat": c.heat,
                "capacity": c.capacity,
                "over": c.over,
                "tripped": c.tripped,
            }
            for c in impact.cooling
        ],
        "storage": storage_data(impact.storage),
        "fabrics": [_fabric(f) for f in impact.fabrics],
        "warmer_water": impact.warmer,
        "gpus_one_path": impact.gpus_one_path,
        "one_path": [
            {"rack": p.rack, "sides_lost": list(p.sides_lost), "gpus": p.gpus}
            for p in impact.one_path
        ],
        "power_chain": [_chain(c) for c in impact.chain],
        "not_rated": [
            {
                "racks": list(n.racks),
                "cdus": list(n.cdus),
                "approach": n.approach,
                "rated_approach": n.rated_approach,
                "rated_capacity": n.rated_capacity,
                "gpus": n.gpus,
            }
            for n in impact.not_rated
        ],
        "findings": None
        if impact.findings is None
        else [
            {"code": d.code, "severity": d.severity, "entity": d.entity, "message": d.message}
            for d in impact.findings
        ],
    }


def _device(d: Any) -> dict[str, Any]:
    return {
        "id": d.id,
        "rack": d.rack,
        "kind": d.kind,
        "gpus": d.gpus,
        "psus": d.psus,
        "psus_left": d.psus_left,
        "psus_required": d.required,
        "why": d.why,
    }


def _chain(c: ChainChange) -> dict[str, Any]:
    return {
        "id": c.id,
        "kind": c.kind,
        "state": c.state,
        "load": c.load,
        "rating": c.rating,
        "load_before": c.before,
        "rating_before": c.rating_before,
        "over": c.over,
        "source": c.source or None,
    }


def _fabric(f: FabricImpact) -> dict[str, Any]:
    return {
        "fabric": f.name,
        "gpus": f.gpus,
        "switches": f.switches,
        "switches_lost": f.switches_lost,
        "cables": f.cables,
        "cables_lost": f.cables_lost,
        "gpu_nodes_down": f.nodes_down,
        "cut_off": f.cut_off,
        "gpus_cut_off": f.gpus_cut_off,
        "largest_connected_gpus": f.largest_gpus,
        "rails_cut": f.rails_cut,
        "bisection": f.bisection,
        "bisection_left": f.bisection_left,
        "bisection_ratio": f.bisection_ratio,
        "busbw": f.bus,
        "busbw_left": f.bus_left,
    }


def ranking_data(kind: str, impacts: Sequence[Impact]) -> dict[str, Any]:
    """The ranking; with findings run, each failure also has ``new_codes`` (code: count)."""
    failures = []
    for impact in impacts:
        data = impact_data(impact)
        if impact.findings is not None:
            data["new_codes"] = dict(new_codes(impact))
        failures.append(data)
    return {"each": kind, "failures": failures}


def new_codes(impact: Impact) -> list[tuple[str, int]]:
    """The codes of the findings a failure raises, counted: errors first, then by code."""
    counted = Counter((d.severity, d.code) for d in impact.findings or ())
    ordered = sorted(counted.items(), key=lambda kv: (SEVERITY_RANK[kv[0][0]], kv[0][1]))
    return [(code, count) for (_severity, code), count in ordered]


def _codes_text(impact: Impact) -> str:
    """``NET003 ×2, PWR011`` (``none``): a failure's new findings in one phrase."""
    codes = new_codes(impact)
    return ", ".join(f"{c} ×{n}" if n > 1 else c for c, n in codes) if codes else "none"


def to_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


# -- for people ---------------------------------------------------------------------------------


def _names(ids: Sequence[str]) -> str:
    return first_of(ids, SHOWN)


def _ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _bus(value: float | None) -> str:
    return "–" if value is None else fmt(value, BYTE_RATE)


def impact_lines(impact: Impact, findings_listed: int | None = None) -> list[str]:
    """One scenario for people, a line per fact; ``findings_listed``: list at most that
    many of its new findings (the rest counted)."""
    out = [f"What if {title(impact)}:"]
    nodes_down = [d for d in impact.down if d.gpus]
    nodes_degraded = [d for d in impact.degraded if d.gpus]
    out.append(
        f"  GPUs: {impact.gpus_down:,} down, {impact.gpus_degraded:,} degraded "
        f"({_degraded_as(impact)}), {impact.gpus_cut_off:,} cut off"
    )
    if impact.down:
        head = f"  down: {plural(len(impact.down), 'device')} "
        out += _losses(head + f"({plural(len(nodes_down), 'GPU node')})", impact.down)
    if impact.degraded:
        head = f"  degraded: {plural(len(impact.degraded), 'device')} "
        out += _losses(head + f"({plural(len(nodes_degraded), 'GPU node')})", impact.degraded)
    out += _one_path_lines(impact.one_path)
    out += _chain_lines(impact.chain)
    for p in impact.power:
        where = f"feed {p.feed}" if p.feed else (f"side {p.side}" if p.side else "its feeds")
        outcome = "its devices power-capped" if p.capped else "it trips"
        out.append(
            f"  power: rack {p.rack} {where} must carry {fmt(p.load, POWER)} on "
            f"{fmt(p.capacity, POWER)} usable, {fmt(p.over, POWER)} over: {outcome}"
        )
    for c in impact.cooling:
        where = (
            f"racks {_names(list(c.racks))}"
            if len(c.racks) > 1
            else (f"rack {c.racks[0]}" if c.racks else "the room")
        )
        tripped = ": they trip" if c.tripped else ""
        out.append(
            f"  cooling: {c.cause}: {where} {fmt(c.heat, POWER)} against "
            f"{fmt(c.capacity, POWER)}, {fmt(c.over, POWER)} over{tripped}"
        )
    out += [_not_rated_line(n) for n in impact.not_rated]
    for f in impact.fabrics:
        out += _fabric_lines(f)
    if impact.storage is not None:
        out += storage_lines(impact.storage)
    if impact.findings is not None:
        if impact.findings:
            out.append(f"  new findings: {len(impact.findings)}")
            listed = impact.findings[:findings_listed]
            out += [f"    {d.severity} {d.code} {d.entity}: {d.message}" for d in listed]
            if len(listed) < len(impact.findings):
                out.append(f"    … and {len(impact.findings) - len(listed)} more")
        else:
            out.append("  new findings: none")
    if impact.harmless:
        out.append("  nothing is lost")
    return out


def title(impact: Impact) -> str:
    """``side:A fails``, ``cdu:c1 fails, on facility water 5 K warmer``, ``the facility
    water is 5 K warmer``: what the scenario is, after "What if"."""
    names = ", ".join(str(f) for f in impact.failures)
    verb = "fails" if len(impact.failures) == 1 else "fail"
    if not impact.warmer:
        return f"{names} {verb}"
    if not impact.failures:
        return f"the facility water is {impact.warmer:g} K warmer"
    return f"{names} {verb}, on facility water {impact.warmer:g} K warmer"


def _degraded_as(impact: Impact) -> str:
    throttled = any(d.why.startswith("throttled") for d in impact.degraded)
    capped = any(not d.why.startswith("throttled") for d in impact.degraded)
    if throttled and capped:
        return "power-capped or throttled"
    return "throttled" if throttled else "power-capped"


def _one_path_lines(paths: Sequence[OnePath]) -> list[str]:
    """``redundancy lost: 36 racks (1,024 GPUs running) run with side A lost: a01, …``, a
    line per set of sides lost."""
    by_sides: dict[tuple[str, ...], list[OnePath]] = {}
    for p in paths:
        by_sides.setdefault(p.sides_lost, []).append(p)
    out = []
    for sides, racks in by_sides.items():
        lost = " and ".join(sides)
        gpus = sum(p.gpus for p in racks)
        out.append(
            f"  redundancy lost: {plural(len(racks), 'rack')} ({plural(gpus, 'GPU')} running) run "
            f"with side{'s' if len(sides) > 1 else ''} {lost} lost: "
            f"{_names([p.rack for p in racks])}"
        )
    return out


def _chain_lines(changes: Sequence[ChainChange]) -> list[str]:
    """The power chain's elements the failure changes: lost (and why), tripped or capped,
    moved to their next source, carrying more (the least margin first)."""
    if not changes:
        return []
    out = []
    failed = [c.name for c in changes if c.state == "failed"]
    lost = [c.name for c in changes if c.state == "lost"]
    if failed or lost:
        line = f"  power chain: {', '.join(failed) or 'nothing'} failed"
        if lost:
            line += f"; lost with it (nothing left to feed them): {_names(lost)}"
        out.append(line)
    for c in changes:
        if c.state in ("tripped", "capped"):
            outcome = "it trips" if c.state == "tripped" else "the GPUs it feeds power-capped"
            out.append(
                f"  power chain: {c.name} must carry {fmt(c.load, POWER)} on its "
                f"{fmt(c.rating or 0.0, POWER)}, {fmt(c.load - (c.rating or 0.0), POWER)} "
                f"over: {outcome}"
            )
        elif c.state == "derated":
            out.append(
                f"  power chain: {c.name} has {fmt(c.rating or 0.0, POWER)} of its "
                f"{fmt(c.rating_before or 0.0, POWER)} left (a module lost) for its "
                f"{fmt(c.load, POWER)}"
            )
        elif c.state == "moved":
            out.append(
                f"  power chain: {c.name} draws from {c.source_kind} {c.source}, its next source"
            )
    loaded = [c for c in changes if c.state == "loaded"]
    loaded.sort(key=lambda c: (c.rating - c.load) if c.rating is not None else float("inf"))
    if loaded:
        out.append("  power chain carries more: " + _names([_carries(c) for c in loaded]))
    return out


def _carries(c: ChainChange) -> str:
    rating = f" of {fmt(c.rating, POWER)}" if c.rating is not None else ""
    return f"{c.name} {fmt(c.load, POWER)}{rating} (was {fmt(c.before, POWER)})"


def _not_rated_line(n: NotRated) -> str:
    cdus = f"CDU{'s' if len(n.cdus) > 1 else ''} {_names(list(n.cdus))}"
    at = f"a {n.approach:g} K approach" if n.approach is not None else "this approach"
    rated = ""
    if n.rated_approach is not None and n.rated_capacity is not None:
        rated = f" (rated {fmt(n.rated_capacity, POWER)} at {n.rated_approach:g} K)"
    if n.approach is not None and n.approach <= 0:
        their = "their" if len(n.cdus) > 1 else "its"
        why = f"cannot hold {their} setpoint, the coolant runs warmer by what no figure says"
    else:
        why = "no capacity is published there"
    return (
        f"  cooling not judged: {cdus} not rated at {at}{rated}: {why}; "
        f"{plural(len(n.racks), 'rack')}, {plural(n.gpus, 'GPU')} on it"
    )


def _losses(head: str, losses: Sequence[DeviceLoss]) -> list[str]:
    """``head: a (why), b (why)``; where devices share a reason, a line per reason with
    the devices it took (a rack's 27 trays on the shelves left, not 27 times the reason)."""
    by_why: dict[str, list[str]] = {}
    for d in losses:
        by_why.setdefault(_degraded_why(d), []).append(d.id)
    if len(by_why) == len(losses):
        return [f"{head}: " + _names([f"{d.id} ({_degraded_why(d)})" for d in losses])]
    return [f"{head}:"] + [f"    {why}: {_names(ids)}" for why, ids in by_why.items()]


def _degraded_why(d: DeviceLoss) -> str:
    if d.why == FEWER_PSUS:
        return f"{d.psus_left} of {d.psus} PSUs, needs {d.required}"
    return d.why


def _fabric_lines(f: FabricImpact) -> list[str]:
    out = [
        f"  fabric {f.name}: {f.switches_lost} of {plural(f.switches, 'switch', 'switches')} "
        f"and {f.cables_lost} of {plural(f.cables, 'cable')} lost",
        f"    bisection {fmt(f.bisection_left, BANDWIDTH)} of {fmt(f.bisection, BANDWIDTH)} "
        f"({_ratio(f.bisection_ratio)}); busbw {_bus(f.bus_left)} (was {_bus(f.bus)})",
        f"    largest job at full size: {plural(f.largest_gpus, 'GPU')} of {f.gpus}",
    ]
    if f.cut_off:
        out.append(f"    cut off: {plural(len(f.cut_off), 'GPU node')}: {_names(f.cut_off)}")
    if f.rails_cut:
        out.append(
            f"    rails cut: {plural(len(f.rails_cut), 'GPU node')} with fewer cables: "
            f"{_names(f.rails_cut)}"
        )
    return out


def impact_text(impact: Impact) -> str:
    return "\n".join(impact_lines(impact)) + "\n"


def summary(impact: Impact) -> str:
    """A scenario in one line (the ranking, the report's single failures)."""
    parts = [f"{plural(impact.gpus_lost, 'GPU')} lost"]
    if impact.gpus_lost:
        parts[0] += (
            f" ({impact.gpus_down:,} down, {impact.gpus_degraded:,} degraded, "
            f"{impact.gpus_cut_off:,} cut off)"
        )
    ratio = impact.worst_bisection
    if ratio is not None and ratio < 1 - 1e-9:
        parts.append(f"bisection {ratio:.0%} left")
    if impact.storage is not None and storage_summary(impact.storage):
        parts.append(storage_summary(impact.storage))
    if impact.cooling:
        parts.append(f"cooling {fmt(sum(c.over for c in impact.cooling), POWER)} short")
    if impact.power:
        parts.append(f"power {fmt(sum(p.over for p in impact.power), POWER)} over")
    if impact.chain_over:
        parts.append(f"power chain {fmt(impact.chain_over, POWER)} over")
    if impact.gpus_one_path:
        parts.append(f"redundancy lost for {plural(impact.gpus_one_path, 'GPU')}")
    elif impact.one_path:
        parts.append(f"redundancy lost for {plural(len(impact.one_path), 'rack')}")
    unjudged = sum(n.gpus for n in impact.not_rated)
    if impact.not_rated:
        parts.append(f"cooling not judged for {plural(unjudged, 'GPU')}")
    return "; ".join(parts)


def ranking_text(kind: str, impacts: Sequence[Impact]) -> str:
    if not impacts:
        return f"No {kind} to fail.\n"
    warmer = impacts[0].warmer
    on = f" on facility water {warmer:g} K warmer" if warmer else ""
    out = [f"Every single {kind} failure{on}, worst first ({len(impacts)}):"]
    rows = [(", ".join(str(f) for f in i.failures), _ranked(i)) for i in impacts]
    width = max(len(r[0]) for r in rows)
    out += [f"  {name.ljust(width)}  {text}" for name, text in rows]
    return "\n".join(out) + "\n"


def impact_markdown(impact: Impact) -> str:
    names = ", ".join(md.code(str(f)) for f in impact.failures)
    verb = "fails" if len(impact.failures) == 1 else "fail"
    heading = f"{names} {verb}"
    if impact.warmer and not impact.failures:
        heading = title(impact)
    elif impact.warmer:
        heading = f"{heading}, on facility water {impact.warmer:g} K warmer"
    out = [f"### What if {heading}", ""]
    out += ["| | |", "|---|---|"]
    out.append(f"| GPUs down | {impact.gpus_down} |")
    out.append(f"| GPUs degraded ({_degraded_as(impact)}) | {impact.gpus_degraded} |")
    out.append(f"| GPUs cut off | {impact.gpus_cut_off} |")
    if impact.one_path:
        out.append(f"| GPUs running without redundancy | {impact.gpus_one_path} |")
    for f in impact.fabrics:
        name = md.text(f.name)
        out.append(
            f"| fabric {name} bisection | {fmt(f.bisection_left, BANDWIDTH)} of "
            f"{fmt(f.bisection, BANDWIDTH)} ({_ratio(f.bisection_ratio)}) |"
        )
        out.append(f"| fabric {name} largest full-size job | {f.largest_gpus} GPUs |")
        out.append(f"| fabric {name} busbw | {_bus(f.bus_left)} (was {_bus(f.bus)}) |")
    out.append("")
    lines = impact_lines(impact)[1:]
    out += [
        "<details><summary>Details</summary>",
        "",
        *md.fenced(s.strip() for s in lines),
        "",
        "</details>",
        "",
    ]
    return "\n".join(out)


def ranking_markdown(kind: str, impacts: Sequence[Impact]) -> str:
    found = any(i.findings is not None for i in impacts)
    warmer = impacts[0].warmer if impacts else 0.0
    on = f" on facility water {warmer:g} K warmer" if warmer else ""
    out = [
        f"### Single {kind} failures{on}, worst first",
        "",
        f"| {kind} | GPUs lost | effect |" + (" new findings |" if found else ""),
        "|---|---:|---|" + ("---|" if found else ""),
    ]
    for i in impacts:
        part = md.code(", ".join(str(f) for f in i.failures), table=True)
        row = f"| {part} | {i.gpus_lost} | {md.text(summary(i))} |"
        out.append(row + (f" {_codes_text(i)} |" if found else ""))
    return "\n".join(out) + "\n"


def _ranked(impact: Impact) -> str:
    """A ranking's line: the summary, and the new findings' codes where they were run."""
    text = summary(impact)
    return text if impact.findings is None else f"{text}; new findings: {_codes_text(impact)}"


def scenario(fmt: str, impact: Impact) -> str:
    """One scenario as ``text``, ``json`` or ``markdown``."""
    if fmt == "json":
        return to_json(impact_data(impact))
    return impact_markdown(impact) if fmt == "markdown" else impact_text(impact)


def ranking(fmt: str, kind: str, impacts: Sequence[Impact]) -> str:
    """A ranking as ``text``, ``json`` or ``markdown``."""
    if fmt == "json":
        return to_json(ranking_data(kind, impacts))
    return ranking_markdown(kind, impacts) if fmt == "markdown" else ranking_text(kind, impacts)
