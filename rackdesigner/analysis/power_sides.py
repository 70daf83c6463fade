"""Redundant feed sides, PSUs and PDUs (rules.md v1.1, Definitions): pure functions.

A rack's feeds carry a short ``side`` label ("A", "B", "C", …). With k ≥ 2 distinct
sides the rack must run with any one side lost: its PSUs go round-robin over the sides
in label order, each remaining side carries load ÷ (k − 1), and the rack's capacity is
(k − 1) × its smallest side's capacity. With one label or none, the feeds add up; a feed
without a side beside feeds with one counts for no side (PWR013).

Nothing here reads the analysis; the analysis and the rules call these with model
objects and SI floats.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rackdesigner.model.layout import HARDWIRED, Device, Feed

SQRT3 = math.sqrt(3.0)


def feed_power(
    voltage: float,
    current: float,
    phases: int | None,
    *,
    derate: float = 1.0,
    power_factor: float = 1.0,
) -> float:
    """What a circuit delivers: V × I × derate × PF, × √3 for 3-phase (``voltage`` line to
    line). W, or VA with a power factor of 1. The one place of the formula."""
    return voltage * current * derate * power_factor * (SQRT3 if phases == 3 else 1.0)


def feed_derate(feed: Feed, thresholds: Mapping[str, float]) -> float:
    """The feed's own derate, else the layout's ``feed_derate``."""
    return float(feed.derate) if feed.derate is not None else thresholds["feed_derate"]


def feed_capacity(feed: Feed, thresholds: Mapping[str, float]) -> float:
    """Usable W of one feed (rules.md, Definitions): V × I × derate × PF, × √3 for 3-phase."""
    return feed_power(
        float(feed.voltage or 0.0),
        float(feed.current or 0.0),
        feed.phases,
        derate=feed_derate(feed, thresholds),
        power_factor=thresholds["power_factor"],
    )


def feed_rating(feed: Feed, power_factor: float) -> float:
    """W a feed delivers at its breaker rating: V × I × PF, × √3 for 3-phase (no derate)."""
    return feed_power(
        float(feed.voltage or 0.0),
        float(feed.current or 0.0),
        feed.phases,
        power_factor=power_factor,
    )


def side_labels(feeds: Iterable[Feed]) -> list[str]:
    """The rack's distinct side labels, in label order (the order PSUs go round)."""
    return sorted({feed.side for feed in feeds if feed.side})


def psu_split(psus: int, sides: int) -> list[int]:
    """PSUs per side when PSU j goes on side ((j − 1) mod k) + 1: 6 on 2 sides is 3 + 3,
    on 3 sides 2 + 2 + 2, 4 on 3 sides 2 + 1 + 1."""
    if sides <= 0:
        return [psus]
    base, extra = divmod(psus, sides)
    return [base + 1 if side < extra else base for side in range(sides)]


def psus_kept(psus: int, sides: int) -> int:
    """PSUs left when the side holding most of them is lost: psus − ⌈psus ÷ k⌉."""
    return psus - math.ceil(psus / sides) if sides > 0 else psus


# Rated current of an IEC 60320 appliance inlet (A): IEC 60320-1's, and UL 498 / CSA
# 60320-1's in North America (Interpower, "One IEC 60320 C13 and two amperage ratings?").
INLET_RATING = {"IEC": {"c14": 10.0, "c20": 16.0}, "North America": {"c14": 15.0, "c20": 20.0}}
# A PSU's efficiency where its rating caps its draw (input = output ÷ efficiency): 80 PLUS
# Titanium at full load, the catalog's figure for server PSUs (devices.toml's header).
PSU_EFFICIENCY = 0.96


def psu_draw(power: float, carrying: int, psu_rating: float | None) -> float:
    """W each of ``carrying`` PSUs draws for a device of ``power`` W, capped at what one
    PSU of ``psu_rating`` (output) can draw."""
    each = power / max(carrying, 1)
    return min(each, psu_rating / PSU_EFFICIENCY) if psu_rating else each


