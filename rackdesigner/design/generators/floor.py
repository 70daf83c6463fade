"""Where a generator's switches go, and how long the cables between them run.

Placement (fabrics.md): a switch goes in the middle third of a rack that holds GPU
nodes (PLC003), into free units only (both faces for a full-depth switch), in a rack
whose feeds and cooling can take its draw; a leaf in the rack nearest the centre of the
nodes it serves, a top-tier switch in the rack nearest the centre of the hall. Where no
rack has room a network rack is added to the row, with feeds, PDUs and cooling like its
neighbour's. Cable runs follow layout-format.md, "Geometry".
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from rackdesigner.analysis import Analysis, RackFacts
from rackdesigner.analysis.geometry import SiteGeometry, rack_places
from rackdesigner.analysis.power_sides import pdu_feeds
from rackdesigner.design.generators.base import GenerateError, SwitchModel
from rackdesigner.model.layout import RACK_UNIT_M, Device, Layout, Rack

_TRAILING_NUMBER = re.compile(r"^(.*?)(\d+)$")
_POSITIONS: dict[tuple[int, int, bool], list[int]] = {}


@dataclass(slots=True, eq=False)
class Spot:
    """A rack as placement sees it."""

    rack: Rack
    row: str
    x: float | None  # m along the row (slot × rack_pitch); None without a slot
    y: float  # m across rows (row index × row_pitch)
    top: float  # m, the rack's top above the floor
    height: int  # U
    front: bytearray  # 1 where a unit is taken, index = U (0 unused)
    rear: bytearray
    gpu_nodes: bool
    headroom: float  # W of switch draw its feeds and cooling still take
    new: bool = False
    empty_headroom: float = 0.0  # a network rack's headroom before any switch (copies copy it)
    full: set[tuple[int, bool]] = field(default_factory=set)  # (height, full depth) with no room
    role_counts: dict[str, int] = field(default_factory=dict)

    def positions(self, height: int) -> list[int]:
        """Positions a device of ``height`` U may take, best first (nearest the middle)."""
        found = _POSITIONS.get((self.height, height, self.gpu_nodes))
        if found is None:
            found = _POSITIONS[(self.height, height, self.gpu_nodes)] = self._positions(height)
        return found

    def _positions(self, height: int) -> list[int]:
        h = self.height
        middle = h / 2
        found = []
        for position in range(1, h - height + 2):
            centre = position - 1 + height / 2
            if self.gpu_nodes and not (h / 3 <= centre <= 2 * h / 3):
                continue
            found.append((abs(centre - middle), position))
        found.sort()
        return [p for _, p in found]

    def free_position(self, height: int, full_depth: bool) -> int | None:
        if (height, full_depth) in self.full:
            return None
        for position in self.positions(height):
            units = range(position, position + height)
            if all(not self.front[u] for u in units) and (
                not full_depth or all(not self.rear[u] for u in units)
            ):
                return position
        self.full.add((height, full_depth))
        return None

    def take(self, position: int, height: int, full_depth: bool) -> None:
        for u in range(position, position + height):
            self.front[u] = 1
            if full_depth:
                self.rear[u] = 1


class Floor:
    """The racks of a layout, their free units and headroom, and the cable runs between them.

    A rack's power headroom is what its feeds and PDUs carry beyond its load (a rack
    without feeds has no power limit): ``rackdesigner new`` gives its racks their largest
    feeds and PDUs before the fabric, so they are placed by the same measure as in the
    designer.
    """

    def __init__(
        self,
        layout: Layout,
        analysis: Analysis,
        *,
        allow_new_racks: bool = True,
    ):
        self.layout = layout
        self.analysis = analysis
        self.geometry = SiteGeometry.of(layout.site)
        self.allow_new_racks = allow_new_racks
        self.air_max = analysis.thresholds["air_cooling_max"]
        places = rack_places(layout)
        self.spots: list[Spot] = []
        self.row_spots: dict[str, list[Spot]] = {}
        self.by_rack: dict[int, Spot] = {}
        # id -> (spot, port height in m, drop from the rack top to the port in m): every
        # device a cable may end at
        self.where: dict[str, tuple[Spot, float, float]] = {}
        self.device_ids: set[str] = set()
        self.rack_ids: set[str] = {rack.id for rack in layout.racks}
        self.slots_by_row: dict[str, set[int]] = {}
        self.row_index: dict[str, int] = {}
        self.facts_by_rack: dict[int, RackFacts] = {}
        for facts in analysis.racks:
            rack = facts.rack
            self.facts_by_rack[id(rack)] = facts
            place = places[id(rack)]
            row = rack.row or ""
            self.row_index.setdefault(row, place.row_index)
            if rack.slot is not None:
                self.slots_by_row.setdefault(row, set()).add(rack.slot)
            height = max(1, int(rack.height_u))
            spot = Spot(
                rack,
                row,
                None if rack.slot is None else rack.slot * self.geometry.rack_pitch,
                place.row_index * self.geometry.row_pitch,
                place.top,
                height,
                bytearray(height + 2),
                bytearray(height + 2),
                facts.gpu_nodes > 0,
                self._headroom(facts),
            )
            for dev in facts.devices:
                self.device_ids.add(dev.id)
                if dev.port_height is not None:
                    self.where[dev.id] = (spot, dev.port_height, spot.top - dev.port_height)
                if not dev.mounted or dev.device.position is None:
                    continue
                start = dev.device.position
                end = min(height, start + max(1, math.ceil(dev.height_u)) - 1)
                full = dev.type is not None and dev.type.full_depth
                faces = (
                    (spot.front, spot.rear)
                    if full
                    else ((spot.rear,) if dev.device.face == "rear" else (spot.front,))
                )
                for face in faces:
                    for u in range(max(1, start), end + 1):
                        face[u] = 1
            self.spots.append(spot)
            self.by_rack[id(rack)] = spot
            self.row_spots.setdefault(row, []).append(spot)
        self.new_racks: list[Rack] = []
        self.notes: list[str] = []
        # Orders of racks by distance from a target, with the target (a new network rack
        # is inserted into each, not re-sorted: a big hall adds hundreds).
        self._sorted: dict[tuple[float, float], tuple[tuple[float, float], list[Spot]]] = {}
        self._near_sorted: dict[
            tuple[float, float, frozenset[str]], tuple[tuple[float, float], list[Spot]]
        ] = {}
        self._skip: dict[tuple[int, tuple[int, bool], float], int] = {}
        xs = [s.x for s in self.spots if s.x is not None]
        ys = [s.y for s in self.spots]
        self.centre = (
            ((min(xs) + max(xs)) / 2) if xs else 0.0,
            ((min(ys) + max(ys)) / 2) if ys else 0.0,
        )

    # -- headroom ---------------------------------------------------------------------

    def _headroom(self, facts: RackFacts) -> float:
        """W of switch draw a rack's feeds, PDUs and cooling can still take."""
        if facts.capacity is not None:
            power = min(facts.capacity, pdu_limit(facts)) - facts.load
        else:
            power = math.inf
        cooling = facts.rack.cooling_mode
        if cooling == "immersion":
            cool = math.inf
        elif cooling == "rear-door":
            door = facts.door
            capacity = (
                float(door.type.capacity or 0.0)
                if door is not None and door.type is not None and door.type.kind == "rear-door"
                else self.air_max
            )
            cool = capacity - facts.heat
        else:  # air, and liquid: a switch's heat all goes to the air
            cool = self.air_max - facts.air_heat
        return min(power, cool)

    # -- placement --------------------------------------------------------------------

    def distance(self, spot: Spot, target: tuple[float, float]) -> float:
        x = spot.x if spot.x is not None else math.inf
        return abs(x - target[0]) + abs(spot.y - target[1])

    @staticmethod
    def distance_to(place: tuple[float, float], target: tuple[float, float]) -> float:
        return abs(place[0] - target[0]) + abs(place[1] - target[1])

    def by_distance(self, target: tuple[float, float]) -> list[Spot]:
        """Every rack, nearest ``target`` first (cached: many switches share a target)."""
        key = (round(target[0], 6), round(target[1], 6))
        cached = self._sorted.get(key)
        if cached is None or len(cached[1]) != len(self.spots):
            found = sorted(self.spots, key=lambda s: self._order(s, target))
            self._sorted[key] = (target, found)
            return found
        return cached[1]

    def _order(self, spot: Spot, target: tuple[float, float]) -> tuple[float, float, float]:
        return (self.distance(spot, target), spot.y, spot.x or 0)

    def _insert(self, spot: Spot) -> None:
        """Put a new rack into every cached order, where sorting would have put it."""
        changed: dict[int, int] = {}  # id(list) -> where the new rack went
        for target, order in self._sorted.values():
            where = bisect.bisect_right(
                order, self._order(spot, target), key=lambda s: self._order(s, target)
            )
            order.insert(where, spot)
            changed[id(order)] = where
        for key, (target, order) in self._near_sorted.items():
            if spot.row in key[2]:
                where = bisect.bisect_right(
                    order, self._order(spot, target), key=lambda s: self._order(s, target)
                )
                order.insert(where, spot)
                changed[id(order)] = where
        # The run of full racks at an order's front ends at the new (empty) rack at most.
        for skip, start in self._skip.items():
            moved = changed.get(skip[0])
            if moved is not None:
                self._skip[skip] = min(start, moved)

    def rows_of(self, spots: Sequence[Spot]) -> frozenset[str]:
        return frozenset(s.row for s in spots)

    def place(
        self,
        model: SwitchModel,
        role: str,
        target: tuple[float, float],
        near: frozenset[str] | None,
    ) -> tuple[str, Spot, int]:
        """Put one switch: its new id, rack and position. ``near``: the rows to try first
        (a leaf's); without it the whole hall, nearest ``target`` first."""
        if near:
            key = (round(target[0], 6), round(target[1], 6), near)
            cached = self._near_sorted.get(key)
            if cached is None:
                tried = sorted(
                    (s for row in near for s in self.row_spots.get(row, ())),
                    key=lambda s: self._order(s, target),
                )
                self._near_sorted[key] = (target, tried)
            else:
                tried = cached[1]
        else:
            tried = self.by_distance(target)
        found = self._first_fit(tried, model)
        if found is None and self.allow_new_racks:
            like = tried[0] if tried else (self.by_distance(target)[0] if self.spots else None)
            if like is None:
                raise GenerateError("the layout has no racks to put switches in")
            spot = self._add_rack(like, target)
            found = self._first_fit([spot], model, remember=False)
            if found is None:
                raise GenerateError(
                    f"a {model.key} ({model.height} U, {model.power / 1e3:.3g} kW) does not fit "
                    f"even an empty rack like {like.rack.id}"
                )
        if found is None and near:
            found = self._first_fit(self.by_distance(target), model)
        if found is None:
            raise GenerateError(
                f"no rack has room for a {role} switch ({model.key}, {model.height} U, "
                f"{model.power / 1e3:.3g} kW) in free units of its middle third within its "
                "feeds and cooling; allow new network racks (drop --no-new-racks) or free "
                "some units"
            )
        spot, position = found
        spot.take(position, model.height, model.full_depth)
        spot.headroom -= model.power
        number = spot.role_counts.get(role, 0)
        while True:
            number += 1
            device_id = f"{spot.rack.id}-{role}{number}"
            if device_id not in self.device_ids:
                break
        spot.role_counts[role] = number
        self.device_ids.add(device_id)
        port_height = (position - 1 + model.height / 2) * RACK_UNIT_M
        self.where[device_id] = (spot, port_height, spot.top - port_height)
        return device_id, spot, position

    def _first_fit(
        self, spots: Sequence[Spot], model: SwitchModel, remember: bool = True
    ) -> tuple[Spot, int] | None:
        """The first rack of ``spots`` with room for ``model``, and the position. With
        ``remember`` (``spots`` is one of the cached orders) the run of full racks at its
        front is skipped next time."""
        power = model.power
        shape = (model.height, model.full_depth)
        # Racks fill nearest first: skip the run of full ones at the front of this list. A
        # rack without the headroom for this draw never regains it (headroom only shrinks),
        # so it is as full as one without units, for switches of this draw.
        key = (id(spots), shape, power)
        start = self._skip.get(key, 0) if remember else 0
        leading = remember
        for i in range(start, len(spots)):
            spot = spots[i]
            if shape in spot.full or spot.headroom < power:
                if leading:
                    self._skip[key] = i + 1
                continue
            position = spot.free_position(model.height, model.full_depth)
            if position is not None:
                return spot, position
            if leading:
                self._skip[key] = i + 1
        return None

    # -- network racks ----------------------------------------------------------------

    def _add_rack(self, like: Spot, target: tuple[float, float]) -> Spot:
        row = like.row
        used = self.slots_by_row.setdefault(row, set())
        pitch = self.geometry.rack_pitch
        want = max(1, round(target[0] / pitch)) if like.x is not None else 1
        top = (max(used) if used else 0) + 1
        slot = min(
            (s for s in range(1, top + 1) if s not in used),
            key=lambda s: (abs(s - want), s),
        )
        used.add(slot)
        rack_id = self._rack_id(like.rack, slot)
        base = like.rack
        feeds = [
            replace(
                feed,
                id=_renamed(feed.id, base.id, rack_id, index),
                circuit=f"{rack_id}-{feed.side or index + 1}-{index + 1}",
                notes=None,
                # Off the power chain: its elements were sized without this rack, and the
                # neighbour's tap-off positions are the neighbour's (docs/power-chain.md).
                source=None,
                position=None,
            )
            for index, feed in enumerate(base.feeds)
        ]
        feed_names = {old.id: new.id for old, new in zip(base.feeds, feeds, strict=True)}
        devices: list[Device] = []
        door_id = None
        catalog = self.analysis.catalog.devices
        load = 0.0
        for index, device in enumerate(base.devices):
            dtype = catalog.get(device.model)
            if dtype is None:
                continue
            # An NVL72 rack's rear door takes its trays' air; its network-rack copy is on air.
            door = base.door == device.id and base.nvlink_domain is None
            keep = dtype.kind == "pdu" or (dtype.kind == "rear-door" and door)
            if not keep:
                continue
            new_id = _renamed(device.id, base.id, rack_id, index)
            copy = replace(device, id=new_id, label=None, notes=None, comment=None)
            if copy.feed in feed_names:
                copy.feed = feed_names[copy.feed]
            devices.append(copy)
            load += float(dtype.power or 0.0)
            if dtype.kind == "rear-door":
                door_id = new_id
        rack = replace(
            base,
            id=rack_id,
            slot=slot,
            label="network rack",
            notes=None,
            comment=None,
            feeds=feeds,
            devices=devices,
            door=door_id if base.door else None,
            # A network rack holds switches, no trays: it is no part of its neighbour's
            # NVLink domain (NVL003 would see the domain span two racks).
            nvlink_domain=None,
        )
        if base.nvlink_domain is not None:
            # Beside an NVL72 rack (liquid for its trays' cold plates) the switches are
            # on air, as the gb200-superpod template builds it (docs/rack-scale.md).
            rack.cooling = "air"
            rack.cdu = None
            # The NVL72 rack's declared weight is its trays' as built (1.36 t), not an
            # empty rack's: the copy holds switches, each with its own weight (PLC008).
            rack.weight = None
        self.rack_ids.add(rack_id)
        self.device_ids.update(d.id for d in devices)
        height = max(1, int(rack.height_u))
        headroom = self._new_headroom(like, rack, load)
        spot = Spot(
            rack,
            row,
            slot * pitch,
            like.y,
            height * RACK_UNIT_M,
            height,
            bytearray(height + 2),
            bytearray(height + 2),
            False,
            headroom,
            new=True,
            empty_headroom=headroom,
        )
        self.spots.append(spot)
        self.row_spots.setdefault(row, []).append(spot)
        self.new_racks.append(rack)
        self._insert(spot)
        self.notes.append(
            f"added network rack {rack_id} (row {row or '-'}, slot {slot}; feeds and cooling "
            f"like {base.id}): no rack nearby had room"
        )
        return spot

    def _new_headroom(self, like: Spot, rack: Rack, own: float) -> float:
        if like.new:
            return like.empty_headroom  # a copy of a copy: the first copy's limit
        facts = self.facts_by_rack[id(like.rack)]
        if facts.capacity is not None:
            # the copy has the same feeds and PDUs as its neighbour
            power = min(facts.capacity, pdu_limit(facts)) - own
        else:
            power = math.inf
        cooling = rack.cooling_mode
        if cooling == "immersion":
            cool = math.inf
        elif cooling == "rear-door" and rack.door:
            door = next((d for d in rack.devices if d.id == rack.door), None)
            dtype = self.analysis.catalog.devices.get(door.model) if door else None
            cool = float(dtype.capacity or 0.0) - own if dtype else self.air_max - own
        else:
            cool = self.air_max - own
        return min(power, cool)

    def _rack_id(self, like: Rack, slot: int) -> str:
        match = _TRAILING_NUMBER.match(like.id)
        candidates = []
        if match:
            prefix, digits = match.groups()
            candidates.append(f"{prefix}{slot:0{len(digits)}d}")
            candidates.append(f"{prefix}{slot:0{len(digits)}d}-net")
        candidates.extend(f"net{n}" for n in range(1, len(self.rack_ids) + 2))
        for candidate in candidates:
            if candidate not in self.rack_ids:
                return candidate
        raise GenerateError("no free rack id")  # unreachable: net1..net(n+1) cannot all exist

    # -- cables -----------------------------------------------------------------------

    def run(self, a: str, b: str) -> float | None:
        """The run of a cable between two devices' ports, with slack; None if unknown."""
        spot_a, height_a, drop_a = self.where[a]
        spot_b, height_b, drop_b = self.where[b]
        g = self.geometry
        if spot_a is spot_b:
            return abs(height_a - height_b) + g.slack
        if spot_a.x is None or spot_b.x is None:
            return None
        return (
            drop_a
            + g.tray_rise
            + abs(spot_a.x - spot_b.x)
            + abs(spot_a.y - spot_b.y)
            + g.tray_rise
            + drop_b
            + g.slack
        )


