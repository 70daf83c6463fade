"""Derived facts, computed once per validation and read by rules, reports, exports and the TUI.

Per device: its catalog type, power draw (declared or estimated), GPUs, weight
and heat split. Per rack: load, heat, feed capacity per side, line currents,
weight and units used. Per link: its resolved ends, speed and route length.
Per fabric (in :mod:`rackdesigner.topology.graph`): tiers, oversubscription,
bisection bandwidth and single points of failure. Everything is a plain float
in SI units; nothing here formats for people.

The expensive parts (links, fabrics) are computed on first use, so a run that
selects only power rules never builds the fabric graph.
"""

from __future__ import annotations

import difflib
import math
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from . import catalog as catalog_module
from .cdu_groups import cdu_groups, n_plus_one
from .geometry import RackPlace, SiteGeometry, port_height, rack_places, route_length
from .model import (
    DEFAULT_LIQUID_FRACTION,
    Device,
    DeviceType,
    Feed,
    Gpu,
    Layout,
    Link,
    PortGroup,
    Rack,
)
from .power_sides import side_capacity, worst_case_shares
from .refs import Numbering, Ref, link_refs
from .schema import ENDPOINT
from .thresholds import resolve

if TYPE_CHECKING:
    from .topology.graph import Fabric

SQRT3 = math.sqrt(3.0)
ZERO_DRAW_KINDS = ("blank", "patch-panel")  # passive: no power, nothing unknown about it
# Kinds that draw power even when fanless ("passive" airflow: immersion nodes have no fans).
POWERED_KINDS = ("gpu-node", "cpu-node", "storage", "switch", "cdu", "rear-door")
# Placeholders until an analysis names the entity (references are immutable: safe to share).
_UNNAMED_DEVICE = Ref("device", "")
_UNNAMED_FEED = Ref("feed", "")
_UNNAMED_RACK = Ref("rack", "")


@dataclass(slots=True, eq=False)
class DeviceFacts:
    device: Device
    rack: Rack
    rack_index: int
    type: DeviceType | None  # None: the model is not in the catalog (PLC005)
    id: str = ""
    height_u: float = 1.0
    port_height: float | None = None  # m above the rack floor: the device's vertical centre
    place: RackPlace | None = None  # its rack's place on the floor
    power: float | None = None  # W; None when unknown (PWR009)
    power_estimated: bool = False  # from GPU TDP (PWR006)
    gpu: Gpu | None = None
    gpus: int = 0
    weight: float | None = None
    liquid_heat: float = 0.0
    air_heat: float = 0.0
    ports: dict[str, PortGroup] = field(default_factory=dict)  # by group name
    ref: Ref = _UNNAMED_DEVICE  # what findings about it name (set by Analysis)
    order: int = 0  # its place among all devices, in file order

    @property
    def kind(self) -> str | None:
        return self.type.kind if self.type else None

    @property
    def is_gpu_node(self) -> bool:
        return self.type is not None and self.type.kind == "gpu-node"

    @property
    def mounted(self) -> bool:
        """Occupies rack units (is not a 0U device)."""
        return self.type is not None and self.height_u > 0

    @property
    def centre_u(self) -> float | None:
        position = self.device.position
        return None if position is None else position - 1 + self.height_u / 2


@dataclass(slots=True, eq=False)
class FeedFacts:
    feed: Feed
    capacity: float  # W usable: V × I × derate (× √3 for 3-phase)
    derate: float
    outlet_voltage: float
    wiring: str | None  # wye | delta | None (single phase)
    group: str  # the redundant side it belongs to ("" without sides)
    load: float = 0.0  # W it carries when its side carries the rack alone
    lines: dict[str, float] = field(default_factory=dict)  # line -> A
    imbalance: float | None = None
    ref: Ref = _UNNAMED_FEED

    @property
    def breaker_limit(self) -> float:
        return float(self.feed.current or 0.0) * self.derate

    @property
    def utilisation(self) -> float | None:
        return self.load / self.capacity if self.capacity > 0 else None


