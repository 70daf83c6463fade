"""A UPS's battery runtime is shorter than its generator takes to start and take the load.

Why it matters:
    When the utility is lost the UPS carries the racks from its batteries until the
    generator has started and the ATS has transferred. NFPA 110 classes emergency power
    supplies by that time: Type 10 restores power within 10 s, as NFPA 70 (NEC) requires
    of emergency systems; a generator's `start_time` says its own. A UPS whose runtime at
    full load is shorter drops its racks before the generator arrives. The generators
    counted are those the UPS can draw from through the chain; a UPS with none above it
    is not judged. Runtime is judged at full load (`runtime`, as datasheets give it): at
    a lower load the batteries last longer.

Example:
    [[power.elements]]
    id = "gen-1"
    kind = "generator"
    start_time = "15 s"
    [[power.elements]]
    id = "ups-a"
    kind = "ups"
    fed_by = ["ats-1"]       # ats-1 fed by utility-1 and gen-1
    runtime = "10 s"

Fix:
    Add battery strings (or a flywheel with the runtime), or a generator that starts
    faster (NFPA 110 Type 10: 10 s).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.wording import name_list
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import duration_text, element_entity

# NFPA 110 Type 10: the load terminals of the transfer switch get acceptable power within
# 10 s (the NEC's limit for emergency systems), where a generator gives no start_time.
TYPE_10_START = 10.0  # s


@rule(
    "PWR027",
    "error",
    scope="site",
    # Any device or feed edit re-runs it (no site keys); of the rack fields, its feeds.
    reads=("rack.feeds",),
)
def ups_runtime_short(analysis: Analysis) -> Iterator[Finding]:
    chain = analysis.power_chain
    for facts in chain.elements:
        if facts.kind != "ups" or facts.runtime is None:
            continue
        generators = [
            chain.elements[i]
            for i in chain.ancestors(facts.index)
            if chain.elements[i].kind == "generator"
        ]
        if not generators:
            continue
        starts = [
            (g.start_time if g.start_time is not None else TYPE_10_START, g) for g in generators
        ]
        needed, slowest = max(starts, key=lambda item: item[0])
        if facts.runtime >= needed:
            continue
        how = (
            f"its start_time {duration_text(needed)}"
            if slowest.start_time is not None
            else f"{duration_text(needed)} (NFPA 110 Type 10; it gives no start_time)"
        )
        names = name_list([g.id for g in generators])
        yield Finding(
            element_entity(facts),
            facts.ref,
            f"{facts.name} runs {duration_text(facts.runtime)} on its batteries at full load, "
            f"less than generator {slowest.id} takes to carry the load: {how}"
            + (f" (generators above it: {names})" if len(generators) > 1 else ""),
            hint="add battery runtime, or a generator that starts within it",
            values={"runtime": facts.runtime, "start": needed},
            related=(slowest.ref,),
        )
