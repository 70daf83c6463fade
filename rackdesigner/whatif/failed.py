"""The layout as a failure leaves it, for the rules: what they find there that the layout has
not is the failure's new findings.

What the failure takes down (GPU nodes, switches, trays, storage: consumers) leaves the
layout with its cables. What other parts name (feeds, PDUs, power shelves, busbars, CDUs,
rear doors) stays, marked failed in the analysis (:class:`~rackdesigner.analysis.failures.
Failed`): a failed CDU reads as failed, not as a name without a device, and the rules judge
the racks as they run with it gone (capacity where the parts left fall short, "redundancy
lost" where a redundancy the failure used up leaves the next failure exposed).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rackdesigner.analysis.failures import Failed

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis, DeviceFacts
    from rackdesigner.model.layout import Layout
    from rackdesigner.whatif.parts import Lost
    from rackdesigner.whatif.results import Gone

# Device kinds a failed layout keeps (marked failed): other parts name them.
KEPT_KINDS = ("pdu", "cdu", "rear-door")


def kept(dev: DeviceFacts) -> bool:
    """Whether a failed layout keeps ``dev`` (failed) rather than taking it out."""
    dtype = dev.type
    return dev.kind in KEPT_KINDS or (
        dtype is not None and (dtype.is_power_shelf or dtype.is_busbar)
    )


@dataclass(frozen=True, slots=True)
class FailedState:
    layout: Layout  # consumers down taken out, with their cables and the failed cables
    failed: Failed  # what it keeps that works no more
    touched: frozenset[str]  # rack ids whose power or cooling the failure changed


def failed_state(analysis: Analysis, lost: Lost, gone: Gone) -> FailedState:
    """The failed layout of ``analysis``'s layout, given what a failure took."""
    by_id = analysis.device_by_id
    racks = analysis.racks
    dark = {i for i in gone.down if (d := by_id.get(i)) is not None and kept(d)}
    feeds = frozenset((racks[r].rack.id, racks[r].rack.feeds[n].id) for r, n in gone.dead_feeds)
    touched = {racks[i].rack.id for i in gone.racks}
    touched.update(by_id[i].rack.id for i in dark)
    removed = gone.down - dark
    layout = failed_layout(analysis.layout, removed, lost.links)
    return FailedState(layout, Failed(feeds, frozenset(dark)), frozenset(touched))


def failed_layout(layout: Layout, removed: Iterable[str], links: Iterable[int] = ()) -> Layout:
    """``layout`` without the devices ``removed``, the cables to them and the cables at the
    indexes ``links``. Every rack and feed stays; the model objects that do not change are
    shared."""
    gone = set(removed)
    cut = set(links)
    racks = []
    for rack in layout.racks:
        devices = [d for d in rack.devices if d.id not in gone]
        racks.append(rack if len(devices) == len(rack.devices) else replace(rack, devices=devices))
    if not gone and not cut:
        return replace(layout, racks=racks)
    kept_links = [
        link
        for number, link in enumerate(layout.links)
        if number not in cut
        and link.a.partition(":")[0] not in gone
        and link.b.partition(":")[0] not in gone
    ]
    return replace(layout, racks=racks, links=kept_links)
