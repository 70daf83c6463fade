"""An air-cooled rack has open units not covered by blanking panels.

Why it matters:
    Hot exhaust air flows back to the cold aisle through every open unit and is drawn
    in again by the servers: hot spots and wasted cooling. Blanking panels close them.

Example:
    [[racks]]
    id = "a01"
    cooling = "air"
    # devices fill U1-U20; U21-U42 are open (a rack with nothing in its units yet, only
    # its 0U PDUs, is not checked)

Fix:
    Declare `blanking = true` on the rack (v1.4): its open units are closed by blanking
    panels, fitted as devices come and go, and not listed one by one. Or fill open units
    with `blank-1u` / `blank-2u` devices.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.open_units import open_units, span_text, spans
from rackdesigner.rules.base import Finding, rule


@rule("PLC006", "warning", scope="rack")
def open_units_without_panels(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        if rack.cooling != "air" or rack.rack.blanking:
            continue
        units = open_units(rack)
        if not units or len(units) == int(rack.rack.height_u):
            continue  # nothing in its units yet (0U PDUs only): no air to recirculate
        count = len(units)
        text = span_text(spans(units), most=6)
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"{count} open unit{'s' if count != 1 else ''} without blanking panels ({text})",
            hint="declare blanking = true on the rack, or fill them with blank-1u / blank-2u "
            "panels",
            values={"open_units": float(count)},
        )
