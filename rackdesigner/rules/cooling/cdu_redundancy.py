"""A CDU group cannot carry its racks' liquid heat with one CDU lost.

Why it matters:
    One CDU or pump fault must not stop the loop of every rack on it. A CDU group (the
    CDUs racks name together) is N+1 when the sum of its capacities less its largest
    CDU still carries the liquid heat of all its racks; a lone CDU leaves nothing. In a
    group of two or more, a rack that names only one of the CDUs is plumbed to that
    one alone, and loses its loop with it. On a layout a failure leaves (`rackdesigner
    whatif`) a group that lost CDUs runs on the others: a warning ("redundancy lost")
    where losing its largest working CDU next would leave its racks' loop short (COOL003
    judges the loop now). (v1.4) Where the layout declares water loops,
    each CDU counts its capacity at the approach it runs at (COOL012).

Example:
    [[racks]]
    id = "a01"
    cooling = "liquid"
    cdu = "a06-cdu"   # one 750 kW row CDU for 101 kW: with it lost, the loop stops

Fix:
    Add a CDU to the group (`cdu = ["cdu-1", "cdu-2"]` on every rack it serves), or
    move racks so that the group less its largest CDU carries them.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, CduLoad, RackFacts
from rackdesigner.analysis.liquid import group_capacities
from rackdesigner.model.units import POWER, fmt, fmt_apart
from rackdesigner.model.wording import at_least, plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import cdu_names


def _redundancy_lost(
    load: CduLoad, spare: float, capacity: float, liquid: list[RackFacts]
) -> Finding | None:
    """A group running with CDUs failed: a warning where losing its largest working CDU
    next would leave less than its racks' cold plates need (COOL003 judges the load now)."""
    if load.heat > capacity or load.heat <= spare:
        return None
    working = load.working
    failed = ", ".join(sorted(load.lost))
    largest = max(working, key=lambda c: float(c.type.capacity or 0.0) if c.type else 0.0)
    heat_text, capacity_text = fmt_apart(load.heat, capacity, POWER)
    names = ", ".join(c.id for c in working)
    return Finding(
        f"device {load.cdu.id}",
        load.cdu.ref,
        f"redundancy lost: with {failed} failed the group runs on {names} "
        f"({at_least(load.heat_unknown)}{heat_text} of liquid heat on {capacity_text}); "
        f"losing {largest.id} next would leave {fmt(spare, POWER)} and its "
        f"{plural(len(liquid), 'rack')} trip",
        hint=f"restore {failed} before another CDU fails",
        values={"heat": load.heat, "capacity": capacity, "n_plus_one": spare},
        related=tuple(c.ref for c in load.cdus[1:]) + tuple(r.ref for r in liquid),
        severity="warning",
    )


@rule(
    "COOL009",
    "warning",
    scope="site",
    reads=("rack.cooling", "rack.cdu", "rack.door"),
    parts=("cdu_loads",),
)
def cdu_group_without_n_plus_one(analysis: Analysis) -> Iterator[Finding]:
    loops = analysis.loops
    for load in analysis.cdu_loads:
        capacities = group_capacities(load, loops)
        if capacities is None:
            continue
        capacity = sum(capacities)
        spare = capacity - max(capacities, default=0.0)
        liquid = [r for r in load.racks if r.liquid_heat > 0]
        if not liquid:
            continue
        bound = at_least(load.heat_unknown)
        cdu = load.cdu
        if load.lost:  # (what-if) CDUs failed: the redundancy they used up
            found = _redundancy_lost(load, spare, capacity, liquid)
            if found is not None:
                yield found
        elif load.heat > spare:
            heat_text = fmt(load.heat, POWER)
            if len(load.cdus) == 1:
                message = (
                    f"CDU {cdu.id} carries {bound}{heat_text} of liquid heat with no CDU to "
                    f"spare: with it lost the group keeps {fmt(0.0, POWER)}"
                )
                hint = f'add a second CDU and name both on its racks (cdu = ["{cdu.id}", ...])'
            else:
                heat_text, spare_text = fmt_apart(load.heat, spare, POWER)
                message = (
                    f"CDU group {cdu_names(load)} carries {bound}{heat_text} of liquid heat; "
                    f"with its largest CDU lost it keeps {spare_text}"
                )
                hint = "add a CDU to the group or move racks to another group"
            yield Finding(
                f"device {cdu.id}",
                cdu.ref,
                message,
                hint=hint,
                values={"heat": load.heat, "capacity": capacity, "n_plus_one": spare},
                related=tuple(c.ref for c in load.cdus[1:]) + tuple(r.ref for r in liquid),
            )
        if len(load.cdus) < 2:
            continue
        for rack in liquid:
            named = [c for c in rack.cdus if c is not None and c.kind == "cdu"]
            if len(named) >= 2:
                continue
            only = named[0].id if named else "?"
            yield Finding(
                f"rack {rack.rack.id}",
                rack.ref,
                f"names only CDU {only} of its group ({cdu_names(load)}): its "
                f"{at_least(rack.load_unknown)}{fmt(rack.liquid_heat, POWER)} of liquid heat "
                "stops with that one CDU",
                hint="name every CDU that serves it (cdu = [...]) and plumb it to each",
                values={"heat": rack.liquid_heat},
                related=tuple(c.ref for c in load.cdus),
            )
