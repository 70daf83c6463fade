"""The report's power section: the site's load against its budget, each rack's load and
capacity by side, each feed's load and line currents, the PSU cords; and, where the layout
declares one, the power chain behind the feeds (:mod:`.power_chain`), printed with them."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.facts import FeedFacts, RackFacts
from rackdesigner.export.tables import cord_summary
from rackdesigner.model.units import CURRENT, fmt
from rackdesigner.report.power_chain import power_chain_table
from rackdesigner.report.text_table import percent, table, watts


def power_section(analysis: Analysis, *, cords: bool = True) -> dict[str, Any]:
    """Plain data (SI): the site, the racks, the feeds and (with ``cords``) the PSU cords
    (None without)."""
    site = analysis.layout.site
    budget = float(site.power_budget) if site and site.power_budget is not None else None
    return {
        "site": {
            "load": analysis.site_load,
            "load_is_lower_bound": analysis.site_load_unknown,
            "budget": budget,
            "headroom": budget - analysis.site_load if budget is not None else None,
        },
        "racks": [_rack(r) for r in analysis.racks],
        "feeds": [_feed(r, f) for r in analysis.racks for f in r.feeds],
        "cords": cord_summary(analysis) if cords else None,
    }


def _rack(r: RackFacts) -> dict[str, Any]:
    return {
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


def _feed(r: RackFacts, f: FeedFacts) -> dict[str, Any]:
    return {
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


# -- text -------------------------------------------------------------------------------------


def power_text(report: dict[str, Any]) -> list[str]:
    """The site's line, the racks and feeds tables, the cords and the power chain."""
    p = report["power"]
    out = [_site_line(p["site"]), *_racks_table(p["racks"]), *_feeds_table(p["feeds"])]
    out += _cords_text(p["cords"])
    if report.get("power_chain"):
        heading, rows = power_chain_table(report["power_chain"])
        out += ["", heading, *table(rows)]
    return out


def _site_line(site: dict[str, Any]) -> str:
    bound = "≥" if site["load_is_lower_bound"] else ""
    line = f"Power: {bound}{watts(site['load'])} in total"
    if site["budget"] is not None:
        line += (
            f" of a {watts(site['budget'])} budget ({watts(site['headroom'])} headroom)"
            if site["headroom"] >= 0
            else f", over the {watts(site['budget'])} budget"
        )
    return line


def _racks_table(racks: list[dict[str, Any]]) -> list[str]:
    if not racks:
        return []
    rows: list[tuple[str, ...]] = [("rack", "load", "sides", "all sides", "one side lost", "use")]
    rows += [
        (
            r["rack"],
            ("≥" if r["load_is_lower_bound"] else "") + watts(r["load"]),
            ", ".join(r["sides"]) if r["sides"] else "–",
            watts(r["all_sides"]),
            watts(r["one_side_lost"]),
            percent(r["utilisation"]),
        )
        for r in racks
    ]
    return table(rows)


def _feeds_table(feeds: list[dict[str, Any]]) -> list[str]:
    if not feeds:
        return []
    rows: list[tuple[str, ...]] = [
        ("feed", "supply", "capacity", "load", "L1", "L2", "L3", "imbalance")
    ]
    for f in feeds:
        lines = f["lines"]
        amps = [fmt(lines[k], CURRENT) if k in lines else "" for k in ("L1", "L2", "L3")]
        if "L" in lines:
            amps = [fmt(lines["L"], CURRENT), "", ""]
        supply = f"{f['voltage']:g} V {f['phases']}-ph {f['current']:g} A"
        rows.append(
            (
                f"{f['rack']}/{f['feed']}",
                supply,
                watts(f["capacity"]),
                watts(f["load"]),
                *amps,
                percent(f["imbalance"]),
            )
        )
    return ["", "Feeds (worst case: another side lost, the rest sharing the load):", *table(rows)]


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


# -- CSV ----------------------------------------------------------------------------------------


def power_csv_rows(report: dict[str, Any]) -> list[list[Any]]:
    """The site, each rack, its cords, each feed and each power-chain element, in W and A."""
    p = report["power"]
    rows: list[list[Any]] = [["power", "site", "load", p["site"]["load"], "W"]]
    if p["site"]["budget"] is not None:
        rows.append(["power", "site", "budget", p["site"]["budget"], "W"])
    for r in p["racks"]:
        rows.append(["power", f"rack {r['rack']}", "load", r["load"], "W"])
        if r["capacity"] is not None:
            rows.append(["power", f"rack {r['rack']}", "capacity", r["capacity"], "W"])
        if r["one_side_lost"] is not None:
            rows.append(
                ["power", f"rack {r['rack']}", "capacity one side lost", r["one_side_lost"], "W"]
            )
    for r in p["cords"]:
        rows.append(["power", f"rack {r['rack']}", "psu_cords", r["cords"], ""])
    for f in p["feeds"]:
        entity = f"rack {f['rack']} feed {f['feed']}"
        rows.append(["power", entity, "capacity", f["capacity"], "W"])
        rows.append(["power", entity, "load", f["load"], "W"])
        for line, amps in f["lines"].items():
            rows.append(["power", entity, f"current {line}", amps, "A"])
    for row in report.get("power_chain") or []:  # (v1.4) in W, as every CSV figure
        entity = f"power element {row['id']}"
        for metric in ("load", "peak", "rating", "margin"):
            value = row[f"{metric}_kw"]
            if value is not None:
                rows.append(["power", entity, metric, value * 1e3, "W"])
    return rows
