"""What a failure does to power: devices down and degraded, feeds that trip, racks that
run on the sides they kept. Cooling is :mod:`.cooling`'s, the power chain :mod:`.chain`'s.

Power is the analysis's own model of a rack with parts lost
(:func:`rackdesigner.analysis.failures.rack_power`), which the rules judge a failed layout
by as well. Only the racks a failure touches are derived again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rackdesigner.analysis.facts import ZERO_DRAW_KINDS
from rackdesigner.analysis.failures import rack_power
from rackdesigner.whatif.results import DeviceLoss, Gone, Impact, OnePath, PowerShort

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis, DeviceFacts, RackFacts
    from rackdesigner.whatif.chain import Caps
    from rackdesigner.whatif.parts import Lost


def device_loss(dev: DeviceFacts, left: int, why: str) -> DeviceLoss:
    dtype = dev.type
    return DeviceLoss(
        dev.id,
        dev.rack.id,
        dev.kind,
        dev.gpus if dev.is_gpu_node else 0,
        (dtype.psus if dtype is not None and dtype.psus else 1),
        left,
        dtype.psus_required if dtype is not None else None,
        why,
    )


def capping(analysis: Analysis) -> bool:
    """Whether the layout caps its GPUs when supply runs short (``[workload]``, v1.4)."""
    workload = analysis.workload
    return bool(workload is not None and workload.power_capping)


# -- power ---------------------------------------------------------------------------------


def power_losses(analysis: Analysis, lost: Lost, impact: Impact) -> Gone:
    """Devices down and degraded in the racks the failures touch."""
    gone = Gone()
    for ident in sorted(lost.devices):
        dev = analysis.device_by_id[ident]
        gone.down.add(ident)
        impact.down.append(device_loss(dev, 0, "failed"))
    capped = capping(analysis)
    for index in sorted(lost.touched_racks(analysis)):
        rack = analysis.racks[index]
        gone.racks.add(index)
        if index in lost.racks:
            _rack_lost(rack, gone, impact)
        else:
            _rack_power(rack, lost, gone, impact, capped)
    return gone


def _rack_lost(rack: RackFacts, gone: Gone, impact: Impact) -> None:
    gone.dead_feeds.update((rack.index, n) for n in range(len(rack.rack.feeds)))
    for dev in rack.devices:
        if dev.id not in gone.down:
            gone.down.add(dev.id)
            if dev.type is not None and dev.kind not in ZERO_DRAW_KINDS:
                impact.down.append(device_loss(dev, 0, "rack lost"))


def _rack_power(rack: RackFacts, lost: Lost, gone: Gone, impact: Impact, capped: bool) -> None:
    failed = {d.id for d in rack.devices if d.id in lost.devices}
    feeds = lost.feeds_of(rack.index)
    state = rack_power(rack, feeds, failed, down=gone.down, capping=capped)
    gone.dead_feeds.update((rack.index, n) for n in state.dead)
    live = state.live
    if len(state.keys) >= 2 and any(live.values()) and not all(live.values()):
        gone.sides_lost[rack.index] = tuple(key for key, alive in live.items() if not alive)
    by_id = {d.id: d for d in rack.devices}
    for loss in state.down.values():
        gone.down.add(loss.id)
        impact.down.append(device_loss(by_id[loss.id], loss.psus_left, loss.why))
    for loss in state.degraded.values():
        gone.degraded.add(loss.id)
        impact.degraded.append(device_loss(by_id[loss.id], loss.psus_left, loss.why))
    names = rack.rack.feeds
    for shelf, feed in state.shelves:  # a shelf has one AC input: dead with its feed
        if feed in state.dead and shelf.id not in failed:
            impact.down.append(device_loss(shelf, 0, f"its feed {names[feed].id} is dead"))
    for over in state.overloads:
        impact.power.append(
            PowerShort(rack.rack.id, over.side, over.load, over.capacity, over.feed, over.capped)
        )


def chain_caps(analysis: Analysis, caps: Caps, gone: Gone, impact: Impact) -> None:
    """The GPU nodes of racks on a chain element over its rating, with power capping:
    degraded (those not already down or degraded)."""
    for index, why in sorted(caps.racks.items()):
        for dev in analysis.racks[index].devices:
            if dev.is_gpu_node and dev.id not in gone.down and dev.id not in gone.degraded:
                gone.degraded.add(dev.id)
                impact.degraded.append(device_loss(dev, 0, why))


def one_path(analysis: Analysis, gone: Gone) -> list[OnePath]:
    """The racks that lost a whole side and run on the rest, with their GPUs still running
    (degraded or not): their redundancy is used up (what the next side lost would cost, the
    failed layout's PWR001 says)."""
    out = []
    for index, sides in sorted(gone.sides_lost.items()):
        rack = analysis.racks[index]
        up = sum(d.gpus for d in rack.devices if d.is_gpu_node and d.id not in gone.down)
        if any(d.id not in gone.down for d in rack.devices if d.type is not None):
            out.append(OnePath(rack.rack.id, sides, up))
    return out
