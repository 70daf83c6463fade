"""The racks put more heat into the room's air than the site's cooling capacity.

Why it matters:
    Whatever heat the liquid loops and rear doors do not take leaves through the room's
    air handlers, and `site.cooling_capacity` is what they remove. The total is the sum
    of every rack's residual air heat: all heat of air-cooled racks, the share the cold
    plates leave in liquid racks, what exceeds a rear door's capacity. (v1.4) What
    in-row coolers take (COOL020) goes to their chilled water, not the room's air.

Example:
    [site]
    cooling_capacity = "30 kW"   # three air-cooled racks of 12 kW each: 36 kW

Fix:
    Move racks to liquid cooling or rear doors, or raise the room's cooling capacity.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.liquid import inrow_taken
from rackdesigner.model.refs import SITE
from rackdesigner.model.units import POWER, fmt
from rackdesigner.model.wording import at_least
from rackdesigner.rules.base import Finding, rule


@rule("COOL006", "error", scope="site", reads=("rack.cooling", "rack.door", "rack.inrow"))
def room_air_heat(analysis: Analysis) -> Iterator[Finding]:
    site = analysis.layout.site
    if site is None or site.cooling_capacity is None:
        return
    capacity = float(site.cooling_capacity)
    # Without in-row coolers the total is the racks' air heat alone: whether it stays
    # within the capacity is told without a pass over every rack where it can be (a failed
    # layout's, from the layout's sum: Analysis.racks_sum_above).
    if not analysis.names_inrows() and not analysis.racks_sum_above("air_heat", capacity):
        return
    # (v1.4) What in-row coolers take goes to their chilled water, not the room's air.
    total = sum(r.air_heat for r in analysis.racks) - sum(inrow_taken(analysis).values())
    if total <= capacity:
        return
    bound = at_least(analysis.site_load_unknown)
    yield Finding(
        "[site]",
        SITE,
        f"the racks put {bound}{fmt(total, POWER)} of heat into the room's air, "
        f"more than its cooling_capacity {fmt(capacity, POWER)}",
        hint="move racks to liquid cooling or rear doors, or raise the room's cooling capacity",
        values={"air_heat": total, "cooling_capacity": capacity},
    )
