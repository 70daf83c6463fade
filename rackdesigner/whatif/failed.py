"""The layout as a failure leaves it, for the rules: what they find there that the layout has
not is the failure's new findings.

A failed or dark part does not leave its rack: its units stay taken, a CDU or a rear door
stays named by its racks. The failed layout keeps every rack, feed and device, and drops
only the cables of what went down (and the cables that failed): the fabric is what is left
of it. Its analysis marks the rest failed (:class:`~rackdesigner.analysis.failures.Failed`):
failed devices draw nothing and make no heat, dead feeds carry nothing, a failed CDU or
door cools nothing; so a failed CDU reads as failed, not as a name without a device, and
the rules judge each rack as it runs (capacity where the parts left fall short, "redundancy
lost" where a redundancy the failure used up leaves the next failure exposed). Warmer
facility water is a layout whose facility loops supply warmer water.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rackdesigner.analysis.failures import Failed
from rackdesigner.analysis.kept_links import KeptIndexes, KeptView

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.model.layout import Device, Layout
    from rackdesigner.whatif.parts import Lost
    from rackdesigner.whatif.results import Gone


@dataclass(frozen=True, slots=True)
class FailedState:
    layout: Layout  # the cables of what went down and the failed cables taken out
    failed: Failed  # the feeds and devices that work no more
    touched: frozenset[str]  # rack ids whose power or heat the failure changed
    kept: Sequence[int]  # the indexes of the layout's cables that ``layout`` keeps, in order
    cut: Sequence[int] = ()  # the indexes of those it leaves out, ascending


def failed_state(
    analysis: Analysis, lost: Lost, gone: Gone, cables: Cables | None = None
) -> FailedState:
    """The failed layout of ``analysis``'s layout, given what a failure took (``cables``:
    the layout's :func:`cables_of`, for many failures of it)."""
    by_id = analysis.device_by_id
    racks = analysis.racks
    feeds = frozenset((racks[r].rack.id, racks[r].rack.feeds[n].id) for r, n in gone.dead_feeds)
    touched = {racks[i].rack.id for i in gone.racks}
    touched.update(by_id[i].rack.id for i in gone.down if i in by_id)
    kept: Sequence[int]
    if cables is not None:
        cut = cut_links(gone.down, lost.links, cables)
        kept, layout = _kept_of(analysis.layout, cut)
    else:
        listed = kept_links(analysis.layout, gone.down, lost.links)
        layout = _without(analysis.layout, listed)
        cut = sorted(set(range(len(analysis.layout.links))).difference(listed))
        kept = listed
    if lost.warmer:
        layout = warmer_layout(analysis, layout, lost.warmer)
        touched.update(rack.id for rack in layout.racks)
    failed = Failed(feeds, frozenset(gone.down))
    return FailedState(layout, failed, frozenset(touched), kept, cut)


def warmer_layout(analysis: Analysis, layout: Layout, warmer: float) -> Layout:
    """``layout`` with each facility loop's supply ``warmer`` kelvin above its design (a
    chilled-water loop keeps its own), as :func:`rackdesigner.analysis.liquid.
    facility_supply` has it. A CDU holds its secondary supply (its setpoint, else the
    design supply plus its rated approach): each CDU without a setpoint gets the one it
    holds, so that the rules judge it at the approach the warmer water leaves it."""
    from rackdesigner.analysis.liquid import secondary_supply

    loops = analysis.loops
    held: dict[str, float] = {}
    for dev in analysis.devices:
        loop = loops.of(dev)
        if dev.kind != "cdu" or loop is None or loop.loop_kind != "facility":
            continue
        supply = secondary_supply(dev, loops)
        if dev.device.supply_setpoint is None and supply is not None:
            held[dev.id] = supply
    racks = [
        replace(rack, devices=[_held(d, held) for d in rack.devices])
        if any(d.id in held for d in rack.devices)
        else rack
        for rack in layout.racks
    ]
    warm = [
        replace(loop, supply_temperature=loop.supply + warmer)
        if loop.loop_kind == "facility" and loop.supply is not None
        else loop
        for loop in layout.cooling_loops
    ]
    return replace(layout, racks=racks, cooling_loops=warm)


def _held(device: Device, held: dict[str, float]) -> Device:
    supply = held.get(device.id)
    return device if supply is None else replace(device, supply_setpoint=supply)


def failed_layout(layout: Layout, down: Iterable[str], links: Iterable[int] = ()) -> Layout:
    """``layout`` without the cables of the devices ``down`` and the cables at the indexes
    ``links``; every rack, feed and device stays."""
    return _without(layout, kept_links(layout, down, links))


# Device id -> the indexes of a layout's cables with an end on it, in order.
Cables = dict[str, list[int]]


def cables_of(layout: Layout) -> Cables:
    """Each device id named by an end of ``layout``'s cables, and the indexes of those
    cables: what a failure of some devices cuts, without a walk over every cable."""
    found: Cables = {}
    for number, link in enumerate(layout.links):
        a, b = link.a.partition(":")[0], link.b.partition(":")[0]
        found.setdefault(a, []).append(number)
        if b != a:
            found.setdefault(b, []).append(number)
    return found


def kept_links(layout: Layout, down: Iterable[str], links: Iterable[int] = ()) -> list[int]:
    """The indexes of ``layout``'s cables that :func:`failed_layout` keeps, in order (with
    the layout's :func:`cables_of`, :func:`cut_links` finds those it leaves out without a
    walk over every cable)."""
    gone = set(down)
    cut = set(links)
    if not gone and not cut:
        return list(range(len(layout.links)))
    return [
        number
        for number, link in enumerate(layout.links)
        if number not in cut
        and link.a.partition(":")[0] not in gone
        and link.b.partition(":")[0] not in gone
    ]


def cut_links(down: Iterable[str], links: Iterable[int], cables: Cables) -> list[int]:
    """The indexes of the cables a failure cuts, ascending: those of the devices ``down``
    (``cables``: the layout's :func:`cables_of`) and those at the indexes ``links``."""
    cut = set(links)
    cut.update(number for device in set(down) for number in cables.get(device, ()))
    return sorted(cut)


def _kept_of(layout: Layout, cut: list[int]) -> tuple[KeptIndexes, Layout]:
    """The indexes of ``layout``'s cables kept with those at ``cut`` (ascending) left out
    (found by bisection, not listed), and ``layout`` with only those cables: a view of its
    list (:class:`KeptView`), not a copy of every cable per failure."""
    kept = KeptIndexes(len(layout.links), cut)
    if not cut:
        return kept, layout
    return kept, replace(layout, links=KeptView(layout.links, kept))  # type: ignore[arg-type]


def _without(layout: Layout, kept: list[int]) -> Layout:
    """``layout`` with only its cables at the indexes ``kept`` (itself where that is all)."""
    if len(kept) == len(layout.links):
        return layout
    links = layout.links
    return replace(layout, links=[links[number] for number in kept])
