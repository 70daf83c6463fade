"""A rack puts more heat into the air than air cooling can remove.

Why it matters:
    Air cooling works up to about 15 kW per rack; above that the room's air cannot carry
    the heat away and the servers throttle or trip. An air-cooled rack counts all its
    heat; a liquid-cooled rack counts its residual air heat, the share the cold plates
    do not take (`liquid_fraction` of each type with cold plates; types without one,
    DGX and air HGX chassis, switches and storage among them, have none and put all
    their heat into the air). Rear-door racks are checked by COOL007 instead, immersion
    racks put no heat into the air. (v1.3) A liquid rack that names a rear door
    (`door`) counts what is left after the door's coil takes its share, up to the
    door's capacity. (v1.4) A rack that names in-row coolers (`inrow`) sends its air
    heat to them instead; COOL020 judges their group. The hint offers direct-to-chip
    liquid only where the rack's GPU nodes have cold plates; for air-only chassis it
    offers a rear-door heat exchanger or spreading the load.

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

from __future__ import annotations

import math
from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import POWER, fmt, fmt_apart
from rackdesigner.model.wording import at_least, plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import cooling_hint


@rule("COOL001", "error", scope="rack", thresholds=("air_cooling_max",))
def air_heat_over_limit(analysis: Analysis) -> Iterator[Finding]:
    limit = analysis.thresholds["air_cooling_max"]
    for rack in analysis.racks:
        cooling = rack.cooling
        if cooling not in ("air", "liquid") or rack.air_heat <= limit:
            continue
        if rack.rack.inrow is not None:  # (v1.4) its in-row coolers take it: COOL020
            continue
        bound = at_least(rack.load_unknown)
        spread = math.ceil(rack.air_heat / limit)
        heat_text, limit_text = fmt_apart(rack.air_heat, limit, POWER)
        if cooling == "air":
            message = f"{bound}{heat_text} on air exceeds the {limit_text} air-cooling limit"
            hint = f"{cooling_hint(rack)} or spread the load over {plural(spread, 'rack')}"
        else:
            door = (
                f", rear door {rack.door.id} {fmt(rack.door_heat, POWER)}"
                if rack.door is not None and rack.door_heat > 0
                else ""
            )
            failed = ""
            if rack.door is not None and rack.door_failed:  # (what-if)
                failed = f"; rear door {rack.door.id} has failed"
            message = (
                f"residual air heat of {bound}{heat_text} exceeds the {limit_text} "
                "air-cooling limit (the liquid loop takes "
                f"{fmt(rack.loop_heat, POWER)}{door} of {bound}{fmt(rack.heat, POWER)}{failed})"
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
