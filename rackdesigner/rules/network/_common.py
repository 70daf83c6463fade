"""What the network rules share: how they word a ratio and a fabric's size, and the units
of GPUs that reach each other without the compute fabric."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rackdesigner.model.wording import plural

if TYPE_CHECKING:  # networkx loads only when a rule asks for analysis.fabrics
    from rackdesigner.analysis import Analysis, DeviceFacts
    from rackdesigner.analysis.fabric_graph import Fabric
    from rackdesigner.model.refs import Ref


def ratio_text(value: float) -> str:
    """A downlink:uplink ratio as people write it: ``2:1``, ``1.33:1``."""
    return f"{value:.3g}:1"


def nodes_text(fabric: Fabric) -> str:
    return f"{plural(fabric.gpus, 'GPU')} on {plural(len(fabric.nodes), 'node')}"


@dataclass(slots=True)
class GpuUnit:
    """GPUs that reach each other without the compute fabric: the compute trays of one
    NVLink domain (an NVL72 rack is 72 GPUs on NVLink), or one GPU node."""

    domain: str | None  # the NVLink domain's id; None for a GPU node on its own
    ref: Ref  # what a finding about the unit names: the node, or the domain's first rack
    members: list[DeviceFacts] = field(default_factory=list)

    @property
    def gpus(self) -> int:
        return sum(m.gpus for m in self.members)

    @property
    def entity(self) -> str:
        return f"NVLink domain {self.domain}" if self.domain else f"device {self.members[0].id}"

    def text(self) -> str:
        """``GPU node (8 GPUs)``, ``NVLink domain nvl-a01 (72 GPUs on 18 trays)``."""
        if self.domain is None:
            return f"GPU node ({plural(self.gpus, 'GPU')})"
        return (
            f"NVLink domain {self.domain} ({plural(self.gpus, 'GPU')} on "
            f"{plural(len(self.members), 'tray')})"
        )


def gpu_units(analysis: Analysis) -> list[GpuUnit]:
    """The layout's GPU units in file order: each NVLink domain's compute trays as one
    (docs/rack-scale.md), every other GPU node on its own. A node a what-if took down is in
    none: it is down, not uncabled."""
    units: list[GpuUnit] = []
    domains: dict[str, GpuUnit] = {}
    failed = analysis.failed.devices
    for dev in analysis.devices:
        if not dev.is_gpu_node or dev.id in failed:
            continue
        name = dev.rack.nvlink_domain
        if name is None or dev.type is None or dev.type.nvl_tray_role != "compute":
            units.append(GpuUnit(None, dev.ref, [dev]))
            continue
        unit = domains.get(name)
        if unit is None:
            unit = domains[name] = GpuUnit(name, analysis.racks[dev.rack_index].ref)
            units.append(unit)
        unit.members.append(dev)
    return units


def all_on_fabrics(analysis: Analysis) -> bool:
    """Whether every GPU node that works is on a compute fabric, told from the counts of
    the fabrics' nodes and of the GPU nodes by model, without a walk over the devices (a
    what-if asks once per failed layout)."""
    nodes = sum(len(d) for d in analysis.types_used.values() if d and d[0].is_gpu_node)
    by_id, failed = analysis.device_by_id, analysis.failed.devices
    # An id taken twice counts once here: never fewer than the nodes that work.
    down = sum(1 for d in failed if d in by_id and by_id[d].is_gpu_node)
    on = 0
    for fabric in analysis.fabrics:  # each node has a bandwidth entry: no walk over them
        on += len(fabric.nodes) - sum(1 for d in failed if d in fabric.node_bandwidth)
    return on >= nodes - down
