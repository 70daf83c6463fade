"""Placement rules (PLC): where devices sit in racks and racks on the floor."""

from __future__ import annotations

import math
from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts, FeedFacts, RackFacts
from rackdesigner.rules.base import Finding, rule


def _mounted(rack: RackFacts) -> Iterator[DeviceFacts]:
    """Devices that occupy units and have a position."""
    for dev in rack.devices:
        if dev.mounted and dev.device.position is not None:
            yield dev


def _faces(dev: DeviceFacts) -> tuple[str, ...]:
    if dev.type is not None and dev.type.full_depth:
        return ("front", "rear")
    return (dev.device.face or "front",)


def _units(dev: DeviceFacts) -> range:
    position = dev.device.position or 0
    return range(position, position + max(1, round(dev.height_u)))


@rule("PLC001", "error", scope="rack")
def overlap(analysis: Analysis) -> Iterator[Finding]:
    """Two devices occupy the same rack unit.

    Why it matters:
        Two devices cannot be in one place. A full-depth device occupies both faces of its
        units; two half-depth devices may share a unit, one on the front face and one on the
        rear.

    Example:
        [[racks.devices]]
        id = "a01-n01"
        model = "dgx-h100"   # 8 U: U2-U9
        position = 2

        [[racks.devices]]
        id = "a01-n02"
        model = "dgx-h100"
        position = 8         # U8-U15 overlaps U8-U9

    Fix:
        Move one device to free units (`position`), or mount half-depth devices on
        opposite faces (`face = "rear"`).
    """
    for rack in analysis.racks:
        # Sweep the rack bottom-up: only devices still "open" at a device's lowest unit can
        # overlap it, which keeps this linear in practice.
        spans = sorted(
            (
                dev.device.position or 0,
                dev.device.position or 0,
                max(1, round(dev.height_u)),
                order,
                dev,
            )
            for order, dev in enumerate(_mounted(rack))
        )
        active: list[tuple[int, int, int, DeviceFacts]] = []  # (start, top, order, device)
        for start, _, height, order, dev in spans:
            top = start + height - 1
            active = [item for item in active if item[1] >= start]
            for other_start, other_top, other_order, other in active:
                shared_faces = [f for f in _faces(dev) if f in _faces(other)]
                if not shared_faces:
                    continue
                later, earlier = (dev, other) if order > other_order else (other, dev)
                low, high = max(start, other_start), min(top, other_top)
                span = f"U{low}" if low == high else f"U{low}-U{high}"
                where = "" if len(shared_faces) == 2 else f" on the {shared_faces[0]} face"
                yield Finding(
                    f"device {later.id}",
                    later.ref,
                    f"overlaps device {earlier.id} at {span}{where} in rack {rack.rack.id}",
                    hint="move one of them to free units",
                    values={"unit": float(low)},
                    related=(earlier.ref,),
                )
            active.append((start, top, order, dev))


