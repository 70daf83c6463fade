"""A device's power draw is unknown, so the totals that include it are lower bounds.

Why it matters:
    A device type with no `power` (and, for a GPU node, no GPU whose TDP would give an
    estimate) adds nothing to its rack's load, heat and feed checks. Missing data is
    never counted as zero silently: every total that includes such a device is a lower
    bound, shown as "≥" or "at least".

Example:
    [catalog.ups-shelf]
    kind = "other"
    height = "2 U"       # no power

Fix:
    Set `power` in the type's `[catalog.KEY]` table (for a GPU node, `gpu` also lets
    the draw be estimated).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import name_list


@rule("PWR009", "warning", scope="device")
def power_unknown(analysis: Analysis) -> Iterator[Finding]:
    for key, devices in analysis.types_used.items():
        unknown = [d for d in devices if d.power is None]
        if not unknown:
            continue
        dev = unknown[0]
        racks: dict[int, str] = {}
        for d in unknown:
            racks.setdefault(d.rack_index, d.rack.id)
        gpu_node = dev.is_gpu_node
        why = "no power and no GPU TDP to estimate it from" if gpu_node else "no power"
        entity, subject = analysis.type_site(key)
        names = name_list(list(racks.values()))
        totals = (
            f"the load of rack {names} is a lower bound (≥)"
            if len(racks) == 1
            else f"the loads of racks {names} are lower bounds (≥)"
        )
        yield Finding(
            entity,
            subject,
            f"the draw of {key} is unknown ({why}) for {plural(len(unknown), 'device')}: {totals}",
            hint=f"set power in [catalog.{key}]"
            + (" or its gpu so the draw can be estimated" if gpu_node else ""),
            values={"devices": float(len(unknown)), "racks": float(len(racks))},
        )