@dataclass(slots=True, eq=False)
class PhaseConflict:
    device: DeviceFacts
    feed: Feed
    reason: str


@dataclass(slots=True, eq=False)
class RackFacts:
    rack: Rack
    index: int
    place: RackPlace
    devices: list[DeviceFacts] = field(default_factory=list)
    load: float = 0.0  # W; a lower bound where load_unknown
    unknown_power: list[DeviceFacts] = field(default_factory=list)
    estimated_power: bool = False
    liquid_heat: float = 0.0
    air_heat: float = 0.0  # residual air heat
    feeds: list[FeedFacts] = field(default_factory=list)
    side_capacity: dict[str, float] = field(default_factory=dict)
    capacity: float | None = None  # W the rack can draw; None without feeds
    phase_conflicts: list[PhaseConflict] = field(default_factory=list)
    weight: float = 0.0
    unknown_weight: list[DeviceFacts] = field(default_factory=list)
    units_used: float = 0.0
    gpus: int = 0
    gpu_nodes: int = 0
    cdu: DeviceFacts | None = None  # the first CDU it names
    cdus: list[DeviceFacts | None] = field(default_factory=list)  # (v1.1) every CDU it names
    door: DeviceFacts | None = None
    ref: Ref = _UNNAMED_RACK

    @property
    def heat(self) -> float:
        return self.load

    @property
    def load_unknown(self) -> bool:
        return bool(self.unknown_power)

    @property
    def redundant(self) -> bool:
        return len(self.side_capacity) >= 2

    @property
    def utilisation(self) -> float | None:
        return self.load / self.capacity if self.capacity else None

    @property
    def cooling(self) -> str:
        return self.rack.cooling_mode


@dataclass(slots=True, eq=False)
class End:
    """One end of a link, resolved."""

    text: str
    device: DeviceFacts | None = None
    group: PortGroup | None = None
    index: int = 0
    problem: str | None = None  # why it does not resolve (CAB005)
    key: str = ""  # the port's canonical name, "device:group7", once resolved
    clash: int | None = None  # the index of the link that already uses this port

    @property
    def port(self) -> str:
        return self.text.partition(":")[2]


class _LinkRefs:
    """The references of a layout's links, computed when a finding first asks for one."""

    __slots__ = ("_links", "_refs")

    def __init__(self, links: list[Link]):
        self._links = links
        self._refs: list[Ref] | None = None

    def of(self, index: int) -> Ref:
        if self._refs is None:
            self._refs = link_refs(self._links)
        return self._refs[index]


@dataclass(slots=True, eq=False)
class LinkFacts:
    link: Link
    index: int
    a: End
    b: End
    speed: float | None = None  # bit/s: the slower end's
    compute: bool = False  # both ends are compute ports: part of a fabric
    geometry: SiteGeometry | None = None
    refs: _LinkRefs | None = None  # shared by an analysis's links: their references
    # The route is computed when first read: only the cabling rules need every one.
    _route: float | None = field(default=None, init=False, repr=False)
    _routed: bool = field(default=False, init=False, repr=False)

    @property
    def route(self) -> float | None:
        """The cable's run in metres without slack; None where it cannot be computed."""
        if not self._routed:
            self._routed = True
            da, db = self.a.device, self.b.device
            if (
                self.a.group is not None
                and self.b.group is not None
                and da is not None
                and db is not None
                and self.geometry is not None
                and da.port_height is not None
                and db.port_height is not None
                and da.place is not None
                and db.place is not None
            ):
                self._route = route_length(
                    da.place,
                    da.port_height,
                    db.place,
                    db.port_height,
                    da.rack is db.rack,
                    self.geometry,
                )
        return self._route

    @property
    def length(self) -> float | None:
        """Metres: the declared length, else the route plus slack."""
        if self.link.length is not None:
            return float(self.link.length)
        route = self.route
        return None if route is None or self.geometry is None else route + self.geometry.slack

    @property
    def resolved(self) -> bool:
        return self.a.group is not None and self.b.group is not None

    @property
    def ref(self) -> Ref:
        """What findings about the cable name: its ``a`` end (``a -> b`` where shared)."""
        if self.refs is None:
            return Ref("link", self.link.a)
        return self.refs.of(self.index)

    @property
    def entity(self) -> str:
        return f"link {self.link.a} -> {self.link.b}"