@rule("PLC002", "error", scope="rack")
def out_of_rack(analysis: Analysis) -> Iterator[Finding]:
    """A device extends below U1 or above the rack's height, or its position is missing or moot.

    Why it matters:
        Units are counted from 1 at the bottom of the rack to its height (42 in a 42U rack).
        A device placed outside them does not fit. A device that takes units needs a
        `position`; 0U devices (PDUs) go without one, on a side rail (`side`).

    Example:
        [[racks]]
        id = "a01"
        height = "42 U"

        [[racks.devices]]
        id = "a01-n05"
        model = "dgx-h100"   # 8 U
        position = 38        # U38-U45: above U42

    Fix:
        Give a position between 1 and the rack height minus the device height plus one.
    """
    for rack in analysis.racks:
        height = rack.rack.height_u
        for dev in rack.devices:
            if dev.type is not None and not dev.mounted:
                if dev.device.position is not None:
                    yield Finding(
                        f"device {dev.id}",
                        dev.ref,
                        f"is a 0U device ({dev.device.model}) but has position "
                        f"{dev.device.position} in rack {rack.rack.id}",
                        hint="0U devices mount on a side rail: replace position with "
                        'side = "left" or "right"',
                    )
                continue
            if not dev.mounted:
                continue
            position = dev.device.position
            if position is None:
                yield Finding(
                    f"device {dev.id}",
                    dev.ref,
                    f"takes {dev.height_u:g} U but has no position in rack {rack.rack.id}",
                    hint="add `position = N`, its lowest unit counted from 1 at the bottom",
                )
                continue
            top = position + dev.height_u - 1
            if position < 1:
                yield Finding(
                    f"device {dev.id}",
                    dev.ref,
                    f"position {position} is below U1 of rack {rack.rack.id} "
                    "(units count from 1 at the bottom)",
                    values={"position": float(position)},
                )
            elif top > height:
                yield Finding(
                    f"device {dev.id}",
                    dev.ref,
                    f"occupies U{position}-U{top:g}, above the top of rack "
                    f"{rack.rack.id} (U{height:g})",
                    hint=f"the highest position for a device of {dev.height_u:g} U "
                    f"is {height - dev.height_u + 1:g}",
                    values={"top": float(top), "height": float(height)},
                )


def _is_infiniband_switch(dev: DeviceFacts) -> bool:
    return dev.kind == "switch" and any(
        g.tech == "infiniband" for g in (dev.type.ports or ()) if dev.type is not None
    )


@rule("PLC003", "warning", scope="rack")
def switch_not_mid_rack(analysis: Analysis) -> Iterator[Finding]:
    """An InfiniBand switch sits outside the middle third of a rack holding GPU nodes.

    Why it matters:
        Compute nodes above and below the switch keep every cable short: the field guide's
        advice is "switches in the middle of the rack, compute nodes on either side". A
        switch at the top makes the cables to the lowest nodes the longest in the rack.
        The middle is where the device's centre lies within a third to two thirds of the
        rack height (U15-U28 for a 1U switch in a 42U rack).

    Example:
        [[racks.devices]]
        id = "a01-leaf1"
        model = "qm9700"
        position = 42        # top of a 42U rack holding DGX nodes

    Fix:
        Move the switch to the middle third, with nodes above and below it.
    """
    for rack in analysis.racks:
        if rack.gpu_nodes == 0:
            continue
        height = rack.rack.height_u
        low, high = height / 3, 2 * height / 3
        for dev in rack.devices:
            centre = dev.centre_u
            if centre is None or not _is_infiniband_switch(dev):
                continue
            if not low <= centre <= high:
                # positions p whose centre p - 1 + h/2 lies in [low, high]
                first = math.ceil(low + 1 - dev.height_u / 2)
                last = math.floor(high + 1 - dev.height_u / 2)
                yield Finding(
                    f"device {dev.id}",
                    dev.ref,
                    f"InfiniBand switch at U{dev.device.position} is outside the "
                    f"middle of rack {rack.rack.id} (centre {centre:g} U, middle "
                    f"{low:g}-{high:g} U)",
                    hint=f"move it to a position between U{max(first, 1)} and U{last}",
                    values={"centre": centre, "low": low, "high": high},
                )


@rule("PLC004", "error", scope="rack")
def overweight(analysis: Analysis) -> Iterator[Finding]:
    """A rack's devices weigh more than its `max_weight`.

    Why it matters:
        A rack's static load rating is what its frame, casters and the floor tile under it
        carry. Eight-GPU nodes weigh 130-145 kg each; four of them with switches and PDUs
        approach the rating of many racks.

    Example:
        [[racks]]
        id = "a01"
        max_weight = "500 kg"   # four DGX H100 at 130 kg are 522 kg

    Fix:
        Spread the nodes over more racks or use racks rated for the load.
    """
    from rackdesigner.model.units import MASS, fmt

    for rack in analysis.racks:
        limit = rack.rack.max_weight
        if limit is None or rack.weight <= limit:
            continue
        bound = "at least " if rack.unknown_weight else ""
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"devices weigh {bound}{fmt(rack.weight, MASS)}, more than its "
            f"max_weight {fmt(float(limit), MASS)}",
            hint="spread the devices over more racks or use a rack rated for the load",
            values={"weight": rack.weight, "max_weight": float(limit)},
        )


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


