"""A device's power draw is unknown, so the totals that include it are lower bounds.

Why it matters:
    A device type with no `power` (and, for a GPU node, no GPU whose TDP would give an
    estimate) adds nothing to its rack's load, heat and feed checks. Missing data is
    never counted as zero silently: every total that includes such a device is a lower
    bound, shown as "≥" or "at least". A type whose `power` is an estimate
    (`power_estimated`, v1.4: the built-in `q3400`, whose published figure was not found)
    is counted at that figure and reported as info, so the estimate is seen: its notes
    say how it was made.

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

from rackdesigner.analysis import Analysis, DeviceFacts
from rackdesigner.model.units import POWER, fmt
from rackdesigner.model.wording import name_list, plural
from rackdesigner.rules.base import Finding, rule


@rule("PWR009", "warning", severities=("warning", "info"), scope="device")
def power_unknown(analysis: Analysis) -> Iterator[Finding]:
    for key, devices in analysis.types_used.items():
        # A failed layout's from the layout's and the racks made anew (what-if).
        unknown = analysis.power_unknown(key, devices)
        if not unknown:
            yield from _estimated(analysis, key, devices)
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


def _estimated(analysis: Analysis, key: str, devices: list[DeviceFacts]) -> Iterator[Finding]:
    """Info for a type whose catalog power is an estimate (``power_estimated``)."""
    dtype = devices[0].type if devices else None
    if dtype is None or not dtype.power_estimated or dtype.power is None:
        return
    entity, subject = analysis.type_site(key)
    each = float(dtype.power)
    yield Finding(
        entity,
        subject,
        f"the draw of {key} is an estimate ({fmt(each, POWER)} each, "
        f"{fmt(each * len(devices), POWER)} for {plural(len(devices), 'device')}), not a "
        "vendor figure: the notes of its catalog entry say how it was made",
        hint=f"set power in [catalog.{key}] from the vendor's figure where you have it",
        values={"power": each, "devices": float(len(devices))},
        severity="info",
    )
