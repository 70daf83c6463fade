"""A rack's power once some of its parts have failed: one model for the failure analysis
(``rackdesigner whatif``) and for the rules that judge a failed layout.

A failure analysis takes parts away (docs/whatif.md). Feeds, PDUs, power shelves, CDUs and
rear doors are named by other parts, so a failed layout keeps them and its analysis marks
them failed (:class:`Failed`); what the failure takes down (GPU nodes, switches, trays)
leaves the layout. :func:`rack_power` derives one rack's power with feeds and devices lost:

- a feed is **dead** when it failed, or when every PDU on it did;
- with k ≥ 2 sides a device's PSUs go round-robin over the sides in label order (as PWR008
  has them): it keeps those on sides with a live feed; none left is **down**, fewer than
  ``psus_required`` is **degraded**; a type without ``psus`` is corded to every side. Each
  side's share of a device spreads evenly over the side's live feeds;
- a **power shelf** has one AC input, on one feed (``feed``, else the rack's feeds in
  order, as PDUs go): a dead feed's shelves are dead and are not spread over the live
  feeds. The shelves left share the trays' DC load; where they deliver less (``psus_required``
  x ``psu_rating`` each) the trays are down, or **capped** (degraded) where the layout's
  ``[workload] power_capping`` is true;
- a live feed that must then carry more than its usable capacity (V x I x derate x PF: the
  breaker's continuous limit, as PWR001 counts it) **trips**, and what it fed is derived
  again; with power capping the devices it feeds are capped instead.

:func:`next_loss` says what losing one more side would do: what a redundancy used up by the
failure leaves exposed (the rules' "redundancy lost").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from rackdesigner.analysis.facts import ZERO_DRAW_KINDS, DeviceFacts, RackFacts
from rackdesigner.analysis.power_sides import pdu_feeds, psu_split, side_labels
from rackdesigner.analysis.rack_scale import rack_dc
from rackdesigner.model.layout import Rack
from rackdesigner.model.units import POWER, fmt

EPSILON = 1e-6  # W: below this a difference is rounding
# Why a device with fewer live PSUs than it needs is degraded (renderers show its PSUs).
FEWER_PSUS = "fewer PSUs than needed"


@dataclass(frozen=True, slots=True)
class Failed:
    """The parts a failed layout keeps but that work no more: feeds ``(rack id, feed id)``
    that carry nothing, and devices (PDUs, power shelves, CDUs, rear doors) failed or dark."""

    feeds: frozenset[tuple[str, str]] = frozenset()
    devices: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.feeds or self.devices)

    def lost_feeds(self, rack: Rack) -> frozenset[int]:
        """The indexes of ``rack``'s feeds that failed."""
        if not self.feeds:
            return frozenset()
        return frozenset(
            number for number, feed in enumerate(rack.feeds) if (rack.id, feed.id) in self.feeds
        )


@dataclass(frozen=True, slots=True)
class Overload:
    """A live feed that had to carry more than its usable capacity: it tripped, or (power
    capping) the devices on it were capped."""

    feed: str
    side: str  # "" without sides
    load: float  # W
    capacity: float  # W usable
    capped: bool


@dataclass(frozen=True, slots=True)
class Loss:
    """A device down or degraded, and why."""

    id: str
    psus_left: int
    why: str


