"""The report's liquid loops (v1.4, docs/liquid-cooling.md): per water loop its heat
against its capacity and flow, supply and return; per CDU group its heat, its capacity at
the approach each CDU runs at, its margin with one CDU lost, the flow its cold plates need
against its pumps', its supply and return; per liquid rack where its residual air heat
goes (a rear door's coil, in-row coolers, the room, or nowhere).

Layouts without ``[[cooling.loops]]`` have no ``liquid_loops`` section: their reports are
as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rackdesigner.analysis.liquid import (
    GroupState,
    LoopState,
    inrow_taken,
    loops_by_id,
    plant_of,
)
from rackdesigner.model.units import FLOW, POWER, fmt
from rackdesigner.model.wording import first_of, plural

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis


def build_liquid_loops(analysis: Analysis) -> dict[str, Any] | None:
    """The section, or None where the layout declares no loop."""
    if not analysis.layout.cooling_loops:
        return None
    plant = plant_of(analysis)
    return {
        "loops": [_loop(state) for state in plant.loops],
        "cdu_groups": [_group(group) for group in plant.groups],
        "air_residue": _residue(analysis),
    }


def _loop(state: LoopState) -> dict[str, Any]:
    loop = state.loop
    capacity = float(loop.capacity) if loop.capacity is not None else None
    return {
        "loop": loop.id,
        "kind": loop.loop_kind,
        "ashrae_class": loop.ashrae_class,
        "fluid": loop.loop_fluid,
        "supply_temperature": state.supply,
        "return_temperature": state.return_temperature,
        "capacity": capacity,
        "flow": float(loop.flow) if loop.flow is not None else None,
        "heat": state.heat,
        "cdu_heat": state.cdu_heat,
        "door_heat": state.door_heat,
        "inrow_heat": state.inrow_heat,
        "margin": None if capacity is None else capacity - state.heat,
        "cdus": [c.id for c in state.cdus],
        "doors": len(state.doors),
        "inrow_coolers": len(state.inrows),
    }


def _group(group: GroupState) -> dict[str, Any]:
    capacity, spare = group.capacity, group.n_plus_one
    return {
        "cdus": [
            {
                "cdu": cdu.id,
                "model": cdu.device.model,
                "loop": loop,
                "capacity": rating.capacity,
                "basis": rating.basis,
                "approach": rating.approach,
                "rated_approach": rating.rated_approach,
            }
            for cdu, rating, loop in zip(group.live, group.ratings, group.live_loops, strict=True)
        ],
        "racks": [r.rack.id for r in group.racks],
        "heat": group.heat,
        "capacity": capacity,
        "capacity_one_lost": spare,
        "margin_one_lost": None if spare is None else spare - group.heat,
        "flow_needed": group.flow_needed,
        "pump_flow": group.pump_flow,
        "fluid": group.fluid,
        "supply_temperature": group.supply,
        "return_temperature": group.return_temperature,
        "delta_t": group.delta_t,
    }


def _residue(analysis: Analysis) -> list[dict[str, Any]]:
    """Each liquid rack's residual air heat and where it goes."""
    taken = inrow_taken(analysis)
    loops = loops_by_id(analysis.layout)
    site = analysis.layout.site
    room = site is not None and site.cooling_capacity is not None
    out = []
    for rack in analysis.racks:
        if rack.cooling != "liquid":
            continue
        inrow = taken.get(rack.index, 0.0)
        left = max(0.0, rack.air_heat - inrow)
        door = rack.door
        out.append(
            {
                "rack": rack.rack.id,
                "air_heat": rack.air_heat + rack.door_heat,
                "door": door.id if door is not None and rack.door_heat > 0 else None,
                "door_loop": loops.id_of(door) if door is not None else None,
                "door_heat": rack.door_heat,
                "inrow_heat": inrow,
                "room_heat": left if room else 0.0,
                "nowhere": 0.0 if room else left,
            }
        )
    return out


def liquid_loops_text(section: dict[str, Any] | None) -> list[str]:
    if not section:
        return []
    out = ["", f"Liquid loops: {plural(len(section['loops']), 'loop')}"]
    for d in section["loops"]:
        out.append(_loop_line(d))
    groups = section["cdu_groups"]
    if groups:
        out.append(f"  {plural(len(groups), 'CDU group')}:")
    for g in groups:
        out += _group_lines(g)
    out += _residue_lines(section["air_residue"])
    return out


def _t(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f} °C"


def _loop_line(d: dict[str, Any]) -> str:
    grade = f" {d['ashrae_class']}" if d["ashrae_class"] else ""
    line = (
        f"  {d['loop']} ({d['kind']}{grade}, {d['fluid']}): supply {_t(d['supply_temperature'])}"
        f", {fmt(d['heat'], POWER)} of heat"
    )
    if d["capacity"] is not None:
        line += f" of {fmt(d['capacity'], POWER)} (margin {fmt(d['margin'], POWER)})"
    if d["flow"] is not None:
        line += f", {fmt(d['flow'], FLOW)}, return {_t(d['return_temperature'])}"
    parts = [
        f"{plural(len(d['cdus']), 'CDU')} {fmt(d['cdu_heat'], POWER)}" if d["cdus"] else "",
        f"{plural(d['doors'], 'rear door')} {fmt(d['door_heat'], POWER)}" if d["doors"] else "",
        f"{plural(d['inrow_coolers'], 'in-row cooler')} {fmt(d['inrow_heat'], POWER)}"
        if d["inrow_coolers"]
        else "",
    ]
    shown = ", ".join(p for p in parts if p)
    return line + (f" ({shown})" if shown else "")


