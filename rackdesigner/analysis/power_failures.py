"""What losing part of the power chain does (docs/power-chain.md, Failures): pure functions
of a :class:`~.power_chain.PowerChain`.

    impact(chain, ["utility-1"])        # Impact: lost elements, racks down, loads after
    single_failures(chain)              # each element lost, one module of each n+1 UPS
    worst_failures(chain)               # each element's worst single failure
    shared_elements(chain)              # where redundant racks' sides meet (false 2N)

An element is lost when it fails, or when everything that feeds it is lost (an ATS lives
while one of its sources does; its load moves to the next of its ``fed_by``). A feed is
lost with the element it hangs on; a rack runs on the sides it has left (PWR001's model:
each live side carries the load ÷ live sides) and is down when it has none. One UPS module
lost leaves its UPS (modules − 1) ÷ modules of its rating.

A failure touches few elements: only the racks on lost elements and the elements above
them are derived again, from the normal loads, so that every single failure of a hall
costs its feeds × the chain's depth, not elements × feeds.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass, field

from rackdesigner.analysis.power_chain import ElementFacts, PowerChain, RackChain, feed_shares

LOAD_SLACK = 1e-6  # relative: float dust when a load equals its rating


@dataclass(frozen=True, slots=True)
class Failure:
    """One failure the rules consider: an element lost, or one module of a UPS."""

    element: int  # element index
    id: str
    kind: str
    module: bool = False  # one UPS module, not the whole element

    @property
    def name(self) -> str:
        """``ups ups-a``, ``one module of ups ups-a``."""
        return f"one module of {self.kind} {self.id}" if self.module else f"{self.kind} {self.id}"

    @property
    def spec(self) -> str:
        """As ``whatif --fail`` names it: ``ups:ups-a`` (a module: ``ups-module:ups-a``)."""
        return f"{self.kind}-module:{self.id}" if self.module else f"{self.kind}:{self.id}"


@dataclass(slots=True, eq=False)
class Impact:
    """What a failure does: the elements lost, the racks down and on one path, and the
    loads of the elements it changed (output W; every other element keeps its own)."""

    failed: tuple[int, ...]
    modules: dict[int, int]
    dead: set[int]
    loads: dict[int, float] = field(default_factory=dict)
    peaks: dict[int, float] = field(default_factory=dict)
    racks_down: list[int] = field(default_factory=list)  # rack indexes
    racks_one_path: list[int] = field(default_factory=list)
    gpus_down: int = 0
    gpus_one_path: int = 0
    # (element index, its load, its rating then) for each element left over its rating
    overloaded: list[tuple[int, float, float]] = field(default_factory=list)

    def load(self, chain: PowerChain, index: int) -> float:
        """Element ``index``'s output W after the failure (0 when lost)."""
        if index in self.dead:
            return 0.0
        return self.loads.get(index, chain.elements[index].load)

    def peak(self, chain: PowerChain, index: int) -> float:
        if index in self.dead:
            return 0.0
        return self.peaks.get(index, chain.elements[index].peak)

    def rating(self, chain: PowerChain, index: int) -> float | None:
        """Element ``index``'s rating after the failure (a UPS that lost modules has less)."""
        return rating_after(chain.elements[index], self.modules.get(index, 0))


def rating_after(facts: ElementFacts, modules_lost: int) -> float | None:
    rating = facts.rating
    if rating is None or not modules_lost:
        return rating
    modules = facts.modules or 1
    return rating * max(0, modules - modules_lost) / modules


def _lost(chain: PowerChain, failed: set[int]) -> set[int]:
    """The failed elements and every element left with nothing alive to feed it."""
    elements = chain.elements
    dead = set(failed)
    stack = list(failed)
    while stack:
        node = stack.pop()
        for child in elements[node].children:
            if child not in dead and all(p in dead for p in elements[child].parents):
                dead.add(child)
                stack.append(child)
    return dead


def impact(
    chain: PowerChain, failed: Iterable[str | int], modules: dict[int, int] | None = None
) -> Impact:
    """What losing the elements ``failed`` (ids or indexes) and the UPS ``modules``
    (element index -> modules lost) does. A KeyError names an id the chain does not have
    (``chain.ids()`` lists them)."""
    indexes = {chain.by_id[f] if isinstance(f, str) else f for f in failed}
    return _impact(chain, indexes, dict(modules or {}))


def _impact(chain: PowerChain, failed: set[int], modules: dict[int, int]) -> Impact:
    elements = chain.elements
    dead = _lost(chain, failed)
    result = Impact(tuple(sorted(failed)), dict(modules), dead)
    delta: dict[int, float] = {}
    peak_delta: dict[int, float] = {}
    _racks(chain, dead, result, delta, peak_delta)
    moved: set[int] = set()
    for lost in dead:
        facts = elements[lost]
        if facts.parent >= 0 and facts.parent not in dead:
            delta[facts.parent] = delta.get(facts.parent, 0.0) - facts.input
            peak_delta[facts.parent] = (
                peak_delta.get(facts.parent, 0.0) - facts.peak / facts.efficiency
            )
        moved.update(c for c in facts.children if c not in dead and elements[c].parent == lost)
    _propagate(chain, dead, delta, peak_delta, moved)
    for index, change in delta.items():
        if index not in dead:
            result.loads[index] = elements[index].load + change
            result.peaks[index] = elements[index].peak + peak_delta.get(index, 0.0)
    for index in moved:  # an element that moved to its next source carries as before
        result.loads.setdefault(index, elements[index].load)
        result.peaks.setdefault(index, elements[index].peak)
    for index in set(result.loads) | set(modules):
        if index in dead:
            continue
        rating = result.rating(chain, index)
        load = result.load(chain, index)
        if rating is not None and load > rating * (1 + LOAD_SLACK):
            result.overloaded.append((index, load, rating))
    result.overloaded.sort(key=lambda item: elements[item[0]].order)
    return result


