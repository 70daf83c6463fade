"""Facts per device: its catalog type, draw (declared or estimated), GPUs and weight."""

from __future__ import annotations

from rackdesigner.analysis.facts import POWERED_KINDS, ZERO_DRAW_KINDS, DeviceFacts
from rackdesigner.analysis.geometry import port_height
from rackdesigner.layout_io.catalog import Catalog
from rackdesigner.model.layout import DEFAULT_LIQUID_FRACTION, Device, PortGroup, Rack

PortTables = dict[str, dict[str, PortGroup]]


def device_facts(
    device: Device,
    rack: Rack,
    rack_index: int,
    catalog: Catalog,
    thresholds: dict[str, float],
    ports: PortTables,
) -> DeviceFacts:
    """What a device is and draws. ``ports`` caches port groups by model, shared by every
    device of that model (a 100,000-GPU layout has 12,500 nodes of one model)."""
    dtype = catalog.devices.get(device.model)
    facts = DeviceFacts(device, rack, rack_index, dtype, device.id)
    if dtype is None:
        return facts
    facts.height_u = dtype.height_u
    if device.position is not None:
        facts.port_height = port_height(device.position, facts.height_u)
    groups = ports.get(device.model)
    if groups is None:
        groups = ports[device.model] = {g.name: g for g in dtype.ports or ()}
    facts.ports = groups
    facts.weight = dtype.weight
    facts.gpus = dtype.gpus or 0
    if dtype.gpu is not None:
        facts.gpu = catalog.gpus.get(dtype.gpu)
    if dtype.power is not None:
        facts.power = float(dtype.power)
    elif dtype.kind == "gpu-node" and facts.gpu is not None and facts.gpu.tdp and facts.gpus:
        facts.power = facts.gpu.tdp * facts.gpus * (1 + thresholds["host_overhead"])
        facts.power_estimated = True
    elif dtype.kind in ZERO_DRAW_KINDS or (
        dtype.airflow == "passive" and dtype.kind not in POWERED_KINDS
    ):
        facts.power = 0.0
    return facts


def liquid_fraction(dev: DeviceFacts) -> float:
    """Share of a device's heat that cold plates remove in a liquid-cooled rack."""
    if dev.type is None:
        return 0.0
    if dev.type.liquid_fraction is not None:
        return float(dev.type.liquid_fraction)
    return DEFAULT_LIQUID_FRACTION if dev.type.kind == "gpu-node" else 0.0
