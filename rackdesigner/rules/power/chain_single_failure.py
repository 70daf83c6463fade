"""One failure in the power chain leaves an element carrying more than its rating.

Why it matters:
    Redundancy is a promise about failures: in a 2N hall each rack's A and B sides hang
    on different UPSs, so that one UPS, transformer or busway lost leaves the other side
    to carry the whole rack (each live side carries the load ÷ live sides, PWR001's
    model); with distributed redundancy the lost UPS's racks spread over the others; an
    N+1 UPS keeps its load with one module lost (its rating × (modules − 1) ÷ modules);
    when the utility is lost the ATS moves the load to the generator. The promise holds
    only if what is left is rated for what it then carries. Each single failure is
    considered: every element lost (with every element below it left with no live
    source), and one module of each UPS declared `redundancy = "n+1"` with two modules or
    more. An element is reported with the failure that loads it most.

Example:
    [[power.elements]]
    id = "ups-a"
    kind = "ups"
    fed_by = ["switchboard"]
    capacity = "500 kW"      # A sides: 400 kW; with ups-b lost, 800 kW
    [[power.elements]]
    id = "ups-b"
    kind = "ups"
    fed_by = ["switchboard"]
    capacity = "500 kW"

Fix:
    Rate each element for what it carries after a failure (each UPS of a 2N pair for the
    whole load), add a module, or give the generator the utility's load.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.power_failures import Failure, single_failures
from rackdesigner.model.units import POWER, fmt, fmt_apart
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import amps_text, element_entity, percent

SLACK = 1e-6


@rule(
    "PWR022",
    "error",
    scope="site",
    thresholds=("power_factor",),
    # Any device or feed edit re-runs it (no site keys); of the rack fields, its feeds.
    reads=("rack.feeds",),
)
def chain_single_failure_overload(analysis: Analysis) -> Iterator[Finding]:
    chain = analysis.power_chain
    if not chain:
        return
    worst: dict[int, tuple[Failure, float, float]] = {}
    count: dict[int, int] = {}
    for failure, result in single_failures(chain):
        for index, load, rating in result.overloaded:
            facts = chain.elements[index]
            rated = facts.rating
            if failure.element != index and rated is not None and facts.load > rated * (1 + SLACK):
                continue  # over its rating with nothing lost: PWR021's
            count[index] = count.get(index, 0) + 1
            best = worst.get(index)
            if best is None or load / rating > best[1] / best[2]:
                worst[index] = (failure, load, rating)
    for index in sorted(worst, key=lambda i: chain.elements[i].order):
        failure, load, rating = worst[index]
        facts = chain.elements[index]
        load_text, limit_text = fmt_apart(load, rating, POWER)
        others = count[index] - 1
        more = f" (and {plural(others, 'other single failure')})" if others else ""
        yield Finding(
            element_entity(facts),
            facts.ref,
            f"with {failure.name} lost, {facts.name} carries {load_text}"
            f"{amps_text(facts, load)}, {percent(load / rating)} of its rating {limit_text}"
            f"{more}: the redundancy does not hold",
            hint=f"rate it for {fmt(load, POWER)} or more, or spread that load over more elements",
            values={"load": load, "rating": rating},
            related=(chain.elements[failure.element].ref,),
        )
