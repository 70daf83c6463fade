"""A pathway's fittings bend tighter than a cable in it may be bent.

Why it matters:
    Fibre bent tighter than its minimum radius loses light at the bend (micro- and
    macro-bending) or cracks; high-speed copper bent too tight changes its impedance and
    its signal degrades. Where a pathway declares `bend_radius` (the inside radius of its
    bends, drops and waterfalls), every cable that runs in it must tolerate that radius.
    A cable's minimum is the media table's `bend_radius`: high-speed copper 5 x its
    diameter, fibre 10 x, twisted pair 4 x (installation guides' multiples, media.toml);
    a trunk's 10 x its diameter. Pathways without `bend_radius` are not judged.

Example:
    [[pathways]]
    id = "tray-a"
    row = "A"
    width = "300 mm"
    depth = "100 mm"
    bend_radius = "25 mm"   # a 400G DAC (9.43 mm) needs 47 mm

Fix:
    Use fittings with a larger radius (a waterfall or a radiused drop-out), or keep the
    stiffer cables out of that pathway.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.plant import trunk_bend_radius
from rackdesigner.model.refs import Ref
from rackdesigner.model.units import LENGTH, fmt
from rackdesigner.rules.base import Finding, rule


@rule("CAB009", "warning", scope="site", reads=("rack.id", "rack.row", "rack.slot"))
def bend_radius(analysis: Analysis) -> Iterator[Finding]:
    declared = {p.id: p for p in analysis.layout.pathways if p.bend_radius is not None}
    if not declared:
        return
    plant = analysis.plant
    worst: dict[str, tuple[float, str]] = {}  # pathway -> (radius needed, by what)
    for route in plant.routes():
        row = plant.medium_of(route.facts)
        needed = row.bend_radius if row is not None else None
        if needed is None:
            continue
        for run in route.runs:
            if run.kind == "trunk":
                continue
            for leg in run.legs:
                if leg.pathway in declared and needed > worst.get(leg.pathway, (0.0, ""))[0]:
                    worst[leg.pathway] = (
                        needed,
                        f"{route.facts.link.media} cable {route.facts.link.name}",
                    )
    for trunk, run in plant.trunk_runs():
        needed = trunk_bend_radius(trunk)
        for leg in run.legs:
            if leg.pathway in declared and needed > worst.get(leg.pathway, (0.0, ""))[0]:
                worst[leg.pathway] = (needed, f"trunk {trunk.id}")
    for pathway_id, pathway in declared.items():
        found = worst.get(pathway_id)
        radius = float(pathway.bend_radius or 0.0)
        if found is None or found[0] <= radius + 1e-9:
            continue
        yield Finding(
            f"pathway {pathway_id}",
            Ref("pathway", pathway_id),
            f"bends at {fmt(radius, LENGTH)}, tighter than the {fmt(found[0], LENGTH)} its "
            f"{found[1]} may be bent to",
            hint="use fittings of a larger radius, or keep the stiffer cables out of it",
            values={"bend_radius": radius, "needed": found[0]},
        )