def phase_misfit(phase: str, wiring: str | None) -> str | None:
    """Why a device's ``phase`` does not fit a feed's wiring (None: it fits)."""
    if wiring is None:
        return "a single-phase feed has no phases"
    if wiring == "wye" and "-" in phase:
        return f"{phase} is a line-to-line pair but the feed is wye (use L1, L2 or L3)"
    if wiring == "delta" and "-" not in phase:
        return f"{phase} is a line but the feed is delta (use L1-L2, L2-L3 or L3-L1)"
    return None


@dataclass(slots=True, eq=False)
class CduLoad:
    """A CDU group (the CDUs racks name together, v1.1) and the liquid heat of its racks."""

    cdus: list[DeviceFacts]
    racks: list[RackFacts] = field(default_factory=list)
    heat: float = 0.0  # W
    heat_unknown: bool = False  # some rack's load is a lower bound

    @property
    def cdu(self) -> DeviceFacts:
        """The group's first CDU, where findings about the group are reported."""
        return self.cdus[0]

    @property
    def capacities(self) -> list[float] | None:
        """Each CDU's capacity; None where one of them has none."""
        out = []
        for cdu in self.cdus:
            capacity = cdu.type.capacity if cdu.type is not None else None
            if capacity is None:
                return None
            out.append(float(capacity))
        return out

    @property
    def capacity(self) -> float | None:
        """All CDUs working."""
        capacities = self.capacities
        return None if capacities is None else sum(capacities)

    @property
    def n_plus_one(self) -> float | None:
        """With its largest CDU lost (a lone CDU keeps 0)."""
        capacities = self.capacities
        return None if capacities is None else n_plus_one(capacities)

    @property
    def margin(self) -> float | None:
        """N+1 capacity less the heat: below 0 the group is not N+1 (COOL009)."""
        spare = self.n_plus_one
        return None if spare is None else spare - self.heat


