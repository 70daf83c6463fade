"""A rear-door rack has no door, names a device that is not one, or outgrows its door.

Why it matters:
    A rear-door heat exchanger cools the rack's exhaust with water before it reaches the
    room, up to its rated capacity. The rack's heat (its whole electrical load, the
    door's fans included) must stay within it; the excess goes into the room's air.
    Rear-door racks are checked here instead of COOL001 and COOL002.

    (v1.3) A liquid-cooled rack may name a rear door as well (`door`): its coil takes
    the residual air heat the cold plates leave (an NVL72 rack's fans, NICs and switch
    trays), up to its capacity, and COOL001 judges what is left. Such a door is checked
    here only for naming a rear door; heat beyond its capacity stays in the room's air,
    where COOL001 counts it.

Example:
    [[racks]]
    id = "a01"
    cooling = "rear-door"
    door = "a01-door"    # rear-door-hx: 75 kW; eight DGX H100 are 81.6 kW

Fix:
    Name a device of kind "rear-door" with `door = "<device id>"`, and keep the rack's
    load within the door's capacity (spread the nodes, or use direct-to-chip liquid).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from rackdesigner.analysis import Analysis, RackFacts
from rackdesigner.model.units import POWER, fmt_apart
from rackdesigner.model.wording import at_least, plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import LIQUID_HINT, cooling_hint, reference_problem


def _door_problem(rack: RackFacts) -> str | None:
    """Why a rear-door rack's `door` (or a liquid rack's, v1.3) does not name a rear door,
    or None."""
    if not rack.rack.door:
        if rack.cooling == "liquid":
            return None
        return 'is cooled by a rear door (cooling = "rear-door") but names no door'
    return reference_problem("door", rack.rack.door, rack.door, "rear-door", "a rear door")


def _failed_door(rack: RackFacts, door: str, limit: float) -> Finding | None:
    """A rear-door rack whose door has failed (what-if): all its heat is in the room's air."""
    if rack.air_heat <= limit:
        return None
    heat_text, limit_text = fmt_apart(rack.air_heat, limit, POWER)
    return Finding(
        f"rack {rack.rack.id}",
        rack.ref,
        f"rear door {door} has failed: {at_least(rack.load_unknown)}{heat_text} of heat goes "
        f"to the room's air, over the {limit_text} air-cooling limit",
        hint="restore the door, or take load out of the rack until it is back",
        values={"air_heat": rack.air_heat, "limit": limit},
    )


@rule("COOL007", "error", scope="rack", thresholds=("air_cooling_max",))
def rear_door_problems(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        if rack.cooling not in ("rear-door", "liquid"):
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
        if rack.cooling == "liquid":
            continue  # what its door leaves in the air is COOL001's
        door = rack.door
        assert door is not None
        if rack.door_failed:  # (what-if) its heat goes to the room's air
            found = _failed_door(rack, door.id, analysis.thresholds["air_cooling_max"])
            if found is not None:
                yield found
            continue
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
            hint=f"{LIQUID_HINT} or spread the load over {plural(spread, 'rack')}"
            if cooling_hint(rack) == LIQUID_HINT
            else f"spread the load over {plural(spread, 'rack')}, or use a door of more capacity",
            values={"heat": rack.heat, "capacity": capacity},
        )
