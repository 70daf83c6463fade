"""An NVLink domain is named by more racks than its copper backplane spans.

Why it matters:
    The NVL72 and NVL36 racks join their trays through a passive copper cable cartridge
    backplane at the rear of one rack (DGX GB200 user guide); it does not reach a second
    rack. Two racks naming one `nvlink_domain` promise GPU-to-GPU NVLink between racks
    that has no cable.

Example:
    [[racks]]
    id = "a01"
    nvlink_domain = "nvl-1"

    [[racks]]
    id = "a02"
    nvlink_domain = "nvl-1"   # the same domain in a second rack

Fix:
    Give each rack its own domain id.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.rack_scale import domains
from rackdesigner.rules.base import Finding, rule


@rule("NVL003", "error", scope="site", reads=("rack.nvlink_domain",))
def domain_spans_racks(analysis: Analysis) -> Iterator[Finding]:
    for domain in domains(analysis.racks)[0]:
        shape = domain.shape
        limit = shape.racks if shape is not None else 1
        if len(domain.racks) <= limit:
            continue
        first = domain.racks[0].rack.id
        name = shape.name if shape is not None else "NVLink"
        for rack in domain.racks[limit:]:
            yield Finding(
                f"rack {rack.rack.id}",
                rack.ref,
                f"NVLink domain {domain.id} is also named by rack {first}: an {name} "
                "backplane does not leave its rack",
                hint=f'give the rack its own domain: nvlink_domain = "nvl-{rack.rack.id}"',
                values={"racks": float(len(domain.racks)), "limit": float(limit)},
            )
