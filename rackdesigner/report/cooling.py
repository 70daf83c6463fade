"""The report's cooling section: the site's heat to room air, to liquid and to the rear
doors' chilled water; each rack's heat and verdict; each CDU group's load against its
capacity and its N+1 margin."""

from __future__ import annotations

from typing import Any

from rackdesigner.analysis import Analysis
from rackdesigner.model.wording import plural
from rackdesigner.report.text_table import table, watts


def cooling_section(analysis: Analysis) -> dict[str, Any]:
    """Plain data (SI): the site, the racks and the CDU groups."""
    site = analysis.layout.site
    racks = analysis.racks
    capacity = float(site.cooling_capacity) if site and site.cooling_capacity is not None else None
    return {
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
        "cdus": [
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
        ],
    }


def cooling_text(report: dict[str, Any]) -> list[str]:
    """The site's line, the racks' table and a line per CDU group."""
    c = report["cooling"]
    out = ["", _site_line(c["site"]), *_racks_table(c["racks"])]
    out += [_cdu_line(cdu) for cdu in c["cdus"]]
    return out


def _site_line(site: dict[str, Any]) -> str:
    return (
        f"Cooling: {watts(site['air_heat'])} to room air, "
        f"{watts(site['liquid_heat'])} to liquid"
        + (
            f", {watts(site['door_heat'])} to chilled water (rear doors)"
            if site["door_heat"]
            else ""
        )
        + (
            f" (room capacity {watts(site['cooling_capacity'])})"
            if site["cooling_capacity"] is not None
            else ""
        )
    )


def _racks_table(racks: list[dict[str, Any]]) -> list[str]:
    if not racks:
        return []
    # The rear doors' column only where a door takes heat: other tables stay as they were.
    doors = any(r["door_heat"] for r in racks)
    door_column = ("rear door",) if doors else ()
    rows = [("rack", "cooling", "heat", "liquid", *door_column, "air", "verdict")]
    rows += [
        (
            r["rack"],
            r["cooling"],
            watts(r["heat"]),
            watts(r["liquid_heat"]),
            *((watts(r["door_heat"]),) if doors else ()),
            watts(r["air_heat"]),
            r["verdict"],
        )
        for r in racks
    ]
    return table(rows)


def _cdu_line(cdu: dict[str, Any]) -> str:
    names = " + ".join(cdu["cdus"])
    kind = "CDU" if len(cdu["cdus"]) == 1 else "CDU group"
    bound = "≥" if cdu["load_is_lower_bound"] else ""
    line = (
        f"  {kind} {names}: {bound}{watts(cdu['load'])} of {watts(cdu['capacity'])} "
        f"for {plural(len(cdu['racks']), 'rack')}"
    )
    margin = cdu["margin"]
    if margin is not None:
        line += (
            f"; N+1 margin {watts(margin)} ({watts(cdu['n_plus_one'])} with its largest CDU lost)"
            if margin >= 0
            else f"; not N+1: {watts(-margin)} short with its largest CDU lost"
        )
    return line


def cooling_csv_rows(report: dict[str, Any]) -> list[list[Any]]:
    """Each rack's heat, air heat, door heat and verdict; each CDU group's load, capacity
    and N+1 margin (W)."""
    rows: list[list[Any]] = []
    for r in report["cooling"]["racks"]:
        entity = f"rack {r['rack']}"
        rows.append(["cooling", entity, "heat", r["heat"], "W"])
        rows.append(["cooling", entity, "air_heat", r["air_heat"], "W"])
        if r["door_heat"]:
            rows.append(["cooling", entity, "door_heat", r["door_heat"], "W"])
        rows.append(["cooling", entity, "verdict", r["verdict"], ""])
    for g in report["cooling"]["cdus"]:
        entity = f"cdu {' + '.join(g['cdus'])}"
        rows.append(["cooling", entity, "load", g["load"], "W"])
        if g["capacity"] is not None:
            rows.append(["cooling", entity, "capacity", g["capacity"], "W"])
        if g["margin"] is not None:
            rows.append(["cooling", entity, "n_plus_one_margin", g["margin"], "W"])
    return rows
