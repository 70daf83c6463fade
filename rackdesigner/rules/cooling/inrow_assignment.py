"""A rack's in-row cooler is not one, or its coolers cannot take their racks' air heat.

Why it matters:
    (v1.4) An in-row cooler (a device whose type says `in_row = true`, standing in the
    row) draws the hot aisle's air through a chilled-water coil. Racks name it with
    `inrow` (one id or a list; racks that share a cooler form a group, as CDUs do) and
    send it their residual air heat, what a rear door leaves; COOL001 then judges them
    by their group instead of the per-rack air limit. A group's coolers together must
    take their racks' air heat, up to their `capacity`.

Example:
    [[racks]]
    id = "a01"
    cooling = "air"
    inrow = "ir-1"     # a 70 kW in-row cooler for three 30 kW racks

Fix:
    Name in-row coolers (`in_row = true` in their type), and give each group coolers
    enough for its racks (add one, or move racks).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts
from rackdesigner.analysis.liquid import inrow_groups, is_in_row_cooler
from rackdesigner.model.units import POWER, fmt_apart
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import LOOP_READS, rack_list


@rule("COOL020", "error", scope="site", reads=LOOP_READS)
def inrow_problems(analysis: Analysis) -> Iterator[Finding]:
    by_id = analysis.device_by_id
    for rack in analysis.racks:
        for name in rack.rack.inrows:
            device = by_id.get(name)
            problem = _not_a_cooler(name, device)
            if problem is not None:
                yield Finding(
                    f"rack {rack.rack.id}",
                    rack.ref,
                    problem,
                    hint="name a device whose type says in_row = true",
                    related=(device.ref,) if device is not None else (),
                )
    for group in inrow_groups(analysis.racks, by_id):
        capacity = group.capacity
        if capacity is None or group.heat <= capacity or not group.coolers:
            continue
        heat_text, capacity_text = fmt_apart(group.heat, capacity, POWER)
        first = group.coolers[0]
        yield Finding(
            f"device {first.id}",
            first.ref,
            f"in-row cooling of {plural(len(group.racks), 'rack')} ({rack_list(group.racks)}) "
            f"takes {heat_text} of air heat, more than its {capacity_text}",
            hint="add an in-row cooler to the group or move racks",
            values={"heat": group.heat, "capacity": capacity},
            related=tuple(r.ref for r in group.racks),
        )


def _not_a_cooler(name: str, device: DeviceFacts | None) -> str | None:
    if device is None:
        return f'inrow = "{name}" names no device in the layout'
    if device.type is not None and not is_in_row_cooler(device):
        return (
            f'inrow = "{name}" names a {device.kind} ({device.device.model}), not an in-row '
            "cooler (a type with in_row = true)"
        )
    return None
