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
    workload says). Breakers, panels, busways and switchgear are judged on the steady
    load (PWR021): their thermal trip needs 135 % for up to an hour and 200 % for minutes
    (UL 489 calibration), far beyond a peak of a second or two; transformers and the
    utility service, rated thermally over minutes to hours, likewise. The generator's
    swing is PWR028's.

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
from rackdesigner.analysis.power_chain import PEAK_DURATION, peak_factor_text
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
    workload = analysis.layout.workload
    duration = (
        float(workload.peak_duration)
        if workload is not None and workload.peak_duration is not None
        else PEAK_DURATION
    )
    for facts in chain.elements:
        rating = facts.rating
        if facts.kind != "ups" or rating is None or facts.peak <= rating * (1 + SLACK):
            continue
        if facts.load > rating * (1 + SLACK):
            continue  # over its rating at steady state: PWR021's
        ratio = facts.peak / rating
        carried = [(load, time) for load, time in facts.overload if load >= ratio - SLACK]
        if any(time >= duration for _, time in carried):
            continue
        table = (
            ", ".join(f"{percent(load)} for {duration_text(time)}" for load, time in facts.overload)
            or "none declared"
        )
        yield Finding(
            element_entity(facts),
            facts.ref,
            f"{facts.name} carries {fmt(facts.load, POWER)} steady and {fmt(facts.peak, POWER)}"
            f" at the transient peak (peak factor {peak_factor_text(analysis.layout)}): "
            f"{percent(ratio)} of its rating {fmt(rating, POWER)} for {duration_text(duration)}, "
            f"beyond its overload capability ({table})",
            hint="declare its overload table from the datasheet, or size it for "
            f"{fmt(facts.peak, POWER)}",
            values={"peak": facts.peak, "rating": rating, "load": facts.load},
        )
