"""A feed cannot carry the AC input of the power shelves on it when another side is lost.

Why it matters:
    A rack-scale rack's power shelves take the rack's AC feeds directly: each shelf has one
    AC input, on one feed (its PSUs are not split over the sides), and turns it into DC on
    the busbar. The shelves share the trays' DC load; when a feed side is lost the shelves
    left carry it all, so each draws load ÷ (shelves left), up to its rating. The feed must
    carry what its shelves then draw within its usable capacity (V × I × derate × PF, × √3
    for 3-phase: 80 % of the breaker continuously, as PWR001 counts it). Shelves go over
    the rack's feeds in order, as PDUs without a `feed` do: 8 shelves on A1, A2, B1, B2 put
    two on each feed. The shelves' conversion efficiency is not in the sources found, so
    the AC input counted is the DC they deliver: the draw is at least this.

Example:
    [[racks]]
    id = "a01"
    feeds = [
      { id = "a01-A", side = "A", voltage = "415 V", phases = 3, current = "63 A" },
      { id = "a01-B", side = "B", voltage = "415 V", phases = 3, current = "63 A" },
    ]
    # 8 nvl72-power-shelf, 4 a feed, for 100.8 kW of trays: with side B lost the 4 on
    # a01-A draw 25.2 kW each, 100.8 kW on a feed of 36.2 kW

Fix:
    Give each side more feeds (the shelves spread over them) or larger circuits: the
    gb200-superpod template gives each side two 415 V 125 A feeds.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.rack_scale import rack_dc, shelf_share
from rackdesigner.model.units import POWER, fmt, fmt_apart
from rackdesigner.model.wording import at_least, name_list, plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import (
    feeds_rating_text,
    shelf_sides,
    shelves_by_feed,
)


@rule("PWR018", "error", scope="rack", thresholds=("feed_derate", "power_factor"))
def shelf_feeds(analysis: Analysis) -> Iterator[Finding]:
    power_factor = analysis.thresholds["power_factor"]
    for rack in analysis.racks:
        if rack.index in analysis.running:
            continue  # parts lost (what-if): PWR001 judges each feed as the rack runs
        dc = rack_dc(rack)
        if dc is None or not dc.shelves or not dc.trays:
            continue
        shelves = shelves_by_feed(rack)
        if not shelves:
            continue
        per_side = shelf_sides(rack, shelves)
        on_feed: dict[int, list[str]] = {}
        for dev, facts in shelves:
            on_feed.setdefault(id(facts), []).append(dev.id)
        for facts in rack.feeds:
            names = on_feed.get(id(facts))
            if not names:
                continue
            share = shelf_share(dc, per_side, facts.group)
            if share is None:
                continue  # no shelf left to carry the load: PWR019
            draw = share * len(names)
            if draw <= facts.capacity * (1 + 1e-9):
                continue
            lost = [side for side in per_side if side != facts.group]
            when = (
                f"with side {lost[0]} lost"
                if len(lost) == 1
                else "with another side lost"
                if lost
                else "sharing the load"
            )
            bound = at_least(dc.load_unknown)
            draw_text, capacity_text = fmt_apart(draw, facts.capacity, POWER)
            yield Finding(
                f"rack {rack.rack.id} feed {facts.feed.id}",
                facts.ref,
                f"{plural(len(names), 'power shelf', 'power shelves')} on feed "
                f"{facts.feed.id} ({name_list(names)}) draw {bound}{draw_text} {when} "
                f"({fmt(share, POWER)} each of the trays' {bound}{fmt(dc.load, POWER)}; "
                f"conversion losses not counted), over its usable {capacity_text} "
                f"({feeds_rating_text([facts], power_factor)})",
                hint="give the side more feeds for its shelves, or larger circuits",
                values={"draw": draw, "capacity": facts.capacity, "share": share},
                related=tuple(dev.ref for dev, f in shelves if f is facts),
            )
