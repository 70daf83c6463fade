"""An RPP or busway has more circuits on it than it has positions, or two on one position.

Why it matters:
    A remote power panel has a fixed number of breaker poles (a 42-circuit panelboard has
    42); a busway a fixed number of tap-off positions along its run. The feeds that name
    the element as `source` must fit: on an RPP a three-phase feed takes 3 poles, a
    single-phase feed across two lines of a three-phase panel (its voltage is the panel's
    line-to-line voltage, 208 V on a 208Y/120 V panel) takes 2 and one from line to
    neutral takes 1; on a busway each feed is one tap-off box (a box with several PDUs is
    one feed with `tap_off = true`). A feed's `position` must exist on the element, and
    two feeds cannot share one.

Example:
    [[power.elements]]
    id = "busway-a1"
    kind = "busway"
    positions = 8            # nine racks' A feeds tap off it

Fix:
    Split the racks over more panels or busway runs, or use an element with more
    positions.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.power_chain import VOLTAGE_MATCH, ElementFacts
from rackdesigner.model.wording import name_list, plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import element_entity


def _poles(facts: ElementFacts, phases: int | None, voltage: float) -> int:
    """Breaker poles (RPP) or positions (busway) one feed takes."""
    if facts.kind == "busway":
        return 1
    if phases == 3:
        return 3
    panel = facts.voltage
    three_phase_panel = (facts.element.phases or 3) == 3
    if panel is not None and three_phase_panel and abs(voltage - panel) <= VOLTAGE_MATCH:
        return 2
    return 1


@rule(
    "PWR026",
    "error",
    scope="site",
    # Any device or feed edit re-runs it (no site keys); of the rack fields, its feeds.
    reads=("rack.feeds",),
)
def chain_positions(analysis: Analysis) -> Iterator[Finding]:
    for facts in analysis.power_chain.elements:
        if facts.kind not in ("rpp", "busway") or not facts.feeds:
            continue
        used = 0
        taken: dict[int, list[str]] = {}
        for link in facts.feeds:
            feed = analysis.racks[link.rack].feeds[link.feed].feed
            used += _poles(facts, feed.phases, float(feed.voltage or 0.0))
            if feed.position is not None:
                taken.setdefault(feed.position, []).append(feed.id)
        unit = "tap-off position" if facts.kind == "busway" else "breaker pole"
        if facts.positions is not None and used > facts.positions:
            yield Finding(
                element_entity(facts),
                facts.ref,
                f"{facts.name} has {plural(facts.positions, unit)} and its "
                f"{plural(len(facts.feeds), 'feed')} take {used}",
                hint="split the feeds over more elements, or one with more positions",
                values={"positions": float(facts.positions), "used": float(used)},
            )
        for position, feeds in sorted(taken.items()):
            if facts.positions is not None and position > facts.positions:
                yield Finding(
                    element_entity(facts),
                    facts.ref,
                    f"feed {feeds[0]} is at position {position} of {facts.name}, which has "
                    f"{plural(facts.positions, unit)}",
                    values={"position": float(position), "positions": float(facts.positions)},
                )
            if len(feeds) > 1:
                yield Finding(
                    element_entity(facts),
                    facts.ref,
                    f"feeds {name_list(feeds)} all take position {position} of {facts.name}",
                    hint="give each feed a position of its own",
                    values={"position": float(position)},
                )
