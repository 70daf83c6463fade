"""Duplicate ids, two racks in one place, or a model or GPU that is not in the catalog.

Why it matters:
    Every rack, device and feed needs one name (links and cooling refer to them by id)
    and every rack one place on the floor (row and slot). A device whose model is not
    in the catalog has no height, power or ports, so nothing about it can be checked.

Example:
    [[racks.devices]]
    id = "a01-n01"
    model = "dgx-h10"    # a typo: did you mean dgx-h100?

Fix:
    Rename duplicates, give each rack its own (row, slot), and use a catalog key
    (`rackdesigner catalog` lists them) or define the model in `[catalog.KEY]`.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts, FeedFacts, RackFacts
from rackdesigner.rules.base import Finding, rule


def _rack_place(rack: RackFacts) -> str:
    """The rack as a reader tells it from another with the same id: by its place."""
    if rack.rack.row is not None and rack.rack.slot is not None:
        return f"the rack in row {rack.rack.row!r} slot {rack.rack.slot}"
    return f"rack #{rack.index + 1} in file order"


def _nth(rack: RackFacts) -> str:
    # Two racks may share an id (reported above): then say which one is meant.
    return f" ({_rack_place(rack)})" if rack.ref.nth else ""


def _device_place(first: DeviceFacts, dev: DeviceFacts) -> str:
    """Where the first device with ``dev``'s id is, said without a line number."""
    at = f" at U{first.device.position}" if first.device.position is not None else ""
    if first.rack is dev.rack:
        return f"in this rack{at}"
    return f"in rack {first.rack.id}{at}"


@rule("PLC005", "error", scope="site", reads=("rack.row", "rack.slot"))
def identity(analysis: Analysis) -> Iterator[Finding]:
    seen_racks: dict[str, RackFacts] = {}
    places: dict[tuple[str, int], RackFacts] = {}
    seen_devices: dict[str, DeviceFacts] = {}
    seen_feeds: dict[str, tuple[RackFacts, FeedFacts]] = {}
    for rack in analysis.racks:
        rid = rack.rack.id
        if rid in seen_racks:
            first = seen_racks[rid]
            yield Finding(
                f"rack {rid}",
                rack.ref,
                f"duplicate rack id (also {_rack_place(first)})",
                related=(first.ref,),
            )
        else:
            seen_racks[rid] = rack
        if rack.rack.slot is not None:
            place = (rack.rack.row or "", rack.rack.slot)
            if place in places:
                other = places[place]
                yield Finding(
                    f"rack {rid}",
                    rack.ref,
                    f"row {place[0]!r} slot {place[1]} is already taken by rack "
                    f"{other.rack.id}{_nth(other)}",
                    related=(other.ref,),
                )
            else:
                places[place] = rack
        for feed in rack.feeds:
            fid = feed.feed.id
            if fid in seen_feeds:
                first_rack, first_feed = seen_feeds[fid]
                where = (
                    "earlier in this rack"
                    if first_rack is rack
                    else f"in rack {first_rack.rack.id}"
                )
                yield Finding(
                    f"rack {rid} feed {fid}",
                    feed.ref,
                    f"duplicate feed id (also {where})",
                    related=(first_feed.ref,),
                )
            else:
                seen_feeds[fid] = (rack, feed)
        for dev in rack.devices:
            did = dev.id
            if did in seen_devices:
                first_dev = seen_devices[did]
                yield Finding(
                    f"device {did}",
                    dev.ref,
                    f"duplicate device id (also {_device_place(first_dev, dev)})",
                    related=(first_dev.ref,),
                )
            else:
                seen_devices[did] = dev
            if dev.type is None:
                near = analysis.catalog.nearest(dev.device.model)
                hint = (
                    f"did you mean {' or '.join(near)}?"
                    if near
                    else "`rackdesigner catalog` lists the known models"
                )
                yield Finding(
                    f"device {did}",
                    dev.ref,
                    f"unknown model {dev.device.model!r}",
                    hint=hint,
                )
    # Every type the layout uses or defines: a bad GPU key is a mistake even before a
    # device uses the type.
    for key in dict.fromkeys([*analysis.types_used, *analysis.layout.catalog]):
        dtype = analysis.catalog.devices.get(key)
        if dtype is None or dtype.gpu is None or dtype.gpu in analysis.catalog.gpus:
            continue
        entity, subject = analysis.type_site(key)
        near = analysis.catalog.nearest_gpu(dtype.gpu)
        hint = (
            f"did you mean {' or '.join(near)}?"
            if near
            else "`rackdesigner catalog` lists the known GPUs"
        )
        yield Finding(entity, subject, f"model {key} names unknown GPU {dtype.gpu!r}", hint=hint)
