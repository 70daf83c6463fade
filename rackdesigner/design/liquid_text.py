"""The liquid loop in the designer's inspector: a rack's CDUs, their loop, the group's
margin with one CDU lost and its coolant's supply and return; a CDU's rating at the
approach it runs at; a rear door's or in-row cooler's loop and what it takes.

Plain functions of an analysis (no Textual), over :func:`rackdesigner.analysis.liquid.
plant_of` (the figures ``report`` prints in ``liquid_loops``). Short lines: the
inspector is 26 columns wide at 80x24.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rackdesigner.analysis.liquid import (
    GroupState,
    LiquidPlant,
    cdu_rating,
    device_flow,
    is_in_row_cooler,
    loops_by_id,
    plant_of,
    too_warm,
)
from rackdesigner.model.units import FLOW, fmt

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.analysis.facts import DeviceFacts, RackFacts
    from rackdesigner.model.layout import CoolingLoop


def _kw(watts: float) -> str:
    return f"{watts / 1000:,.1f} kW"


def _t(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def _loop(loop: CoolingLoop | None) -> str:
    if loop is None:
        return "on no loop"
    supply = loop.supply
    return f"loop {loop.id}" + (f" · {supply:.1f} °C" if supply is not None else "")


def margin_line(group: GroupState) -> str:
    """The group's margin with its largest CDU lost (``✖`` when short)."""
    spare = group.n_plus_one
    if not group.live:
        return "✖ no CDU left"
    if spare is None:
        rating = next((r for r in group.ratings if r.capacity is None), None)
        if rating is not None and rating.approach is not None:
            return f"not rated at {rating.approach:.3g} K"
        return "CDU capacity unknown"
    margin = spare - group.heat
    return f"{'✖ ' if margin < 0 else ''}margin {_kw(margin)}, 1 lost"


def group_lines(group: GroupState, plant: LiquidPlant, loops_declared: bool) -> list[str]:
    """A CDU group's lines: its CDUs and their loop, margin with one lost, coolant."""
    cdus = group.load.cdus
    first = cdus[0].id if cdus else "–"
    named = first if len(cdus) == 1 else f"{first} +{len(cdus) - 1}"
    lines = [f"CDUs {named}"]
    if loops_declared and group.loop_ids:
        state = plant.loop(group.loop_ids[0])
        lines.append(_loop(state.loop if state is not None else None))
        lines[-1] += "".join(f", {i}" for i in group.loop_ids[1:])
    elif loops_declared:
        lines.append("✖ CDUs on no loop")
    lines.append(margin_line(group))
    lines.append(f"coolant {_t(group.supply)}→{_t(group.return_temperature)} °C")
    return lines


def rack_lines(analysis: Analysis, rack: RackFacts) -> list[str]:
    """A rack's liquid loop (none for a rack without CDUs or water)."""
    if not rack.rack.cdus and rack.door is None and not rack.rack.inrows:
        return []
    loops = loops_by_id(analysis.layout)
    plant = plant_of(analysis)
    lines: list[str] = []
    for group in plant.group_of(rack.index):
        lines += group_lines(group, plant, bool(loops))
        per_kw = analysis.thresholds["coolant_flow_per_kw"]
        flow = sum(device_flow(d, per_kw) for d in rack.devices)
        lines.append(f"flow {fmt(flow, FLOW)}")
        if too_warm(group, rack):
            lines.append("✖ throttles: too warm")
    door = rack.door
    if door is not None and rack.door_heat > 0:
        to = loops.id_of(door)
        lines.append(f"door {_kw(rack.door_heat)} → {to}" if to else f"door {_kw(rack.door_heat)}")
    return lines


def device_lines(analysis: Analysis, dev: DeviceFacts) -> list[str]:
    """A CDU's rating at its approach, its loop and its group's margin; a rear door's or
    in-row cooler's loop. None for other devices (:func:`cold_plate_lines`)."""
    loops = loops_by_id(analysis.layout)
    if dev.kind == "cdu":
        rating = cdu_rating(dev, loops)
        if rating.capacity is None:
            rated = "no capacity given"
            if rating.approach is not None:
                rated = f"not rated at {rating.approach:.3g} K"
        else:
            at = f" at {rating.approach:.3g} K" if rating.approach is not None else ""
            rated = f"{_kw(rating.capacity)}{at}"
        lines = [_loop(loops.of(dev)) if loops else "no loops declared", rated]
        for group in plant_of(analysis).groups:
            if any(c.id == dev.id for c in group.load.cdus):
                lines.append(margin_line(group))
                lines.append(f"coolant {_t(group.supply)}→{_t(group.return_temperature)} °C")
                break
        return lines
    if dev.kind == "rear-door" or is_in_row_cooler(dev):
        capacity = dev.type.capacity if dev.type is not None else None
        lines = [_loop(loops.of(dev))]
        if capacity is not None:
            lines.append(f"capacity {_kw(float(capacity))}")
        return lines
    return []


def cold_plate_lines(analysis: Analysis, dev: DeviceFacts) -> list[str]:
    """A device's cold plates: their heat and the coolant flow they need."""
    if dev.liquid_heat <= 0 or dev.kind in ("cdu", "rear-door"):
        return []
    flow = device_flow(dev, analysis.thresholds["coolant_flow_per_kw"])
    return [f"cold plates {_kw(dev.liquid_heat)}", f"coolant {fmt(flow, FLOW)}"]
