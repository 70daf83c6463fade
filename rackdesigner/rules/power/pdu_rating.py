"""A side's PDUs are rated below what the side carries, or a PDU is rated above its feed.

Why it matters:
    A PDU is a limit of its own: its `capacity` is its continuous rating (the vendor's;
    European 32 A units carry their full current, North American units 80 % of their
    plug). With k ≥ 2 sides each side must carry load ÷ (k − 1) when another side is
    lost, and the PDUs on its feeds must be rated for that together; without sides the
    rack's PDUs carry its whole load. A PDU rated above its feed's rating (V × I × PF,
    × √3 for 3-phase, no derate) was built for a larger circuit: its plug does not fit
    the receptacle, and its branch breakers cannot trip before the feed's. A PDU sits
    on the feed its `feed` names; PDUs without one go over the rack's feeds in order.
    Racks that list no PDUs, and sides with a PDU of unknown rating, are not judged.

Example:
    [[racks]]
    id = "a01"
    feeds = [
      { id = "a01-A", side = "A", voltage = "415 V", phases = 3, current = "63 A" },
      { id = "a01-B", side = "B", voltage = "415 V", phases = 3, current = "63 A" },
    ]

    [[racks.devices]]
    id = "a01-pdu-A"
    model = "pdu-3ph-415v-32a"   # APC AP8886, 22 kW, for a 25 kW rack
    feed = "a01-A"

Fix:
    Add a PDU on the side or use a larger one (within the circuit's rating), and match
    each PDU to its circuit: a 32 A PDU on a 32 A circuit.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts, FeedFacts
from rackdesigner.analysis.failures import RackPower
from rackdesigner.analysis.power_sides import feed_rating
from rackdesigner.model.units import CURRENT, POWER, fmt, fmt_apart
from rackdesigner.model.wording import at_least
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import (
    estimated_text,
    pdus_by_feed,
    pf_text,
    side_groups,
    supply,
)


def _running_side(
    running: RackPower, pdus: list[tuple[DeviceFacts, FeedFacts]], label: str
) -> tuple[list[DeviceFacts], float]:
    """A side's working PDUs (on live feeds, not failed) and the W its live feeds carry."""
    feeds = running.rack.feeds
    live = {i for key in running.keys if not label or key == label for i in running.live_feeds(key)}
    members = [
        d
        for d, f in pdus
        if (not label or f.group == label)
        and d.id not in running.failed
        and any(feeds[i] is f for i in live)
    ]
    return members, sum(running.feed_load.get(i, 0.0) for i in live)


def _side_name(label: str) -> str:
    return f"side {label}'s PDUs" if label else "its PDUs"


@rule("PWR011", "error", scope="rack", thresholds=("power_factor",))
def pdu_rating(analysis: Analysis) -> Iterator[Finding]:
    power_factor = analysis.thresholds["power_factor"]
    for rack in analysis.racks:
        pdus = pdus_by_feed(rack)
        if not pdus:
            continue
        running = analysis.running.get(rack.index)
        labels, share = side_groups(rack)
        carried = rack.load * share
        for label in labels:
            members = [d for d, f in pdus if not label or f.group == label]
            if running is not None:  # parts lost (what-if): the side as it runs
                members, carried = _running_side(running, pdus, label)
                lost = f" it carries with {running.lost_text()}"
            else:
                lost = " it carries with another side lost" if label else " the rack draws"
            ratings = [d.type.capacity if d.type is not None else None for d in members]
            if any(r is None for r in ratings) or not members:
                continue
            rating = sum(float(r) for r in ratings if r is not None)
            if carried <= rating:
                continue
            load_text, rating_text = fmt_apart(carried, rating, POWER)
            yield Finding(
                f"rack {rack.rack.id}",
                rack.ref,
                f"{_side_name(label)} are rated {rating_text} in all, below the "
                f"{at_least(rack.load_unknown)}{load_text}{estimated_text(rack.estimated_power)}"
                f"{lost}",
                hint=f"add a PDU on {'side ' + label if label else 'the rack'} or use a "
                "larger one (within its circuit's rating)",
                values={"rating": rating, "load": carried},
                related=tuple(d.ref for d in members),
            )
        for dev, feed in pdus:
            if dev.type is None or dev.type.capacity is None:
                continue
            rating = float(dev.type.capacity)
            limit = feed_rating(feed.feed, power_factor)
            if rating <= limit * (1 + 1e-9):
                continue
            rating_text, limit_text = fmt_apart(rating, limit, POWER)
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"{dev.device.model} is rated {rating_text}, above the {limit_text} rating "
                f"of feed {feed.feed.id} ({supply(feed.feed)} "
                f"{fmt(float(feed.feed.current or 0.0), CURRENT)}{pf_text(power_factor)}): "
                "it is built for a larger circuit",
                hint="use a PDU made for the circuit (its plug fits the receptacle), or "
                "feed it from the circuit it is made for",
                values={"rating": rating, "feed_rating": limit},
                related=(feed.ref,),
            )
