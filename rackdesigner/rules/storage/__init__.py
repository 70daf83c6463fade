"""Storage rules (STO): the local hot tier, the parallel file system, the storage fabric.

One module per rule, named after what it checks; its docstring is the rule's
documentation (``rackdesigner rules STO001``); :mod:`._common` holds what they share. The
facts they read are the analysis's (analysis/storage.py, docs/storage.md).

    STO001  nvme_hot_tier             local NVMe against the hot-tier floor
    STO002  pfs_read_bandwidth        the parallel file system's read against NVIDIA's level
    STO003  pfs_write_bandwidth       its write against the level
    STO004  nodes_without_pfs         training nodes with no path to a parallel file system
    STO005  node_storage_bandwidth    a node's storage cables against the single-node level
    STO006  fabric_aggregate          what the storage fabric carries against the level
    STO007  checkpoint_time           a checkpoint's write against the checkpoint interval
    STO008  appliance_without_ports   a storage appliance type with no client ports
    STO009  storage_to_compute        a storage port cabled to a compute port
    STO010  appliance_uncabled        an appliance whose cables reach no GPU node
"""

# Imported for their registrations; `rules.registry.all_rules` puts them in code order.
from rackdesigner.rules.storage import (  # noqa: F401
    appliance_uncabled,
    appliance_without_ports,
    checkpoint_time,
    fabric_aggregate,
    node_storage_bandwidth,
    nodes_without_pfs,
    nvme_hot_tier,
    pfs_read_bandwidth,
    pfs_write_bandwidth,
    storage_to_compute,
)
