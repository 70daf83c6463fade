"""A rack's power shelves cannot carry its rack-scale trays with one shelf lost.

Why it matters:
    In a GB200 or GB300 NVL72 rack the trays take no PDU cord: power shelves turn the
    rack's AC into DC on the busbar. The reference rack has 8 shelves of six 5.5 kW
    PSUs, 33 kW each (BCM; NVL72 AI Factory RA), for a rack of up to 142 kW. A shelf can
    fail or be serviced; with one lost the others must still carry the trays (N+1), or
    the trays throttle or drop. On a layout a failure leaves (`rackdesigner whatif`) a
    rack whose shelves went with their feeds is judged by the shelves left: an error where
    they cannot carry the trays, a warning ("redundancy lost") where one more lost would
    leave them short.

Example:
    [[racks]]
    id = "a01"
    # 18 gb200-compute-tray (5.4 kW) and 9 nvl72-switch-tray (0.4 kW): 100.8 kW
    # 4 nvl72-power-shelf (33 kW): 99 kW with one lost

Fix:
    Fit more power shelves (the reference rack has 8), or fewer trays.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, RackFacts
from rackdesigner.analysis.failures import RackPower
from rackdesigner.analysis.rack_scale import RackDc, rack_dc
from rackdesigner.model.units import POWER, fmt
from rackdesigner.model.wording import at_least, plural
from rackdesigner.rules.base import Finding, rule


@rule("PWR016", "error", scope="rack", severities=("error", "warning"))
def power_shelves(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        dc = rack_dc(rack)
        if dc is None or not dc.trays or not dc.shelves:
            continue
        running = analysis.running.get(rack.index)
        if running is not None and running.shelves_live < len(running.shelves):
            found = _running(rack, dc, running)
            if found is not None:
                yield found
            continue
        capacity, one_lost = dc.capacity, dc.capacity_one_lost
        if capacity is None or one_lost is None or dc.load <= one_lost:
            continue
        bound = "at least " if dc.load_unknown else ""
        n = len(dc.shelves)
        if dc.load > capacity:
            text = (
                f"rack-scale trays draw {bound}{fmt(dc.load, POWER)}, more than its "
                f"{n} power shelves deliver ({fmt(capacity, POWER)})"
            )
        else:
            text = (
                f"rack-scale trays draw {bound}{fmt(dc.load, POWER)}; with one of its {n} "
                f"power shelves lost the rest deliver {fmt(one_lost, POWER)} (N+1)"
            )
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            text,
            hint="fit more power shelves (the NVL72 reference rack has 8 of 33 kW)",
            values={"load": dc.load, "capacity": capacity, "one_lost": one_lost},
        )


def _running(rack: RackFacts, dc: RackDc, running: RackPower) -> Finding | None:
    """A rack whose shelves were lost with their feeds (what-if): an error where those left
    cannot carry the trays (they are capped), a warning where one more lost would leave too
    little: the failure used the shelves' redundancy up."""
    rating = running.shelf_rating
    if rating is None:
        return None
    live, total = running.shelves_live, len(running.shelves)
    capacity, one_lost = live * rating, (live - 1) * rating if live else 0.0
    bound = at_least(dc.load_unknown)
    lost = running.lost_text()
    head = (
        f"with {lost}, {total - live} of its {plural(total, 'power shelf', 'power shelves')} "
        f"are out and the {live} left deliver {fmt(capacity, POWER)}"
    )
    values = {"load": dc.load, "capacity": capacity, "one_lost": one_lost}
    if dc.load > capacity * (1 + 1e-9):
        return Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"{head}, less than the trays' {bound}{fmt(dc.load, POWER)}",
            hint="restore what was lost, or take trays out of service",
            values=values,
        )
    if dc.load <= one_lost * (1 + 1e-9):
        return None
    return Finding(
        f"rack {rack.rack.id}",
        rack.ref,
        f"redundancy lost: {head} for the trays' {bound}{fmt(dc.load, POWER)}; one more "
        f"lost would leave {fmt(one_lost, POWER)}",
        hint=f"restore what was lost ({lost}) before another shelf fails",
        values=values,
        severity="warning",
    )
