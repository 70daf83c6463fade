"""One compute fabric joins GPU nodes of different GPU generations.

Why it matters:
    A job spread over a fabric runs at the pace of its slowest GPU: in every
    synchronous step the newer GPUs wait for the older ones ("mixing generations
    creates stragglers"). Different generations also differ in memory size, numeric
    formats and NCCL features, which makes one job across them harder to tune.

Example:
    [[racks.devices]]
    id = "a01-n01"
    model = "dgx-h100"   # hopper

    [[racks.devices]]
    id = "a01-n02"
    model = "dgx-b200"   # blackwell, cabled to the same leaf

Fix:
    Give each generation its own fabric (and job pool), or replace the older nodes.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.topology.collectives import node_kinds


@rule("CMP002", "warning", scope="fabric")
def mixed_generations(analysis: Analysis) -> Iterator[Finding]:
    for fabric in analysis.fabrics:
        # Nodes of a kind share their GPU: fewer than two generations among the kinds'
        # first nodes is fewer than two among the nodes, told without a walk over them.
        firsts = {n.gpu.generation for _, n in node_kinds(fabric).values() if n.gpu}
        if len(firsts - {None, ""}) < 2:
            continue
        generations = fabric.generations
        if len(generations) < 2:
            continue
        parts = [f"{name} ({plural(len(nodes), 'node')})" for name, nodes in generations.items()]
        values: dict[str, float] = {"generations": float(len(generations))}
        values.update({name: float(len(nodes)) for name, nodes in generations.items()})
        entity, subject = fabric.site()
        yield Finding(
            entity,
            subject,
            f"GPU nodes of {len(generations)} generations share one fabric: " + ", ".join(parts),
            hint="give each GPU generation its own fabric and job pool, or replace the older nodes",
            values=values,
        )