@dataclass(slots=True)
class RackPower:
    """One rack's power with parts lost (:func:`rack_power`)."""

    rack: RackFacts
    lost: frozenset[int]  # feed indexes that failed, as given
    failed: frozenset[str]  # device ids failed, as given
    down_before: frozenset[str]  # devices already down (they draw nothing)
    capping: bool
    keys: list[str]  # the sides the PSUs go over ("" alone without 2 sides)
    members: dict[str, list[int]]  # the feeds of each key (orphans on none)
    dead: set[int] = field(default_factory=set)  # lost, PDUs failed, or tripped
    overloads: list[Overload] = field(default_factory=list)
    down: dict[str, Loss] = field(default_factory=dict)
    degraded: dict[str, Loss] = field(default_factory=dict)
    feed_load: dict[int, float] = field(default_factory=dict)  # W on each live feed
    shelves: list[tuple[DeviceFacts, int]] = field(default_factory=list)  # and its feed
    shelves_live: int = 0
    shelf_draw: float = 0.0  # W of DC each live shelf delivers
    shelf_rating: float | None = None
    dc_load: float = 0.0  # W the trays draw (those not down)
    # The live feeds of each key, for ``dead`` as it is (:meth:`refresh`).
    _live: dict[str, list[int]] = field(default_factory=dict)

    def refresh(self) -> None:
        self._live = {
            key: [i for i in self.members[key] if i not in self.dead] for key in self.keys
        }

    @property
    def live(self) -> dict[str, bool]:
        """Each key: has it a live feed."""
        return {key: bool(feeds) for key, feeds in self._live.items()}

    @property
    def dc_capacity(self) -> float | None:
        rating = self.shelf_rating
        return None if rating is None else rating * self.shelves_live

    def live_feeds(self, key: str) -> list[int]:
        return self._live[key]

    def lost_text(self) -> str:
        """What the rack has lost, in a few words: ``side A lost``, ``side A and feed
        a01-B1 lost``, ``PDU a01-pdu-a failed``."""
        feeds = self.rack.rack.feeds
        gone = [key for key, alive in self.live.items() if key and not alive]
        parts = [f"side {key}" for key in gone]
        parts += [
            f"feed {feeds[i].id}"
            for i in sorted(self.dead)
            if not (feeds[i].side and feeds[i].side in gone)
        ]
        if parts:
            return f"{_and(parts)} lost"
        failed = [d.id for d in self.rack.devices if d.kind == "pdu" and d.id in self.failed]
        failed += [d.id for d, _ in self.shelves if d.id in self.failed]
        return f"{_and(failed)} failed" if failed else "nothing lost"

    def share(self, dev: DeviceFacts, feed: int) -> float:
        """The share of ``dev``'s draw feed ``feed`` carries (0 for a dead feed)."""
        if feed in self.dead or dev.id in self.down or dev.id in self.down_before:
            return 0.0
        if self._is_tray(dev):
            if not self.shelves_live or not self.dc_load:
                return 0.0
            on_feed = sum(1 for s, i in self.shelves if i == feed and self.shelf_live(s, i))
            delivered = self.shelf_draw * self.shelves_live
            return on_feed / self.shelves_live * min(1.0, delivered / self.dc_load)
        split = self._split(dev)
        left = self._left(split)
        if not left:
            return 0.0
        for key, n in zip(self.keys, split, strict=True):
            if feed in self.members[key]:
                return n / left / len(self.live_feeds(key)) if n else 0.0
        return 0.0

    # -- the model -------------------------------------------------------------------------

    def _is_tray(self, dev: DeviceFacts) -> bool:
        return bool(self.shelves) and dev.type is not None and dev.type.nvl_domain is not None

    def shelf_live(self, shelf: DeviceFacts, feed: int) -> bool:
        return feed not in self.dead and shelf.id not in self.failed

    def _split(self, dev: DeviceFacts) -> list[int]:
        psus = dev.type.psus if dev.type is not None else None
        # No PSU count: taken as corded to every side.
        return psu_split(psus, len(self.keys)) if psus else [1] * len(self.keys)

    def _left(self, split: list[int]) -> int:
        live = self._live
        return sum(n for n, key in zip(split, self.keys, strict=True) if live[key])


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _ac_consumer(dev: DeviceFacts) -> bool:
    dtype = dev.type
    return (
        dtype is not None
        and dev.kind not in ZERO_DRAW_KINDS
        and dev.kind != "pdu"
        and not dtype.is_power_shelf
        and not dtype.is_busbar
    )


