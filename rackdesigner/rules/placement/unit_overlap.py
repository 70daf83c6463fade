"""Two devices occupy the same rack unit.

Why it matters:
    Two devices cannot be in one place. A full-depth device occupies both faces of its
    units; two half-depth devices may share a unit, one on the front face and one on the
    rear.

Example:
    [[racks.devices]]
    id = "a01-n01"
    model = "dgx-h100"   # 8 U: U2-U9
    position = 2

    [[racks.devices]]
    id = "a01-n02"
    model = "dgx-h100"
    position = 8         # U8-U15 overlaps U8-U9

Fix:
    Move one device to free units (`position`), or mount half-depth devices on
    opposite faces (`face = "rear"`).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.placement._common import faces, mounted_devices


@rule("PLC001", "error", scope="rack")
def overlap(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        # Sweep the rack bottom-up: only devices still "open" at a device's lowest unit can
        # overlap it, which keeps this linear in practice.
        spans = sorted(
            (
                dev.device.position or 0,
                dev.device.position or 0,
                max(1, round(dev.height_u)),
                order,
                dev,
            )
            for order, dev in enumerate(mounted_devices(rack))
        )
        active: list[tuple[int, int, int, DeviceFacts]] = []  # (start, top, order, device)
        for start, _, height, order, dev in spans:
            top = start + height - 1
            active = [item for item in active if item[1] >= start]
            for other_start, other_top, other_order, other in active:
                shared_faces = [f for f in faces(dev) if f in faces(other)]
                if not shared_faces:
                    continue
                later, earlier = (dev, other) if order > other_order else (other, dev)
                low, high = max(start, other_start), min(top, other_top)
                span = f"U{low}" if low == high else f"U{low}-U{high}"
                where = "" if len(shared_faces) == 2 else f" on the {shared_faces[0]} face"
                yield Finding(
                    f"device {later.id}",
                    later.ref,
                    f"overlaps device {earlier.id} at {span}{where} in rack {rack.rack.id}",
                    hint="move one of them to free units",
                    values={"unit": float(low)},
                    related=(earlier.ref,),
                )
            active.append((start, top, order, dev))
