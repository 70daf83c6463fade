"""Power fixes on feeds and sides: feeds added where they are too small or missing
(PWR001), a third side (PWR008), a feed given a side (PWR013); the feed and PDU
look-ups the PDU fixes share.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace

from rackdesigner.analysis.power_sides import feed_capacity, pdu_feeds
from rackdesigner.design.fixes.base import Context, Plan, fixer, free_id
from rackdesigner.edit import AddFeed, Command, LayoutIndex, PlaceDevice, UpdateFeed
from rackdesigner.model.layout import Device, Feed, Rack

# The feeds a rack without any gets (designer.md's Add rack defaults).
DEFAULT_FEED = {"voltage": 415.0, "phases": 3, "current": 63.0}
DEFAULT_SIDES = ("A", "B")
# A fix adds at most this many feeds to one side; more is a new circuit, a person's call.
MAX_FEEDS_PER_SIDE = 4


def free_feed_id(index: LayoutIndex, taken: set[str], base: str) -> str:
    return free_id(index, taken, base, "feed")


def copy_feed(template: Feed, feed_id: str, side: str | None) -> Feed:
    # A circuit is the building's: a copy on the same one would be PWR003's error.
    return replace(template, id=feed_id, side=side, circuit=None, notes=None)


def sides_of(rack: Rack) -> dict[str, list[Feed]]:
    sides: dict[str, list[Feed]] = {}
    for feed in rack.feeds:
        if feed.side:
            sides.setdefault(feed.side, []).append(feed)
    return sides


def _default_feeds(context: Context) -> Iterator[Plan]:
    rack, index = context.rack, context.index
    template = Feed("", **DEFAULT_FEED)  # type: ignore[arg-type]
    one = feed_capacity(template, context.thresholds)
    per_side = max(1, math.ceil(context.value("load") / one)) if one > 0 else 1
    if per_side > MAX_FEEDS_PER_SIDE:
        return
    taken: set[str] = set()
    names = [
        (side, free_feed_id(index, taken, f"{rack.id}-{side}"))
        for _ in range(per_side)
        for side in DEFAULT_SIDES
    ]

    def add() -> list[Command]:
        return [AddFeed(rack.id, copy_feed(template, name, side)) for side, name in names]

    listed = ", ".join(name for _, name in names)
    yield Plan(
        f"Feed rack {rack.id}: {listed} (415 V 3-phase 63 A, sides {' and '.join(DEFAULT_SIDES)})",
        add,
    )


@fixer("PWR001")
def add_feeds(context: Context) -> Iterator[Plan]:
    """A rack without feeds gets designer.md's two; a rack whose feeds are too small gets
    copies of a side's own feed on every side short of the load (k ≥ 2 sides: each must
    carry load ÷ (k − 1)); feeds without sides add up, so one more like the first."""
    rack = context.rack
    if not rack.feeds:
        yield from _default_feeds(context)
        return
    thresholds = context.thresholds
    load = context.value("load")
    sides = sides_of(rack)
    additions: list[tuple[Feed, str | None]] = []  # (template, side)
    if len(sides) >= 2:
        need = load / (len(sides) - 1)
        for side, feeds in sorted(sides.items()):
            have = sum(feed_capacity(f, thresholds) for f in feeds)
            one = feed_capacity(feeds[0], thresholds)
            if one <= 0:
                return
            more = max(0, math.ceil((need - have) / one - 1e-9))
            additions.extend((feeds[0], side) for _ in range(more))
    else:
        counted = [f for f in rack.feeds if f.side] or list(rack.feeds)
        have = sum(feed_capacity(f, thresholds) for f in counted)
        one = feed_capacity(counted[0], thresholds)
        if one <= 0:
            return
        more = max(0, math.ceil((load - have) / one - 1e-9))
        additions.extend((counted[0], counted[0].side) for _ in range(more))
    if not additions or len(additions) > MAX_FEEDS_PER_SIDE * max(1, len(sides)):
        return
    taken: set[str] = set()
    names = [
        (template, side, free_feed_id(context.index, taken, f"{rack.id}-{side or 'F'}"))
        for template, side in additions
    ]

    def add() -> list[Command]:
        return [AddFeed(rack.id, copy_feed(t, name, side)) for t, side, name in names]

    listed = ", ".join(name for _, _, name in names)
    yield Plan(f"Add feed{'s' if len(names) > 1 else ''} {listed} to rack {rack.id}", add)


def _next_label(labels: list[str]) -> str:
    last = sorted(labels)[-1] if labels else "A"
    if len(last) == 1 and last.isalpha() and last.upper() != "Z":
        return chr(ord(last) + 1)
    return f"{last}2"


@fixer("PWR008")
def add_a_side(context: Context) -> Iterator[Plan]:
    """A device that keeps too few PSUs with one of two sides lost: a third side (a copy
    of the strongest side's feeds, and of its PDUs where the rack has PDUs), as NVIDIA's
    three-PDU DGX rack does: 6 PSUs on 2 + 2 + 2 keep 4."""
    rack, index = context.rack, context.index
    sides = sides_of(rack)
    psus, required = int(context.value("psus")), int(context.value("required"))
    if len(sides) != 2 or psus <= 0:
        return
    if psus - math.ceil(psus / 3) < required:
        return  # a third side does not save it either
    thresholds = context.thresholds
    strongest = max(
        sorted(sides), key=lambda s: sum(feed_capacity(f, thresholds) for f in sides[s])
    )
    label = _next_label(list(sides))
    taken: set[str] = set()
    copies = [(feed, free_feed_id(index, taken, f"{rack.id}-{label}")) for feed in sides[strongest]]
    pdus = _pdus_of(context, rack, {f.id for f in sides[strongest]})
    rails = quieter_rail(context, rack)
    used: set[str] = set()
    pdu_ids = [free_id(index, used, f"{rack.id}-pdu-{label.lower()}") for _ in pdus]

    def add() -> list[Command]:
        commands: list[Command] = [
            AddFeed(rack.id, copy_feed(feed, name, label)) for feed, name in copies
        ]
        for number, (pdu, pdu_id) in enumerate(zip(pdus, pdu_ids, strict=True)):
            feed_id = copies[min(number, len(copies) - 1)][1]
            commands.append(
                PlaceDevice(rack.id, pdu.model, None, side=rails, id=pdu_id, feed=feed_id)
            )
        return commands

    what = ", ".join(name for _, name in copies)
    with_pdus = f" and PDU {', '.join(pdu_ids)}" if pdu_ids else ""
    yield Plan(f"Add side {label} to rack {rack.id}: feed {what}{with_pdus}", add)


def _pdus_of(context: Context, rack: Rack, feed_ids: set[str]) -> list[Device]:
    """The rack's PDUs on the given feeds (their ``feed``, else the order rule of rules.md:
    PDUs without one go over the rack's feeds in order)."""
    where = pdu_feed_of(context, rack)
    return [d for d in rack_pdus(context, rack) if d.id in where and where[d.id].id in feed_ids]


def quieter_rail(context: Context, rack: Rack) -> str:
    counts = {"left": 0, "right": 0}
    for device in rack.devices:
        if device.side in counts:
            counts[device.side] += 1
    return min(counts, key=lambda side: (counts[side], side))


@fixer("PWR013")
def give_feed_a_side(context: Context) -> Iterator[Plan]:
    """A feed without a side joins the weakest side (raising the rack's capacity the most),
    else gets a side of its own; the trial keeps the first that leaves no new error."""
    finding = context.finding
    assert finding.subject is not None
    feed_id = finding.subject[1]
    sides = sides_of(context.rack)
    thresholds = context.thresholds
    order = sorted(sides, key=lambda s: (sum(feed_capacity(f, thresholds) for f in sides[s]), s))
    for label in [*order, _next_label(list(sides))]:

        def set_side(label: str = label) -> list[Command]:
            return [UpdateFeed(feed_id, side=label)]

        yield Plan(f"Put feed {feed_id} on side {label}", set_side)


def rack_pdus(context: Context, rack: Rack) -> list[Device]:
    return [
        d
        for d in rack.devices
        if (t := context.catalog.get(d.model)) is not None and t.kind == "pdu"
    ]


def pdu_feed_of(context: Context, rack: Rack) -> dict[str, Feed]:
    """Each PDU's feed, by the rule the power rules use (its ``feed``, else in order)."""
    feeds = {f.id: f for f in rack.feeds}
    where = pdu_feeds(rack_pdus(context, rack), rack.feeds)
    return {pdu: feeds[feed] for pdu, feed in where.items() if feed in feeds}
