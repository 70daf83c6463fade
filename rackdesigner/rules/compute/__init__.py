"""Compute rules (CMP): whether the GPU nodes suit the workload the layout declares.

One module per rule, named after what it checks; its docstring is the rule's
documentation (``rackdesigner rules CMP001``), and :mod:`._common` holds what they share.

Most rules judge a device type once, however many devices use it, and report it
where the type is defined (its ``[catalog.KEY]`` table in the layout, else the
first device of that model). Rules that depend on ``[workload]`` stay silent
without one; ``fine-tuning`` counts as training.

    CMP001  gpu_memory_bandwidth        GPU memory bandwidth against the training floor
    CMP002  mixed_generations           GPU generations mixed on one fabric
    CMP003  host_cores_and_memory       host cores and RAM against the floor
    CMP004  gpus_per_node_for_model     GPUs per node for the declared model size
    CMP005  gpus_per_node_limit         more GPUs in a node type than one node should hold
    CMP006  consumer_gpus_for_training  consumer GPUs training a large model
    CMP007  workload_minimum            a cluster below the workload's minimum
    CMP008  form_factor_mismatch        a chassis whose GPUs' form factor differs from its own
    CMP009  model_memory_fit            the model does not fit the GPUs' memory
"""

# Imported for their registrations; `rules.registry.all_rules` puts them in code order.
from rackdesigner.rules.compute import (  # noqa: F401
    consumer_gpus_for_training,
    form_factor_mismatch,
    gpu_memory_bandwidth,
    gpus_per_node_for_model,
    gpus_per_node_limit,
    host_cores_and_memory,
    mixed_generations,
    model_memory_fit,
    workload_minimum,
)
