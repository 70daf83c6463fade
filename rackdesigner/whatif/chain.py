"""What losing part of the power chain does (docs/whatif.md, The power chain).

The chain's own model (:func:`rackdesigner.analysis.power_failures.impact`, which the
rules and the report's "if lost" column read) says which elements are lost with the ones
named (an element is lost when everything that feeds it is; an ATS draws from its next
source), and what every element left must carry. On top of it:

- an element left carrying more than its continuous rating **trips**, as a feed's breaker
  does in the racks' model, and is lost too; the chain is derived again until nothing is
  over (with ``[workload] power_capping`` the GPUs it feeds are capped instead);
- every feed that hangs on a lost element is **dead**: the racks' model
  (:mod:`rackdesigner.whatif.losses`) then says what each rack does on the feeds it keeps,
  as for a failed feed: a 2N rack runs on its other side (redundancy lost), a rack with
  no side left is down, a side's feeds that cannot carry the rack alone trip.

The elements' loads are the chain's, from the racks' loads as the chain splits them: a
rack that then goes down on its own feeds' trips is still counted on the chain (the
elements' figures err on the loaded side).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rackdesigner.analysis.power_failures import impact
from rackdesigner.model.units import POWER, fmt
from rackdesigner.whatif.results import EPSILON, ChainChange

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.analysis.power_chain import PowerChain
    from rackdesigner.analysis.power_failures import Impact as ChainImpact
    from rackdesigner.whatif.parts import Lost
    from rackdesigner.whatif.results import Impact


@dataclass(frozen=True, slots=True)
class Caps:
    """Racks (by index) whose GPUs are capped because an element they hang on is over its
    rating (``[workload] power_capping``), and why."""

    racks: dict[int, str]


def chain_losses(analysis: Analysis, lost: Lost, result: Impact, capping: bool) -> Caps | None:
    """The chain's part of a failure: its elements lost, tripped (or capped), moved to
    their next source and loaded, into ``result.chain``; every feed on a lost element
    added to ``lost``'s feeds. None where the failure names no element."""
    if not lost.elements and not lost.modules:
        return None
    chain = analysis.power_chain
    failed = set(lost.elements)
    tripped: dict[int, tuple[float, float]] = {}  # element -> (its load, its rating)
    after = impact(chain, failed, lost.modules)
    while not capping:
        over = [(i, load, rating) for i, load, rating in after.overloaded if i not in tripped]
        if not over:
            break
        tripped.update((i, (load, rating)) for i, load, rating in over)
        after = impact(chain, failed | set(tripped), lost.modules)
    result.chain = _changes(chain, after, failed, tripped)
    for index in after.dead:
        lost.add_feeds((link.rack, link.feed) for link in chain.elements[index].feeds)
    if not capping or not after.overloaded:
        return None
    racks: dict[int, str] = {}
    for index, load, rating in after.overloaded:
        why = (
            f"power-capped: {chain.elements[index].name} {fmt(load, POWER)} on {fmt(rating, POWER)}"
        )
        for rack in _racks_under(chain, after, index):
            racks.setdefault(rack, why)
    return Caps(racks)


def _changes(
    chain: PowerChain,
    after: ChainImpact,
    failed: set[int],
    tripped: dict[int, tuple[float, float]],
) -> list[ChainChange]:
    """Each element the failure changes, in the chain's order (sources first)."""
    elements = chain.elements
    out: list[tuple[int, ChainChange]] = []
    for index in after.dead:
        facts = elements[index]
        if index in tripped:
            load, rating = tripped[index]
            change = ChainChange(
                facts.id,
                facts.kind,
                "tripped",
                load,
                rating,
                facts.load,
                rating_before=facts.rating,
            )
        else:
            state = "failed" if index in failed else "lost"
            change = ChainChange(
                facts.id,
                facts.kind,
                state,
                0.0,
                facts.rating,
                facts.load,
                rating_before=facts.rating,
            )
        out.append((index, change))
    capped = {i for i, _, _ in after.overloaded}
    for index in set(after.loads) | set(after.modules):
        if index not in after.dead:
            found = _live_change(chain, after, index, index in capped)
            if found is not None:
                out.append((index, found))
    out.sort(key=lambda item: elements[item[0]].order)
    return [change for _, change in out]


def _live_change(
    chain: PowerChain, after: ChainImpact, index: int, capped: bool
) -> ChainChange | None:
    """How an element left alive changed: capped, moved to its next source, loaded or
    derated; None where it carries no more than before."""
    facts = chain.elements[index]
    load, rating = after.load(chain, index), after.rating(chain, index)
    source = next((p for p in facts.parents if p not in after.dead), -1)
    if capped:
        state = "capped"
    elif facts.parent >= 0 and source != facts.parent and source >= 0:
        state = "moved"
    elif load > facts.load + EPSILON:
        state = "loaded"
    elif rating != facts.rating:
        state = "derated"  # a UPS module lost: less rating for the same load
    else:
        return None
    change = ChainChange(
        facts.id, facts.kind, state, load, rating, facts.load, rating_before=facts.rating
    )
    if state == "moved":
        moved = chain.elements[source]
        change = replace(change, source=moved.id, source_kind=moved.kind)
    return change


def _racks_under(chain: PowerChain, after: ChainImpact, top: int) -> list[int]:
    """The racks with a live feed on ``top`` or on an element that draws through it."""
    elements = chain.elements
    seen = {top}
    stack = [top]
    racks: list[int] = []
    while stack:
        index = stack.pop()
        racks.extend(link.rack for link in elements[index].feeds)
        for child in elements[index].children:
            if child in seen or child in after.dead:
                continue
            live = next((p for p in elements[child].parents if p not in after.dead), -1)
            if live == index:  # it draws through this element now
                seen.add(child)
                stack.append(child)
    return sorted(set(racks))
