"""CDU groups (rules.md v1.1, COOL003 and COOL009): the CDUs racks name together.

A rack's ``cdu`` names one CDU or a list that serves it together; lists that share a
CDU join into one group. A group's capacity is the sum of its CDUs' (all working); with
its largest CDU lost it keeps the sum less the largest (N+1; a lone CDU keeps 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rackdesigner.analysis.grouping import Groups


@dataclass(slots=True)
class CduGroup:
    cdus: list[str]  # CDU device ids, in the order racks first name them
    racks: list[int] = field(default_factory=list)  # indexes of the racks it serves


def cdu_groups(named: Sequence[Sequence[str]]) -> list[CduGroup]:
    """Groups from each rack's CDU ids (``named[i]`` for rack i; only CDUs, in order)."""
    groups = Groups()
    for cdus in named:
        for cdu in cdus:
            groups.add(cdu)
        for cdu in cdus[1:]:
            groups.join(cdus[0], cdu)
    found: dict[object, CduGroup] = {}
    for members in groups.sets():
        found[groups.find(members[0])] = CduGroup([str(m) for m in members])
    for index, cdus in enumerate(named):
        if cdus:
            found[groups.find(cdus[0])].racks.append(index)
    return list(found.values())


def n_plus_one(capacities: Sequence[float]) -> float:
    """A group's capacity with its largest CDU lost: Σ − max (a lone CDU keeps 0)."""
    return sum(capacities) - max(capacities, default=0.0)
