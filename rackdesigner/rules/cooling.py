"""Cooling rules (COOL): where each rack's heat goes, and whether that place can take it.

Heat equals electrical load. The analysis splits every device's heat into the part the
liquid loop takes (cold plates, immersion, a rear door) and the residual air heat, and sums
both per rack (:class:`~rackdesigner.analysis.RackFacts`). Where a rack holds devices with
an unknown draw its totals are lower bounds, and the messages say "at least".
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from rackdesigner.analysis import Analysis, CduLoad, DeviceFacts, RackFacts
from rackdesigner.model.refs import SITE
from rackdesigner.model.units import POWER, fmt, fmt_apart, fmt_count
from rackdesigner.model.wording import at_least, plural
from rackdesigner.rules.base import Finding, rule

_LIQUID_HINT = 'use direct-to-chip liquid (cooling = "liquid" with a CDU)'
_DOOR_HINT = 'use a rear-door heat exchanger (cooling = "rear-door" with a door)'


def _cold_plates(dev: DeviceFacts) -> bool:
    """The device's type declares cold plates (v1.1: ``liquid_fraction`` > 0)."""
    return dev.type is not None and (dev.type.liquid_fraction or 0.0) > 0


def _cooling_hint(rack: RackFacts) -> str:
    """Direct-to-chip liquid only where the rack's GPU nodes have cold plates (v1.1); an
    air-only chassis (DGX, air HGX) can take a rear door instead."""
    nodes = [d for d in rack.devices if d.is_gpu_node]
    if nodes and all(_cold_plates(d) for d in nodes):
        return _LIQUID_HINT
    if nodes and any(_cold_plates(d) for d in nodes):
        return f"{_LIQUID_HINT} for the nodes with cold plates, {_DOOR_HINT} for the rest"
    return _DOOR_HINT


@rule("COOL001", "error", scope="rack", thresholds=("air_cooling_max",))
def air_heat_over_limit(analysis: Analysis) -> Iterator[Finding]:
    """A rack puts more heat into the air than air cooling can remove.

    Why it matters:
        Air cooling works up to about 15 kW per rack; above that the room's air cannot carry
        the heat away and the servers throttle or trip. An air-cooled rack counts all its
        heat; a liquid-cooled rack counts its residual air heat, the share the cold plates
        do not take (`liquid_fraction` of each type with cold plates; types without one,
        DGX and air HGX chassis, switches and storage among them, have none and put all
        their heat into the air). Rear-door racks are checked by COOL007 instead, immersion
        racks put no heat into the air. The hint offers direct-to-chip liquid only where
        the rack's GPU nodes have cold plates; for air-only chassis it offers a rear-door
        heat exchanger or spreading the load.

    Example:
        [[racks]]
        id = "a01"
        cooling = "air"

        [[racks.devices]]
        id = "a01-n01"
        model = "dgx-h100"   # 10.2 kW; two of them are 20.4 kW on air
        position = 2

    Fix:
        For nodes with cold plates, cool the rack with direct-to-chip liquid (`cooling =
        "liquid"` and `cdu = "<CDU device id>"`); for air-only chassis use a rear-door heat
        exchanger (`cooling = "rear-door"`); or spread the load over more racks.
    """
    limit = analysis.thresholds["air_cooling_max"]
    for rack in analysis.racks:
        cooling = rack.cooling
        if cooling not in ("air", "liquid") or rack.air_heat <= limit:
            continue
        bound = at_least(rack.load_unknown)
        spread = math.ceil(rack.air_heat / limit)
        heat_text, limit_text = fmt_apart(rack.air_heat, limit, POWER)
        if cooling == "air":
            message = f"{bound}{heat_text} on air exceeds the {limit_text} air-cooling limit"
            hint = f"{_cooling_hint(rack)} or spread the load over {plural(spread, 'rack')}"
        else:
            message = (
                f"residual air heat of {bound}{heat_text} exceeds the {limit_text} "
                "air-cooling limit (the liquid loop takes "
                f"{fmt(rack.liquid_heat, POWER)} of {bound}{fmt(rack.heat, POWER)})"
            )
            hint = (
                "move devices without cold plates to air-cooled racks, use liquid-cooled "
                f"models, or spread the air load over {plural(spread, 'rack')}"
            )
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            message,
            hint=hint,
            values={"air_heat": rack.air_heat, "limit": limit},
        )


