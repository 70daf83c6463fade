"""A GPU node with cold plates stands in a rack without a liquid loop.

Why it matters:
    A direct-to-chip node (its type declares `liquid_fraction` above 0) is built to
    have most of its heat carried away by the coolant through its cold plates; its
    fans and heat sinks are sized for the rest only. In an air-cooled or rear-door
    rack no CDU loop reaches the plates: the heat they should remove has nowhere to
    go (a rear door cools the exhaust air, not the plates), and the GPUs throttle or
    shut down. One finding per such device; immersion racks, which take all the heat,
    are not checked.

Example:
    [[racks]]
    id = "a01"
    cooling = "air"

    [[racks.devices]]
    id = "a01-n01"
    model = "sys-421ge-tnhr2-lcc"   # cold plates: liquid_fraction 0.7

Fix:
    Make the rack liquid-cooled (`cooling = "liquid"` with a CDU), or use an air-cooled
    model (dgx-h100, sys-821ge-tnhr) in this rack.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import POWER, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import cold_plates


@rule("COOL010", "error", scope="rack")
def cold_plates_without_loop(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        if rack.cooling not in ("air", "rear-door"):
            continue
        for dev in rack.devices:
            if not dev.is_gpu_node or not cold_plates(dev):
                continue
            fraction = float(dev.type.liquid_fraction or 0.0) if dev.type is not None else 0.0
            where = "an air-cooled" if rack.cooling == "air" else "a rear-door"
            plates = (
                "its cold plates' heat"
                if dev.power is None
                else f"the {fmt(dev.power * fraction, POWER)} its cold plates should remove"
                f"{' (estimated)' if dev.power_estimated else ''}"
            )
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"{dev.device.model} has cold plates (liquid_fraction {fraction:g}) but stands "
                f"in {where} rack, {rack.rack.id}, with no liquid loop: {plates} has nowhere "
                "to go",
                hint='make the rack liquid-cooled (cooling = "liquid" with a CDU), or use an '
                "air-cooled model here",
                values={
                    "liquid_fraction": fraction,
                    "liquid_heat": float((dev.power or 0.0) * fraction),
                },
                related=(rack.ref,),
            )
