"""Cooling rules (COOL): where each rack's heat goes, and whether that place can take it.

Heat equals electrical load. The analysis splits every device's heat into the part the
liquid loop takes (cold plates, immersion, a rear door) and the residual air heat, and sums
both per rack (:class:`~rackdesigner.analysis.RackFacts`). Where a rack holds devices with
an unknown draw its totals are lower bounds, and the messages say "at least".
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from ..analysis import Analysis, DeviceFacts, RackFacts
from ..refs import SITE
from ..units import POWER, fmt, fmt_apart, fmt_count
from ..wording import at_least, plural
from .base import Finding, rule

_LIQUID_HINT = 'use direct-to-chip liquid (cooling = "liquid" with a CDU)'


@rule("COOL001", "error", scope="rack", thresholds=("air_cooling_max",))
def air_heat_over_limit(analysis: Analysis) -> Iterator[Finding]:
    """A rack puts more heat into the air than air cooling can remove.

    Why it matters:
        Air cooling works up to about 15 kW per rack; above that the room's air cannot carry
        the heat away and the servers throttle or trip. An air-cooled rack counts all its
        heat; a liquid-cooled rack counts its residual air heat, the share the cold plates
        do not take (`liquid_fraction` of each liquid-ready device, 0.8 for GPU nodes by
        default, none for switches and storage). Rear-door racks are checked by COOL007
        instead, immersion racks put no heat into the air.

    Example:
        [[racks]]
        id = "a01"
        cooling = "air"

        [[racks.devices]]
        id = "a01-n01"
        model = "dgx-h100"   # 10.2 kW; two of them are 20.4 kW on air
        position = 2

    Fix:
        Cool the rack with direct-to-chip liquid (`cooling = "liquid"` and `cdu = "<CDU
        device id>"`) or a rear door, or spread the load over more racks.
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
            hint = f"{_LIQUID_HINT} or spread the load over {plural(spread, 'rack')}"
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
            hint=f'{_LIQUID_HINT}, or a rear door (cooling = "rear-door")',
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


@rule("COOL003", "error", scope="site")
def cdu_problems(analysis: Analysis) -> Iterator[Finding]:
    """A liquid-cooled rack has no CDU, names a device that is not one, or its CDU is too small.

    Why it matters:
        The cold plates hand their heat to a coolant loop, and a coolant distribution unit
        (CDU) moves it to facility water. Every liquid-cooled rack needs one (`cdu`), and a
        CDU must carry the liquid heat of every rack that names it. The liquid heat of a
        rack is `liquid_fraction` of each liquid-ready device's heat (0.8 of a GPU node's
        by default); all of it in an immersion rack.

    Example:
        [[racks]]
        id = "b01"
        cooling = "liquid"
        cdu = "b01-cdu"      # a CoolIT CHx80 (80 kW) in the rack, which holds eight 4U
                             # liquid-cooled HGX B200 nodes: 0.8 x 114.4 kW = 91.5 kW

        [[racks]]
        id = "b02"
        cooling = "liquid"   # no cdu

    Fix:
        Point every liquid rack at a device of kind "cdu" (`cdu = "<device id>"`), and give
        each CDU no more racks than its capacity carries (add a CDU or use a larger one).
    """
    for rack in analysis.racks:
        entity = f"rack {rack.rack.id}"
        if not rack.rack.cdu:
            if rack.cooling == "liquid":
                yield Finding(
                    entity,
                    rack.ref,
                    "is liquid-cooled but names no CDU",
                    hint='add `cdu = "<device id>"` naming the CDU that serves it',
                )
            continue
        problem = _reference_problem("cdu", rack.rack.cdu, rack.cdu, "cdu", "a CDU")
        if problem is not None:
            yield Finding(
                entity,
                rack.ref,
                problem,
                hint='name a device of kind "cdu" (coolit-chx80 in the rack, '
                "coolit-chx750 for a row)",
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
        yield Finding(
            f"device {cdu.id}",
            cdu.ref,
            f"CDU serves {plural(len(racks), 'rack')} ({names}) with "
            f"{at_least(load.heat_unknown)}{fmt(load.heat, POWER)} of liquid heat, "
            f"more than its {fmt(capacity, POWER)} capacity",
            hint="move some racks to another CDU or use a larger CDU",
            values={"heat": load.heat, "capacity": capacity, "racks": float(len(racks))},
        )


@rule("COOL004", "info", scope="site", thresholds=("immersion_min_gpus",))
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


@rule("COOL006", "error", scope="site")
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
            hint=f"{_LIQUID_HINT} or spread the load over {plural(spread, 'rack')}",
            values={"heat": rack.heat, "capacity": capacity},
        )
