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

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.rules.base import Finding, rule


@rule("PLC002", "error", scope="rack")
def out_of_rack(analysis: Analysis) -> Iterator[Finding]:
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
