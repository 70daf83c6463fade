"""A liquid-cooled rack has no CDU, names a device that is not one, or its CDUs are too
small.

Why it matters:
    The cold plates hand their heat to a coolant loop, and coolant distribution units
    (CDUs) move it to facility water. Every liquid-cooled rack needs one (`cdu`); `cdu`
    may also list the CDUs that serve the rack together (`cdu = ["cdu-1", "cdu-2"]`).
    A CDU group is the CDUs racks name together (lists that share a CDU join), and its
    capacity with all its CDUs working must carry the liquid heat of every rack it
    serves. A rack's liquid heat is `liquid_fraction` of each device with cold plates;
    all of it in an immersion rack. Whether the group survives losing one CDU is
    COOL009. (v1.4) Where the layout declares water loops, each CDU counts its capacity
    at the approach it runs at (COOL012; a CDU not rated there leaves its group unjudged).

Example:
    [[racks]]
    id = "b01"
    cooling = "liquid"
    cdu = "b01-cdu"      # a CoolIT CHx80 (80 kW) in the rack, which holds eight 4U
                         # liquid-cooled HGX B200 nodes: 0.72 x 8 x 12.5 kW = 72 kW;
                         # a second rack like it on the same CDU makes 144 kW

    [[racks]]
    id = "b02"
    cooling = "liquid"   # no cdu

Fix:
    Point every liquid rack at devices of kind "cdu" (`cdu = "<device id>"` or a list),
    and give each CDU group no more racks than its capacity carries (add a CDU or use a
    larger one).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.liquid import group_capacities
from rackdesigner.model.units import POWER, fmt_apart
from rackdesigner.model.wording import at_least, first_of, plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import cdu_names, reference_problem


@rule(
    "COOL003",
    "error",
    scope="site",
    reads=("rack.cooling", "rack.cdu", "rack.door"),
    parts=("racks", "cdu_loads"),
)
def cdu_problems(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        entity = f"rack {rack.rack.id}"
        names = rack.rack.cdus
        if not names:
            if rack.cooling == "liquid":
                yield Finding(
                    entity,
                    rack.ref,
                    "is liquid-cooled but names no CDU",
                    hint='add `cdu = "<device id>"` naming the CDU that serves it',
                )
            continue
        for name, device in zip(names, rack.cdus, strict=False):
            problem = reference_problem("cdu", name, device, "cdu", "a CDU")
            if problem is not None:
                yield Finding(
                    entity,
                    rack.ref,
                    problem,
                    hint='name a device of kind "cdu" (coolit-chx80 in the rack, '
                    "coolit-chx750 for a row)",
                    related=(device.ref,) if device is not None else (),
                )
    loops = analysis.loops
    for load in analysis.cdu_loads:
        capacities = group_capacities(load, loops)
        capacity = None if capacities is None else sum(capacities)
        if capacity is None or load.heat <= capacity:
            continue
        racks = load.racks
        served = first_of([r.rack.id for r in racks], 5)
        cdu = load.cdu
        heat_text, capacity_text = fmt_apart(load.heat, capacity, POWER)
        who = "CDU" if len(load.cdus) == 1 else f"CDU group {cdu_names(load)}"
        all_working = "" if len(load.cdus) == 1 else " with all its CDUs working"
        if load.lost:  # (what-if) the CDUs left
            all_working = f" with {', '.join(sorted(load.lost))} failed"
        yield Finding(
            f"device {cdu.id}",
            cdu.ref,
            f"{who} serves {plural(len(racks), 'rack')} ({served}) with "
            f"{at_least(load.heat_unknown)}{heat_text} of liquid heat, "
            f"more than its {capacity_text} capacity{all_working}",
            hint="move some racks to another CDU or add a CDU to the group",
            values={"heat": load.heat, "capacity": capacity, "racks": float(len(racks))},
            related=tuple(c.ref for c in load.cdus[1:]) + tuple(r.ref for r in racks),
        )