def _racks(
    chain: PowerChain,
    dead: set[int],
    result: Impact,
    delta: dict[int, float],
    peak_delta: dict[int, float],
) -> None:
    """The racks on lost elements: their state, and how their load moved to the feeds
    they have left (into ``delta``, by element)."""
    affected: dict[int, RackChain] = {}
    by_rack = chain.rack_chain
    for lost in dead:
        for link in chain.elements[lost].feeds:
            affected.setdefault(link.rack, by_rack(link.rack))
    for index in sorted(affected):
        rack = affected[index]
        before, _ = feed_shares(rack)
        after, state = feed_shares(rack, dead)
        if state == "down":
            result.racks_down.append(index)
            result.gpus_down += rack.gpus
        elif state == "one-path":
            result.racks_one_path.append(index)
            result.gpus_one_path += rack.gpus
        for feed, source in enumerate(rack.sources):
            change = after[feed] - before[feed]
            if source >= 0 and source not in dead and change:
                delta[source] = delta.get(source, 0.0) + rack.load * change
                peak_delta[source] = peak_delta.get(source, 0.0) + rack.peak * change


def _propagate(
    chain: PowerChain,
    dead: set[int],
    delta: dict[int, float],
    peak_delta: dict[int, float],
    moved: set[int],
) -> None:
    """Carries each changed load up to what feeds the element, children before parents;
    an element whose source was lost hands its whole input to the next live one."""
    elements = chain.elements
    heap = [(-elements[i].order, i) for i in set(delta) | moved]
    heapq.heapify(heap)
    done: set[int] = set()
    while heap:
        _, index = heapq.heappop(heap)
        if index in done or index in dead:
            continue
        done.add(index)
        facts = elements[index]
        parent = next((p for p in facts.parents if p not in dead), -1)
        if parent < 0:
            continue
        change = delta.get(index, 0.0)
        peak_change = peak_delta.get(index, 0.0)
        if parent == facts.parent:
            give = change / facts.efficiency
            give_peak = peak_change / facts.efficiency
        else:  # its normal source is lost: all of its input moves here
            give = (facts.load + change) / facts.efficiency
            give_peak = (facts.peak + peak_change) / facts.efficiency
        if give or give_peak or parent != facts.parent:
            delta[parent] = delta.get(parent, 0.0) + give
            peak_delta[parent] = peak_delta.get(parent, 0.0) + give_peak
            heapq.heappush(heap, (-elements[parent].order, parent))


def single_failures(chain: PowerChain) -> list[tuple[Failure, Impact]]:
    """Each element lost, and one module of each UPS declared n+1 with 2 modules or more,
    with what it does, in file order; computed once per chain."""
    cached = chain.memo.get("single_failures")
    if cached is not None:
        return cached  # type: ignore[return-value]
    out: list[tuple[Failure, Impact]] = []
    for facts in chain.elements:
        failure = Failure(facts.index, facts.id, facts.kind)
        out.append((failure, _impact(chain, {facts.index}, {})))
        if facts.kind == "ups" and (facts.modules or 1) >= 2 and facts.redundancy == "n+1":
            module = Failure(facts.index, facts.id, facts.kind, module=True)
            out.append((module, _impact(chain, set(), {facts.index: 1})))
    chain.memo["single_failures"] = out
    return out


@dataclass(frozen=True, slots=True)
class Worst:
    """The single failure that leaves an element least margin, and its load then."""

    failure: Failure
    load: float
    rating: float | None

    @property
    def margin(self) -> float | None:
        return None if self.rating is None else self.rating - self.load


def worst_failures(chain: PowerChain) -> dict[int, Worst]:
    """Each element's worst single failure (of another element, or of one of its own
    modules): the one that leaves it least margin, among those that raise its load or
    lower its rating (an element no failure loads more has none)."""
    cached = chain.memo.get("worst_failures")
    if cached is not None:
        return cached  # type: ignore[return-value]
    best: dict[int, Worst] = {}
    for failure, result in single_failures(chain):
        for index in set(result.loads) | set(result.modules):
            if index in result.dead:
                continue
            load = result.load(chain, index)
            rating = result.rating(chain, index)
            facts = chain.elements[index]
            if load <= facts.load * (1 + LOAD_SLACK) and rating == facts.rating:
                continue  # a failure that only takes load away is no worse
            candidate = Worst(failure, load, rating)
            current = best.get(index)
            if current is None or _worse(candidate, current):
                best[index] = candidate
    chain.memo["worst_failures"] = best
    return best


def _worse(a: Worst, b: Worst) -> bool:
    if a.margin is not None and b.margin is not None:
        return a.margin < b.margin
    return a.load > b.load


def shared_elements(chain: PowerChain) -> dict[int, list[int]]:
    """The elements whose loss alone takes down racks that have two sides or more, and
    those racks (indexes): where a rack's sides meet. Each rack is given to the lost
    element nearest to it (the one with the latest place in the chain's order)."""
    cached = chain.memo.get("shared_elements")
    if cached is not None:
        return cached  # type: ignore[return-value]
    meeting: dict[int, tuple[int, int]] = {}  # rack -> (order, element)
    for failure, result in single_failures(chain):
        if failure.module:
            continue
        order = chain.elements[failure.element].order
        for rack in result.racks_down:
            if not chain.rack_chain(rack).redundant:
                continue
            if rack not in meeting or order > meeting[rack][0]:
                meeting[rack] = (order, failure.element)
    out: dict[int, list[int]] = {}
    for rack, (_, element) in sorted(meeting.items()):
        out.setdefault(element, []).append(rack)
    chain.memo["shared_elements"] = out
    return out
