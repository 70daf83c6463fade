"""Rack-scale systems (v1.2): NVLink domains, power shelves and the DC busbar.

A GB200 or GB300 NVL72 rack is one NVLink domain of compute trays and NVLink switch
trays (types with ``nvl_domain``), named by the rack's ``nvlink_domain``; its power
shelves (types with ``dc_voltage``) turn the rack's AC into DC on a busbar (a type with
``busbar_current``) that feeds the trays. docs/rack-scale.md cites the figures.

Everything here is one pass over the rack facts: a 1,390-rack hall costs what its
devices cost, and no NVLink cable is ever listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rackdesigner.analysis.facts import DeviceFacts, RackFacts


@dataclass(frozen=True, slots=True)
class Shape:
    """What one NVLink domain of a shape holds."""

    name: str
    compute_trays: int
    switch_trays: int
    racks: int  # the most racks its copper backplane spans
    source: str


SHAPES: dict[str, Shape] = {
    "nvl72": Shape(
        "NVL72",
        18,
        9,
        1,
        "DGX GB200 user guide, Hardware: 18 compute trays and 9 NVLink switch trays per rack",
    ),
    "nvl36": Shape(
        "NVL36",
        9,
        9,
        1,
        "BCM NVLink switch integration: the switch trays join the GPUs of each rack, 36 per "
        "rack or 72 per rack",
    ),
}


# DGX SuperPOD GB200 RA, Architecture: a scalable unit (SU) is 8 DGX GB200 racks, 8 NVL72
# domains and 576 GPUs ("the design of a single SU (8 DGX GB200 rack systems)").
SU_DOMAINS = 8


@dataclass(slots=True)
class Domain:
    """One NVLink domain: the racks that name it and the trays in them."""

    id: str
    racks: list[RackFacts] = field(default_factory=list)
    compute: list[DeviceFacts] = field(default_factory=list)
    switches: list[DeviceFacts] = field(default_factory=list)

    @property
    def shapes(self) -> list[str]:
        """The tray shapes in the domain, in first-seen order."""
        seen: dict[str, None] = {}
        for dev in (*self.compute, *self.switches):
            if dev.type is not None and dev.type.nvl_domain is not None:
                seen.setdefault(dev.type.nvl_domain, None)
        return list(seen)

    @property
    def shape(self) -> Shape | None:
        shapes = self.shapes
        return SHAPES.get(shapes[0]) if len(shapes) == 1 else None

    @property
    def gpus(self) -> int:
        return sum(dev.gpus for dev in self.compute)


def tray_role(dev: DeviceFacts) -> str | None:
    """``compute`` or ``switch`` for a rack-scale tray, None for any other device."""
    return dev.type.nvl_tray_role if dev.type is not None else None


def domains(racks: list[RackFacts]) -> tuple[list[Domain], list[DeviceFacts]]:
    """The NVLink domains in file order, and the rack-scale trays outside any (their rack
    names no ``nvlink_domain``)."""
    by_id: dict[str, Domain] = {}
    outside: list[DeviceFacts] = []
    for rack in racks:
        name = rack.rack.nvlink_domain
        domain = None
        if name is not None:
            domain = by_id.get(name)
            if domain is None:
                domain = by_id[name] = Domain(name)
            domain.racks.append(rack)
        for dev in rack.devices:
            role = tray_role(dev)
            if role is None:
                continue
            if domain is None:
                outside.append(dev)
            elif role == "compute":
                domain.compute.append(dev)
            else:
                domain.switches.append(dev)
    return list(by_id.values()), outside


@dataclass(slots=True)
class RackDc:
    """A rack's DC side: its power shelves, busbar and the load they carry."""

    rack: RackFacts
    shelves: list[DeviceFacts] = field(default_factory=list)
    busbars: list[DeviceFacts] = field(default_factory=list)
    # What draws from the busbar: the rack-scale trays and DC-input devices (the NVL72
    # rack's management ToRs, v1.4)
    trays: list[DeviceFacts] = field(default_factory=list)
    load: float = 0.0  # W, their draw; a lower bound where load_unknown
    load_unknown: bool = False

    @property
    def shelf_rating(self) -> float | None:
        """One shelf's DC output (psus_required x psu_rating): the smallest of the rack's."""
        ratings = [_shelf_rating(dev) for dev in self.shelves]
        known = [r for r in ratings if r is not None]
        return min(known) if known and len(known) == len(ratings) else None

    @property
    def capacity(self) -> float | None:
        """What all shelves deliver together."""
        rating = self.shelf_rating
        return None if rating is None else rating * len(self.shelves)

    @property
    def capacity_one_lost(self) -> float | None:
        """What the shelves deliver with one of them lost (N+1)."""
        rating = self.shelf_rating
        return None if rating is None else rating * (len(self.shelves) - 1)

    @property
    def dc_voltage(self) -> float | None:
        """The busbar's voltage: the lowest the shelves put on it (most current)."""
        volts = [float(d.type.dc_voltage) for d in self.shelves if d.type and d.type.dc_voltage]
        return min(volts) if volts else None

    @property
    def current(self) -> float | None:
        """The busbar current the trays draw, A."""
        volts = self.dc_voltage
        return None if volts is None else self.load / volts

    @property
    def busbar_rating(self) -> float | None:
        # A busbar is a type with a rating (DeviceType.is_busbar): none is skipped here.
        ratings = [
            float(rating)
            for d in self.busbars
            if d.type and (rating := d.type.busbar_current) is not None
        ]
        return sum(ratings) if ratings else None


