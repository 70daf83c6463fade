"""A rack draws more than its feeds can carry, or holds powered devices and has no feed.

Why it matters:
    A breaker may carry only part of its rating continuously: 80 % by default
    (`feed_derate`, or `derate` on a feed). A feed's usable capacity is
    V × I × derate × PF, × √3 for 3-phase (V line-to-line; PF is `power_factor`,
    1.0 by default: a feed of S kVA delivers S × PF kW): 36.2 kW for 415 V 3-phase 63 A.
    Feeds with a `side` ("A", "B", "C", any short label) are redundant: with k ≥ 2
    sides the rack must run with any one side lost. Its PSUs are spread evenly over
    the sides, so each remaining side carries load ÷ (k − 1), and the rack's capacity
    is (k − 1) × its smallest side's capacity: with two sides the smaller side alone,
    with three 18.4 kW sides 36.8 kW. With one side label or none the feeds add up; a
    feed without a side beside sided feeds counts for no side (PWR013). A rack of
    powered devices without any feed cannot run.

Example:
    [[racks]]
    id = "a01"
    feeds = [
      { id = "a01-A", side = "A", voltage = "415 V", phases = 3, current = "63 A" },
      { id = "a01-B", side = "B", voltage = "415 V", phases = 3, current = "63 A" },
    ]
    # four DGX H100 at 10.2 kW = 40.8 kW; each side gives 36.2 kW

Fix:
    Move load to another rack, or raise the capacity: a larger circuit, or another feed
    on each side.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import POWER, fmt, fmt_apart
from rackdesigner.model.wording import at_least, plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import estimated_text, feeds_rating_text


@rule("PWR001", "error", scope="rack", thresholds=("feed_derate", "power_factor"))
def load_over_capacity(analysis: Analysis) -> Iterator[Finding]:
    power_factor = analysis.thresholds["power_factor"]
    for rack in analysis.racks:
        load = rack.load
        bound = at_least(rack.load_unknown)
        estimated = estimated_text(rack.estimated_power)
        entity = f"rack {rack.rack.id}"
        if rack.capacity is None:  # no feeds
            if load <= 0 and not rack.load_unknown:
                continue
            powered = sum(
                1
                for d in rack.devices
                if (d.power is None and d.type is not None) or (d.power or 0) > 0
            )
            amount = "unknown" if load <= 0 else f"{bound}{fmt(load, POWER)}{estimated}"
            yield Finding(
                entity,
                rack.ref,
                f"has no feed for its {plural(powered, 'powered device')} (load {amount})",
                hint='add feeds = [ { id = "...", voltage = "415 V", phases = 3, '
                'current = "63 A" } ] (one per side for redundancy)',
                values={"load": load, "capacity": 0.0},
            )
            continue
        capacity = rack.capacity
        if load <= capacity:
            continue
        k = len(rack.side_capacity)
        if k >= 2:
            side = min(rack.side_capacity, key=lambda s: rack.side_capacity[s])
            feeds = [f for f in rack.feeds if f.group == side]
        else:
            side = ""
            labels = {f.group for f in rack.feeds if f.group}
            # One side label: feeds without it count for no side (PWR013).
            feeds = [f for f in rack.feeds if f.group or not labels]
        rating = feeds_rating_text(feeds, power_factor)
        if k == 2:
            detail = f"; side {side} alone must carry it: {rating}"
            more = "another feed on each side"
        elif k > 2:
            side_text = fmt(rack.side_capacity[side], POWER)
            detail = (
                f"; with any one of its {k} sides lost the other {k - 1} must carry it, at "
                f"most {k - 1} × {side_text} (side {side}: {rating})"
            )
            more = "another feed on each side"
        else:
            detail = f" ({rating})"
            more = "another feed"
        load_text, capacity_text = fmt_apart(load, capacity, POWER)
        yield Finding(
            entity,
            rack.ref,
            f"load {bound}{load_text}{estimated} exceeds usable feed capacity "
            f"{capacity_text}{detail}",
            hint=f"move {at_least(rack.load_unknown)}{fmt(load - capacity, POWER)} "
            f"of load to another rack, or raise the capacity (a larger "
            f"circuit or {more})",
            values={"load": load, "capacity": capacity},
        )
