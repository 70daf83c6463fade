"""A power-chain element has no rating, so nothing checks what it carries.

Why it matters:
    An element's load is judged against its rating (PWR021), with one failure elsewhere
    (PWR022) and at the transient peak (PWR023, PWR028). An element that gives none of
    `capacity` (kW), `apparent_power` (kVA) or `current` (A, with a voltage it has or
    inherits), and names no `model` that gives one, carries whatever the racks draw as far
    as the checks can tell: a design review would ask for its nameplate.

Example:
    [[power.elements]]
    id = "rpp-a1"
    kind = "rpp"
    fed_by = ["ups-a"]       # no current, no capacity: the panel's rating is unknown

Fix:
    Give the element its rating from the nameplate or datasheet (`current = "400 A"` for a
    panel, `capacity`/`apparent_power` for a UPS or transformer), or a `model`.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import POWER, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import element_entity


@rule(
    "PWR029",
    "warning",
    scope="site",
    # Any device or feed edit re-runs it (no site keys); of the rack fields, its feeds.
    reads=("rack.feeds",),
)
def chain_element_without_rating(analysis: Analysis) -> Iterator[Finding]:
    for facts in analysis.power_chain.elements:
        if facts.ratings:
            continue
        current = facts.element.current
        why = (
            "its current rating has no voltage (give voltage, or feed it from an element "
            "that has one)"
            if current is not None
            else "no capacity, apparent_power or current, and no model that gives one"
        )
        yield Finding(
            element_entity(facts),
            facts.ref,
            f"{facts.name} has no rating ({why}): its load of {fmt(facts.load, POWER)} "
            "is not checked",
            hint="give its nameplate rating, or a model (rackdesigner catalog --power)",
            values={"load": facts.load},
        )
