"""A liquid rack's residual air heat has nowhere to go.

Why it matters:
    (v1.4) Cold plates take most of a liquid rack's heat, not all of it: fans, NICs,
    drives and power conversion stay in the air (an NVL72 rack leaves about 20 kW). That
    residue needs a place: a rear door's coil (`door`), an in-row cooler (`inrow`), or the
    room's air handlers, whose capacity the site states (`[site] cooling_capacity`,
    COOL006). A liquid rack whose residue no door or in-row cooler takes whole, in a site
    that states no room capacity, sends heat nowhere anyone has sized. Layouts without
    loops are not judged.

Example:
    [[racks]]
    id = "r01"
    cooling = "liquid"    # 18 GB200 trays: 18.2 kW to the air, no door, no in-row
                          # cooler, and [site] gives no cooling_capacity

Fix:
    Give the rack a rear door (`door`) or an in-row cooler (`inrow`), or state the room's
    air cooling in `[site] cooling_capacity` (COOL006 then checks it).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.liquid import inrow_taken
from rackdesigner.model.units import POWER, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import LOOP_READS


@rule(
    "COOL019",
    "warning",
    scope="site",
    reads=LOOP_READS,
)
def air_residue_nowhere(analysis: Analysis) -> Iterator[Finding]:
    layout = analysis.layout
    if not layout.cooling_loops:
        return
    if layout.site is not None and layout.site.cooling_capacity is not None:
        return
    taken = inrow_taken(analysis)
    for rack in analysis.racks:
        if rack.cooling != "liquid":
            continue
        left = rack.air_heat - taken.get(rack.index, 0.0)
        if left <= 0.5:  # a rounding's worth
            continue
        door = f" (its rear door takes {fmt(rack.door_heat, POWER)})" if rack.door_heat else ""
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"{fmt(left, POWER)} of residual air heat goes nowhere{door}: no rear door or "
            "in-row cooler takes it and [site] states no cooling_capacity for the room",
            hint="add a rear door or an in-row cooler, or state the room's cooling_capacity",
            values={"air_heat": left},
        )
