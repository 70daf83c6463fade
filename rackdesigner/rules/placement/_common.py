"""What the placement rules share: the devices that take units, the faces they take, and
what a rack weighs."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from rackdesigner.analysis import DeviceFacts, RackFacts


def mounted_devices(rack: RackFacts) -> Iterator[DeviceFacts]:
    """Devices that occupy units and have a position."""
    for dev in rack.devices:
        if dev.mounted and dev.device.position is not None:
            yield dev


def faces(dev: DeviceFacts) -> tuple[str, ...]:
    if dev.type is not None and dev.type.full_depth:
        return ("front", "rear")
    return (dev.device.face or "front",)


@dataclass(frozen=True, slots=True)
class RackWeight:
    """What a rack puts on the floor, in kg."""

    devices: float  # its devices' weight (a rack-scale rack's declared weight holds its trays)
    frame: float  # the rack's own `weight` (150 kg by default)
    unknown: bool  # a device of unknown weight leaves it out: the totals are lower bounds
    integrated: bool  # a rack-scale rack whose `weight` is the whole system, trays included


def _rack_scale_part(dev: DeviceFacts) -> bool:
    """A tray, power shelf or busbar: the parts of an integrated rack-scale system."""
    dtype = dev.type
    return dtype is not None and (
        dtype.nvl_domain is not None or dtype.is_power_shelf or dtype.is_busbar
    )


def rack_weight(rack: RackFacts) -> RackWeight:
    """A rack's weight. A rack-scale system (an NVL72 rack) comes as one: NVIDIA gives 1.36 t
    for the whole rack, not a weight per tray (docs/rack-scale.md), so where such a rack
    declares its `weight` that is the built system's, and its trays, shelves and busbar
    without a weight of their own are in it, not unknown."""
    declared = rack.rack.weight is not None
    integrated = declared and any(
        d.type is not None and d.type.nvl_domain is not None for d in rack.devices
    )
    if not integrated:
        return RackWeight(rack.weight, rack.rack.weight_kg, bool(rack.unknown_weight), False)
    unknown = any(not _rack_scale_part(dev) for dev in rack.unknown_weight)
    return RackWeight(rack.weight, rack.rack.weight_kg, unknown, True)
