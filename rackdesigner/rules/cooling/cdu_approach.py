"""A CDU runs at an approach it is not rated at, or one no heat exchanger can reach.

Why it matters:
    (v1.4) A CDU's capacity holds at the approach it is rated at: its secondary supply
    (`supply_setpoint`) less the facility water's (its loop's `supply_temperature`, or the
    warmest its ASHRAE class allows). A larger approach never cools less, so above it the
    rated capacity is a floor; below it the datasheet publishes nothing, and rackdesigner
    makes no figure up: the CDU is "not rated at this approach" (info), and COOL003 and
    COOL009 do not judge its group. A `capacity_table` gives the capacity at each
    approach it lists (interpolated between points). A secondary at or below the facility
    water cannot be made at all: heat flows from warm to cold (error).

Example:
    [[cooling.loops]]
    id = "fws-1"
    supply_temperature = "32 °C"

    devices = ["r01-cdu"]

    [[racks.devices]]
    id = "r01-cdu"
    model = "coolit-chx750"   # 750 kW at a 5 K approach
    supply_setpoint = "35 °C" # a 3 K approach: not rated

Fix:
    Raise the setpoint to the facility supply plus the rated approach, lower the facility
    water, or give the CDU's `capacity_table` from its datasheet.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.liquid import (
    NOT_RATED,
    cdu_rating,
    facility_supply,
)
from rackdesigner.model.units import POWER, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import LOOP_READS


@rule(
    "COOL012",
    "info",
    severities=("info", "error"),
    scope="site",
    reads=LOOP_READS,
)
def cdu_approach(analysis: Analysis) -> Iterator[Finding]:
    loops = analysis.loops
    if not loops:
        return
    seen: set[str] = set()
    for load in analysis.cdu_loads:
        for cdu in load.cdus:
            if cdu.id in seen:
                continue
            seen.add(cdu.id)
            supply = facility_supply(loops.of(cdu))
            setpoint = cdu.device.supply_setpoint
            if supply is None or setpoint is None:
                rating = cdu_rating(cdu, loops)
            elif float(setpoint) <= supply:
                yield Finding(
                    f"device {cdu.id}",
                    cdu.ref,
                    f"secondary supply setpoint {float(setpoint):g} °C is not above its loop "
                    f"{loops.id_of(cdu)}'s {supply:g} °C facility water: no heat exchanger "
                    "cools a loop below the water that cools it",
                    hint="raise the setpoint above the facility supply by the CDU's rated "
                    "approach, or supply colder facility water",
                    severity="error",
                    values={"setpoint": float(setpoint), "facility_supply": supply},
                )
                continue
            else:
                rating = cdu_rating(cdu, loops)
            if rating.basis != NOT_RATED:
                continue
            assert rating.approach is not None and rating.rated_approach is not None
            capacity = fmt(rating.rated_capacity or 0.0, POWER)
            running = f"setpoint {float(setpoint or 0):g} °C less {float(supply or 0):g} °C"
            yield Finding(
                f"device {cdu.id}",
                cdu.ref,
                f"not rated at this approach: it runs at {rating.approach:.3g} K ({running} "
                f"facility water) and its {cdu.device.model} is rated {capacity} at "
                f"{rating.rated_approach:g} K; no capacity is published below that, so its "
                "group's capacity is not judged",
                hint="raise the setpoint, supply colder water, or give the CDU's "
                "capacity_table from its datasheet",
                values={"approach": rating.approach, "rated_approach": rating.rated_approach},
            )