@dataclass(frozen=True, slots=True)
class SideCapacity:
    """What a rack's feeds deliver, by side."""

    sides: dict[str, float]  # label -> usable W, in label order; {} with fewer than 2 sides
    capacity: float  # W the rack may draw: (k − 1) × smallest side, or the sum
    orphans: tuple[int, ...]  # indexes of feeds without a side beside feeds with one

    @property
    def k(self) -> int:
        return len(self.sides)

    @property
    def redundant(self) -> bool:
        return self.k >= 2

    @property
    def smallest(self) -> str | None:
        """The side with the least capacity (the first such label)."""
        if not self.sides:
            return None
        return min(self.sides, key=lambda label: self.sides[label])


def side_capacity(feeds: Sequence[Feed], capacities: Sequence[float]) -> SideCapacity:
    """The rack's capacity from its feeds' usable capacities (same order as ``feeds``)."""
    labels = side_labels(feeds)
    orphans = tuple(i for i, feed in enumerate(feeds) if labels and not feed.side)
    if len(labels) < 2:
        total = sum(c for i, c in enumerate(capacities) if i not in orphans)
        return SideCapacity({}, total, orphans)
    sides = dict.fromkeys(labels, 0.0)
    for feed, capacity in zip(feeds, capacities, strict=True):
        if feed.side:
            sides[feed.side] += capacity
    return SideCapacity(sides, (len(labels) - 1) * min(sides.values()), orphans)


def pdu_feeds(pdus: Sequence[Device], feeds: Sequence[Feed]) -> dict[str, str]:
    """The feed id each PDU (or power shelf: one AC input each) is on: its ``feed`` where
    given, else the rack's feeds in order (the i-th without one on feed ((i − 1) mod F) + 1)."""
    out: dict[str, str] = {}
    ids = [f.id for f in feeds]
    turn = 0
    for pdu in pdus:
        if pdu.feed is not None:
            out[pdu.id] = pdu.feed
        elif ids:
            out[pdu.id] = ids[turn % len(ids)]
            turn += 1
    return out


@dataclass(frozen=True, slots=True)
class PhaseShare:
    """A set of feeds that carries ``share`` of the rack's load in its worst case."""

    feeds: tuple[int, ...]  # indexes into the rack's feeds
    share: float  # of the rack's load, per feed of the set


def worst_case_shares(feeds: Sequence[Feed]) -> list[PhaseShare]:
    """How the load lands on the feeds in each one's worst case (rules.md, Phase load).

    With k ≥ 2 sides another side is lost and each remaining side carries load ÷ (k − 1),
    split evenly over its feeds; with one side or none the feeds share the load (a feed
    without a side beside sided feeds carries nothing anyone planned for: PWR013)."""
    labels = side_labels(feeds)
    if len(labels) >= 2:
        out = []
        for label in labels:
            members = tuple(i for i, f in enumerate(feeds) if f.side == label)
            out.append(PhaseShare(members, 1.0 / (len(labels) - 1) / len(members)))
        return out
    members = tuple(i for i, f in enumerate(feeds) if not labels or f.side)
    return [PhaseShare(members, 1.0 / len(members))] if members else []


def cords_by_side(
    devices: Iterable[tuple[int | None, str | None]], labels: Sequence[str]
) -> dict[str, tuple[int, int]]:
    """PSU cords per side (``""`` without sides): (C19-class cords, all cords).

    ``devices`` gives each device's PSU count and ``psu_inlet``; devices without an inlet,
    or wired to their circuit (``hardwired``), are not counted. PSUs go round-robin over
    the sides in label order."""
    keys = list(labels) if len(labels) >= 2 else [""]
    out = dict.fromkeys(keys, (0, 0))
    for psus, inlet in devices:
        if inlet is None or inlet == HARDWIRED:
            continue
        big = inlet in ("c20", "c19")
        for key, count in zip(keys, psu_split(psus or 1, len(keys)), strict=True):
            c19, total = out[key]
            out[key] = (c19 + (count if big else 0), total + count)
    return out