@rule("PLC006", "warning", scope="rack")
def open_units(analysis: Analysis) -> Iterator[Finding]:
    """An air-cooled rack has open units not covered by blanking panels.

    Why it matters:
        Hot exhaust air flows back to the cold aisle through every open unit and is drawn
        in again by the servers: hot spots and wasted cooling. Blanking panels close them.

    Example:
        [[racks]]
        id = "a01"
        cooling = "air"
        # devices fill U1-U20; U21-U42 are open

    Fix:
        Fill open units with `blank-1u` / `blank-2u` devices.
    """
    for rack in analysis.racks:
        if rack.cooling != "air" or not rack.devices:
            continue
        height = int(rack.rack.height_u)
        covered = [False] * (height + 1)
        for dev in _mounted(rack):
            if "front" not in _faces(dev):
                continue  # a half-depth device on the rear face leaves the front open
            for unit in _units(dev):
                if 1 <= unit <= height:
                    covered[unit] = True
        spans: list[tuple[int, int]] = []
        for unit in range(1, height + 1):
            if covered[unit]:
                continue
            if spans and spans[-1][1] == unit - 1:
                spans[-1] = (spans[-1][0], unit)
            else:
                spans.append((unit, unit))
        if not spans:
            continue
        count = sum(b - a + 1 for a, b in spans)
        text = ", ".join(f"U{a}" if a == b else f"U{a}-U{b}" for a, b in spans[:6])
        if len(spans) > 6:
            text += f" and {len(spans) - 6} more"
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"{count} open unit{'s' if count != 1 else ''} without blanking panels ({text})",
            hint="fill them with blank-1u / blank-2u panels",
            values={"open_units": float(count)},
        )


_REVERSED = {"front-to-rear": "rear-to-front", "rear-to-front": "front-to-rear"}


@rule("PLC007", "warning", scope="rack")
def airflow_against_rack(analysis: Analysis) -> Iterator[Finding]:
    """A device's airflow runs against its rack's.

    Why it matters:
        Racks sit in hot-aisle / cold-aisle rows: air enters at one face and leaves at the
        other. A device that blows the other way (a switch with reversed fans, or one
        mounted on the rear face, which reverses it) breathes the hot aisle's exhaust.

    Example:
        [[racks]]
        id = "a01"
        airflow = "front-to-rear"

        [[racks.devices]]
        id = "a01-mgmt"
        model = "sn2201"     # rear-to-front when mounted on the front face
        position = 21

    Fix:
        Mount it on the other face (`face = "rear"`, half-depth devices) or order the
        model with the other airflow direction.
    """
    for rack in analysis.racks:
        want = rack.rack.airflow_mode
        for dev in rack.devices:
            if dev.type is None or not dev.type.airflow or dev.type.airflow == "passive":
                continue
            have = dev.type.airflow
            if dev.device.face == "rear":
                have = _REVERSED[have]
            if have != want:
                mounted = " (mounted on the rear face)" if dev.device.face == "rear" else ""
                hint = (
                    "mount it on the other face or order the other airflow direction"
                    if not dev.type.full_depth
                    else "order the model with the other airflow direction (e.g. the P2C / C2P "
                    "variant of a switch)"
                )
                yield Finding(
                    f"device {dev.id}",
                    dev.ref,
                    f"airflow {have}{mounted} runs against rack {rack.rack.id}'s {want}",
                    hint=hint,
                )


