"""A feed's voltage differs from what its power-chain element puts out.

Why it matters:
    A feed hangs on an element (`source`): an RPP, a busway, a transformer's secondary or
    an 800 VDC power rack. Its `voltage` is what that element delivers; a 415 V feed on a
    480 V busway is a drawing error (or a transformer the chain does not show), and every
    figure below it (outlet voltage, line currents, PSU ranges) is then wrong. An
    element's output is its own `voltage`, else that of what feeds it; a transformer's is
    its secondary, and its `primary_voltage` must match what feeds it. A single-phase feed
    may also take a three-phase element's line-to-neutral voltage (230 V from 400 V, 277 V
    from 480 V, 120 V from 208 V, within 1.5 %). An element that
    gives a voltage different from the one feeding it, other than through a transformer,
    is the same error one level up.

Example:
    [[power.elements]]
    id = "busway-a1"
    kind = "busway"
    voltage = "480 V"
    [[racks]]
    id = "a01"
    feeds = [
      { id = "a01-A", side = "A", voltage = "415 V", phases = 3, current = "63 A",
        source = "busway-a1" },
    ]

Fix:
    Give the feed its element's voltage, or put the transformer that steps it down into
    the chain.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.power_chain import SQRT3, VOLTAGE_MATCH, ElementFacts
from rackdesigner.model.units import VOLTAGE, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import element_entity

# A single-phase feed from line to neutral of a three-phase wye element: 230 V from 400 V,
# 277 V from 480 V, 120 V from 208 V (the nominal figures differ from V ÷ √3 by under 1 %).
LINE_TO_NEUTRAL_MATCH = 0.015  # relative


def _fits(voltage: float, phases: int | None, facts: ElementFacts) -> bool:
    """The feed's voltage is what the element puts out: the same, or (a single-phase feed
    on a three-phase AC element) its line-to-neutral voltage."""
    output = facts.voltage or 0.0
    if abs(voltage - output) <= VOLTAGE_MATCH:
        return True
    three = (facts.element.phases or 3) == 3 and facts.kind != "power-rack"
    neutral = output / SQRT3
    return phases == 1 and three and abs(voltage - neutral) <= LINE_TO_NEUTRAL_MATCH * neutral


@rule(
    "PWR025",
    "error",
    scope="site",
    # Any device or feed edit re-runs it (no site keys); of the rack fields, its feeds.
    reads=("rack.feeds",),
)
def chain_voltage_mismatch(analysis: Analysis) -> Iterator[Finding]:
    chain = analysis.power_chain
    for facts in chain.elements:
        if not facts.parents:
            continue
        parent = chain.elements[facts.parents[0]]
        if parent.voltage is None:
            continue
        if facts.kind == "transformer":
            own, what = facts.element.primary_voltage, "primary_voltage"
        elif facts.element.voltage is not None:
            own, what = facts.element.voltage, "voltage"
        else:
            continue
        if own is not None and abs(float(own) - parent.voltage) > VOLTAGE_MATCH:
            yield Finding(
                element_entity(facts),
                facts.ref,
                f"{facts.name}'s {what} {fmt(float(own), VOLTAGE)} differs from the "
                f"{fmt(parent.voltage, VOLTAGE)} {parent.name} puts out",
                hint="match the voltages, or put a transformer between them",
                values={"voltage": float(own), "source_voltage": parent.voltage},
                related=(parent.ref,),
            )
    for facts in chain.elements:
        if facts.voltage is None:
            continue
        for link in facts.feeds:
            rack = analysis.racks[link.rack]
            feed = rack.feeds[link.feed]
            voltage = float(feed.feed.voltage or 0.0)
            if _fits(voltage, feed.feed.phases, facts):
                continue
            yield Finding(
                f"rack {rack.rack.id} feed {feed.feed.id}",
                feed.ref,
                f"feed {feed.feed.id} is {fmt(voltage, VOLTAGE)} but its source {facts.name} "
                f"puts out {fmt(facts.voltage, VOLTAGE)}",
                hint=f'give the feed voltage = "{fmt(facts.voltage, VOLTAGE)}", or put the '
                "transformer that steps it down into the chain",
                values={"voltage": voltage, "source_voltage": facts.voltage},
                related=(facts.ref,),
            )
