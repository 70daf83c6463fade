"""A feed's line exceeds its breaker limit or the lines are unbalanced, or a phase does not fit.

Why it matters:
    A 3-phase breaker trips on its most loaded line, not on the total: a rack whose
    total fits its feed can still trip one phase if the devices crowd onto it. Each
    line's current is computed for the worst case: with k ≥ 2 sides another side is
    lost and the feed's side carries load ÷ (k − 1) (two sides: the whole rack), split
    evenly over the side's feeds; without sides the feeds share the load. Current is
    P ÷ (V × PF) (`power_factor`, 1.0 by default): on a wye feed a device with
    `phase = "L1"` loads L1 at V_LL / √3; on a delta feed `phase = "L1-L2"` loads that
    pair, and the line current is
    I_L1 = √(I_12² + I_31² + I_12·I_31); devices without a phase spread evenly. A line
    over the breaker rating × derate is an error; line currents that differ from their
    mean by more than `phase_imbalance_max` (20 %) are a warning (an error that also has
    the imbalance says so). A feed can be over while the rack's total fits its capacity,
    when devices crowd onto one line or unequal feeds share a rack's load evenly. A
    `phase` the feed does not have ("L1" on a delta feed, "L1-L2" on a wye feed, any
    phase on a single-phase feed) is an error on the device.

Example:
    [[racks]]
    id = "p01"
    feeds = [ { id = "p01-A", voltage = "208 V", phases = 3, current = "60 A" } ]

    [[racks.devices]]
    id = "p01-n01"
    model = "dgx-h100"   # 10.2 kW on one pair: 49 A on L1 and L2, limit 48 A
    position = 2
    phase = "L1-L2"

Fix:
    Spread devices over the lines (`phase`, or leave it out to spread evenly), use the
    phase names the feed's wiring has, or move load to another rack.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts, FeedFacts, RackFacts
from rackdesigner.model.units import CURRENT, RATIO, fmt, fmt_apart
from rackdesigner.model.wording import name_list
from rackdesigner.rules.base import Finding, rule

_LINE_ORDER = {"L1": 0, "L2": 1, "L3": 2}

_PAIRS = {"L1": "L1-L2 and L3-L1", "L2": "L1-L2 and L2-L3", "L3": "L2-L3 and L3-L1"}


def _amps(value: float, limit: float) -> str:
    return fmt_apart(value, limit, CURRENT)[0]


def _currents(lines: dict[str, float], limit: float) -> str:
    """``L1 40.6 A, L2 13.5 A, L3 13.5 A``."""
    ordered = sorted(lines.items(), key=lambda item: _LINE_ORDER.get(item[0], 9))
    return ", ".join(f"{name} {_amps(amps, limit)}" for name, amps in ordered)


def _caveat(rack: RackFacts) -> str:
    """What the line currents leave out or assume."""
    notes = []
    if rack.estimated_power:
        notes.append("estimated")
    if rack.load_unknown:
        notes.append("lower bounds: devices of unknown draw not counted")
    return f" ({'; '.join(notes)})" if notes else ""


def _rebalance(facts: FeedFacts) -> str:
    heaviest = max(facts.lines, key=lambda name: facts.lines[name])
    if facts.wiring == "delta":
        where = f"line {heaviest} (devices with phase {_PAIRS.get(heaviest, heaviest)})"
    else:
        where = f'line {heaviest} (devices with phase = "{heaviest}")'
    return f"move devices off {where} to the lighter lines, or remove `phase` to spread them"


def _overload(
    rack: RackFacts, facts: FeedFacts, limit_ratio: float, lost: str | None = None
) -> Finding | None:
    """``lost``: what the rack has lost (what-if), its line currents as it runs."""
    feed = facts.feed
    limit = facts.breaker_limit
    over = {name: amps for name, amps in facts.lines.items() if amps > limit}
    imbalance = facts.imbalance
    unbalanced = imbalance is not None and imbalance > limit_ratio
    if not over and not unbalanced:
        return None
    entity = f"rack {rack.rack.id} feed {feed.id}"
    caveat = _caveat(rack)
    if not over:
        assert imbalance is not None
        return Finding(
            entity,
            facts.ref,
            f"line currents {_currents(facts.lines, limit)}{caveat} are "
            f"{fmt(imbalance, RATIO)} imbalanced, over the "
            f"{fmt(limit_ratio, RATIO)} limit",
            hint=_rebalance(facts),
            values={"imbalance": imbalance, "limit": limit_ratio},
            severity="warning",
        )
    when = _when(rack, facts, lost)
    rating = f"{fmt(float(feed.current or 0.0), CURRENT)} × {facts.derate:g}"
    worst = max(over.values())
    subject = _over_subject(facts, over, limit, f"{caveat}{when}")
    message = f"{subject} the breaker's continuous limit {fmt(limit, CURRENT)} ({rating})"
    values = {"current": worst, "limit": limit}
    if unbalanced:
        assert imbalance is not None
        message += (
            f"; the lines are {fmt(imbalance, RATIO)} imbalanced ({_currents(facts.lines, limit)})"
        )
        values["imbalance"] = imbalance
        hint = f"{_rebalance(facts)}; or move load to another rack"
    else:
        hint = "move load to another rack or feed it from a larger circuit"
    return Finding(entity, facts.ref, message, hint=hint, values=values, severity="error")


def _when(rack: RackFacts, facts: FeedFacts, lost: str | None) -> str:
    """The case the currents are for: what-if's losses, or the side carrying the rack."""
    k = len(rack.side_capacity)
    if lost is not None:
        return f" with {lost}"
    if k == 2 and facts.group:
        return f" when side {facts.group} carries the rack alone"
    if k > 2 and facts.group:
        return f" when side {facts.group} carries 1/{k - 1} of the rack with another side lost"
    return ""


