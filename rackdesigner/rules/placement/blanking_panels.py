"""An air-cooled rack has open units not covered by blanking panels.

Why it matters:
    Hot exhaust air flows back to the cold aisle through every open unit and is drawn
    in again by the servers: hot spots and wasted cooling. Blanking panels close them.

Example:
    [[racks]]
    id = "a01"
    cooling = "air"
    # devices fill U1-U20; U21-U42 are open

Fix:
    Fill open units with `blank-1u` / `blank-2u` devices.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts
from rackdesigner.model.wording import first_of
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.placement._common import faces, mounted_devices


def _units(dev: DeviceFacts) -> range:
    position = dev.device.position or 0
    return range(position, position + max(1, round(dev.height_u)))


@rule("PLC006", "warning", scope="rack")
def open_units(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        if rack.cooling != "air" or not rack.devices:
            continue
        height = int(rack.rack.height_u)
        covered = [False] * (height + 1)
        for dev in mounted_devices(rack):
            if "front" not in faces(dev):
                continue  # a half-depth device on the rear face leaves the front open
            for unit in _units(dev):
                if 1 <= unit <= height:
                    covered[unit] = True
        spans: list[tuple[int, int]] = []
        for unit in range(1, height + 1):
            if covered[unit]:
                continue
            if spans and spans[-1][1] == unit - 1:
                spans[-1] = (spans[-1][0], unit)
            else:
                spans.append((unit, unit))
        if not spans:
            continue
        count = sum(b - a + 1 for a, b in spans)
        text = first_of([f"U{a}" if a == b else f"U{a}-U{b}" for a, b in spans], 6)
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"{count} open unit{'s' if count != 1 else ''} without blanking panels ({text})",
            hint="fill them with blank-1u / blank-2u panels",
            values={"open_units": float(count)},
        )