def pdu_limit(facts: RackFacts) -> float:
    """W a rack's PDUs carry before PWR011 fires: with k ≥ 2 sides (k − 1) × the side whose
    PDUs are rated least (each side carries load ÷ (k − 1) with another lost), else the sum
    of all its PDUs; unlimited where the rack lists no PDU or a side's ratings are unknown."""
    pdus = [d for d in facts.devices if d.kind == "pdu"]
    if not pdus or not facts.feeds:
        return math.inf
    where = pdu_feeds([d.device for d in pdus], [f.feed for f in facts.feeds])
    group = {f.feed.id: f.group for f in facts.feeds}
    labels = list(facts.side_capacity)
    redundant = len(labels) >= 2
    rated: dict[str, float] = dict.fromkeys(labels if redundant else [""], 0.0)
    for dev in pdus:
        label = group.get(where.get(dev.device.id, ""))
        if label is None or (redundant and label not in rated):
            continue  # on no feed, or on a feed of no side: PWR011 does not count it
        key = label if redundant else ""
        if dev.type is None or dev.type.capacity is None:
            rated[key] = math.inf  # PWR011 does not judge such a side
        else:
            rated[key] += float(dev.type.capacity)
    least = min(rated.values())
    return least * (len(labels) - 1) if redundant else least


def _renamed(old: str, old_rack: str, new_rack: str, index: int) -> str:
    if old.startswith(old_rack):
        return new_rack + old[len(old_rack) :]
    return f"{new_rack}-{index + 1}"
