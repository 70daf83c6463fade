"""The water loops ``new`` and the templates write (v1.4, docs/liquid-cooling.md): a facility
loop for the CDUs, a chilled-water loop for the rear doors, and the room's air cooling the
hall needs, each sized for what the hall puts on it, so that the cooling rules pass by
construction and the header can say what the plant must give.

- The facility loop is ASHRAE class W32 (judged at its warmest, 32 °C): the CDUs run at
  their rated approach above it. Its capacity is the cold plates' heat and 10 %, up to the
  next 10 kW (as the power budget is sized); its flow carries that heat with a 10 K rise
  of water (docs/liquid-cooling.md: the rise a 1.5 L/min-per-kW secondary makes).
- The chilled-water loop for rear doors supplies 18 °C: IBM's rear-door heat exchanger
  manual keeps the door's water at 18 °C (±1) above a 17 °C dew point (ASHRAE class 1), so
  no coil sweats. Its capacity and flow are sized the same way for the doors' heat.
- ``[site] cooling_capacity``, where a liquid rack leaves air heat no door takes, is the
  air heat left in the room, and 10 %, up to the next 10 kW (COOL006 checks it; COOL019
  needs the room stated for liquid racks' residue).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.liquid import FLUIDS
from rackdesigner.model.layout import CoolingLoop, Layout, Q, Site

FACILITY_LOOP = "fws-1"
CHILLED_LOOP = "chw-1"
FACILITY_CLASS = "W32"
CHILLED_SUPPLY_C = 18.0
DESIGN_RISE_K = 10.0
MARGIN = 1.1


@dataclass(frozen=True, slots=True)
class LoopPlan:
    cold_plates: float  # W on the facility loop
    doors: float  # W on the chilled-water loop
    room: float  # W of air heat left in the room
    per_door: float  # W the heaviest door takes


def _kw_up(watts: float) -> int:
    """``watts`` and 10 %, in kW up to the next 10."""
    return max(10, math.ceil(watts * MARGIN / 10e3) * 10)


def _flow_text(watts: float) -> tuple[float, str]:
    """The water flow (m³/s) that carries ``watts`` and 10 % with a 10 K rise, in L/min up
    to the next 10."""
    lpm = math.ceil(watts * MARGIN / (FLUIDS["water"] * DESIGN_RISE_K) * 60000 / 10) * 10
    return lpm / 60000, f"{lpm} L/min"


def _loop(ident: str, heat: float, devices: list[str], label: str) -> CoolingLoop:
    """A loop sized for ``heat``: its plant and its flow with 10 % spare."""
    flow, flow_text = _flow_text(heat)
    kw = _kw_up(heat)
    return CoolingLoop(
        ident,
        label=label,
        capacity=Q(kw * 1e3, f"{kw} kW"),
        flow=Q(flow, flow_text),
        devices=devices,
    )


def plan_loops(layout: Layout) -> LoopPlan | None:
    """Give ``layout``'s CDUs and rear doors their loops and the room its cooling capacity;
    None (and nothing changed) where the hall has neither."""
    analysis = Analysis(layout)
    cdus = [d.id for d in analysis.devices if d.kind == "cdu"]
    doors = [r.door.id for r in analysis.racks if r.door is not None and r.door_heat > 0]
    if not cdus and not doors:
        return None
    cold = sum(r.loop_heat for r in analysis.racks)
    door_heat = sum(r.door_heat for r in analysis.racks)
    loops = []
    if cdus:
        loops.append(_loop(FACILITY_LOOP, cold, cdus, "facility water to the CDUs"))
        loops[-1].ashrae_class = FACILITY_CLASS
    if doors:
        loops.append(_chilled_loop(door_heat, doors))
    layout.cooling_loops = loops
    room = _room_capacity(layout, analysis)
    per_door = max((r.door_heat for r in analysis.racks), default=0.0)
    return LoopPlan(cold, door_heat, room, per_door)


def _chilled_loop(heat: float, doors: list[str]) -> CoolingLoop:
    """The rear doors' chilled-water loop, at its 18 °C supply."""
    chilled = _loop(CHILLED_LOOP, heat, doors, "chilled water to the rear doors")
    chilled.kind = "chilled"
    chilled.supply_temperature = Q(CHILLED_SUPPLY_C, f"{CHILLED_SUPPLY_C:g} °C")
    return chilled


def _room_capacity(layout: Layout, analysis: Analysis) -> float:
    """Where a liquid rack leaves air heat no door takes, the room must say what it takes
    (COOL019): ``[site] cooling_capacity`` set to that heat and 10 %; the heat (W), 0 where
    the doors take it all (then nothing is stated that need not be)."""
    if not any(r.cooling == "liquid" and r.air_heat > 0 for r in analysis.racks):
        return 0.0
    room = sum(r.air_heat for r in analysis.racks)
    if layout.site is None:
        layout.site = Site()
    kw = _kw_up(room)
    layout.site.cooling_capacity = Q(kw * 1e3, f"{kw} kW")
    return room


def plan_text(plan: LoopPlan | None) -> list[str]:
    """What the header says of the loops it wrote."""
    if plan is None:
        return []
    out = []
    if plan.cold_plates:
        out.append(
            f"Liquid loops (v1.4): the CDUs hang on {FACILITY_LOOP}, {FACILITY_CLASS} facility "
            f"water (judged at 32 °C; each CDU at its rated approach above it) for "
            f"{plan.cold_plates / 1e3:,.1f} kW of cold plates, capacity and flow with 10 % "
            "spare at a 10 K rise."
        )
    if plan.doors:
        out.append(
            f"The rear doors hang on {CHILLED_LOOP}, 18 °C chilled water (above a 17 °C dew "
            f"point), for {plan.doors / 1e3:,.1f} kW: each door's coil takes up to "
            f"{plan.per_door / 1e3:,.1f} kW of its rack's residual air heat."
        )
    if plan.room:
        out.append(
            f"[site] cooling_capacity is the {plan.room / 1e3:,.1f} kW left in the room's air "
            "and 10 %: set your room's own figure (COOL006)."
        )
    return out