@rule("COOL002", "warning", scope="rack", thresholds=("liquid_cooling_min",))
def dense_rack_on_air(analysis: Analysis) -> Iterator[Finding]:
    """A rack dense enough for liquid cooling is cooled by air only.

    Why it matters:
        The field guide's advice is direct-to-chip liquid cooling for 20 kW and more per
        rack: a single 8-GPU node draws 10-14 kW, so two of them in one air-cooled rack are
        past what air handles well. Rear-door racks are checked by COOL007 instead.

    Example:
        [[racks]]
        id = "a01"
        cooling = "air"     # four DGX H100: 40.8 kW

    Fix:
        Set `cooling = "liquid"` with `cdu = "<CDU device id>"` (or `cooling = "rear-door"`
        with a door), or spread the nodes over more racks.
    """
    limit = analysis.thresholds["liquid_cooling_min"]
    for rack in analysis.racks:
        if rack.cooling != "air" or rack.heat <= limit:
            continue
        bound = at_least(rack.load_unknown)
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"{bound}{fmt(rack.heat, POWER)} of heat is above the "
            f"{fmt(limit, POWER)} where liquid cooling is expected, and the rack "
            "is cooled by air only",
            hint=f"{_cooling_hint(rack)}, or spread the load over more racks",
            values={"heat": rack.heat, "limit": limit},
        )


def _reference_problem(
    key: str, name: str, device: DeviceFacts | None, kind: str, what: str
) -> str | None:
    """Why a rack's ``key = "name"`` does not name a device of ``kind``, or None."""
    if device is None:
        return f'{key} = "{name}" names no device in the layout'
    if device.type is not None and device.kind != kind:
        return (
            f'{key} = "{name}" names a {device.kind} ({device.device.model}), not {what} '
            f'(kind = "{kind}")'
        )
    return None


