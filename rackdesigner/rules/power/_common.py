"""What the power rules share: how they word feeds, ratings and lists, and which PDU sits on
which feed.

The wording is part of the findings (people read it and golden files hold it), so every
rule says a feed's supply, a rating or "(estimated)" the same way.
"""

from __future__ import annotations

from collections.abc import Iterable

from rackdesigner.analysis import DeviceFacts, FeedFacts, RackFacts
from rackdesigner.analysis.failures import NextLoss, Overload, RackPower
from rackdesigner.analysis.power_chain import ElementFacts
from rackdesigner.analysis.power_sides import pdu_feeds
from rackdesigner.analysis.rack_scale import shelves_per_side
from rackdesigner.model.layout import Feed
from rackdesigner.model.units import CURRENT, POWER, VOLTAGE, fmt, fmt_apart
from rackdesigner.model.wording import name_list, plural

VOLTAGE_SLACK = 1e-6  # V: float dust when an outlet voltage equals a range limit


def estimated_text(estimated: bool) -> str:
    return " (estimated)" if estimated else ""


def supply(feed: Feed) -> str:
    """``415 V 3-phase``, ``230 V single-phase``."""
    phases = "3-phase" if feed.phases == 3 else "single-phase"
    return f"{fmt(float(feed.voltage or 0.0), VOLTAGE)} {phases}"


def voltage_range(low: float, high: float) -> str:
    """``200-240 V``; ``480 V`` where both ends are one voltage."""
    a, b = fmt(low, VOLTAGE), fmt(high, VOLTAGE)
    if a == b:
        return a
    unit_a, unit_b = a.rpartition(" ")[2], b.rpartition(" ")[2]
    return f"{a.rpartition(' ')[0]}-{b}" if unit_a == unit_b else f"{a}-{b}"


def pf_text(power_factor: float) -> str:
    return "" if power_factor == 1.0 else f" × PF {power_factor:g}"


def _feed_rating(facts: FeedFacts, power_factor: float = 1.0) -> str:
    """``415 V 3-phase 63 A × 0.8`` (``× PF 0.95`` where the power factor is not 1)."""
    return (
        f"{supply(facts.feed)} {fmt(float(facts.feed.current or 0.0), CURRENT)} × "
        f"{facts.derate:g}{pf_text(power_factor)}"
    )


def feeds_rating_text(feeds: Iterable[FeedFacts], power_factor: float = 1.0) -> str:
    """The feeds of one side: ``2 × 415 V 3-phase 63 A × 0.8 + 208 V 3-phase 30 A × 0.8``."""
    counts: dict[str, int] = {}
    for facts in feeds:
        text = _feed_rating(facts, power_factor)
        counts[text] = counts.get(text, 0) + 1
    return " + ".join(text if n == 1 else f"{n} × {text}" for text, n in counts.items())


def outlet_source(facts: FeedFacts) -> str:
    """Where a feed's outlet voltage comes from: ``480 V 3-phase wye``."""
    feed = facts.feed
    if feed.outlet_voltage is not None:
        return f"outlet_voltage of a {supply(feed)} feed"
    return f"{supply(feed)} {facts.wiring}" if facts.wiring else supply(feed)


def pdus_by_feed(rack: RackFacts) -> list[tuple[DeviceFacts, FeedFacts]]:
    """The rack's PDUs (kind pdu) and the feed each is on (rules.md v1.1, PSUs and PDUs)."""
    return on_feeds(rack, [d for d in rack.devices if d.kind == "pdu"])


def shelves_by_feed(rack: RackFacts) -> list[tuple[DeviceFacts, FeedFacts]]:
    """The rack's power shelves and the feed each one's AC input is on: like PDUs, over
    the rack's feeds in order (a shelf has one AC input; docs/rack-scale.md, Power)."""
    return on_feeds(rack, [d for d in rack.devices if d.type is not None and d.type.is_power_shelf])


def on_feeds(rack: RackFacts, devices: list[DeviceFacts]) -> list[tuple[DeviceFacts, FeedFacts]]:
    """Each of ``devices`` and the feed it plugs into (its ``feed``, else the rack's feeds
    in order: :func:`~rackdesigner.analysis.power_sides.pdu_feeds`)."""
    if not devices or not rack.feeds:
        return []
    by_id = {f.feed.id: f for f in rack.feeds}
    where = pdu_feeds([d.device for d in devices], [f.feed for f in rack.feeds])
    return [(d, by_id[where[d.device.id]]) for d in devices if where.get(d.device.id) in by_id]


