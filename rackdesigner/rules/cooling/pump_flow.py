"""A CDU group's pumps give less flow than its cold plates need.

Why it matters:
    (v1.4) Cold plates are rated at a coolant flow: their type's `coolant_flow`, else
    `coolant_flow_per_kw` of their liquid heat (OCP's guidance is about 1.5 L/min per kW,
    a rise of 10 K or less; vendors size 1.2-1.5). A CDU group's secondary flow is its
    CDUs' `pump_flow` together; less than the sum over its racks' cold plates starves the
    plates farthest along the manifold, and they run hot (the secondary's temperature rise
    grows as the flow falls, COOL014). Only groups whose every CDU gives a pump flow are
    judged; layouts without loops are not.

Example:
    [catalog.my-cdu]
    kind = "cdu"
    capacity = "2000 kW"
    pump_flow = "2125 L/min"   # two of them: 4,250 L/min for 2.9 MW of cold plates,
                               # which need 2,900 x 1.5 = 4,350 L/min

Fix:
    Add a CDU to the group, move racks to another group, or give the cold plates' own
    `coolant_flow` where their datasheet needs less.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.liquid import plant_of
from rackdesigner.model.units import FLOW, POWER, fmt, fmt_apart
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import LOOP_READS, rack_list


@rule(
    "COOL013",
    "error",
    scope="site",
    thresholds=("coolant_flow_per_kw",),
    reads=LOOP_READS,
)
def pump_flow_short(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.layout.cooling_loops:
        return
    for group in plant_of(analysis).groups:
        pump = group.pump_flow
        if pump is None or group.flow_needed <= pump or not group.live:
            continue
        cdu = group.load.cdu
        need_text, pump_text = fmt_apart(group.flow_needed, pump, FLOW)
        racks = [r for r in group.racks if r.loop_heat > 0]
        who = f"CDU {cdu.id}" if len(group.live) == 1 else f"CDU group of {cdu.id}"
        yield Finding(
            f"device {cdu.id}",
            cdu.ref,
            f"{who} pumps {pump_text}; the cold plates of {plural(len(racks), 'rack')} "
            f"({rack_list(racks)}, {fmt(group.heat, POWER)}) need {need_text}",
            hint="add a CDU to the group or move racks to another one",
            values={"flow_needed": group.flow_needed, "pump_flow": pump},
            related=tuple(r.ref for r in racks),
        )
