"""What a rack weighs, as PLC004 and PLC008 count it and the summary table and the
elevations print it: one home, so a printed weight is the weight the rules judged."""

from __future__ import annotations

from dataclasses import dataclass

from rackdesigner.analysis.facts import DeviceFacts, RackFacts


@dataclass(frozen=True, slots=True)
class RackWeight:
    """What a rack puts on the floor, in kg."""

    devices: float  # its devices' weight (a rack-scale rack's declared weight holds its trays)
    frame: float  # the rack's own `weight` (150 kg by default)
    unknown: bool  # a device of unknown weight leaves it out: the totals are lower bounds
    integrated: bool  # a rack-scale rack whose `weight` is the whole system, trays included

    @property
    def carried(self) -> float:
        """kg the rack carries (PLC004's, against `max_weight`): its devices, and for a
        rack-scale rack its declared weight as built, trays included."""
        return self.devices + (self.frame if self.integrated else 0.0)


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