@rule("COOL003", "error", scope="site", reads=("rack.cooling", "rack.cdu", "rack.door"))
def cdu_problems(analysis: Analysis) -> Iterator[Finding]:
    """A liquid-cooled rack has no CDU, names a device that is not one, or its CDUs are too
    small.

    Why it matters:
        The cold plates hand their heat to a coolant loop, and coolant distribution units
        (CDUs) move it to facility water. Every liquid-cooled rack needs one (`cdu`); `cdu`
        may also list the CDUs that serve the rack together (`cdu = ["cdu-1", "cdu-2"]`).
        A CDU group is the CDUs racks name together (lists that share a CDU join), and its
        capacity with all its CDUs working must carry the liquid heat of every rack it
        serves. A rack's liquid heat is `liquid_fraction` of each device with cold plates;
        all of it in an immersion rack. Whether the group survives losing one CDU is
        COOL009.

    Example:
        [[racks]]
        id = "b01"
        cooling = "liquid"
        cdu = "b01-cdu"      # a CoolIT CHx80 (80 kW) in the rack, which holds eight 4U
                             # liquid-cooled HGX B200 nodes: 0.72 x 8 x 12.5 kW = 72 kW;
                             # a second rack like it on the same CDU makes 144 kW

        [[racks]]
        id = "b02"
        cooling = "liquid"   # no cdu

    Fix:
        Point every liquid rack at devices of kind "cdu" (`cdu = "<device id>"` or a list),
        and give each CDU group no more racks than its capacity carries (add a CDU or use a
        larger one).
    """
    for rack in analysis.racks:
        entity = f"rack {rack.rack.id}"
        names = rack.rack.cdus
        if not names:
            if rack.cooling == "liquid":
                yield Finding(
                    entity,
                    rack.ref,
                    "is liquid-cooled but names no CDU",
                    hint='add `cdu = "<device id>"` naming the CDU that serves it',
                )
            continue
        for name, device in zip(names, rack.cdus, strict=False):
            problem = _reference_problem("cdu", name, device, "cdu", "a CDU")
            if problem is not None:
                yield Finding(
                    entity,
                    rack.ref,
                    problem,
                    hint='name a device of kind "cdu" (coolit-chx80 in the rack, '
                    "coolit-chx750 for a row)",
                    related=(device.ref,) if device is not None else (),
                )
    for load in analysis.cdu_loads:
        capacity = load.capacity
        if capacity is None or load.heat <= capacity:
            continue
        racks = load.racks
        names = ", ".join(r.rack.id for r in racks[:5])
        if len(racks) > 5:
            names += f" and {len(racks) - 5} more"
        cdu = load.cdu
        heat_text, capacity_text = fmt_apart(load.heat, capacity, POWER)
        who = "CDU" if len(load.cdus) == 1 else f"CDU group {_cdu_names(load)}"
        all_working = "" if len(load.cdus) == 1 else " with all its CDUs working"
        yield Finding(
            f"device {cdu.id}",
            cdu.ref,
            f"{who} serves {plural(len(racks), 'rack')} ({names}) with "
            f"{at_least(load.heat_unknown)}{heat_text} of liquid heat, "
            f"more than its {capacity_text} capacity{all_working}",
            hint="move some racks to another CDU or add a CDU to the group",
            values={"heat": load.heat, "capacity": capacity, "racks": float(len(racks))},
            related=tuple(c.ref for c in load.cdus[1:]) + tuple(r.ref for r in racks),
        )


def _cdu_names(load: CduLoad) -> str:
    ids = [c.id for c in load.cdus]
    return ", ".join(ids[:4]) + (f" and {len(ids) - 4} more" if len(ids) > 4 else "")


@rule("COOL008", "error", scope="rack")
def air_node_in_liquid_rack(analysis: Analysis) -> Iterator[Finding]:
    """A liquid-cooled rack holds a GPU node that has no cold plates.

    Why it matters:
        Direct-to-chip liquid cooling takes heat only from devices built with cold plates.
        DGX H100/H200/B200 and the air HGX servers are air-only chassis: in a liquid rack
        they cannot use the loop, and all their heat is residual air heat, sent into a
        room that was sized for the loop to take it. A GPU node type has cold plates when
        it declares `liquid_fraction` above 0 (v1.1: the default is 0). One finding per
        such device.

    Example:
        [[racks]]
        id = "a01"
        cooling = "liquid"
        cdu = "a02-cdu"

        [[racks.devices]]
        id = "a01-n01"
        model = "dgx-h100"   # air-only: 10.2 kW into the room

    Fix:
        Use a liquid-cooled model with cold plates (e.g. sys-421ge-tnhr2-lcc), or move the
        node to an air-cooled or rear-door rack; if the type does have cold plates, give it
        its `liquid_fraction` in `[catalog.KEY]`.
    """
    for rack in analysis.racks:
        if rack.cooling != "liquid":
            continue
        for dev in rack.devices:
            if not dev.is_gpu_node or _cold_plates(dev):
                continue
            heat = dev.power
            heat_text = "all its heat" if heat is None else f"all its {fmt(heat, POWER)}"
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"{dev.device.model} has no cold plates (liquid_fraction 0) but stands in "
                f"liquid-cooled rack {rack.rack.id}: {heat_text} goes into the room's air"
                f"{_estimated_text(dev)}",
                hint="use a liquid-cooled model with cold plates, or move it to an "
                "air-cooled or rear-door rack",
                values={"air_heat": float(heat or 0.0)},
                related=(rack.ref,),
            )


def _estimated_text(dev: DeviceFacts) -> str:
    return " (estimated)" if dev.power_estimated else ""