class Analysis:
    """Everything rules, reports and exports derive from a layout."""

    def __init__(
        self, layout: Layout, *, file: str = "", thresholds: dict[str, float] | None = None
    ):
        self.layout = layout
        self.file = file
        self.catalog = catalog_module.for_layout(layout)
        self.thresholds = (
            thresholds
            if thresholds is not None
            else resolve(layout.rules.thresholds if layout.rules else None)
        )
        self.geometry = SiteGeometry.of(layout.site)
        self.workload = layout.workload
        places = rack_places(layout)
        self.racks: list[RackFacts] = []
        self.devices: list[DeviceFacts] = []
        self.device_by_id: dict[str, DeviceFacts] = {}
        self.types_used: dict[str, list[DeviceFacts]] = defaultdict(list)
        self._ports: dict[str, dict[str, PortGroup]] = {}  # port groups by model, shared
        # Filled with links: the compute fabric's cabled device pairs (a, b) with a < b, each
        # {"links": [LinkFacts], "count": cables, "bandwidth": bit/s}.
        self.compute_edges: dict[tuple[str, str], dict[str, Any]] = {}
        # Duplicate ids (PLC005) get the next nth, as in the source map.
        self._numbering = numbering = Numbering()
        by_id = self.device_by_id
        for index, rack in enumerate(layout.racks):
            facts = RackFacts(rack, index, places[id(rack)])
            facts.ref = numbering.ref("rack", rack.id)
            self.racks.append(facts)
            for device in rack.devices:
                dev = self._device(device, rack, index)
                dev.place = facts.place
                dev.order = len(self.devices)
                facts.devices.append(dev)
                self.devices.append(dev)
                by_id.setdefault(device.id, dev)
                dev.ref = numbering.ref("device", device.id)
                if dev.type is not None:
                    self.types_used[device.model].append(dev)
        for facts in self.racks:
            self._rack_power(facts)
        self.site_load = sum(r.load for r in self.racks)
        self.site_load_unknown = any(r.load_unknown for r in self.racks)
        self.total_gpus = sum(r.gpus for r in self.racks)

    # -- devices -------------------------------------------------------------------------

    def _device(self, device: Device, rack: Rack, rack_index: int) -> DeviceFacts:
        dtype = self.catalog.devices.get(device.model)
        facts = DeviceFacts(device, rack, rack_index, dtype, device.id)
        if dtype is None:
            return facts
        facts.height_u = dtype.height_u
        if device.position is not None:
            facts.port_height = port_height(device.position, facts.height_u)
        ports = self._ports.get(device.model)
        if ports is None:
            ports = self._ports[device.model] = {g.name: g for g in dtype.ports or ()}
        facts.ports = ports
        facts.weight = dtype.weight
        facts.gpus = dtype.gpus or 0
        if dtype.gpu is not None:
            facts.gpu = self.catalog.gpus.get(dtype.gpu)
        if dtype.power is not None:
            facts.power = float(dtype.power)
        elif dtype.kind == "gpu-node" and facts.gpu is not None and facts.gpu.tdp and facts.gpus:
            facts.power = facts.gpu.tdp * facts.gpus * (1 + self.thresholds["host_overhead"])
            facts.power_estimated = True
        elif dtype.kind in ZERO_DRAW_KINDS or (
            dtype.airflow == "passive" and dtype.kind not in POWERED_KINDS
        ):
            facts.power = 0.0
        return facts

    def liquid_fraction(self, dev: DeviceFacts) -> float:
        """Share of a device's heat that cold plates remove in a liquid-cooled rack."""
        if dev.type is None:
            return 0.0
        if dev.type.liquid_fraction is not None:
            return float(dev.type.liquid_fraction)
        return DEFAULT_LIQUID_FRACTION if dev.type.kind == "gpu-node" else 0.0

    # -- racks: load, heat, feeds, phases ------------------------------------------------

    def _rack_power(self, facts: RackFacts) -> None:
        rack = facts.rack
        cooling = rack.cooling_mode
        occupied: set[int] = set()
        for dev in facts.devices:
            if dev.power is None:
                if dev.type is not None:
                    facts.unknown_power.append(dev)
            else:
                facts.load += dev.power
                facts.estimated_power |= dev.power_estimated
                heat = dev.power
                if cooling == "liquid":
                    dev.liquid_heat = heat * self.liquid_fraction(dev)
                elif cooling == "immersion":
                    dev.liquid_heat = heat
                dev.air_heat = heat - dev.liquid_heat
                facts.liquid_heat += dev.liquid_heat
                facts.air_heat += dev.air_heat
            if dev.weight is None:
                if dev.type is not None and dev.type.kind not in ZERO_DRAW_KINDS:
                    facts.unknown_weight.append(dev)
            else:
                facts.weight += dev.weight
            if dev.mounted and dev.device.position is not None:
                # Two half-depth devices on opposite faces share a unit: count units, not
                # heights.
                start = dev.device.position
                occupied.update(range(start, start + max(1, round(dev.height_u))))
            if dev.is_gpu_node:
                facts.gpu_nodes += 1
            facts.gpus += dev.gpus
        facts.units_used = float(len(occupied))
        if cooling == "rear-door" and rack.door:
            door = self._find_in(facts, rack.door)
            facts.door = door
            if door is not None and door.type is not None and door.type.kind == "rear-door":
                removed = min(facts.air_heat, float(door.type.capacity or 0.0))
                facts.air_heat -= removed
                facts.liquid_heat += removed
        if rack.cdu:
            facts.cdus = [self.device_by_id.get(cdu) for cdu in rack.cdus]
            facts.cdu = facts.cdus[0] if facts.cdus else None
        self._feeds(facts)

    def _find_in(self, facts: RackFacts, device_id: str) -> DeviceFacts | None:
        for dev in facts.devices:
            if dev.device.id == device_id:
                return dev
        return self.device_by_id.get(device_id)

    def _feeds(self, facts: RackFacts) -> None:
        feeds = facts.rack.feeds
        if not feeds:
            return
        power_factor = self.thresholds["power_factor"]
        for feed in feeds:
            voltage = float(feed.voltage or 0.0)
            current = float(feed.current or 0.0)
            derate = (
                float(feed.derate) if feed.derate is not None else self.thresholds["feed_derate"]
            )
            three = feed.phases == 3
            wiring = feed.effective_wiring
            # A feed of S kVA delivers S × PF kW (v1.1).
            capacity = voltage * current * derate * power_factor * (SQRT3 if three else 1.0)
            if feed.outlet_voltage is not None:
                outlet = float(feed.outlet_voltage)
            elif wiring == "wye":
                outlet = voltage / SQRT3
            else:
                outlet = voltage
            feed_facts = FeedFacts(feed, capacity, derate, outlet, wiring, feed.side or "")
            feed_facts.ref = self._numbering.ref("feed", feed.id)
            facts.feeds.append(feed_facts)
        # k ≥ 2 sides: (k − 1) × the smallest side; else the feeds add up (v1.1).
        sides = side_capacity(feeds, [f.capacity for f in facts.feeds])
        facts.side_capacity = dict(sides.sides)
        facts.capacity = sides.capacity
        for part in worst_case_shares(feeds):
            self._phase_loads(facts, [facts.feeds[i] for i in part.feeds], part.share)

    def _phase_loads(self, facts: RackFacts, group: list[FeedFacts], share: float) -> None:
        """Line currents of each feed in its worst case: its side carrying ``share`` of the
        rack's load per feed (rules.md v1.1, Phase load); currents are P ÷ (V × PF)."""
        power_factor = self.thresholds["power_factor"]
        for feed in group:
            voltage = float(feed.feed.voltage or 0.0) * power_factor
            if voltage <= 0:
                continue
            lines: dict[str, float] = defaultdict(float)
            load = 0.0
            for dev in facts.devices:
                phase = dev.device.phase
                if phase:
                    reason = phase_misfit(phase, feed.wiring)
                    if reason is not None:
                        # Wrong whatever the device draws; its load spreads evenly instead.
                        self._conflict(facts, dev, feed.feed, reason)
                        phase = None
                if not dev.power:
                    continue
                power = dev.power * share
                load += power
                if feed.wiring is None:
                    lines["L"] += power / voltage
                elif feed.wiring == "wye":
                    if phase:
                        lines[phase] += power / (voltage / SQRT3)
                    else:
                        for line in ("L1", "L2", "L3"):
                            lines[line] += power / 3 / (voltage / SQRT3)
                elif phase:
                    lines[phase] += power / voltage
                else:
                    for pair in ("L1-L2", "L2-L3", "L3-L1"):
                        lines[pair] += power / 3 / voltage
            if feed.wiring == "delta":
                i12, i23, i31 = lines["L1-L2"], lines["L2-L3"], lines["L3-L1"]
                lines = {
                    "L1": math.sqrt(i12 * i12 + i31 * i31 + i12 * i31),
                    "L2": math.sqrt(i12 * i12 + i23 * i23 + i12 * i23),
                    "L3": math.sqrt(i23 * i23 + i31 * i31 + i23 * i31),
                }
            elif feed.wiring == "wye":
                lines = {line: lines.get(line, 0.0) for line in ("L1", "L2", "L3")}
            if load >= feed.load:  # a shared feed belongs to every side; keep the worst
                feed.load = load
                feed.lines = dict(lines)
                if feed.wiring is not None and load > 0:
                    average = sum(lines.values()) / 3
                    feed.imbalance = max(abs(i - average) for i in lines.values()) / average

    def _conflict(self, facts: RackFacts, dev: DeviceFacts, feed: Feed, reason: str) -> None:
        if not any(c.device is dev and c.feed is feed for c in facts.phase_conflicts):
            facts.phase_conflicts.append(PhaseConflict(dev, feed, reason))

    @cached_property
    def cdu_loads(self) -> list[CduLoad]:
        """Each CDU group (the CDUs racks name together; lists that share a CDU join), with
        the liquid heat of every rack it serves. Only devices of kind "cdu" count."""
        named = [
            [c.id for c in rack.cdus if c is not None and c.type is not None and c.kind == "cdu"]
            for rack in self.racks
        ]
        loads: list[CduLoad] = []
        for group in cdu_groups(named):
            load = CduLoad([self.device_by_id[c] for c in group.cdus])
            for index in group.racks:
                rack = self.racks[index]
                load.racks.append(rack)
                load.heat += rack.liquid_heat
                load.heat_unknown |= rack.load_unknown
            loads.append(load)
        return loads

    @cached_property
    def cdu_load_of(self) -> dict[int, CduLoad]:
        """The CDU group serving each rack, by rack index."""
        return {rack.index: load for load in self.cdu_loads for rack in load.racks}

    # -- links ---------------------------------------------------------------------------

    @cached_property
    def links(self) -> list[LinkFacts]:
        result: list[LinkFacts] = []
        used: dict[str, int] = {}  # port ("device:group7") -> first link using it
        edges = self.compute_edges
        geometry = self.geometry
        links = self.layout.links
        suggestions = [0]
        roles: dict[tuple[int, str | None], bool] = {}  # (port group, device kind) -> compute?

        def is_compute(group: PortGroup, kind: str | None) -> bool:
            key = (id(group), kind)
            known = roles.get(key)
            if known is None:
                known = roles[key] = group.effective_role(kind) == "compute"
            return known

        slow = self._end_problem
        by_id = self.device_by_id

        def resolve(text: str) -> End:
            # The common case, "device:group7", without a regular expression; anything
            # else goes the slow way, which also says what is wrong.
            device_id, colon, port = text.partition(":")
            group_name = port.rstrip("0123456789")
            digits = port[len(group_name) :]
            if colon and group_name and digits and digits[0] != "0":
                device = by_id.get(device_id)
                if device is not None:
                    group = device.ports.get(group_name)
                    if group is not None and ":" not in port:
                        index = int(digits)
                        if index <= group.count:
                            return End(text, device, group, index, None, text)
            return slow(text, suggestions)

        append = result.append
        claim = used.setdefault
        refs = _LinkRefs(links)
        for index, link in enumerate(links):
            a = resolve(link.a)
            b = resolve(link.b)
            facts = LinkFacts(link, index, a, b, None, False, geometry, refs)
            append(facts)
            # Each port takes one cable: a second one is a CAB005 problem on that end.
            if a.key and (first := claim(a.key, index)) != index:
                a.clash = first
                a.problem = f"port {a.text} is already used by link {links[first].name}"
            if b.key and b.key == a.key:
                b.problem = f"both ends are port {a.key}: a cable needs two ports"
            elif b.key and (first := claim(b.key, index)) != index:
                b.clash = first
                b.problem = f"port {b.text} is already used by link {links[first].name}"

            ga, gb = a.group, b.group
            if ga is not None and gb is not None:
                da, db = a.device, b.device
                assert da is not None and db is not None
                sa, sb = ga.speed, gb.speed
                facts.speed = sb if sa is None else (sa if sb is None or sa <= sb else sb)
                # A doubly used port is a CAB005 problem; that cable is not part of a fabric.
                facts.compute = (
                    a.problem is None
                    and b.problem is None
                    and is_compute(ga, da.kind)
                    and is_compute(gb, db.kind)
                )
                if facts.compute and da is not db:
                    # Cables between the same two devices collapse into one fabric edge.
                    pair = (da.id, db.id) if da.id < db.id else (db.id, da.id)
                    edge = edges.get(pair)
                    if edge is None:
                        edges[pair] = {
                            "links": [facts],
                            "count": 1,
                            "bandwidth": facts.speed or 0.0,
                        }
                    else:
                        edge["links"].append(facts)
                        edge["count"] += 1
                        edge["bandwidth"] += facts.speed or 0.0
        return result

    def _end_problem(self, text: str, suggestions: list[int]) -> End:
        """Resolve an end the fast path could not, saying what is wrong with it."""
        end = End(text)
        match = ENDPOINT.match(text)
        if match is None:
            end.problem = f'"{text}" is not a port reference "<device id>:<port group><index>"'
            return end
        device = self.device_by_id.get(match["device"])
        if device is None:
            near = ""
            suggestions[0] += 1
            if suggestions[0] <= 20:  # difflib over thousands of ids is slow; hint the first few
                close = difflib.get_close_matches(match["device"], list(self.device_by_id), n=1)
                near = f" (did you mean {close[0]}?)" if close else ""
            end.problem = f"unknown device {match['device']}{near}"
            return end
        end.device = device
        if device.type is None:
            end.problem = f"device {device.id} has an unknown model"
            return end
        group = device.ports.get(match["group"])
        if group is None:
            names = [g.name for g in device.type.ports or ()]
            known = ", ".join(names) if names else "none"
            end.problem = (
                f"{device.device.model} has no port group '{match['group']}' (its groups: {known})"
            )
            return end
        index = int(match["index"])
        if not 1 <= index <= group.count:
            end.problem = (
                f"{device.device.model} has ports {group.name}1..{group.name}"
                f"{group.count}, not {group.name}{index}"
            )
            return end
        end.group = group
        end.index = index
        end.key = f"{device.id}:{group.name}{index}"
        return end

    # -- fabrics -------------------------------------------------------------------------

    @cached_property
    def fabrics(self) -> list[Fabric]:
        from .topology.graph import build_fabrics

        return build_fabrics(self)

    # -- helpers for rules ---------------------------------------------------------------

    def type_site(self, key: str) -> tuple[str, Ref]:
        """Who a finding about a device type is about: its [catalog] table in the layout,
        else the first device of that type."""
        if key in self.layout.catalog:
            return f"catalog entry {key}", Ref("catalog", key)
        devices = self.types_used.get(key)
        if devices:
            return f"device {devices[0].id}", devices[0].ref
        return f"catalog entry {key}", Ref("catalog", key)

    def enclosing(self, ref: Ref) -> Ref | None:
        """The entity that holds ``ref``, where a finding goes when ``ref`` has no line of its
        own (a device added in memory is reported at its rack): a device's or feed's rack;
        a fabric's anchor device; a link's ``a`` device."""
        kind = ref.kind
        if kind == "device":
            first = self.device_by_id.get(ref.id)
            if first is not None and first.ref == ref:
                return self.racks[first.rack_index].ref
            for dev in self.devices:  # a duplicate id (PLC005): rare
                if dev.ref == ref:
                    return self.racks[dev.rack_index].ref
            return None
        if kind == "feed":
            for rack in self.racks:
                if any(feed.ref == ref for feed in rack.feeds):
                    return rack.ref
            return None
        if kind in ("fabric", "link"):
            return Ref("device", ref.id.partition(":")[0].partition(" ")[0])
        return None

    def cooling_verdict(self, rack: RackFacts) -> str:
        """In a word or three, whether the rack's heat has somewhere to go."""
        limit = self.thresholds["air_cooling_max"]
        mode = rack.cooling
        if mode == "air":
            return "ok" if rack.air_heat <= limit else "over the air limit"
        if mode == "liquid":
            if not rack.cdus or any(c is None or c.kind != "cdu" for c in rack.cdus):
                return "no CDU"
            if rack.air_heat > limit:
                return "residual air over the limit"
            load = self.cdu_load_of.get(rack.index)
            if load is not None and load.capacity is not None:
                if load.heat > load.capacity:
                    return "CDU over capacity"
                if load.margin is not None and load.margin < 0:
                    return "CDUs not N+1"
            return "ok"
        if mode == "rear-door":
            door = rack.door
            if door is None or door.type is None or door.type.kind != "rear-door":
                return "no rear door"
            capacity = float(door.type.capacity or 0.0)
            return "ok" if rack.heat <= capacity else "over the door's capacity"
        return "ok"

    @property
    def is_training(self) -> bool:
        return self.workload is not None and self.workload.is_training
