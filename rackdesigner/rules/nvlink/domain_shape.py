"""An NVLink domain does not hold its shape's compute and switch trays.

Why it matters:
    A GB200 or GB300 NVL72 rack is one NVLink domain of 18 compute trays (72 GPUs) and
    9 NVLink switch trays, each switch tray carrying 2 of the 18 switch chips every GPU
    links to (DGX GB200 user guide; SuperPOD GB200 RA). An NVL36 rack has 9 compute
    trays and 9 switch trays. With a switch tray missing every GPU loses one of its 18
    links; with a compute tray missing or one too many the domain is not the system
    NVIDIA builds, and jobs sized to 72 GPUs (Slurm's block topology) do not fit. Trays
    of two shapes do not form one domain.

Example:
    [[racks]]
    id = "a01"
    nvlink_domain = "nvl-a01"
    # 17 gb200-compute-tray and 9 nvl72-switch-tray

Fix:
    Give the domain its shape's trays: 18 compute and 9 switch trays for NVL72, 9 and 9
    for NVL36, all of one shape.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.rack_scale import SHAPES, domains
from rackdesigner.rules.base import Finding, rule


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


@rule("NVL001", "error", scope="site", reads=("rack.nvlink_domain",))
def domain_shape(analysis: Analysis) -> Iterator[Finding]:
    for domain in domains(analysis.racks)[0]:
        first = domain.racks[0]
        entity = f"rack {first.rack.id}"
        shapes = domain.shapes
        if len(shapes) > 1:
            names = " and ".join(SHAPES[s].name for s in shapes if s in SHAPES)
            yield Finding(
                entity,
                first.ref,
                f"NVLink domain {domain.id} mixes {names} trays",
                hint="build one domain from trays of one shape",
            )
            continue
        shape = domain.shape
        if shape is None:
            continue  # a domain named by racks without trays: nothing to judge
        compute, switches = len(domain.compute), len(domain.switches)
        if (compute, switches) == (shape.compute_trays, shape.switch_trays):
            continue
        over = compute > shape.compute_trays or switches > shape.switch_trays
        yield Finding(
            entity,
            first.ref,
            f"NVLink domain {domain.id} is {'over-full' if over else 'incomplete'}: "
            f"{_count(compute, 'compute tray')} and {_count(switches, 'switch tray')}, an "
            f"{shape.name} has {shape.compute_trays} and {shape.switch_trays}",
            hint=f"give the domain {shape.compute_trays} compute trays and "
            f"{shape.switch_trays} NVLink switch trays",
            values={
                "compute_trays": float(compute),
                "switch_trays": float(switches),
                "expected_compute": float(shape.compute_trays),
                "expected_switch": float(shape.switch_trays),
            },
        )
