"""A water loop must reject more heat than its plant's capacity.

Why it matters:
    (v1.4) Everything on a loop hands it heat: each CDU its share of its group's cold
    plates (a group's heat split over its CDUs in proportion to their capacity), each rear
    door the residual air heat its coil takes, each in-row cooler its share of its racks'
    air heat. The towers, dry coolers or chillers behind the loop reject at most its
    `capacity`. Layouts without loops, and loops without a capacity, are not judged.

Example:
    [[cooling.loops]]
    id = "fws-1"
    ashrae_class = "W32"
    capacity = "800 kW"   # one GB200 SU's cold plates put 837.6 kW on it

Fix:
    Raise the loop's capacity (the plant behind it) or move CDUs to another loop.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.liquid import plant_of
from rackdesigner.model.refs import Ref
from rackdesigner.model.units import POWER, fmt, fmt_apart
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import LOOP_READS


@rule("COOL016", "error", scope="site", reads=LOOP_READS)
def loop_over_capacity(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.layout.cooling_loops:
        return
    for state in plant_of(analysis).loops:
        capacity = state.loop.capacity
        if capacity is None or state.heat <= capacity:
            continue
        heat_text, capacity_text = fmt_apart(state.heat, float(capacity), POWER)
        parts = [
            f"{plural(len(state.cdus), 'CDU')} {fmt(state.cdu_heat, POWER)}" if state.cdus else "",
            f"{plural(len(state.doors), 'rear door')} {fmt(state.door_heat, POWER)}"
            if state.doors
            else "",
            f"{plural(len(state.inrows), 'in-row cooler')} {fmt(state.inrow_heat, POWER)}"
            if state.inrows
            else "",
        ]
        yield Finding(
            f"loop {state.loop.id}",
            Ref("loop", state.loop.id),
            f"carries {heat_text} of heat ({', '.join(p for p in parts if p)}), more than "
            f"its {capacity_text} capacity",
            hint="raise the loop's capacity or move CDUs or doors to another loop",
            values={"heat": state.heat, "capacity": float(capacity)},
        )
