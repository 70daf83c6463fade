"""A rear door or in-row cooler gets water warmer than its capacity is rated at.

Why it matters:
    (v1.4) A rear door's or in-row cooler's capacity is rated at an entering water
    temperature (`rated_water_temperature`) and airflow; warmer water carries less heat
    out of the same coil. The datasheet gives no figure above it and rackdesigner makes
    none up: on a loop warmer than that the capacity is not rated, and the residual air
    heat COOL001 counts it to take is not assured. Colder water only helps. Layouts
    without loops, and types without a rated water temperature, are not judged.

Example:
    [catalog.my-door]
    kind = "rear-door"
    capacity = "40 kW"
    rated_water_temperature = "18 °C"   # on a chilled-water loop at 22 °C

Fix:
    Hang it on colder chilled water, or give the type the rating at this water
    (`capacity` and `rated_water_temperature` from its datasheet).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.liquid import facility_supply
from rackdesigner.model.units import POWER, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import LOOP_READS


@rule(
    "COOL018",
    "warning",
    scope="site",
    reads=LOOP_READS,
)
def door_water_too_warm(analysis: Analysis) -> Iterator[Finding]:
    loops = analysis.loops
    if not loops:
        return
    for dev in analysis.devices:
        dtype = dev.type
        if dtype is None or not (dev.kind == "rear-door" or dtype.is_in_row_cooler):
            continue
        rated = dtype.rated_water_temperature
        supply = facility_supply(loops.of(dev))
        if rated is None or supply is None or supply <= rated:
            continue
        what = "rear door" if dev.kind == "rear-door" else "in-row cooler"
        yield Finding(
            f"device {dev.id}",
            dev.ref,
            f"{what} on loop {loops.id_of(dev)}'s {supply:g} °C water; its "
            f"{fmt(float(dtype.capacity or 0), POWER)} is rated at {float(rated):g} °C and "
            "no capacity is published for warmer water: the air heat counted to it is not "
            "assured",
            hint="hang it on colder chilled water, or give the type its rating at this water",
            values={"water": supply, "rated": float(rated)},
        )
