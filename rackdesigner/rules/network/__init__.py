"""Network rules (NET): the compute fabric's technology, oversubscription, bandwidth and faults.

One module per rule, named after what it checks; its docstring is the rule's
documentation (``rackdesigner rules NET001``), and :mod:`._common` holds what they share.

Every rule reads the fabrics of :mod:`rackdesigner.analysis.fabric_graph` through
``analysis.fabrics``: one per connected part of the compute-port cabling, with
switch tiers, downlink and uplink bandwidth, each GPU node's fabric bandwidth
and the switches and cables whose loss splits the GPU nodes.

    NET001  infiniband_for_training   a large training fabric that is not InfiniBand
    NET002  oversubscription          downlink against uplink bandwidth per switch
    NET003  gradient_traffic          gradient traffic per port against its rate
    NET004  fat_tree_at_scale         a fat tree above the GPU count for Dragonfly+
    NET005  single_points_of_failure  switches and cables whose loss splits the nodes
    NET006  disconnected_gpus         GPU nodes not all on one fabric
    NET007  allreduce_bandwidth       expected all-reduce bandwidth
    NET008  crossed_rail              a compute port cabled to another rail's leaf
    NET009  uncabled_gpu_node         a GPU node with no compute-fabric link
"""

# Imported for their registrations; `rules.registry.all_rules` puts them in code order.
from rackdesigner.rules.network import (  # noqa: F401
    allreduce_bandwidth,
    crossed_rail,
    disconnected_gpus,
    fat_tree_at_scale,
    gradient_traffic,
    infiniband_for_training,
    oversubscription,
    single_points_of_failure,
    uncabled_gpu_node,
)
