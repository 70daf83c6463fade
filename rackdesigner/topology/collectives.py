"""Expected collective (all-reduce) bus bandwidth: what a healthy cluster should measure.

nccl-tests report "bus bandwidth", the rate each link direction carries per GPU.
Inside a node it is the GPUs' interconnect per direction. Between nodes NCCL's
hierarchical algorithms (NVLink inside the node, one rail per GPU across) drive
all of the node's fabric ports at once, so the figure is the node's whole
compute-fabric bandwidth, divided by the fabric oversubscription r and capped at
the inside figure (rules.md v1.1, NET007): a DGX H100 with 8 x 400 Gbit/s at 1:1
gives 8 x 50 GB/s x 85 % = 340 GB/s, as nccl-tests measures. Collectives reach
about ``nccl_efficiency`` of either. Rules (NET007) and reports read these figures;
nothing here formats for people.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rackdesigner.analysis import DeviceFacts
    from rackdesigner.analysis.fabric_graph import Fabric


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
    inter: float | None  # bit/s between nodes
    inter_node: DeviceFacts | None  # the node with the lowest figure between nodes
    node_bandwidth: float | None  # bit/s of that node's compute-fabric ports
    uniform: bool  # every node has the same compute-fabric bandwidth
    oversubscription: float  # the fabric oversubscription r (1 when non-blocking)
    capped: bool  # the inside figure limits the figure between nodes


def fabric_bus_bandwidth(fabric: Fabric, efficiency: float) -> FabricBusBandwidth:
    intra: tuple[float, DeviceFacts] | None = None
    inter: tuple[float, DeviceFacts, float, bool] | None = None
    ratio = fabric.oversubscription if len(fabric.nodes) >= 2 else 1.0
    bandwidths = set()
    for node in fabric.nodes:
        inside = intra_node(node, efficiency)
        if inside is not None and (intra is None or inside < intra[0]):
            intra = (inside, node)
        bandwidth = fabric.node_bandwidth.get(node.id, 0.0)
        if bandwidth <= 0 or len(fabric.nodes) < 2:
            continue
        bandwidths.add(bandwidth)
        between = bandwidth * efficiency / ratio if math.isfinite(ratio) else 0.0
        capped = inside is not None and inside < between
        if capped:
            assert inside is not None
            between = inside
        if inter is None or between < inter[0]:
            inter = (between, node, bandwidth, capped)
    return FabricBusBandwidth(
        intra=intra[0] if intra else None,
        intra_node=intra[1] if intra else None,
        inter=inter[0] if inter else None,
        inter_node=inter[1] if inter else None,
        node_bandwidth=inter[2] if inter else None,
        uniform=len(bandwidths) <= 1,
        oversubscription=ratio,
        capped=inter[3] if inter else False,
    )
