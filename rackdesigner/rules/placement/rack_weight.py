"""A rack's devices weigh more than its `max_weight`.

Why it matters:
    A rack's static load rating is what its frame, casters and the floor tile under it
    carry. Eight-GPU nodes weigh 130-145 kg each; four of them with switches and PDUs
    approach the rating of many racks.

Example:
    [[racks]]
    id = "a01"
    max_weight = "500 kg"   # four DGX H100 at 130 kg are 522 kg

Fix:
    Spread the nodes over more racks or use racks rated for the load.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.weight import rack_weight
from rackdesigner.rules.base import Finding, rule


@rule("PLC004", "error", scope="rack")
def overweight(analysis: Analysis) -> Iterator[Finding]:
    from rackdesigner.model.units import MASS, fmt

    for rack in analysis.racks:
        limit = rack.rack.max_weight
        if limit is None:
            continue
        weight = rack_weight(rack)
        total = weight.carried
        if total <= limit:
            continue
        bound = "at least " if weight.unknown else ""
        if not weight.integrated:
            subject = f"devices weigh {bound}{fmt(total, MASS)}"
        elif weight.devices:
            subject = (
                f"the rack-scale rack weighs {bound}{fmt(total, MASS)}: "
                f"{fmt(weight.frame, MASS)} as built and devices {fmt(weight.devices, MASS)}"
            )
        else:
            subject = f"the rack-scale rack weighs {fmt(total, MASS)} as built, trays included"
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"{subject}, more than its max_weight {fmt(float(limit), MASS)}",
            hint="spread the devices over more racks or use a rack rated for the load",
            values={"weight": total, "max_weight": float(limit)},
        )