@rule("PLC008", "error", scope="rack", thresholds=("floor_load_max",))
def floor_load(analysis: Analysis) -> Iterator[Finding]:
    """A rack loads the floor beyond its rating.

    Why it matters:
        A raised floor or slab is rated for a distributed load, in kg/m². A rack's floor
        load is its devices' weight plus its own (`weight`, 150 kg by default) over its
        footprint (`width` × `depth`, 600 mm × 1200 mm = 0.72 m² by default): eight GPU
        nodes of 130 kg with switches, PDUs and the rack are over 1,100 kg, 1,528 kg/m² on
        a standard footprint. The limit is `[site] floor_load_max` where given, else the
        `floor_load_max` threshold (1,500 kg/m²). Where a device's weight is unknown the
        load is a lower bound ("at least").

    Example:
        [site]
        floor_load_max = "1200 kg/m^2"

        [[racks]]
        id = "a01"
        width = "600 mm"
        depth = "1200 mm"      # 0.72 m²: 864 kg with the rack is the most it may hold
        # its devices weigh 1,000 kg: with the rack's 150 kg, 1,597 kg/m²

    Fix:
        Spread the heavy devices over more racks, use a wider or deeper rack (a larger
        footprint), or have the floor rated and reinforced for the load.
    """
    from rackdesigner.model.units import AREAL_MASS, MASS, fmt, fmt_apart

    site = analysis.layout.site
    limit = analysis.thresholds["floor_load_max"]
    source = "floor_load_max"
    if site is not None and site.floor_load_max is not None:
        limit = float(site.floor_load_max)
        source = "[site] floor_load_max"
    for rack in analysis.racks:
        weight = rack.weight + rack.rack.weight_kg
        area = rack.rack.width_m * rack.rack.depth_m
        if area <= 0:
            continue
        load = weight / area
        if load <= limit * (1 + 1e-9):
            continue
        bound = "at least " if rack.unknown_weight else ""
        load_text, limit_text = fmt_apart(load, limit, AREAL_MASS)
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"{bound}{fmt(weight, MASS)} on {area:.3g} m² is {bound}{load_text}, over the "
            f"{limit_text} floor rating ({source}; devices {fmt(rack.weight, MASS)} + rack "
            f"{fmt(rack.rack.weight_kg, MASS)})",
            hint="spread the heavy devices over more racks, use a larger footprint (width, "
            "depth), or have the floor rated for the load",
            values={"floor_load": load, "limit": limit, "weight": weight, "area": area},
        )


@rule("PLC009", "error", scope="rack")
def deeper_than_rack(analysis: Analysis) -> Iterator[Finding]:
    """A device's chassis is deeper than its rack.

    Why it matters:
        A chassis deeper than the rack does not fit on its rails, and the rear door does not
        close over it (no hot-aisle containment, no rear-door heat exchanger). GPU servers
        are deep: a DGX H100 is 897 mm, and many 600 mm-wide racks are only 1000-1070 mm
        deep, less the space cables need. The check uses the type's `chassis_depth` and the
        rack's `depth` (1200 mm by default); types without `chassis_depth` are not judged.

    Example:
        [[racks]]
        id = "a01"
        depth = "800 mm"

        [[racks.devices]]
        id = "a01-n01"
        model = "dgx-h100"     # 897.1 mm deep

    Fix:
        Use a deeper rack (`depth`), or a shallower model.
    """
    from rackdesigner.model.units import LENGTH, fmt

    for rack in analysis.racks:
        depth = rack.rack.depth_m
        for dev in rack.devices:
            chassis = dev.type.chassis_depth if dev.type is not None else None
            if chassis is None or float(chassis) <= depth + 1e-9:
                continue
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"{dev.device.model} is {fmt(float(chassis), LENGTH, 4)} deep, deeper than "
                f"rack {rack.rack.id} ({fmt(depth, LENGTH)})",
                hint="use a deeper rack (depth) or a shallower model",
                values={"depth": float(chassis), "rack_depth": depth},
                related=(rack.ref,),
            )