def shelf_sides(rack: RackFacts, shelves: list[tuple[DeviceFacts, FeedFacts]]) -> dict[str, int]:
    """Power shelves per feed side (label order); {} with fewer than 2 sides."""
    return shelves_per_side([f.group for _, f in shelves], list(rack.side_capacity))


def side_groups(rack: RackFacts) -> tuple[list[str], float]:
    """The rack's sides ("" alone without k ≥ 2 sides) and the share of the load each
    carries with another side lost."""
    labels = list(rack.side_capacity)
    if len(labels) >= 2:
        return labels, 1.0 / (len(labels) - 1)
    return [""], 1.0


# -- (v1.4) the power chain (PWR021-PWR029) ----------------------------------------------


def element_entity(facts: ElementFacts) -> str:
    """``power element ups-a``: who a finding about a chain element is about."""
    return f"power element {facts.id}"


def rating_how(facts: ElementFacts) -> str:
    """How the element's binding rating was reached, `` (1.5 MVA × PF 0.8)``, where it is
    not the kW figure as written."""
    binding = facts.binding
    if binding is None or binding.text == fmt(binding.watts, POWER):
        return ""
    return f" ({binding.text})"


def percent(ratio: float) -> str:
    """``147 %``: a share as the findings write it."""
    return f"{ratio * 100:.0f} %"


def amps_text(facts: ElementFacts, watts: float) -> str:
    """`` (1,020 A)`` where the element is rated by its current, else empty."""
    binding = facts.binding
    if binding is None or binding.key != "current":
        return ""
    amps = facts.current_at(watts)
    return "" if amps is None else f" ({amps:,.0f} A)"


def duration_text(seconds: float) -> str:
    """``60 s``, ``10 min``, ``2 h``: a time as a datasheet says it."""
    if seconds < 120:
        return f"{seconds:g} s"
    if seconds < 7200:
        return f"{seconds / 60:g} min"
    return f"{seconds / 3600:g} h"


def racks_text(analysis_racks: list[RackFacts], indexes: list[int], limit: int = 3) -> str:
    """``a01, a02 and 6 more``: racks by index."""
    return name_list([analysis_racks[i].rack.id for i in indexes], limit)


# -- a rack running with parts lost (what-if: an analysis built with ``failed``) -----------


def next_loss_text(nxt: NextLoss) -> str:
    """``losing side B next would take 4 devices down (32 GPUs)``: what a rack that runs with
    parts lost has left exposed."""
    what = []
    tripped = [o for o in nxt.overloads if not o.capped]
    if tripped:
        what.append("trip " + name_list([overload_text(o) for o in tripped]))
    capped = [o for o in nxt.overloads if o.capped]
    if capped:
        what.append("overload " + name_list([overload_text(o) for o in capped]))
    if nxt.down:
        gpus = f" ({plural(nxt.gpus, 'GPU')})" if nxt.gpus else ""
        names = name_list(list(nxt.down))
        what.append(f"take {plural(len(nxt.down), 'device')}{gpus} down: {names}")
    elif nxt.degraded:
        gpus = f" ({plural(nxt.gpus, 'GPU')})" if nxt.gpus else ""
        names = name_list(list(nxt.degraded))
        what.append(f"leave {plural(len(nxt.degraded), 'device')}{gpus} degraded: {names}")
    return f"losing side {nxt.side} next would {' and '.join(what)}"


def overload_text(overload: Overload) -> str:
    """``feed a01-B1 (45 kW on its usable 36.8 kW)``."""
    load, capacity = fmt_apart(overload.load, overload.capacity, POWER)
    return f"feed {overload.feed} ({load} on its usable {capacity})"


def running_sides(running: RackPower) -> str:
    """``sides B, C and D`` / ``side B alone`` / ``its feeds left``."""
    live = [key for key, alive in running.live.items() if alive and key]
    if not live:
        return "its feeds left"
    if len(live) == 1:
        return f"side {live[0]} alone"
    return f"sides {name_list(live, limit=8)}"
