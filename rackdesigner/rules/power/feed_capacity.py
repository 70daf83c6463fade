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

    On a layout a failure leaves (`rackdesigner whatif`, docs/whatif.md) a rack that has
    lost feeds is judged as it runs: an error where a live feed must carry more than its
    usable capacity, else a warning, "redundancy lost", where losing one more side would
    trip a feed or take devices down (the side whose loss costs the most is named).

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

from rackdesigner.analysis import Analysis, RackFacts
from rackdesigner.analysis.failures import RackPower, next_loss
from rackdesigner.model.units import POWER, fmt, fmt_apart
from rackdesigner.model.wording import at_least, plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import (
    estimated_text,
    feeds_rating_text,
    name_list,
    next_loss_text,
    overload_text,
    running_sides,
)


@rule(
    "PWR001",
    "error",
    scope="rack",
    thresholds=("feed_derate", "power_factor"),
    severities=("error", "warning"),
)
def load_over_capacity(analysis: Analysis) -> Iterator[Finding]:
    power_factor = analysis.thresholds["power_factor"]
    for rack in analysis.racks:
        running = analysis.running.get(rack.index)
        if running is not None:
            found = _running(rack, running)
        elif rack.capacity is None:  # no feeds
            found = _no_feed(rack)
        else:
            found = _over(rack, rack.capacity, power_factor)
        if found is not None:
            yield found


def _no_feed(rack: RackFacts) -> Finding | None:
    load = rack.load
    if load <= 0 and not rack.load_unknown:
        return None
    powered = sum(
        1 for d in rack.devices if (d.power is None and d.type is not None) or (d.power or 0) > 0
    )
    bound = at_least(rack.load_unknown)
    estimated = estimated_text(rack.estimated_power)
    amount = "unknown" if load <= 0 else f"{bound}{fmt(load, POWER)}{estimated}"
    return Finding(
        f"rack {rack.rack.id}",
        rack.ref,
        f"has no feed for its {plural(powered, 'powered device')} (load {amount})",
        hint='add feeds = [ { id = "...", voltage = "415 V", phases = 3, '
        'current = "63 A" } ] (one per side for redundancy)',
        values={"load": load, "capacity": 0.0},
    )


def _over(rack: RackFacts, capacity: float, power_factor: float) -> Finding | None:
    load = rack.load
    if load <= capacity:
        return None
    bound = at_least(rack.load_unknown)
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
    return Finding(
        f"rack {rack.rack.id}",
        rack.ref,
        f"load {bound}{load_text}{estimated_text(rack.estimated_power)} exceeds usable feed "
        f"capacity {capacity_text}{detail}",
        hint=f"move {bound}{fmt(load - capacity, POWER)} "
        f"of load to another rack, or raise the capacity (a larger "
        f"circuit or {more})",
        values={"load": load, "capacity": capacity},
    )


def _running(rack: RackFacts, running: RackPower) -> Finding | None:
    """A rack running with feeds or PDUs lost (what-if): an error where a live feed must
    carry more than it delivers (the devices on it capped), else a warning where losing one
    more side would cost something: the failure used its redundancy up."""
    lost = running.lost_text()
    entity = f"rack {rack.rack.id}"
    if running.overloads:
        over = running.overloads
        return Finding(
            entity,
            rack.ref,
            f"with {lost} it runs on {running_sides(running)}: "
            f"{name_list([overload_text(o) for o in over])} must carry more than "
            "it delivers",
            hint="restore what was lost, or move load off the rack",
            values={"load": max(o.load for o in over), "capacity": over[0].capacity},
        )
    nxt = next_loss(running)
    if nxt is None:
        return None
    load_text, capacity_text = fmt_apart(rack.load, rack.capacity or 0.0, POWER)
    return Finding(
        entity,
        rack.ref,
        f"redundancy lost: with {lost} it runs on {running_sides(running)} "
        f"({at_least(rack.load_unknown)}{load_text} on {capacity_text} usable); "
        f"{next_loss_text(nxt)}",
        hint=f"restore what was lost ({lost}) before anything else fails, or move load "
        "off the rack",
        values={"load": rack.load, "capacity": rack.capacity or 0.0, "gpus": float(nxt.gpus)},
        severity="warning",
    )
