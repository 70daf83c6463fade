"""A training cluster's GPU nodes are not all on one compute fabric.

Why it matters:
    A training job all-reduces across every GPU it uses, so every GPU node must reach
    every other over the compute fabric (ports with `role = "compute"`; storage and
    management networks do not count). A node with no compute link, or a group of
    nodes on a fabric not cabled to the others, cannot join a job with the rest. The
    rule applies to training and fine-tuning with two or more GPU nodes. Split fabrics
    are reported against the largest one (most GPUs), once per smaller fabric.

    An NVLink domain (v1.2: the compute trays of racks naming one `nvlink_domain`, such
    as a GB200 NVL72 rack's 72 GPUs) is one unit: its GPUs reach each other over NVLink,
    so a lone domain needs no compute fabric at all, a domain is on the fabric when any
    of its trays is, and two fabrics that hold trays of one domain are joined through it.
    A domain with no tray on the fabric is reported once, as the domain.

Example:
    [workload]
    kind = "training"

    # a01-n03 is cabled to leaf a02-leaf, which has no link to a01-leaf's fabric
    [[links]]
    a = "a01-n03:ib1"
    b = "a02-leaf:p1"

Fix:
    Cable every GPU node's compute ports, and join the fabrics: leaves to common
    spines, or all nodes to the same leaves.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from rackdesigner.analysis import Analysis
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.network._common import GpuUnit, all_on_fabrics, gpu_units, nodes_text

if TYPE_CHECKING:
    from rackdesigner.analysis.fabric_graph import Fabric


@rule("NET006", "error", scope="fabric")
def disconnected_gpus(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.is_training or _all_on_one(analysis):
        return
    units = gpu_units(analysis)
    if len(units) < 2:
        return  # one node, or one NVLink domain: its GPUs need no scale-out fabric
    fabrics = [f for f in analysis.fabrics if f.nodes]
    on: dict[int, int] = {id(node): k for k, f in enumerate(fabrics) for node in f.nodes}
    for unit in units:
        if not any(id(m) in on for m in unit.members):
            yield Finding(
                unit.entity,
                unit.ref,
                f"{unit.text()} has no compute-fabric link: it cannot join a training job "
                "with the other nodes",
                hint="cable its compute ports to the fabric's leaves",
                values={"gpus": float(unit.gpus)},
            )
    if len(fabrics) < 2:
        return
    joined = _joined(fabrics, units, on)
    main = max(fabrics, key=lambda f: (f.gpus, len(f.nodes), -f.index))
    main_name = main.site()[0].removeprefix("fabric ")
    others = len(fabrics) - 1
    for k, fabric in enumerate(fabrics):
        if joined[k] == joined[fabrics.index(main)]:
            continue
        entity, subject = fabric.site()
        among = f" (one of {others} fabrics apart from it)" if others > 1 else ""
        yield Finding(
            entity,
            subject,
            f"{nodes_text(fabric)} are not connected to fabric {main_name} "
            f"({nodes_text(main)}){among}: a training job cannot span them",
            hint=f"join the fabrics: cable this fabric's leaves to the spines of "
            f"fabric {main_name}, or its nodes to the same leaves",
            values={"gpus": float(fabric.gpus), "main_gpus": float(main.gpus)},
        )


def _all_on_one(analysis: Analysis) -> bool:
    """Whether one fabric holds every GPU node that works: then nothing is apart."""
    return sum(1 for f in analysis.fabrics if f.nodes) == 1 and all_on_fabrics(analysis)


def _joined(fabrics: list[Fabric], units: list[GpuUnit], on: dict[int, int]) -> list[int]:
    """Each fabric's group: fabrics an NVLink domain has trays on are joined through it
    (a job's traffic crosses the domain's NVLink), the others stand alone."""
    group = list(range(len(fabrics)))

    def root(k: int) -> int:
        while group[k] != k:
            group[k] = group[group[k]]
            k = group[k]
        return k

    for unit in units:
        found = sorted({on[id(m)] for m in unit.members if id(m) in on})
        for k in found[1:]:
            group[root(k)] = root(found[0])
    return [root(k) for k in range(len(fabrics))]