@rule("COOL009", "warning", scope="site", reads=("rack.cooling", "rack.cdu", "rack.door"))
def cdu_group_without_n_plus_one(analysis: Analysis) -> Iterator[Finding]:
    """A CDU group cannot carry its racks' liquid heat with one CDU lost.

    Why it matters:
        One CDU or pump fault must not stop the loop of every rack on it. A CDU group (the
        CDUs racks name together) is N+1 when the sum of its capacities less its largest
        CDU still carries the liquid heat of all its racks; a lone CDU leaves nothing. In a
        group of two or more, a rack that names only one of the CDUs is plumbed to that
        one alone, and loses its loop with it.

    Example:
        [[racks]]
        id = "a01"
        cooling = "liquid"
        cdu = "a06-cdu"   # one 750 kW row CDU for 101 kW: with it lost, the loop stops

    Fix:
        Add a CDU to the group (`cdu = ["cdu-1", "cdu-2"]` on every rack it serves), or
        move racks so that the group less its largest CDU carries them.
    """
    for load in analysis.cdu_loads:
        spare = load.n_plus_one
        capacity = load.capacity
        if spare is None or capacity is None:
            continue
        liquid = [r for r in load.racks if r.liquid_heat > 0]
        if not liquid:
            continue
        bound = at_least(load.heat_unknown)
        cdu = load.cdu
        if load.heat > spare:
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
                    f"CDU group {_cdu_names(load)} carries {bound}{heat_text} of liquid heat; "
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
                f"names only CDU {only} of its group ({_cdu_names(load)}): its "
                f"{at_least(rack.load_unknown)}{fmt(rack.liquid_heat, POWER)} of liquid heat "
                "stops with that one CDU",
                hint="name every CDU that serves it (cdu = [...]) and plumb it to each",
                values={"heat": rack.liquid_heat},
                related=tuple(c.ref for c in load.cdus),
            )


@rule(
    "COOL004",
    "info",
    scope="site",
    thresholds=("immersion_min_gpus",),
    reads=("rack.cooling",),
)
def immersion_scale(analysis: Analysis) -> Iterator[Finding]:
    """Immersion cooling below the GPU count where it pays off, or a cluster above it without.

    Why it matters:
        Immersion tanks remove all of a rack's heat but need their own facility work,
        immersion-ready servers and service procedures; the field guide's advice is that
        immersion only makes sense above about 500 GPUs. A layout that uses immersion racks
        for fewer GPUs in total gets one note at its first immersion rack; a layout with
        more GPUs than that and no immersion rack gets one note at its first rack holding
        GPU nodes, that immersion may pay off at this scale.

    Example:
        [[racks]]
        id = "t01"
        cooling = "immersion"   # the whole layout holds 32 GPUs

    Fix:
        Below the threshold, prefer direct-to-chip liquid (`cooling = "liquid"` with a CDU);
        above it, weigh immersion against direct-to-chip liquid for the new halls.
    """
    threshold = analysis.thresholds["immersion_min_gpus"]
    total = analysis.total_gpus
    immersion = [r for r in analysis.racks if r.cooling == "immersion"]
    if immersion and total < threshold:
        first = immersion[0]
        yield Finding(
            f"rack {first.rack.id}",
            first.ref,
            f"immersion cooling ({plural(len(immersion), 'rack')}) for {total} GPUs in "
            f"total, fewer than the {threshold:g} GPUs where immersion pays off",
            hint='direct-to-chip liquid (cooling = "liquid" with a CDU) is usually '
            "cheaper at this scale",
            values={
                "gpus": float(total),
                "threshold": float(threshold),
                "racks": float(len(immersion)),
            },
        )
    elif not immersion and total > threshold:
        first = next((r for r in analysis.racks if r.gpu_nodes), None)
        if first is None:
            return
        yield Finding(
            f"rack {first.rack.id}",
            first.ref,
            f"the layout holds {total} GPUs, more than the {threshold:g} where "
            "immersion cooling may pay off, and uses none",
            hint="weigh immersion tanks against direct-to-chip liquid at this scale",
            values={"gpus": float(total), "threshold": float(threshold)},
        )