def _shelf_rating(dev: DeviceFacts) -> float | None:
    dtype = dev.type
    if dtype is None or dtype.psu_rating is None:
        return None
    count = dtype.psus_required if dtype.psus_required is not None else dtype.psus
    return None if count is None else count * float(dtype.psu_rating)


def rack_dc(rack: RackFacts) -> RackDc | None:
    """The rack's DC side; None for a rack with no shelf, busbar or rack-scale tray."""
    facts = RackDc(rack)
    for dev in rack.devices:
        dtype = dev.type
        if dtype is None:
            continue
        if dtype.is_power_shelf:
            facts.shelves.append(dev)
        elif dtype.is_busbar:
            facts.busbars.append(dev)
        elif dtype.on_busbar:  # a rack-scale tray, or a DC-input device (v1.4)
            facts.trays.append(dev)
            if dev.power is None:
                facts.load_unknown = True
            else:
                facts.load += dev.power
    if not (facts.shelves or facts.busbars or facts.trays):
        return None
    return facts


# How the shelves share the rack's feeds (docs/rack-scale.md, Power). A shelf has one AC
# input, so its PSUs are all on one feed: the rack's redundancy is between shelves on
# different sides (the reference rack's 8 shelves of 33 kW carry a ~132 kW rack with
# half of them lost), not between the PSUs of one shelf (PWR008 leaves shelves alone).


@dataclass(frozen=True, slots=True)
class SideLoss:
    """What the shelves deliver with one feed side lost."""

    lost: str  # the side label lost
    kept: int  # shelves left on the other sides
    capacity: float  # W of DC they deliver: kept x one shelf's rating


def shelves_per_side(groups: Sequence[str], labels: Sequence[str]) -> dict[str, int]:
    """Shelves on each side label (``groups``: the side of each shelf's feed, "" for none);
    a shelf on a feed without a side counts for no side (PWR013)."""
    counts = dict.fromkeys(labels, 0)
    for group in groups:
        if group in counts:
            counts[group] += 1
    return counts


def side_losses(dc: RackDc, per_side: dict[str, int]) -> list[SideLoss]:
    """For each of k >= 2 sides, the shelves left and their DC capacity when it is lost;
    [] with fewer than 2 sides or a shelf of unknown rating."""
    rating = dc.shelf_rating
    if len(per_side) < 2 or rating is None:
        return []
    total = sum(per_side.values())
    return [SideLoss(lost, total - n, (total - n) * rating) for lost, n in per_side.items()]


def shelf_share(dc: RackDc, per_side: dict[str, int], side: str) -> float | None:
    """W of DC one shelf on ``side`` delivers in its worst case: another side lost and the
    trays' load shared evenly by the shelves left (with fewer than 2 sides, by all of them),
    capped at the shelf's rating (beyond it the trays throttle: PWR016, PWR019). None where
    no shelf would be left."""
    rating = dc.shelf_rating
    if len(per_side) >= 2:
        total = sum(per_side.values())
        left = [total - n for lost, n in per_side.items() if lost != side]
        sharing = min(left) if left else 0
    else:
        sharing = len(dc.shelves)
    if sharing <= 0:
        return None
    share = dc.load / sharing
    return share if rating is None else min(share, rating)
