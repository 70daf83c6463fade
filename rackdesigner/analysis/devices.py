"""Facts per device: its catalog type, draw (declared or estimated), GPUs and weight."""

from __future__ import annotations

from rackdesigner.analysis.facts import POWERED_KINDS, ZERO_DRAW_KINDS, DeviceFacts
from rackdesigner.analysis.geometry import port_height
from rackdesigner.layout_io.catalog import Catalog
from rackdesigner.model.layout import (
    DEFAULT_LIQUID_FRACTION,
    Device,
    DeviceType,
    PortGroup,
    Rack,
)

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
        demand = facts.gpu.tdp * facts.gpus * (1 + host_overhead(dtype, thresholds))
        cap = psu_capacity(dtype)
        facts.power = demand if cap is None else min(demand, cap)
        facts.power_demand = demand
        facts.power_estimated = True
    elif (
        dtype.kind in ZERO_DRAW_KINDS
        or (dtype.airflow == "passive" and dtype.kind not in POWERED_KINDS)
        # A busbar is copper; a power shelf passes the trays' draw on to the feeds
        # (counted as the trays' power: PWR018), its own overhead is not in the sources.
        or dtype.is_busbar
        or dtype.is_power_shelf
    ):
        facts.power = 0.0
    return facts


def host_overhead(dtype: DeviceType, thresholds: dict[str, float]) -> float:
    """CPUs, fans and NICs as a share of GPU TDP (PWR006): a PCIe-slot chassis has no
    NVSwitch baseboard and fewer NICs than a DGX/HGX one (v1.2)."""
    if dtype.form_factor == "pcie":
        return thresholds["host_overhead_pcie"]
    return thresholds["host_overhead"]


def psu_capacity(dtype: DeviceType) -> float | None:
    """The most a device draws with its PSUs redundant: psus_required (else psus) ×
    psu_rating; None where either is not known (v1.2)."""
    count = dtype.psus_required or dtype.psus
    if count is None or dtype.psu_rating is None:
        return None
    return count * float(dtype.psu_rating)


def liquid_fraction(dev: DeviceFacts) -> float:
    """Share of a device's heat that cold plates remove in a liquid-cooled rack."""
    if dev.type is None:
        return 0.0
    if dev.type.liquid_fraction is not None:
        return float(dev.type.liquid_fraction)
    return DEFAULT_LIQUID_FRACTION if dev.type.kind == "gpu-node" else 0.0
