"""The coolant returns warmer than a CDU or a cold-plate node takes.

Why it matters:
    (v1.4) The secondary loop warms by ΔT = P / (V̇ · ρ·cp) between supply and return: the
    cold plates' heat P over the flow the CDUs deliver (what the plates need, or the pumps'
    flow where that is less) and the fluid's volumetric heat capacity (water 4.15 MJ/m³K,
    PG25 4.01 MJ/m³K at 35 °C; a CDU's secondary is PG25 unless its type says `coolant =
    "water"`). Its return is the secondary supply plus ΔT; a node's outlet is the supply
    plus its own heat over its own flow. Above a CDU's or a node's
    `max_return_temperature` the CDU or the node is outside its rating. Layouts without
    loops are not judged.

Example:
    [catalog.my-cdu]
    kind = "cdu"
    capacity = "500 kW"
    pump_flow = "300 L/min"         # 400 kW of plates need 600 L/min: ΔT = 400 kW /
    max_return_temperature = "50 °C" # (300 L/min x 4.01 MJ/m³K) = 20 K: 35 + 20 = 55 °C

Fix:
    More flow (a CDU with larger pumps, or fewer racks on the group), or a lower secondary
    supply.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.liquid import device_flow, plant_of, rise
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import LOOP_READS


@rule(
    "COOL014",
    "error",
    scope="site",
    thresholds=("coolant_flow_per_kw",),
    reads=LOOP_READS,
)
def return_too_warm(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.layout.cooling_loops:
        return
    per_kw = analysis.thresholds["coolant_flow_per_kw"]
    for group in plant_of(analysis).groups:
        back, supply, dt = group.return_temperature, group.supply, group.delta_t
        if back is None or supply is None or dt is None:
            continue
        for cdu in group.live:
            most = cdu.type.max_return_temperature if cdu.type is not None else None
            if most is not None and back > most:
                yield Finding(
                    f"device {cdu.id}",
                    cdu.ref,
                    f"secondary returns at {back:.1f} °C ({supply:g} °C supply + "
                    f"{dt:.1f} K: {group.heat / 1000:,.1f} kW over "
                    f"{group.flow * 60000:,.0f} L/min of {group.fluid}), above the "
                    f"{float(most):g} °C its {cdu.device.model} takes",
                    hint="more flow (larger pumps, fewer racks on the group) or a lower "
                    "supply setpoint",
                    values={"return": back, "limit": float(most)},
                )
        starved = group.flow / group.flow_needed if group.flow_needed > 0 else 1.0
        for rack in group.racks:
            for dev in rack.devices:
                most = dev.type.max_return_temperature if dev.type is not None else None
                flow = device_flow(dev, per_kw) * starved
                node_dt = rise(dev.liquid_heat, flow, group.fluid)
                if most is None or node_dt is None or supply + node_dt <= most:
                    continue
                yield Finding(
                    f"device {dev.id}",
                    dev.ref,
                    f"its coolant leaves at {supply + node_dt:.1f} °C ({supply:g} °C supply "
                    f"+ {node_dt:.1f} K: {dev.liquid_heat / 1000:,.2f} kW over "
                    f"{flow * 60000:.3g} L/min), above the {float(most):g} °C its "
                    f"{dev.device.model} takes",
                    hint="more flow to its cold plates or a lower supply setpoint",
                    values={"return": supply + node_dt, "limit": float(most)},
                )