@rule("COOL005", "warning", scope="rack", thresholds=("liquid_model_params_min",))
def large_model_on_air(analysis: Analysis) -> Iterator[Finding]:
    """GPU nodes that train a model of 100B+ parameters are cooled by air.

    Why it matters:
        The field guide's decision flow for 100B+ parameter models is 8-GPU nodes with
        liquid cooling: such runs keep every GPU at full power for weeks, and air-cooled
        GPUs throttle under that load. Fine-tuning counts as training. Only racks with
        `cooling = "air"` are reported; rear-door racks are checked for capacity by
        COOL007.

    Example:
        [workload]
        kind = "training"
        model_params = 175e9

        [[racks]]
        id = "a01"
        cooling = "air"      # holds DGX H100 nodes

    Fix:
        Move the GPU nodes to liquid-cooled racks (`cooling = "liquid"` with a CDU).
    """
    threshold = analysis.thresholds["liquid_model_params_min"]
    workload = analysis.workload
    if workload is None or not workload.is_training or workload.model_params is None:
        return
    params = float(workload.model_params)
    if params < threshold:
        return
    for rack in analysis.racks:
        if rack.cooling != "air" or not rack.gpu_nodes:
            continue
        nodes = rack.gpu_nodes
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"{nodes} GPU node{'s' if nodes != 1 else ''} cooled by air for "
            f"{workload.kind} of a {fmt_count(params)}-parameter model (liquid from "
            f"{fmt_count(threshold)})",
            hint=f"{_LIQUID_HINT} for the GPU nodes",
            values={
                "model_params": params,
                "threshold": float(threshold),
                "gpu_nodes": float(nodes),
            },
        )


@rule("COOL006", "error", scope="site", reads=("rack.cooling", "rack.door"))
def room_air_heat(analysis: Analysis) -> Iterator[Finding]:
    """The racks put more heat into the room's air than the site's cooling capacity.

    Why it matters:
        Whatever heat the liquid loops and rear doors do not take leaves through the room's
        air handlers, and `site.cooling_capacity` is what they remove. The total is the sum
        of every rack's residual air heat: all heat of air-cooled racks, the share the cold
        plates leave in liquid racks, what exceeds a rear door's capacity.

    Example:
        [site]
        cooling_capacity = "30 kW"   # three air-cooled racks of 12 kW each: 36 kW

    Fix:
        Move racks to liquid cooling or rear doors, or raise the room's cooling capacity.
    """
    site = analysis.layout.site
    if site is None or site.cooling_capacity is None:
        return
    capacity = float(site.cooling_capacity)
    total = sum(r.air_heat for r in analysis.racks)
    if total <= capacity:
        return
    bound = at_least(analysis.site_load_unknown)
    yield Finding(
        "[site]",
        SITE,
        f"the racks put {bound}{fmt(total, POWER)} of heat into the room's air, "
        f"more than its cooling_capacity {fmt(capacity, POWER)}",
        hint="move racks to liquid cooling or rear doors, or raise the room's cooling capacity",
        values={"air_heat": total, "cooling_capacity": capacity},
    )


def _door_problem(rack: RackFacts) -> str | None:
    """Why a rear-door rack's `door` does not name a rear door, or None."""
    if not rack.rack.door:
        return 'is cooled by a rear door (cooling = "rear-door") but names no door'
    return _reference_problem("door", rack.rack.door, rack.door, "rear-door", "a rear door")


