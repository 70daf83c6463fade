"""A storage appliance type with no storage ports: it cannot serve the GPU nodes.

Why it matters:
    A parallel file system or object store reaches the GPUs only through its client
    ports (InfiniBand or Ethernet, `role = "storage"`, or `compute` where the layout
    runs storage over the compute fabric). A type of kind `storage` with no such port
    (no `ports`, or management ports only) is a typo or an unfinished entry: its
    appliances can be racked but never cabled, and its bandwidth counts for nothing.
    Reported once per type used, at its `[catalog]` entry in the layout, else at its
    first device.

Example:
    [catalog.my-pfs]
    kind = "storage"
    storage_tier = "parallel-fs"
    read_bandwidth = "90 GB/s"
    # no ports

Fix:
    Give the type its client ports, e.g.
    `ports = [{ name = "ib", count = 8, speed = "200 Gbps", tech = "infiniband" }]`.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.rules.base import Finding, rule


@rule("STO008", "error", scope="device")
def appliance_without_ports(analysis: Analysis) -> Iterator[Finding]:
    for key, devices in analysis.types_used.items():
        dtype = devices[0].type
        if dtype is None or dtype.kind != "storage":
            continue
        data = [g for g in dtype.ports or () if g.effective_role(dtype.kind) != "management"]
        if data:
            continue
        entity, subject = analysis.type_site(key)
        tier = dtype.storage_tier or "parallel-fs"
        what = "no ports" if not dtype.ports else "management ports only"
        yield Finding(
            entity,
            subject,
            f"{key} is a {tier} storage appliance with {what}: its "
            f"{len(devices)} device{'s' if len(devices) != 1 else ''} cannot be cabled to "
            "the GPU nodes",
            hint='give it its client ports, e.g. ports = [{ name = "ib", count = 8, '
            'speed = "200 Gbps", tech = "infiniband" }]',
            values={"devices": float(len(devices))},
        )