def rack_power(
    rack: RackFacts,
    lost: Iterable[int] = (),
    failed: Iterable[str] = (),
    *,
    down: Iterable[str] = (),
    capping: bool = False,
) -> RackPower:
    """``rack``'s power with the feeds at the indexes ``lost`` and the devices ``failed``
    (PDUs, power shelves) gone; ``down``: devices already down (they draw nothing)."""
    feeds = rack.rack.feeds
    labels = side_labels(feeds)
    if len(labels) >= 2:
        keys = labels
        members = {key: [i for i, f in enumerate(feeds) if f.side == key] for key in keys}
    else:
        keys = [""]
        members = {"": [i for i, f in enumerate(feeds) if not labels or f.side]}
    power = RackPower(
        rack,
        frozenset(lost),
        frozenset(failed),
        frozenset(down),
        capping,
        keys,
        members,
    )
    power.dead = set(power.lost) | _dead_by_pdus(rack, power.failed)
    shelves = [d for d in rack.devices if d.type is not None and d.type.is_power_shelf]
    if shelves:
        where = pdu_feeds([d.device for d in shelves], feeds)
        index = {f.id: i for i, f in enumerate(feeds)}
        power.shelves = [(d, index[where[d.id]]) for d in shelves if where.get(d.id) in index]
        dc = rack_dc(rack)
        power.shelf_rating = dc.shelf_rating if dc is not None else None
    for _ in range(len(feeds) + 1):
        _derive(power)
        if not _overloaded(power):
            break
    return power


def _dead_by_pdus(rack: RackFacts, failed: frozenset[str]) -> set[int]:
    """The feeds whose every PDU failed (a feed without a PDU stays live)."""
    pdus = [d for d in rack.devices if d.kind == "pdu"]
    if not pdus or not failed:
        return set()
    feeds = rack.rack.feeds
    where = pdu_feeds([d.device for d in pdus], feeds)
    alive: dict[str, bool] = {}
    for pdu in pdus:
        feed = where.get(pdu.id)
        if feed is not None:
            alive[feed] = alive.get(feed, False) or pdu.id not in failed
    return {i for i, f in enumerate(feeds) if alive.get(f.id, True) is False}


def _derive(power: RackPower) -> None:
    """Devices down and degraded, the shelves' DC and each live feed's load, for the feeds
    dead now."""
    power.refresh()
    power.down, power.degraded = {}, {}
    _dc(power)
    for dev in power.rack.devices:
        if not _ac_consumer(dev) or power._is_tray(dev):
            continue
        if dev.id in power.down_before or dev.id in power.failed:
            continue
        split = power._split(dev)
        left = power._left(split)
        if left == 0:
            power.down[dev.id] = Loss(dev.id, 0, _no_psu(power, dev, split))
            continue
        required = dev.type.psus_required if dev.type is not None else None
        if dev.type is not None and dev.type.psus and required and left < required:
            power.degraded[dev.id] = Loss(dev.id, left, FEWER_PSUS)
    power.feed_load = {}
    for key in power.keys:
        for i in power.live_feeds(key):
            power.feed_load[i] = sum(
                (dev.power or 0.0) * power.share(dev, i)
                for dev in power.rack.devices
                if _ac_consumer(dev) and not power._is_tray(dev)
            )
    for shelf, i in power.shelves:
        if power.shelf_live(shelf, i):
            power.feed_load[i] = power.feed_load.get(i, 0.0) + power.shelf_draw


def _no_psu(power: RackPower, dev: DeviceFacts, split: list[int]) -> str:
    tripped = {o.feed for o in power.overloads if not o.capped}
    feeds = power.rack.rack.feeds
    hit = [
        feeds[i].id
        for key, n in zip(power.keys, split, strict=True)
        if n
        for i in power.members[key]
        if feeds[i].id in tripped
    ]
    return f"no powered PSU ({', '.join(hit)} tripped)" if hit else "no powered PSU"


