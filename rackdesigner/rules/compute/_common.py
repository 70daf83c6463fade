"""What the compute rules share: a GPU's name, the GPU-node types the layout uses, and the
model size of a training workload.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts
from rackdesigner.model.layout import DeviceType, Gpu


def gpu_name(gpu: Gpu) -> str:
    return gpu.name or gpu.key


def gpu_node_types(analysis: Analysis) -> Iterator[tuple[str, list[DeviceFacts], DeviceType]]:
    """Each GPU-node type the layout uses, with its devices."""
    for key, devices in analysis.types_used.items():
        dtype = devices[0].type
        if dtype is not None and dtype.kind == "gpu-node":
            yield key, devices, dtype


def training_params(analysis: Analysis) -> float | None:
    """The parameters of a training or fine-tuning workload (declared, or the named
    model's: v1.4), or None."""
    workload = analysis.workload
    if workload is None or not workload.is_training:
        return None
    return workload.params


# What each form factor's chassis takes, for CMP008's message.
FORM_FACTOR_TAKES = {
    "sxm": "an SXM baseboard (HGX/DGX)",
    "oam": "an OAM baseboard",
    "pcie": "PCIe card slots",
}
