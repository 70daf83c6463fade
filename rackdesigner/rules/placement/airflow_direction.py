"""A device's airflow runs against its rack's.

Why it matters:
    Racks sit in hot-aisle / cold-aisle rows: air enters at one face and leaves at the
    other. A device that blows the other way (a switch with reversed fans, or one
    mounted on the rear face, which reverses it) breathes the hot aisle's exhaust.

Example:
    [[racks]]
    id = "a01"
    airflow = "front-to-rear"

    [[racks.devices]]
    id = "a01-mgmt"
    model = "sn2201"     # rear-to-front when mounted on the front face
    position = 21

Fix:
    Mount it on the other face (`face = "rear"`, half-depth devices) or order the
    model with the other airflow direction.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.rules.base import Finding, rule

_REVERSED = {"front-to-rear": "rear-to-front", "rear-to-front": "front-to-rear"}


@rule("PLC007", "warning", scope="rack")
def airflow_against_rack(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        want = rack.rack.airflow_mode
        for dev in rack.devices:
            if dev.type is None or not dev.type.airflow or dev.type.airflow == "passive":
                continue
            have = dev.type.airflow
            if dev.device.face == "rear":
                have = _REVERSED[have]
            if have != want:
                mounted = " (mounted on the rear face)" if dev.device.face == "rear" else ""
                hint = (
                    "mount it on the other face or order the other airflow direction"
                    if not dev.type.full_depth
                    else "order the model with the other airflow direction (e.g. the P2C / C2P "
                    "variant of a switch)"
                )
                yield Finding(
                    f"device {dev.id}",
                    dev.ref,
                    f"airflow {have}{mounted} runs against rack {rack.rack.id}'s {want}",
                    hint=hint,
                )
