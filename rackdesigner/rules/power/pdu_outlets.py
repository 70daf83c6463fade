"""The PSU cords on a side outnumber its PDUs' outlets.

Why it matters:
    Every PSU needs an outlet of its class: a C20 inlet (16 A, 3 kW PSUs) a C19
    outlet, a C14 inlet (10 A) a C13 outlet, or a spare C19 with a C20-to-C13 cord,
    never the reverse. A device's PSUs go round-robin over the rack's sides, so a DGX
    H100's six C20 cords are 3 per side on A and B. A side (without sides: the rack)
    is short when its C19-class cords (`psu_inlet` c20 or c19) exceed its PDUs' C19
    outlets, or all its cords exceed C13 + C19 outlets. Count them before ordering
    PDUs. A side with a PDU whose `outlets` are not given is not counted; devices
    without `psu_inlet` are not counted.

Example:
    [[racks.devices]]
    id = "a01-pdu-A"
    model = "pdu-3ph-415v-32a"   # APC AP8886: 30 x C13, 12 x C19
    feed = "a01-A"

    # five DGX H100 on sides A and B: 15 C20 cords per side

Fix:
    Use PDUs with more C19 outlets (or add one on the side), or move devices to
    another rack.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts, RackFacts
from rackdesigner.analysis.power_sides import cords_by_side
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import pdus_by_feed, side_groups


@rule("PWR012", "warning", scope="rack")
def pdu_outlets(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        pdus = pdus_by_feed(rack)
        if not pdus:
            continue
        labels, _ = side_groups(rack)
        cords = cords_by_side(
            (
                (d.type.psus, d.type.psu_inlet)
                for d in rack.devices
                if d.type is not None and d.kind != "pdu"
            ),
            labels if labels != [""] else [],
        )
        for label in labels:
            members = [d for d, f in pdus if not label or f.group == label]
            if not members or any(d.type is None or d.type.outlets is None for d in members):
                continue
            finding = _short_side(rack, label, members, cords.get(label, (0, 0)))
            if finding is not None:
                yield finding


def _short_side(
    rack: RackFacts, label: str, members: list[DeviceFacts], cords: tuple[int, int]
) -> Finding | None:
    """A side whose PDUs have fewer C19 outlets than its C20-inlet cords, or fewer outlets
    than all its cords (``cords``: C19-class, all)."""
    c13 = sum((d.type.outlets or {}).get("c13", 0) for d in members if d.type)
    c19 = sum((d.type.outlets or {}).get("c19", 0) for d in members if d.type)
    big, total = cords
    where = f"side {label}: " if label else ""
    related = tuple(d.ref for d in members)
    if big > c19:
        return Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"{where}{big} C19-class PSU cords (C20 inlets) for {c19} C19 outlets on its PDUs",
            hint="use PDUs with more C19 outlets or add one, or move devices to another rack",
            values={"cords": float(big), "outlets": float(c19)},
            related=related,
        )
    if total > c13 + c19:
        return Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"{where}{total} PSU cords for {c13 + c19} outlets on its PDUs ({c13} C13 + {c19} C19)",
            hint="use PDUs with more outlets or add one, or move devices to another rack",
            values={"cords": float(total), "outlets": float(c13 + c19)},
            related=related,
        )
    return None
