"""A power-chain element carries more than its continuous rating, everything working.

Why it matters:
    Every element between the utility and the racks is rated: a UPS and a transformer
    by their nameplate kW or kVA, a switchboard, an RPP or a busway by its current. The
    element's steady load is the racks below it (each rack's draw split over its sides
    and feeds as they share it with everything working; PWR001's model), summed up the
    chain, each element adding its losses (`efficiency`) for what feeds it. A rating in
    kVA is worth kVA × power factor in kW; a current rating V × I × √3 × PF (three-phase,
    V line-to-line) or V × I (800 VDC). Breakers, panels and busways carry 80 % of their
    current rating continuously unless listed for 100 % (NEC 210.20(A) and 215.3: the
    overcurrent device is rated for the noncontinuous load plus 125 % of the continuous
    load; UL's application guidance for loads of three hours or more): `derate` sets it.
    A UPS's and a transformer's nameplate rating is a continuous one (UPS guide
    specifications: "continuous-duty", full rated output at unity load power factor; NEC
    450.3(B) protects a transformer at 125 % of its rated current, so it carries 100 %
    continuously), so their kW and kVA are taken at 100 %. The utility in DPS's simulator
    example is the case: 750 kW of service for eight GB300 racks.

Example:
    [[power.elements]]
    id = "utility"
    kind = "utility"
    capacity = "750 kW"      # eight NVL72 racks of 142 kW draw 1.14 MW
    [[power.elements]]
    id = "switchboard"
    kind = "switchgear"
    fed_by = ["utility"]
    capacity = "1.6 MW"

Fix:
    Size the element for its load (a larger UPS, transformer, busway or service), or
    move racks to another branch of the chain.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import POWER, fmt, fmt_apart
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import amps_text, element_entity, percent, rating_how

SLACK = 1e-6  # relative: float dust when a load equals its rating


@rule(
    "PWR021",
    "error",
    scope="site",
    thresholds=("power_factor",),
    # Any device or feed edit re-runs it (no site keys); of the rack fields, its feeds.
    reads=("rack.feeds",),
)
def chain_over_rating(analysis: Analysis) -> Iterator[Finding]:
    chain = analysis.power_chain
    for facts in chain.elements:
        rating = facts.rating
        if rating is None or facts.load <= rating * (1 + SLACK):
            continue
        load_text, limit_text = fmt_apart(facts.load, rating, POWER)
        share = facts.load / rating
        yield Finding(
            element_entity(facts),
            facts.ref,
            f"{facts.name} carries {load_text}{amps_text(facts, facts.load)}, "
            f"{percent(share)} of its continuous rating {limit_text}{rating_how(facts)}",
            hint=f"size it for {fmt(facts.load, POWER)} or more, or move "
            f"{fmt(facts.load - rating, POWER)} of racks to another branch",
            values={"load": facts.load, "rating": rating},
        )
