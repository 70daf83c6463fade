"""A feed's breaker rating is not a standard circuit size for its voltage's region.

Why it matters:
    Rack PDU plugs and receptacles exist at a few ratings only, and a plug mates with
    no other: IEC 60309 at 16, 32, 63 and 125 A (230 V, 380-415 V); in North America
    20, 30, 50 and 60 A at 208 V 3-phase (NEMA L21-20 / L21-30, CS8365, IEC 60309
    60 A) and 20, 30 and 60 A at 480 V (NEMA L22-20 / L22-30, IEC 60309 60 A). A
    40 A or 50 A feed at 415 V has no PDU to plug into it: whatever is ordered sits on
    a breaker its cord was not made for (PWR014). The table of standard ratings, with
    its sources, is `assets/catalog/circuits.toml`; a voltage it does not name (200 V,
    say) is not judged.

Example:
    feeds = [ { id = "a01-A", voltage = "415 V", phases = 3, current = "40 A" } ]

Fix:
    Use the next standard rating that carries the load (63 A for 415 V above 32 A) or
    split the load over more circuits of a standard rating.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.layout_io.catalog import standard_circuits
from rackdesigner.model.units import CURRENT, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import supply


def _amps(currents: tuple[float, ...]) -> str:
    """``16, 32, 63 or 125 A``."""
    numbers = [fmt(a, CURRENT).rpartition(" ")[0] for a in currents]
    if len(numbers) == 1:
        return f"{numbers[0]} A"
    return f"{', '.join(numbers[:-1])} or {numbers[-1]} A"


@rule("PWR015", "warning", scope="rack")
def nonstandard_current(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        for facts in rack.feeds:
            feed = facts.feed
            if feed.voltage is None or feed.current is None:
                continue
            row = standard_circuits(float(feed.voltage), feed.phases)
            if row is None:
                continue
            current = float(feed.current)
            if row.standard(current):
                continue
            above = [a for a in row.currents if a > current]
            nearest = f"the next is {fmt(above[0], CURRENT)}" if above else "none is larger"
            yield Finding(
                f"rack {rack.rack.id} feed {feed.id}",
                facts.ref,
                f"feed {feed.id}'s {fmt(current, CURRENT)} breaker is not a standard "
                f"{row.region} rating for {supply(feed)} ({_amps(row.currents)}): no PDU plug "
                "is made for it",
                hint=f"use a standard rating ({nearest}) or split the load over more "
                "circuits of one",
                values={"current": current, **({"next": above[0]} if above else {})},
            )
