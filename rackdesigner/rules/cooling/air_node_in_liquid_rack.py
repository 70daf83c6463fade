"""A liquid-cooled rack holds a GPU node that has no cold plates.

Why it matters:
    Direct-to-chip liquid cooling takes heat only from devices built with cold plates.
    DGX H100/H200/B200 and the air HGX servers are air-only chassis: in a liquid rack
    they cannot use the loop, and all their heat is residual air heat, sent into a
    room that was sized for the loop to take it. A GPU node type has cold plates when
    it declares `liquid_fraction` above 0 (v1.1: the default is 0). One finding per
    such device.

Example:
    [[racks]]
    id = "a01"
    cooling = "liquid"
    cdu = "a02-cdu"

    [[racks.devices]]
    id = "a01-n01"
    model = "dgx-h100"   # air-only: 10.2 kW into the room

Fix:
    Use a liquid-cooled model with cold plates (e.g. sys-421ge-tnhr2-lcc), or move the
    node to an air-cooled or rear-door rack; if the type does have cold plates, give it
    its `liquid_fraction` in `[catalog.KEY]`.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts
from rackdesigner.model.units import POWER, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import cold_plates


@rule("COOL008", "error", scope="rack")
def air_node_in_liquid_rack(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        if rack.cooling != "liquid":
            continue
        for dev in rack.devices:
            if not dev.is_gpu_node or cold_plates(dev):
                continue
            heat = dev.power
            heat_text = "all its heat" if heat is None else f"all its {fmt(heat, POWER)}"
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"{dev.device.model} has no cold plates (liquid_fraction 0) but stands in "
                f"liquid-cooled rack {rack.rack.id}: {heat_text} goes into the room's air"
                f"{_estimated_text(dev)}",
                hint="use a liquid-cooled model with cold plates, or move it to an "
                "air-cooled or rear-door rack",
                values={"air_heat": float(heat or 0.0)},
                related=(rack.ref,),
            )


def _estimated_text(dev: DeviceFacts) -> str:
    return " (estimated)" if dev.power_estimated else ""
