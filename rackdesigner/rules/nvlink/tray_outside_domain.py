"""Rack-scale trays stand in a rack that names no NVLink domain.

Why it matters:
    A GB200 or GB300 compute tray reaches the other GPUs of its system only through the
    rack's NVLink switch trays and copper backplane; which trays form one domain is what
    the scheduler's block topology, the NCCL figures and the NVL checks are built from.
    A rack holding trays without `nvlink_domain` leaves them in no domain.

Example:
    [[racks]]
    id = "a01"
    # no nvlink_domain; 18 gb200-compute-tray and 9 nvl72-switch-tray

Fix:
    Name the domain the rack's trays form: `nvlink_domain = "nvl-a01"`.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.rack_scale import tray_role
from rackdesigner.rules.base import Finding, rule


@rule("NVL002", "error", scope="rack")
def tray_outside_domain(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        if rack.rack.nvlink_domain is not None:
            continue
        trays = [dev for dev in rack.devices if tray_role(dev) is not None]
        if not trays:
            continue
        n = len(trays)
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"{n} rack-scale tray{'' if n == 1 else 's'} ({trays[0].id}"
            f"{' …' if n > 1 else ''}) in no NVLink domain",
            hint=f'name the domain the rack\'s trays form: nvlink_domain = "nvl-{rack.rack.id}"',
            values={"trays": float(n)},
        )
