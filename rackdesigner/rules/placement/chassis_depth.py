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

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.rules.base import Finding, rule


@rule("PLC009", "error", scope="rack")
def deeper_than_rack(analysis: Analysis) -> Iterator[Finding]:
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
