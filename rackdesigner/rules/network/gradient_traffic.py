"""Estimated cross-node gradient traffic per fabric port exceeds the port's rate.

Why it matters:
    Data-parallel training all-reduces the gradients every step. NCCL's hierarchical
    collectives reduce inside a node over NVLink first and send one rail per GPU
    between nodes, so the traffic that crosses the fabric is per node, not per GPU:
    each node sends and receives k x params x bytes_per_param x (n - 1) / n bytes per
    step, n the GPU nodes in the fabric and k = 2 for `ddp` (reduce-scatter +
    all-gather of gradients; ZeRO-1 and ZeRO-2 move the same) and 3 for `fsdp` /
    `zero3` (parameters are all-gathered again for the forward and backward passes; a
    declared `zero_stage` below 3 makes it 2: FSDP's SHARD_GRAD_OP is ZeRO-2), spread
    over the node's p cabled compute-fabric ports (p = G, its GPUs, at one port per GPU;
    ports of unequal rate share by rate). Times `steps_per_second` that is the rate each
    port needs; it gets its rate x `nccl_efficiency` (85 %). When the need is higher,
    the GPUs wait on the network. The arithmetic and its sources are in
    analysis/gradient_sync.py; `rackdesigner report` shows it step by step. The rule is
    silent for `tensor` and `pipeline` parallelism (their traffic depends on the
    model's shapes), without `parallelism`, `model_params` (or a named `model`),
    `bytes_per_param` (or, v1.4, a `precision`: 4 B for fp32, else 2 B) or
    `steps_per_second`, for inference, and for fabrics with fewer than two GPU nodes
    (whose all-reduce stays inside the node). One finding per
    fabric names the node with the least fabric bandwidth.

Example:
    [workload]
    kind = "training"
    model_params = 70e9
    parallelism = "fsdp"
    bytes_per_param = 2
    steps_per_second = 1.0   # 52.5 GB/s per port over 16 DGX H100 (8 ports each)

    # a 400 Gbps port x 85 % carries 42.5 GB/s

Fix:
    Cable more of each node's fabric ports (one 400 Gbps port per GPU is the norm), use
    faster adapters, or lower the traffic: gradients in bf16 (`bytes_per_param = 2`),
    gradient accumulation (fewer steps per second), or tensor / pipeline parallelism
    inside the node.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from rackdesigner.analysis import Analysis, DeviceFacts
from rackdesigner.analysis.gradient_sync import sync_step
from rackdesigner.analysis.workload_fit import training_run
from rackdesigner.analysis.workload_memory import BITS_PER_BYTE
from rackdesigner.model.units import BANDWIDTH, BYTE_RATE, RATIO, fmt, fmt_count
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.topology.collectives import lowest_bandwidth

if TYPE_CHECKING:  # networkx loads only when a rule asks for analysis.fabrics
    from rackdesigner.analysis.fabric_graph import Fabric


@rule("NET003", "warning", scope="fabric", thresholds=("nccl_efficiency",))
def gradient_traffic(analysis: Analysis) -> Iterator[Finding]:
    workload = analysis.workload
    steps = workload.steps_per_second if workload is not None else None
    if workload is None or not steps:
        return
    run = training_run(workload)
    if sync_step(workload, 1, 1, run) is None:
        return
    efficiency = analysis.thresholds["nccl_efficiency"]
    for fabric in analysis.fabrics:
        n = len(fabric.nodes)
        sync = sync_step(workload, max(fabric.gpus, 1), n, run)
        if n < 2 or sync is None:
            continue
        per_node = sync.per_node * float(steps) * BITS_PER_BYTE
        # The first node with the lowest fabric bandwidth (unknown port speeds: none).
        worst = lowest_bandwidth(fabric)
        if worst is None or per_node <= worst[0] * efficiency * (1 + 1e-9):
            continue
        bandwidth, node = worst
        ports = _fabric_ports(fabric, node)
        port_rate = bandwidth / ports
        needed = per_node / ports
        available = port_rate * efficiency
        entity, subject = fabric.site()
        yield Finding(
            entity,
            subject,
            f"gradient all-reduce needs {fmt(needed, BYTE_RATE)} per fabric port "
            f"({workload.parallelism}, {fmt_count(sync.params)} params × "
            f"{sync.width:g} B × {n - 1}/{n} nodes, {float(steps):g} steps/s, over "
            f"{plural(ports, 'port')} of node {node.id}) but a "
            f"{fmt(port_rate, BANDWIDTH)} port gives {fmt(available, BYTE_RATE)} at "
            f"{fmt(efficiency, RATIO)}",
            hint="cable more fabric ports per node (one per GPU), use faster "
            "adapters, or cut traffic: bf16 gradients, gradient accumulation, "
            "tensor or pipeline parallelism inside the node",
            values={
                "needed": needed,
                "available": available,
                "ports": float(ports),
                "nodes": float(n),
            },
            related=(node.ref,),
        )


def _fabric_ports(fabric: Fabric, node: DeviceFacts) -> int:
    """The node's cabled compute-fabric ports (parallel cables counted one by one)."""
    return max(fabric.ports_by_node().get(node.id, 0), 1)