def _over_subject(facts: FeedFacts, over: dict[str, float], limit: float, case: str) -> str:
    """The finding's opening: the current (single-phase), every line alike, or the lines
    over the limit by name; ``case`` says when."""
    worst = max(over.values())
    if facts.wiring is None:
        return f"current {_amps(worst, limit)}{case} exceeds"
    if len(over) == 3 and max(over.values()) - min(over.values()) < 1e-9 * worst:
        return f"each line carries {_amps(worst, limit)}{case}, which exceeds"
    names = sorted(over, key=lambda name: _LINE_ORDER.get(name, 9))
    listed = name_list([f"{name} {_amps(over[name], limit)}" for name in names])
    plural = len(names) > 1
    return f"line current{'s' if plural else ''} {listed}{case} exceed{'' if plural else 's'}"


@rule(
    "PWR004",
    "error",
    scope="rack",
    thresholds=("phase_imbalance_max", "power_factor"),
    severities=("error", "warning"),
)
def line_overload(analysis: Analysis) -> Iterator[Finding]:
    limit_ratio = analysis.thresholds["phase_imbalance_max"]
    for rack in analysis.racks:
        running = analysis.running.get(rack.index)
        lost = running.lost_text() if running is not None else None
        for facts in rack.feeds:
            finding = _overload(rack, facts, limit_ratio, lost)
            if finding is not None:
                yield finding
        if not rack.phase_conflicts:
            continue
        by_device: dict[int, tuple[DeviceFacts, dict[str, list[str]]]] = {}
        for conflict in rack.phase_conflicts:
            _, reasons = by_device.setdefault(id(conflict.device), (conflict.device, {}))
            reasons.setdefault(conflict.reason, []).append(conflict.feed.id)
        for dev, reasons in by_device.values():
            parts = [
                f"feed{'s' if len(ids) > 1 else ''} {name_list(ids)}: {reason}"
                for reason, ids in reasons.items()
            ]
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"phase {dev.device.phase} does not fit {'; '.join(parts)}",
                hint="use a phase the feed has, or remove `phase` to spread the load evenly",
                severity="error",
            )