def _dc(power: RackPower) -> None:
    """The trays on the shelves left: what each shelf delivers, or the trays down (capped)."""
    power.shelves_live = sum(1 for s, i in power.shelves if power.shelf_live(s, i))
    power.shelf_draw = 0.0
    trays = [
        d
        for d in power.rack.devices
        if power._is_tray(d) and d.id not in power.down_before and d.id not in power.failed
    ]
    power.dc_load = sum(d.power or 0.0 for d in trays)
    if not trays or power.dc_load <= 0:
        return
    rating, live = power.shelf_rating, power.shelves_live
    if not live:
        why, capped = "no power shelf left", False
    elif rating is None or power.dc_load <= rating * live + EPSILON:
        power.shelf_draw = power.dc_load / live
        return
    else:
        capacity = rating * live
        short = (
            f"{live} power shel{'f' if live == 1 else 'ves'} left deliver "
            f"{fmt(capacity, POWER)} for the trays' {fmt(power.dc_load, POWER)}"
        )
        capped = power.capping
        why = f"power-capped: {short}" if capped else short
        if capped:
            power.shelf_draw = rating
    for tray in trays:
        target = power.degraded if capped else power.down
        target[tray.id] = Loss(tray.id, 0, why)


def _overloaded(power: RackPower) -> bool:
    """Feeds over their usable capacity: trip them (True: derive again), or, with power
    capping, cap what they feed (False: done)."""
    feeds = power.rack.feeds
    over = [
        i
        for i, load in power.feed_load.items()
        if load > feeds[i].capacity + EPSILON and i not in power.dead
    ]
    if not over:
        return False
    for i in over:
        facts = feeds[i]
        power.overloads.append(
            Overload(facts.feed.id, facts.group, power.feed_load[i], facts.capacity, power.capping)
        )
    if not power.capping:
        power.dead.update(over)
        return True
    for dev in power.rack.devices:
        if dev.id in power.down or dev.id in power.degraded or not _ac_consumer(dev):
            continue
        if any(power.share(dev, i) > 0 for i in over):
            power.degraded[dev.id] = Loss(dev.id, 0, _capped_why(power, over))
    return False


def _capped_why(power: RackPower, over: list[int]) -> str:
    feeds = power.rack.feeds
    parts = [
        f"{feeds[i].feed.id} {fmt(power.feed_load[i], POWER)} on {fmt(feeds[i].capacity, POWER)}"
        for i in over
    ]
    return f"power-capped: {', '.join(parts)}"


@dataclass(frozen=True, slots=True)
class NextLoss:
    """What losing one more side would do to a rack running with parts lost."""

    side: str
    down: tuple[str, ...]  # device ids newly down
    degraded: tuple[str, ...]
    gpus: int  # GPUs of those
    overloads: tuple[Overload, ...]  # feeds newly over


def next_loss(power: RackPower) -> NextLoss | None:
    """The live side whose loss would cost the most (GPUs, then devices), or None where no
    live side's loss costs anything (or the rack has fewer than 2 sides)."""
    if len(power.keys) < 2:
        return None
    gpus_of = {d.id: (d.gpus if d.is_gpu_node else 0) for d in power.rack.devices}

    def listed(ids: set[str]) -> tuple[str, ...]:  # GPU nodes first
        return tuple(sorted(ids, key=lambda i: (not gpus_of.get(i), i)))

    best: tuple[tuple[int, int], NextLoss] | None = None
    for key, alive in power.live.items():
        if not alive:
            continue
        lost = power.dead | set(power.live_feeds(key))
        after = rack_power(
            power.rack, lost, power.failed, down=power.down_before, capping=power.capping
        )
        down = listed(set(after.down) - set(power.down))
        degraded = listed(set(after.degraded) - set(power.degraded) - set(down))
        before = {o.feed for o in power.overloads}
        overloads = tuple(o for o in after.overloads if o.feed not in before)
        if not (down or degraded or overloads):
            continue
        gpus = sum(gpus_of.get(i, 0) for i in (*down, *degraded))
        found = NextLoss(key, down, degraded, gpus, overloads)
        score = (gpus, len(down) + len(degraded))
        if best is None or score > best[0]:
            best = (score, found)
    return best[1] if best else None
