"""Training GPU nodes with no path to the parallel file system.

Why it matters:
    A training cluster reads its datasets from, and copies its checkpoints to, a shared
    parallel file system (the field guide's tier 2: "Lustre or GPUDirect Storage, 50-200
    GB/s aggregate"; the DGX SuperPOD's high-performance storage). A cluster of several
    nodes without one cannot share a dataset or keep a checkpoint beyond a node's loss;
    a node not cabled to it trains on nothing. A node reaches the parallel file system
    when storage cables (storage ports at both ends) join it, through switches, to an
    appliance of the `parallel-fs` tier (or, converged, the compute fabric does: the
    appliance's data ports declared `role = "compute"` and cabled into it). Reported once
    for a layout with no parallel file system at all, else once per node it does not
    reach; only for training and fine-tuning clusters of `pfs_min_training_nodes` GPU nodes
    or more (one node trains from its local NVMe).

Example:
    [workload]
    kind = "training"
    # 128 DGX H100, no device of kind "storage"

Fix:
    Add parallel file system appliances (`rackdesigner catalog` lists them: kind
    storage, storage_tier parallel-fs) and cable every node's storage ports to them
    through the storage fabric (`rackdesigner new` builds one: docs/storage.md).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.refs import WORKLOAD
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule


@rule("STO004", "warning", scope="fabric", thresholds=("pfs_min_training_nodes",))
def training_nodes_without_pfs(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.is_training:
        return
    facts = analysis.storage
    nodes = facts.nodes
    minimum = analysis.thresholds["pfs_min_training_nodes"]
    if len(nodes) < minimum:
        return
    if not facts.pfs.devices:
        yield Finding(
            "[workload]",
            WORKLOAD,
            f"{plural(len(nodes), 'training GPU node')} and no parallel file system: no "
            "device of kind storage serves the parallel-fs tier",
            hint="add parallel file system appliances and cable the nodes' storage ports to "
            "them (rackdesigner new builds a storage fabric; docs/storage.md)",
            values={"nodes": float(len(nodes))},
        )
        return
    reached = facts.reached
    for dev in nodes:
        if dev.id in reached:
            continue
        cabled = facts.node_bandwidth.get(dev.id, 0.0) > 0
        why = (
            "its storage cables lead to no parallel-fs appliance"
            if cabled
            else "none of its storage ports is cabled"
        )
        yield Finding(
            f"device {dev.id}",
            dev.ref,
            f"{dev.id} has no path to the parallel file system: {why}",
            hint="cable its storage ports to a storage leaf that reaches the appliances",
            values={"cabled": float(cabled)},
        )
