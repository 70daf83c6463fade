"""A CDU hangs on no facility loop, so its racks' heat has no path to water; or a rear door
or in-row cooler hangs on none.

Why it matters:
    (v1.4) Once a layout declares its water loops (`[[cooling.loops]]`), each loop lists
    the CDUs, rear doors and in-row coolers it feeds (`devices`). A CDU on no
    loop moves its racks' cold-plate heat to nowhere: the liquid racks it serves have no
    path to facility water, and they trip (error). A rear door or in-row cooler on no loop
    has no chilled water named, so nothing checks the water it needs (warning). Layouts
    without loops are not judged.

Example:
    [[cooling.loops]]
    id = "fws-1"
    ashrae_class = "W32"

    devices = ["r02-cdu"]   # r01-cdu is on no loop: the 837.6 kW of cold plates of
                            # its row's racks reach no water

Fix:
    List each CDU, rear door and in-row cooler in the `devices` of the loop it is piped
    to.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import POWER, fmt
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import LOOP_READS, rack_list


@rule(
    "COOL011",
    "error",
    severities=("error", "warning"),
    scope="site",
    reads=LOOP_READS,
)
def no_path_to_water(analysis: Analysis) -> Iterator[Finding]:
    loops = analysis.loops
    if not loops:
        return
    for load in analysis.cdu_loads:
        liquid = [r for r in load.racks if r.loop_heat > 0]
        for cdu in load.cdus:
            if loops.of(cdu) is not None:
                continue
            heat = sum(r.loop_heat for r in liquid)
            yield Finding(
                f"device {cdu.id}",
                cdu.ref,
                f"CDU hangs on no loop: the {fmt(heat, POWER)} of cold-plate heat of "
                f"{plural(len(liquid), 'rack')} ({rack_list(liquid)}) has no path to "
                "facility water",
                hint="list it in the devices of the facility loop it is piped to",
                values={"heat": heat},
                related=tuple(r.ref for r in liquid),
            )
    for rack in analysis.racks:
        door = rack.door
        if door is not None and rack.door_heat > 0 and loops.of(door) is None:
            yield Finding(
                f"device {door.id}",
                door.ref,
                f"rear door of rack {rack.rack.id} hangs on no loop: the chilled water "
                f"for its {fmt(rack.door_heat, POWER)} is not named, so nothing checks it",
                hint="list it in the devices of the chilled-water loop it is piped to",
                severity="warning",
                values={"heat": rack.door_heat},
            )
    for dev in analysis.devices:
        if dev.type is not None and dev.type.is_in_row_cooler and loops.of(dev) is None:
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                "in-row cooler hangs on no loop: its chilled water is not named, so "
                "nothing checks it",
                hint="list it in the devices of the chilled-water loop it is piped to",
                severity="warning",
            )
