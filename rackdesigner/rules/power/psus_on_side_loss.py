"""A device keeps fewer PSUs than it needs at full load when one feed side is lost.

Why it matters:
    On a rack with k ≥ 2 redundant sides a device's PSUs go round-robin over the sides
    in label order (PSU j on side ((j − 1) mod k) + 1). When the side holding most of
    them is lost the device keeps psus − ⌈psus ÷ k⌉: a DGX H100 has 6 PSUs and needs 4
    at full load, so on A + B (3 + 3) it keeps 3 and runs degraded (power-capped) or
    shuts down, while NVIDIA's three-PDU rack (A, B, C: 2 + 2 + 2) keeps 4. The check
    applies where the type gives both `psus` and `psus_required`, and not to a power
    shelf (a type with `dc_voltage`): a rack-scale rack's shelf has one AC input, so its
    PSUs are not split over the sides; the rack is redundant between shelves on
    different sides (PWR016, PWR019), as the NVL72 reference rack is.

Example:
    [[racks]]
    id = "a01"
    feeds = [
      { id = "a01-A", side = "A", voltage = "415 V", phases = 3, current = "63 A" },
      { id = "a01-B", side = "B", voltage = "415 V", phases = 3, current = "63 A" },
    ]

    [[racks.devices]]
    id = "a01-n01"
    model = "dgx-h100"   # 6 PSUs, 4 required: 3 + 3
    position = 2

Fix:
    Accept (and plan for) degraded operation on a side loss, or use a model whose PSUs
    on one side carry its full load (e.g. 3 of 6 required).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.wording import name_list, plural
from rackdesigner.rules.base import Finding, rule


@rule("PWR008", "warning", scope="rack")
def psus_lost_with_side(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        if not rack.redundant:
            continue
        sides = sorted(rack.side_capacity)
        count = len(sides)
        for dev in rack.devices:
            dtype = dev.type
            if dtype is None or not dtype.psus or not dtype.psus_required:
                continue
            if dtype.is_power_shelf:  # one AC input: PWR019 judges the shelves per side
                continue
            psus, required = dtype.psus, dtype.psus_required
            base, extra = divmod(psus, count)
            shares = [base + 1] * extra + [base] * (count - extra)
            kept = psus - shares[0]
            if kept >= required:
                continue
            losing = "one side" if len(set(shares)) == 1 else f"side {sides[0]}"
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"{plural(psus, 'PSU')} split {' + '.join(map(str, shares))} over sides "
                f"{name_list(sides)}: losing {losing} leaves {kept}, fewer than the "
                f"{required} it needs at full load",
                hint="plan for degraded operation (power capping) on a side loss, "
                f"or use a model that runs on {kept} PSUs",
                values={"psus": float(psus), "kept": float(kept), "required": float(required)},
            )
