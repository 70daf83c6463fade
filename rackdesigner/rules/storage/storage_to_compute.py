"""A storage port cabled to a compute port: the storage and compute fabrics are crossed.

Why it matters:
    The DGX SuperPOD's storage fabric "is independent of the compute fabric to maximize
    performance of both storage and application performance": a node's storage ports go
    to storage leaves, its compute ports to the compute fabric's leaves. A cable from a
    storage port to a compute port joins the two: the compute rules see it as no part of
    their fabric and the storage rules as no part of theirs, so neither judges it, and on
    the floor it is a miscabling. A cluster that runs storage over its compute fabric
    (converged) says so by giving the appliances' data ports `role = "compute"`.

Example:
    [[links]]
    a = "a01-n01:eth1"   # a DGX H100 storage port
    b = "a01-leaf1:p9"   # a compute leaf

Fix:
    Cable the port to a storage leaf (or the compute port to a compute leaf); for a
    converged fabric, set `role = "compute"` on the appliance's data ports.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.storage import link_roles
from rackdesigner.rules.base import Finding, rule


@rule("STO009", "error", scope="link")
def storage_to_compute(analysis: Analysis) -> Iterator[Finding]:
    known: dict[tuple[int, str | None], str] = {}  # a port group's role on a device kind
    # The cables whose ends are neither both compute nor both storage ports, where the
    # storage facts gathered them from these cables (not a view of some: what-if checks
    # the cables a failure touched); else every cable that is not a compute one.
    links = analysis.links
    built = analysis.storage_built
    mixed = built.mixed_among(links) if built is not None else None
    if mixed is None:
        mixed = [link for link in links if not link.compute]
    for link in mixed:
        pair = link.pair
        ends = pair.roles if pair is not None else link_roles(link, known)
        if ends is None:
            continue
        first, second = ends
        if first == second or {first, second} != {"storage", "compute"}:
            continue
        storage, compute = (link.a, link.b) if first == "storage" else (link.b, link.a)
        yield Finding(
            link.entity,
            link.ref,
            f"storage port {storage.text} is cabled to compute port {compute.text}: the "
            "storage and compute fabrics are separate",
            hint="cable the storage port to a storage leaf; for storage over the compute "
            'fabric (converged), set role = "compute" on the appliance\'s data ports',
        )
