"""A rack's redundant sides meet in one element of the power chain: a false 2N.

Why it matters:
    Feeds with two sides or more promise that the rack runs with any one side lost, and
    the layout format reads the sides as coming from independent sources. A rack whose A
    and B sides both hang below one UPS, one switchboard or one ATS on one utility has two
    paths that meet: losing that element takes both sides, and the rack, down. An element
    is lost when it fails or when everything feeding it is (an ATS lives on while its
    generator does). The finding names the element nearest the racks whose loss alone
    takes them down, and the elements above it that do the same.

Example:
    [[power.elements]]
    id = "ats-1"
    kind = "ats"
    fed_by = ["utility-1"]   # no generator: the utility is a single source
    [[power.elements]]
    id = "ups-a"
    kind = "ups"
    fed_by = ["ats-1"]
    [[power.elements]]
    id = "ups-b"
    kind = "ups"
    fed_by = ["ats-1"]       # A sides on ups-a, B sides on ups-b: both behind ats-1

Fix:
    Feed each side from its own path up to independent sources (a second utility or a
    generator behind each ATS, a switchboard per side), or accept single-path racks and
    give them one side.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.power_failures import shared_elements, single_failures
from rackdesigner.model.wording import name_list, plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import element_entity, racks_text


@rule(
    "PWR024",
    "error",
    scope="site",
    # Any device or feed edit re-runs it (no site keys); of the rack fields, its feeds.
    reads=("rack.feeds",),
)
def chain_sides_meet(analysis: Analysis) -> Iterator[Finding]:
    chain = analysis.power_chain
    if not chain:
        return
    shared = shared_elements(chain)
    if not shared:
        return
    # The other elements whose loss alone takes each group's racks down (further up).
    downs = {
        failure.element: set(result.racks_down)
        for failure, result in single_failures(chain)
        if not failure.module
    }
    for element in sorted(shared, key=lambda i: chain.elements[i].order):
        racks = shared[element]
        facts = chain.elements[element]
        gpus = sum(analysis.racks[r].gpus for r in racks)
        upstream = [
            chain.elements[other].id
            for other, down in downs.items()
            if other != element and set(racks) <= down
        ]
        also = f"; so does losing {name_list(upstream)}" if upstream else ""
        sides = sorted({s for r in racks for s in chain.rack_chain(r).sides})
        yield Finding(
            element_entity(facts),
            facts.ref,
            f"the {'/'.join(sides)} sides of {plural(len(racks), 'rack')} "
            f"({racks_text(analysis.racks, racks)}) meet in {facts.name}: its loss takes "
            f"them down, {plural(gpus, 'GPU')}{also}",
            hint="give each side its own path to an independent source",
            values={"racks": float(len(racks)), "gpus": float(gpus)},
            related=tuple(analysis.racks[r].ref for r in racks[:8]),
        )
