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

from __future__ import annotations

import math
from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts
from rackdesigner.rules.base import Finding, rule


def _is_infiniband_switch(dev: DeviceFacts) -> bool:
    return (
        dev.type is not None
        and dev.kind == "switch"
        and any(g.tech == "infiniband" for g in dev.type.ports or ())
    )


@rule("PLC003", "warning", scope="rack")
def switch_not_mid_rack(analysis: Analysis) -> Iterator[Finding]:
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
