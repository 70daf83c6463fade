"""Expected collective (all-reduce) bus bandwidth: what a healthy cluster should measure.

nccl-tests report "bus bandwidth", the rate each link direction carries per GPU.
Inside a node it is the GPUs' interconnect per direction; between nodes the
node's fabric bandwidth per GPU, divided by the worst leaf oversubscription
above 1:1. Collectives reach about ``nccl_efficiency`` of either. Rules (NET007)
and reports read these figures; nothing here formats for people.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..analysis import DeviceFacts
    from .graph import Fabric, SwitchFacts


def per_direction(dev: DeviceFacts) -> float | None:
    """GPU-to-GPU bandwidth per direction inside the node, bit/s.

    The catalog gives NVLink and Infinity Fabric (``nvlink = true``) as the total of
    both directions (H100 SXM: 900 GB/s) and PCIe figures as one direction.
    """
    gpu = dev.gpu
    if gpu is None or not gpu.interconnect or dev.gpus < 2:
        return None
    return float(gpu.interconnect) / 2 if gpu.nvlink else float(gpu.interconnect)


def intra_node(dev: DeviceFacts, efficiency: float) -> float | None:
    """Expected all-reduce bus bandwidth inside one node, bit/s."""
    figure = per_direction(dev)
    return None if figure is None else figure * efficiency


@dataclass(frozen=True, slots=True)
class FabricBusBandwidth:
    intra: float | None  # bit/s, the lowest of the fabric's nodes
    intra_node: DeviceFacts | None
    inter: float | None  # bit/s between nodes, per GPU
    inter_node: DeviceFacts | None  # the node with the least fabric bandwidth per GPU
    ports_per_gpu: float | None  # bit/s of fabric ports per GPU on that node
    uniform: bool  # every node has the same fabric bandwidth per GPU
    leaf: SwitchFacts | None  # the worst oversubscribed leaf above 1:1, if any

    @property
    def oversubscription(self) -> float | None:
        return self.leaf.oversubscription if self.leaf is not None else None


def fabric_bus_bandwidth(fabric: Fabric, efficiency: float) -> FabricBusBandwidth:
    intra: tuple[float, DeviceFacts] | None = None
    inter: tuple[float, DeviceFacts] | None = None
    uniform = True
    for node in fabric.nodes:
        figure = intra_node(node, efficiency)
        if figure is not None and (intra is None or figure < intra[0]):
            intra = (figure, node)
        bandwidth = fabric.node_bandwidth.get(node.id, 0.0)
        if node.gpus > 0 and bandwidth > 0:
            per_gpu = bandwidth / node.gpus
            if inter is not None and per_gpu != inter[0]:
                uniform = False
            if inter is None or per_gpu < inter[0]:
                inter = (per_gpu, node)
    worst: SwitchFacts | None = None
    for switch in fabric.tier_switches(1):
        ratio = switch.oversubscription
        if (
            ratio is not None
            and math.isfinite(ratio)
            and ratio > 1
            and (worst is None or ratio > (worst.oversubscription or 0))
        ):
            worst = switch
    between = None
    if inter is not None and len(fabric.nodes) >= 2:
        ratio = (worst.oversubscription or 1.0) if worst is not None else 1.0
        between = inter[0] * efficiency / ratio
    return FabricBusBandwidth(
        intra=intra[0] if intra else None,
        intra_node=intra[1] if intra else None,
        inter=between,
        inter_node=inter[1] if inter else None,
        ports_per_gpu=inter[0] if inter else None,
        uniform=uniform,
        leaf=worst,
    )
