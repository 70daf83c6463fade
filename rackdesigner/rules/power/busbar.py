"""A rack's DC busbar carries more current than its rating, or rack-scale trays have no
power shelf.

Why it matters:
    At 48-54 V a rack-scale system's power is a large current: 120 kW at 48 V is 2.5 kA
    on the rack's busbar, which is rated for a fixed current (the trays blind-mate onto
    it). The trays, and devices with `dc_input` (the NVL72 rack's management ToRs), take
    their power only from that busbar; they have no PSU to plug into a PDU, so a rack
    holding them without power shelves cannot power them at all. A busbar whose
    `rating_unverified` is set (the built-in `nvl72-busbar`: its 2,900 A is not from an
    NVIDIA document) gets a warning, not an error, when the current is over it: check
    the rating against your rack's documentation.

Example:
    [[racks]]
    id = "a01"
    # 18 gb200-compute-tray (6,667 W), 9 nvl72-switch-tray (400 W), 2 sn2201-dc (98 W):
    # 123.8 kW; 8 nvl72-power-shelf at 48 V: 2,579 A on a busbar rated 2,400 A

Fix:
    Fit the power shelves and busbar the system is built with, or fewer trays.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.rack_scale import rack_dc
from rackdesigner.model.units import CURRENT, POWER, fmt
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule


@rule("PWR017", "error", severities=("error", "warning"), scope="rack")
def busbar(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        dc = rack_dc(rack)
        if dc is None or not dc.trays:
            continue
        entity = f"rack {rack.rack.id}"
        if not dc.shelves:
            yield Finding(
                entity,
                rack.ref,
                f"{plural(len(dc.trays), 'device')} on a DC busbar ({fmt(dc.load, POWER)}: "
                "rack-scale trays or dc_input devices) and no power shelf: they take DC from "
                "a busbar, not PDU cords",
                hint="fit power shelves (nvl72-power-shelf) and a busbar (nvl72-busbar)",
                values={"load": dc.load},
            )
            continue
        current, rating = dc.current, dc.busbar_rating
        if current is None or rating is None or current <= rating:
            continue
        bound = "at least " if dc.load_unknown else ""
        unverified = any(d.type is not None and d.type.rating_unverified for d in dc.busbars)
        yield Finding(
            entity,
            rack.ref,
            f"busbar carries {bound}{fmt(current, CURRENT)} ({fmt(dc.load, POWER)} at "
            f"{dc.dc_voltage:g} V), more than its {fmt(rating, CURRENT)} rating"
            + (" (an unverified rating: check the rack's documentation)" if unverified else ""),
            hint="fit fewer trays or a busbar rated for the current",
            values={"current": current, "rating": rating},
            severity="warning" if unverified else None,
        )
