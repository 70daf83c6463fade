"""A UPS's transient peak is more than its overload capability carries for that long.

Why it matters:
    A training job's GPUs compute and communicate in lockstep: thousands of them swing
    between near idle and full power together, every second or two (NVIDIA, How New GB300
    NVL72 Features Provide Steady Power for AI, 2025; Uptime Institute Intelligence,
    Electrical considerations with large AI compute, 2025). The chain sees each device at
    its transient peak: its power × its type's `peak_factor`, else the workload's for GPU
    nodes, less its `power_smoothing` share (GB300's PSUs with energy storage: "up to
    30 %" lower peak grid demand), never below its steady draw; the report shows the
    factor used. No published figure gives a general peak factor, so none is assumed:
    declare `[workload] peak_factor`. A UPS's inverter carries overloads for a time its
    datasheet gives (e.g. 125 % for 10 min, 150 % for 60 s: `overload`); a peak above its
    rating needs an entry at least that high for at least `peak_duration` (2 s unless the
    workload says), with everything working and after any single failure (a 2N UPS whose
    twin is lost carries the whole peak). Breakers, panels, busways and switchgear are
    judged on the steady load (PWR021): their thermal trip needs 135 % for up to an hour
    and 200 % for minutes (UL 489 calibration), far beyond a peak of a second or two;
    transformers and the utility service, rated thermally over minutes to hours,
    likewise. The generator's swing is PWR028's.

Example:
    [workload]
    kind = "training"
    peak_factor = 1.4
    [[power.elements]]
    id = "ups-a"
    kind = "ups"
    capacity = "1 MW"        # 900 kW steady, 1.26 MW at the peak: 126 % for 2 s
    overload = [["110 %", "10 min"]]

Fix:
    Declare the UPS's overload table from its datasheet, size it for the peak, or smooth
    the peak (GB300 power smoothing, a lower power cap).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.power_chain import PEAK_DURATION, ElementFacts, peak_factor_text
from rackdesigner.analysis.power_failures import Failure, single_failures
from rackdesigner.model.refs import Ref
from rackdesigner.model.units import POWER, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import duration_text, element_entity, percent

SLACK = 1e-6


@rule(
    "PWR023",
    "error",
    scope="site",
    # Any device or feed edit re-runs it (no site keys); of the rack fields, its feeds.
    reads=("rack.feeds",),
)
def ups_peak_over_overload(analysis: Analysis) -> Iterator[Finding]:
    chain = analysis.power_chain
    ups = [facts.index for facts in chain.elements if facts.kind == "ups"]
    if not ups:
        return
    workload = analysis.layout.workload
    duration = (
        float(workload.peak_duration)
        if workload is not None and workload.peak_duration is not None
        else PEAK_DURATION
    )
    worst: dict[int, tuple[Failure | None, float, float, float]] = {}
    elements = chain.elements
    for index in ups:  # nothing lost
        facts = elements[index]
        _judge(worst, facts, None, (facts.load, facts.peak, facts.rating), duration)
    # A failure changes only the loads and ratings its Impact lists: a UPS it leaves as it
    # was is judged as with nothing lost, which a later equal ratio never replaces. So
    # each failure looks at what it changed, not at every element (a hall's 1,500
    # elements' 1,500 failures would be 2 million looks).
    for failure, result in single_failures(chain):
        for index in set(result.loads).union(result.modules):
            facts = elements[index]
            if facts.kind != "ups" or index in result.dead:
                continue
            state = (
                result.load(chain, index),
                result.peak(chain, index),
                result.rating(chain, index),
            )
            _judge(worst, facts, failure, state, duration)
    factor = peak_factor_text(analysis.layout)
    for index in sorted(worst, key=lambda i: chain.elements[i].order):
        yield _finding(chain.elements[index], worst[index], factor, duration)


def _judge(
    worst: dict[int, tuple[Failure | None, float, float, float]],
    facts: ElementFacts,
    failure: Failure | None,
    state: tuple[float, float, float | None],
    duration: float,
) -> None:
    """Keep ``state`` (load, peak, rating) as ``facts``'s worst where its peak is beyond
    what the rating and overload table carry, and a larger share of its rating than the
    worst so far."""
    load, peak, rating = state
    if not rating or load > rating * (1 + SLACK) or peak <= rating * (1 + SLACK):
        return  # within its rating, or over it steady (PWR021, PWR022)
    if _carried(facts.overload, peak / rating, duration):
        return
    best = worst.get(facts.index)
    if best is None or peak / rating > best[2] / best[3]:
        worst[facts.index] = (failure, load, peak, rating)


def _carried(overload: tuple[tuple[float, float], ...], ratio: float, duration: float) -> bool:
    """Its overload table has an entry at least ``ratio`` for at least ``duration``."""
    return any(load >= ratio - SLACK and time >= duration for load, time in overload)


def _finding(
    facts: ElementFacts,
    state: tuple[Failure | None, float, float, float],
    factor: str,
    duration: float,
) -> Finding:
    failure, load, peak, rating = state
    table = (
        ", ".join(f"{percent(a)} for {duration_text(b)}" for a, b in facts.overload)
        or "none declared"
    )
    when = f"with {failure.name} lost, " if failure is not None else ""
    return Finding(
        element_entity(facts),
        facts.ref,
        f"{when}{facts.name} carries {fmt(load, POWER)} steady and {fmt(peak, POWER)} at the "
        f"transient peak (peak factor {factor}): {percent(peak / rating)} of its rating "
        f"{fmt(rating, POWER)} for {duration_text(duration)}, beyond its overload capability "
        f"({table})",
        hint=f"declare its overload table from the datasheet, or size it for {fmt(peak, POWER)}",
        values={"peak": peak, "rating": rating, "load": load},
        related=(() if failure is None else (Ref("power", failure.id),)),
    )
