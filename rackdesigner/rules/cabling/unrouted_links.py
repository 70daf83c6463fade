"""Cables run between racks that no declared pathway joins (said once for the layout).

Why it matters:
    Where a layout declares its pathways, a cable's length is its route along them
    (docs/cable-plant.md). A rack that no tray, ladder rack or under-floor run passes over
    or under, or two groups of racks the pathways do not join, leave their cables without
    a route: their lengths fall back to the row-and-slot model (straight along the rows,
    as if a tray ran everywhere), which is shorter than what will be pulled, so the stock
    lengths, reach (CAB003) and fill (CAB006) of those cables are wrong. One finding for
    the whole layout names how many cables and rack pairs, and the first few pairs.

Example:
    [[pathways]]
    id = "tray-a"
    row = "A"          # only row A has a tray: cables from row A to row B have no route

Fix:
    Add the pathway the cables will run in: a tray over the rack's row, or a cross-aisle
    run joining the two rows' trays.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.wording import first_of, plural
from rackdesigner.rules.base import Finding, rule

SHOWN = 5


@rule("CAB007", "warning", scope="site", reads=("rack.id", "rack.row", "rack.slot"))
def unrouted_links(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.layout.pathways:
        return
    pairs = analysis.plant.unrouted()
    if not pairs:
        return
    links = sum(p.links for p in pairs)
    shown = first_of(
        [f"{p.a.id}-{p.b.id} ({p.links})" for p in pairs[:SHOWN]], SHOWN, total=len(pairs)
    )
    first = pairs[0].first
    yield Finding(
        first.entity,
        first.ref,
        f"{plural(links, 'cable')} between {plural(len(pairs), 'rack pair')} that no pathway "
        f"joins ({shown}): their lengths use the row-and-slot model, not a route",
        hint="add the pathway the cables will run in: a tray over each rack's row, a "
        "cross-aisle run between the rows' trays, or a riser between overhead and under-floor",
        values={"links": float(links), "pairs": float(len(pairs))},
    )