def _group_lines(g: dict[str, Any]) -> list[str]:
    racks = g["racks"]
    which = first_of(racks, 4)
    cdus = _cdus_text(g["cdus"])
    capacity = "not rated" if g["capacity"] is None else fmt(g["capacity"], POWER)
    line = (
        f"    {cdus or 'no CDU left'}: {fmt(g['heat'], POWER)} of cold plates "
        f"({plural(len(racks), 'rack')}: {which}) on {capacity}"
    )
    if g["capacity_one_lost"] is not None:
        line += (
            f"; one CDU lost {fmt(g['capacity_one_lost'], POWER)} (margin "
            f"{fmt(g['margin_one_lost'], POWER)})"
        )
    flow = f"      flow: {fmt(g['flow_needed'], FLOW)} needed"
    if g["pump_flow"] is not None:
        flow += f", pumps {fmt(g['pump_flow'], FLOW)}"
    flow += f"; {g['fluid']} supply {_t(g['supply_temperature'])}"
    if g["return_temperature"] is not None:
        flow += f", return {_t(g['return_temperature'])} (+{g['delta_t']:.1f} K)"
    return [line, flow]


def _cdus_text(cdus: list[dict[str, Any]]) -> str:
    """The group's CDUs: alike ones once ("3 CDUs (a, b, c), 750 kW each at 5 K, on fws-1"),
    else each with its rating and loop."""
    texts = [(_rating(c), c["loop"]) for c in cdus]
    if len(cdus) > 1 and len(set(texts)) == 1:
        rating, loop = texts[0]
        names = first_of([c["cdu"] for c in cdus[:4]], 4, total=len(cdus))
        on = f", on {loop}" if loop else ""
        return f"{len(cdus)} CDUs ({names}), each {rating[1:-1]}{on}"
    return ", ".join(
        f"{c['cdu']} {r}" + (f" on {lp}" if lp else "")
        for c, (r, lp) in zip(cdus, texts, strict=True)
    )


def _rating(c: dict[str, Any]) -> str:
    if c["capacity"] is None:
        if c["basis"] == "not rated":
            return f"(not rated at {c['approach']:.3g} K; rated at {c['rated_approach']:g} K)"
        return "(no capacity)"
    text = fmt(c["capacity"], POWER)
    if c["approach"] is None:
        return f"({text})"
    bound = "≥ " if c["basis"] == "at least" else ""
    return f"({bound}{text} at {c['approach']:.3g} K)"


def _residue_lines(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    out = ["  residual air heat of the liquid racks:"]
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        key = (*(round(row[k], 1) for k in _RESIDUE_KEYS), row["door_loop"])
        groups.setdefault(key, []).append(row)
    for members in groups.values():
        d = members[0]
        names = [m["rack"] for m in members]
        which = (
            names[0] if len(names) == 1 else f"{len(names)} racks alike, {names[0]} to {names[-1]}"
        )
        goes = []
        if d["door_heat"]:
            loop = f" (loop {d['door_loop']})" if d["door_loop"] else ""
            goes.append(
                f"{fmt(d['door_heat'], POWER)} through its rear door to chilled water{loop}"
            )
        if d["inrow_heat"]:
            goes.append(f"{fmt(d['inrow_heat'], POWER)} to in-row coolers")
        if d["room_heat"]:
            goes.append(f"{fmt(d['room_heat'], POWER)} to the room's air (COOL006)")
        if d["nowhere"]:
            goes.append(f"{fmt(d['nowhere'], POWER)} nowhere (COOL019)")
        each = "of air heat" if len(names) == 1 else "of air heat each"
        out.append(
            f"    {which}: {fmt(d['air_heat'], POWER)} {each}: " + (", ".join(goes) or "none left")
        )
    return out


_RESIDUE_KEYS = ("air_heat", "door_heat", "inrow_heat", "room_heat", "nowhere")


def liquid_loops_csv_rows(section: dict[str, Any] | None) -> list[list[Any]]:
    rows: list[list[Any]] = []
    if not section:
        return rows
    for d in section["loops"]:
        for key, unit in (
            ("heat", "W"),
            ("capacity", "W"),
            ("supply_temperature", "°C"),
            ("return_temperature", "°C"),
            ("flow", "m^3/s"),
        ):
            if d[key] is not None:
                rows.append(["liquid_loops", f"loop {d['loop']}", key, d[key], unit])
    for g in section["cdu_groups"]:
        entity = "cdu " + "+".join(c["cdu"] for c in g["cdus"])
        for key, unit in (
            ("heat", "W"),
            ("capacity", "W"),
            ("margin_one_lost", "W"),
            ("flow_needed", "m^3/s"),
            ("pump_flow", "m^3/s"),
            ("supply_temperature", "°C"),
            ("return_temperature", "°C"),
        ):
            if g[key] is not None:
                rows.append(["liquid_loops", entity, key, g[key], unit])
    return rows
