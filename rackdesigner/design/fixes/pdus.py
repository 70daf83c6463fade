"""PDU fixes: a PDU rated above its feed, or a side's PDUs rated below its load
(PWR011); more outlets for a side's PSU cords (PWR012).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

from rackdesigner.analysis.power_sides import feed_rating
from rackdesigner.design.fixes.base import Context, Plan, fixer, free_id
from rackdesigner.design.fixes.power import (
    MAX_FEEDS_PER_SIDE,
    copy_feed,
    free_feed_id,
    pdu_feed_of,
    quieter_rail,
    rack_pdus,
)
from rackdesigner.edit import AddFeed, Command, PlaceDevice, UpdateDevice
from rackdesigner.model.layout import Device, DeviceType, Feed, Rack


def pdus_for_feed(
    catalog: dict[str, DeviceType], feed: Feed, power_factor: float
) -> list[DeviceType]:
    """The catalog's PDU models made for ``feed``, largest rating first: the feed's voltage
    inside their inlet's range and their inlet's current its breaker's (PWR014), rated
    within the feed's rating (PWR011). A model that does not give one of these is left out:
    a fix does not guess."""
    voltage, current = float(feed.voltage or 0), float(feed.current or 0)
    limit = feed_rating(feed, power_factor) * (1 + 1e-9)
    found = []
    for dtype in catalog.values():
        if dtype.kind != "pdu" or dtype.capacity is None or dtype.input_voltage is None:
            continue
        low, high = (float(v) for v in dtype.input_voltage)
        if not low - 1e-6 <= voltage <= high + 1e-6:
            continue
        if dtype.input_current is None or abs(float(dtype.input_current) - current) > 1e-6:
            continue
        if float(dtype.capacity) <= limit:
            found.append(dtype)
    return sorted(found, key=lambda t: (-float(t.capacity or 0), t.key))


def _pdus_by_side(context: Context, rack: Rack) -> dict[str, list[Device]]:
    """The rack's PDUs by the side of their feed (``""`` for all of them without k ≥ 2
    sides), as PWR011 and PWR012 group them: every side is judged, so a fix of the rack's
    finding must mend every short side at once."""
    where = pdu_feed_of(context, rack)
    sided = len({f.side for f in rack.feeds if f.side}) >= 2
    out: dict[str, list[Device]] = {}
    for pdu in rack_pdus(context, rack):
        feed = where.get(pdu.id)
        if feed is None or (sided and not feed.side):
            continue
        out.setdefault((feed.side or "") if sided else "", []).append(pdu)
    return dict(sorted(out.items()))


def _swaps(
    context: Context, pdus: list[Device], better: Callable[[DeviceType, DeviceType], bool]
) -> list[tuple[str, str]]:
    """(PDU, model) for each PDU whose feed has a model made for it that is ``better``
    than its own: the first such in :func:`pdus_for_feed`'s order (largest first)."""
    where = pdu_feed_of(context, context.rack)
    power_factor = context.thresholds["power_factor"]
    out = []
    for pdu in pdus:
        own, feed = context.catalog.get(pdu.model), where.get(pdu.id)
        if own is None or feed is None:
            continue
        for model in pdus_for_feed(context.catalog, feed, power_factor):
            if model.key != own.key and better(model, own):
                out.append((pdu.id, model.key))
                break
    return out


def _swap_plan(swaps: list[tuple[str, str]], why: str) -> Iterator[Plan]:
    if not swaps:
        return

    def swap() -> list[Command]:
        return [UpdateDevice(pdu_id, model=key) for pdu_id, key in swaps]

    listed = ", ".join(f"{pdu_id} a {key}" for pdu_id, key in swaps)
    yield Plan(f"Make PDU {listed} ({why})", swap)


def _more_pdus(
    context: Context, counts: dict[str, tuple[list[Device], int]], *, own_model: bool
) -> Iterator[Plan]:
    """``n`` more PDUs on each side in ``counts`` (side -> (its PDUs, n)), each on a new feed
    of its own (one circuit, one PDU: PWR014): a copy of the side's first PDU's feed, with
    the side's own model (``own_model``: its outlets are known) or the largest model made
    for the feed (the side's own where the catalog has none)."""
    rack, index = context.rack, context.index
    where = pdu_feed_of(context, rack)
    power_factor = context.thresholds["power_factor"]
    taken: set[str] = set()
    used: set[str] = set()
    rails = quieter_rail(context, rack)
    adds: list[tuple[Feed, str, str, str]] = []  # (template, feed id, model, PDU id)
    for side, (pdus, n) in counts.items():
        template = next((where[d.id] for d in pdus if d.id in where), None)
        if template is None or n <= 0 or n > MAX_FEEDS_PER_SIDE:
            return
        models = [] if own_model else pdus_for_feed(context.catalog, template, power_factor)
        model = models[0].key if models else pdus[0].model
        for _ in range(n):
            feed_id = free_feed_id(index, taken, f"{rack.id}-{side or 'F'}")
            pdu_id = free_id(index, used, f"{rack.id}-pdu-{(side or 'f').lower()}")
            adds.append((template, feed_id, model, pdu_id))
    if not adds:
        return

    def add() -> list[Command]:
        commands: list[Command] = []
        for template, feed_id, model, pdu_id in adds:
            commands.append(AddFeed(rack.id, copy_feed(template, feed_id, template.side)))
            commands.append(PlaceDevice(rack.id, model, None, side=rails, id=pdu_id, feed=feed_id))
        return commands

    listed = ", ".join(f"{pdu_id} on feed {feed_id}" for _, feed_id, _, pdu_id in adds)
    yield Plan(f"Add PDU {listed} ({adds[0][2]}) to rack {rack.id}", add)


