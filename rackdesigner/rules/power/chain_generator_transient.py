"""A generator cannot take the chain's transient peak when it carries the load.

Why it matters:
    When the utility is lost the ATSs move the load to the generators. An engine
    generator answers a load step with a frequency and voltage dip it recovers from in
    seconds, and accepts only so large a step (ISO 8528-5 load acceptance, by the
    engine's mean effective pressure; specifications ask for steps such as 0-50 %,
    50-80 % and 80-100 % of rating for a G2 set): a training job's synchronous swing is
    such a step, repeated every second or two. With every utility lost, each generator
    must carry its load at the transient peak within its rating (a standby set has no
    overload reserve), and the swing from the steady load to the peak must be no more
    than the step it accepts (`step_load`, a share of its rating, from its datasheet or
    ISO 8528-5 performance class; not judged where not given). PWR022 checks the steady
    load with one utility lost; this checks the peak.

Example:
    [workload]
    peak_factor = 1.4
    [[power.elements]]
    id = "gen-1"
    kind = "generator"
    capacity = "2 MW"        # 1.6 MW steady: 2.24 MW at the peak
    step_load = 0.25         # a 640 kW swing, more than 25 % of 2 MW

Fix:
    Size the generators for the peak and the swing (more sets, a larger BMEP class), or
    smooth the load (UPS batteries riding through the swing, GB300 power smoothing).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.power_chain import peak_factor_text
from rackdesigner.analysis.power_failures import impact
from rackdesigner.model.units import POWER, RATIO, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import element_entity, percent

SLACK = 1e-6


@rule(
    "PWR028",
    "error",
    scope="site",
    # Any device or feed edit re-runs it (no site keys); of the rack fields, its feeds.
    reads=("rack.feeds",),
)
def generator_peak(analysis: Analysis) -> Iterator[Finding]:
    chain = analysis.power_chain
    generators = [e for e in chain.elements if e.kind == "generator"]
    if not generators:
        return
    outage = impact(chain, [e.index for e in chain.elements if e.kind == "utility"])
    factor = peak_factor_text(analysis.layout)
    for facts in generators:
        rating = facts.rating
        load, peak = outage.load(chain, facts.index), outage.peak(chain, facts.index)
        if rating is None or peak <= load * (1 + SLACK) or load > rating * (1 + SLACK):
            continue  # no swing, or over its rating steady (PWR022's)
        problems = []
        if peak > rating * (1 + SLACK):
            problems.append(f"{percent(peak / rating)} of its rating {fmt(rating, POWER)}")
        step = peak - load
        if facts.step_load is not None and step > facts.step_load * rating * (1 + SLACK):
            problems.append(
                f"a swing of {fmt(step, POWER)}, more than the "
                f"{fmt(facts.step_load, RATIO)} step ({fmt(facts.step_load * rating, POWER)}) "
                "it accepts"
            )
        if not problems:
            continue
        yield Finding(
            element_entity(facts),
            facts.ref,
            f"with the utility lost, {facts.name} carries {fmt(load, POWER)} steady and "
            f"{fmt(peak, POWER)} at the transient peak (peak factor {factor}): "
            + "; ".join(problems),
            hint="size the generators for the peak and the swing, or smooth the load",
            values={"load": load, "peak": peak, "rating": rating},
        )