@rule("COOL007", "error", scope="rack")
def rear_door_problems(analysis: Analysis) -> Iterator[Finding]:
    """A rear-door rack has no door, names a device that is not one, or outgrows its door.

    Why it matters:
        A rear-door heat exchanger cools the rack's exhaust with water before it reaches the
        room, up to its rated capacity. The rack's heat (its whole electrical load, the
        door's fans included) must stay within it; the excess goes into the room's air.
        Rear-door racks are checked here instead of COOL001 and COOL002.

    Example:
        [[racks]]
        id = "a01"
        cooling = "rear-door"
        door = "a01-door"    # rear-door-hx: 75 kW; eight DGX H100 are 81.6 kW

    Fix:
        Name a device of kind "rear-door" with `door = "<device id>"`, and keep the rack's
        load within the door's capacity (spread the nodes, or use direct-to-chip liquid).
    """
    for rack in analysis.racks:
        if rack.cooling != "rear-door":
            continue
        entity = f"rack {rack.rack.id}"
        problem = _door_problem(rack)
        if problem is not None:
            yield Finding(
                entity,
                rack.ref,
                problem,
                hint='add a device of kind "rear-door" (rear-door-hx) and name it '
                'with door = "<device id>"',
            )
            continue
        door = rack.door
        assert door is not None
        capacity = door.type.capacity if door.type is not None else None
        if capacity is None or rack.heat <= capacity:
            continue
        capacity = float(capacity)
        spread = math.ceil(rack.heat / capacity)
        bound = at_least(rack.load_unknown)
        yield Finding(
            entity,
            rack.ref,
            "{}{} of heat exceeds the {} capacity of rear door {}".format(
                bound, *fmt_apart(rack.heat, capacity, POWER), door.id
            ),
            hint=f"{_LIQUID_HINT} or spread the load over {plural(spread, 'rack')}"
            if _cooling_hint(rack) == _LIQUID_HINT
            else f"spread the load over {plural(spread, 'rack')}, or use a door of more capacity",
            values={"heat": rack.heat, "capacity": capacity},
        )


@rule("COOL010", "error", scope="rack")
def cold_plates_without_loop(analysis: Analysis) -> Iterator[Finding]:
    """A GPU node with cold plates stands in a rack without a liquid loop.

    Why it matters:
        A direct-to-chip node (its type declares `liquid_fraction` above 0) is built to
        have most of its heat carried away by the coolant through its cold plates; its
        fans and heat sinks are sized for the rest only. In an air-cooled or rear-door
        rack no CDU loop reaches the plates: the heat they should remove has nowhere to
        go (a rear door cools the exhaust air, not the plates), and the GPUs throttle or
        shut down. One finding per such device; immersion racks, which take all the heat,
        are not checked.

    Example:
        [[racks]]
        id = "a01"
        cooling = "air"

        [[racks.devices]]
        id = "a01-n01"
        model = "sys-421ge-tnhr2-lcc"   # cold plates: liquid_fraction 0.7

    Fix:
        Make the rack liquid-cooled (`cooling = "liquid"` with a CDU), or use an air-cooled
        model (dgx-h100, sys-821ge-tnhr) in this rack.
    """
    for rack in analysis.racks:
        if rack.cooling not in ("air", "rear-door"):
            continue
        for dev in rack.devices:
            if not dev.is_gpu_node or not _cold_plates(dev):
                continue
            fraction = float(dev.type.liquid_fraction or 0.0) if dev.type is not None else 0.0
            where = "an air-cooled" if rack.cooling == "air" else "a rear-door"
            plates = (
                "its cold plates' heat"
                if dev.power is None
                else f"the {fmt(dev.power * fraction, POWER)} its cold plates should remove"
                f"{_estimated_text(dev)}"
            )
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"{dev.device.model} has cold plates (liquid_fraction {fraction:g}) but stands "
                f"in {where} rack, {rack.rack.id}, with no liquid loop: {plates} has nowhere "
                "to go",
                hint='make the rack liquid-cooled (cooling = "liquid" with a CDU), or use an '
                "air-cooled model here",
                values={
                    "liquid_fraction": fraction,
                    "liquid_heat": float((dev.power or 0.0) * fraction),
                },
                related=(rack.ref,),
            )