def _rating(context: Context, pdus: list[Device]) -> float:
    return sum(float(context.catalog[d.model].capacity or 0) for d in pdus)


@fixer("PWR011")
def pdu_within_rating(context: Context) -> Iterator[Plan]:
    """A PDU rated above its feed moves to a feed of its side that is rated for it and
    has no PDU, else becomes the largest model made for its own feed (its inlet's voltage
    and current, rated within it). Sides whose PDUs are rated below the load they carry
    with another side lost get the largest models made for their feeds, else another feed
    each with a PDU of its own (a copy of the side's first PDU's feed)."""
    subject = context.finding.subject
    assert subject is not None
    if subject.kind == "device":
        yield from _pdu_over_its_feed(context, subject.id)
    else:
        yield from _sides_below_load(context)


def _pdu_over_its_feed(context: Context, pdu_id: str) -> Iterator[Plan]:
    """A PDU rated above its feed: a free feed of its side rated for it, else the largest
    model made for its own feed."""
    rack = context.rack
    where = pdu_feed_of(context, rack)
    pdu = context.index.device(pdu_id)
    dtype = context.index.type_of(pdu) if pdu is not None else None
    feed = where.get(pdu.id) if pdu is not None else None
    if pdu is None or dtype is None or dtype.capacity is None or feed is None:
        return
    rating = float(dtype.capacity)
    power_factor = context.thresholds["power_factor"]
    busy = {f.id for f in where.values()}
    for other in rack.feeds:
        if other.id in busy or (other.side or "") != (feed.side or ""):
            continue
        if feed_rating(other, power_factor) * (1 + 1e-9) >= rating:

            def move(pdu_id: str = pdu.id, feed_id: str = other.id) -> list[Command]:
                return [UpdateDevice(pdu_id, feed=feed_id)]

            yield Plan(f"Move PDU {pdu.id} to feed {other.id} (rated for it)", move)
    yield from _swap_plan(
        _swaps(context, [pdu], lambda model, own: True), f"made for feed {feed.id}"
    )


def _sides_below_load(context: Context) -> Iterator[Plan]:
    """Sides whose PDUs are rated below the load: larger models made for their feeds,
    else as many more PDUs (each on a feed of its own) as the shortfall needs."""
    load = context.value("load")
    short = {
        side: pdus
        for side, pdus in _pdus_by_side(context, context.rack).items()
        if pdus and all(d.model in context.catalog for d in pdus) and _rating(context, pdus) < load
    }
    if not short:
        return
    larger = [
        swap
        for pdus in short.values()
        for swap in _swaps(
            context, pdus, lambda model, own: float(model.capacity or 0) > float(own.capacity or 0)
        )
    ]
    yield from _swap_plan(larger, "the largest made for its feed")
    counts = {}
    for side, pdus in short.items():
        one = max(float(context.catalog[d.model].capacity or 0) for d in pdus)
        if one <= 0:
            return
        counts[side] = (pdus, math.ceil((load - _rating(context, pdus)) / one - 1e-9))
    yield from _more_pdus(context, counts, own_model=False)


@fixer("PWR012")
def more_outlets(context: Context) -> Iterator[Plan]:
    """More PSU cords than a side's PDU outlets: the rack's PDUs become the model made for
    their feed with the most outlets of the short kind (C19, or all), where that has more;
    else each side gets as many more PDUs as this side is short by, each on a feed of its
    own. Moving a PDU to another side moves the shortfall, so that is never offered."""
    rack = context.rack
    big = "C19-class" in context.finding.message

    def count(dtype: DeviceType | None) -> int:
        outlets = (dtype.outlets or {}) if dtype is not None else {}
        return outlets.get("c19", 0) if big else outlets.get("c13", 0) + outlets.get("c19", 0)

    sides = _pdus_by_side(context, rack)
    if not sides:
        return
    every = [pdu for pdus in sides.values() for pdu in pdus]
    yield from _swap_plan(
        _swaps(context, every, lambda model, own: count(model) > count(own)),
        "more outlets, made for its feed",
    )
    missing = context.value("cords") - context.value("outlets")
    counts = {}
    for side, pdus in sides.items():
        per_pdu = count(context.catalog.get(pdus[0].model))
        if per_pdu <= 0:
            return
        counts[side] = (pdus, max(1, math.ceil(missing / per_pdu - 1e-9)))
    yield from _more_pdus(context, counts, own_model=True)
