"""A water loop's flow is too small for its heat: its water would return warmer than what
it cools.

Why it matters:
    (v1.4) A loop's water warms by ΔT = P / (V̇ · ρ·cp) carrying its heat P at its `flow`
    (water 4.15 MJ/m³K; PG25 4.01 MJ/m³K). In a CDU's heat exchanger the facility water
    leaves at most as warm as the secondary coolant that enters it (heat flows only from
    warm to cold): a facility return at or above the coolest secondary return on the loop
    cannot be, and the CDUs fall short of their rating long before. Loops without a flow,
    or with no CDU whose return is known, are not judged; neither are layouts without
    loops.

Example:
    [[cooling.loops]]
    id = "fws-1"
    supply_temperature = "30 °C"
    flow = "600 L/min"   # 837.6 kW over 600 L/min of water: ΔT = 20.2 K, back at
                         # 50.2 °C, warmer than the secondary's 45 °C return

Fix:
    Give the loop more flow (pumps, pipe), or move CDUs to another loop.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.liquid import plant_of
from rackdesigner.model.refs import Ref
from rackdesigner.model.units import FLOW, POWER, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import LOOP_READS


@rule(
    "COOL017",
    "error",
    scope="site",
    thresholds=("coolant_flow_per_kw",),
    reads=LOOP_READS,
)
def loop_flow_short(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.layout.cooling_loops:
        return
    for state in plant_of(analysis).loops:
        back, limit, flow = state.return_temperature, state.secondary_return, state.loop.flow
        if back is None or limit is None or flow is None or back < limit:
            continue
        supply = state.supply or 0.0
        yield Finding(
            f"loop {state.loop.id}",
            Ref("loop", state.loop.id),
            f"{fmt(state.heat, POWER)} over {fmt(float(flow), FLOW)} of "
            f"{state.loop.loop_fluid} warms it {back - supply:.1f} K, back at {back:.1f} °C: "
            f"not below the {limit:.1f} °C secondary return of its CDUs, which no heat "
            "exchanger can do",
            hint="give the loop more flow, or move CDUs to another loop",
            values={"return": back, "secondary_return": limit, "flow": float(flow)},
        )
