"""A rack dense enough for liquid cooling is cooled by air only.

Why it matters:
    The field guide's advice is direct-to-chip liquid cooling for 20 kW and more per
    rack: a single 8-GPU node draws 10-14 kW, so two of them in one air-cooled rack are
    past what air handles well. Rear-door racks are checked by COOL007 instead.

Example:
    [[racks]]
    id = "a01"
    cooling = "air"     # four DGX H100: 40.8 kW

Fix:
    Set `cooling = "liquid"` with `cdu = "<CDU device id>"` (or `cooling = "rear-door"`
    with a door), or spread the nodes over more racks.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import POWER, fmt
from rackdesigner.model.wording import at_least
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import cooling_hint


@rule("COOL002", "warning", scope="rack", thresholds=("liquid_cooling_min",))
def dense_rack_on_air(analysis: Analysis) -> Iterator[Finding]:
    limit = analysis.thresholds["liquid_cooling_min"]
    for rack in analysis.racks:
        if rack.cooling != "air" or rack.heat <= limit:
            continue
        bound = at_least(rack.load_unknown)
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"{bound}{fmt(rack.heat, POWER)} of heat is above the "
            f"{fmt(limit, POWER)} where liquid cooling is expected, and the rack "
            "is cooled by air only",
            hint=f"{cooling_hint(rack)}, or spread the load over more racks",
            values={"heat": rack.heat, "limit": limit},
        )
