"""The facts an analysis derives, as plain data: one type per rack, device, feed and link.

A leaf module: it imports the model, the references and the geometry, never the
functions that compute the facts (:mod:`.devices`, :mod:`.racks`, :mod:`.links`)
nor the cache that holds them (:class:`rackdesigner.analysis.Analysis`), so a
consumer reads them without pulling the analysis in. Everything is a plain
float in SI units; nothing here formats for people.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from rackdesigner.analysis.geometry import RackPlace, SiteGeometry, route_length
from rackdesigner.model.layout import Device, DeviceType, Feed, Gpu, Link, PortGroup, Rack
from rackdesigner.model.refs import Ref, link_refs, shared_a_ends

if TYPE_CHECKING:
    from rackdesigner.analysis.pathways import PathwayGraph


class ChannelRuns(Protocol):
    """(v1.4) What a link's channel (analysis/channels.py) tells its facts: the run without
    slack and the length of its three parts together."""

    def route(
        self, a: DeviceFacts, b: DeviceFacts, geometry: SiteGeometry, router: PathwayGraph | None
    ) -> float | None: ...

    def length(
        self, a: DeviceFacts, b: DeviceFacts, geometry: SiteGeometry, router: PathwayGraph | None
    ) -> float | None: ...


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
    # (v1.2) The TDP estimate before the PSUs' cap: above ``power`` where the cap applies.
    power_demand: float | None = None
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
    liquid_heat: float = 0.0  # to water: cold plates or immersion, and a rear door's share
    air_heat: float = 0.0  # residual air heat
    # (v1.2) Of liquid_heat, what the rear door's air-to-water coil takes to the chilled
    # water: not a CDU's load.
    door_heat: float = 0.0
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
    # (what-if) The rack's door has failed: named, but it takes no heat.
    door_failed: bool = False
    ref: Ref = _UNNAMED_RACK

    @property
    def heat(self) -> float:
        return self.load

    @property
    def loop_heat(self) -> float:
        """The heat cold plates or immersion send to a CDU loop (liquid heat less the rear
        door's)."""
        return self.liquid_heat - self.door_heat

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


class LinkRefs:
    """The references of a layout's links (:func:`rackdesigner.model.refs.link_refs`), each made
    when a finding first asks for it: most links never have one."""

    __slots__ = ("_links", "_refs", "_shared")

    def __init__(self, links: Sequence[Link], shared: frozenset[str] | None = None):
        # ``shared``: the ``a`` ends more than one of ``links`` starts from, where known
        # (none, for cables kept from a layout whose cables share none).
        self._links = links
        self._shared: frozenset[str] | None = shared
        self._refs: list[Ref] | None = None

    @property
    def shared(self) -> frozenset[str]:
        """The ``a`` ends more than one link starts from."""
        if self._shared is None:
            self._shared = shared_a_ends(self._links)
        return self._shared

    def of(self, index: int) -> Ref:
        if self._shared is None:
            self._shared = shared_a_ends(self._links)
        link = self._links[index]
        if link.a not in self._shared:
            return Ref("link", link.a)
        if self._refs is None:  # a layout with shared ends (CAB005): number them all once
            self._refs = link_refs(self._links)
        return self._refs[index]


@dataclass(frozen=True, slots=True)
class PortPair:
    """What a cable's two ends' port groups and device types decide: the same for every
    cable between the same two kinds of port (a hall's 176,000 cables join a handful), so
    worked out once per pair (analysis/links.py)."""

    speed: float | None  # bit/s: the slower end's
    roles: tuple[str, str]  # each end's role (PortGroup.effective_role on its device's kind)
    shape: tuple[str | None, str]  # (technology, form) as the media table reads them


@dataclass(slots=True, eq=False)
class LinkFacts:
    link: Link
    index: int
    a: End
    b: End
    speed: float | None = None  # bit/s: the slower end's
    compute: bool = False  # both ends are compute ports: part of a fabric
    geometry: SiteGeometry | None = None
    refs: LinkRefs | None = None  # shared by an analysis's links: their references
    # (v1.4) the layout's pathways, where it declares them: routes between racks follow them
    router: PathwayGraph | None = None
    # (v1.4) the channel a link with ``via`` runs as (analysis/channels.py)
    channel: ChannelRuns | None = None
    # what its two ends' port groups and device types decide, where both resolve
    pair: PortPair | None = None
    # The route is computed when first read: only the cabling rules need every one.
    _route: float | None = field(default=None, init=False, repr=False)
    _routed: bool = field(default=False, init=False, repr=False)
    _length: float | None = field(default=None, init=False, repr=False)
    _measured: bool = field(default=False, init=False, repr=False)

    @property
    def route(self) -> float | None:
        """The cable's run in metres without slack; None where it cannot be computed. Between
        racks it follows the layout's pathways where they join the two racks (v1.4), else
        the row-and-slot model (layout-format.md, Geometry)."""
        if not self._routed:
            self._routed = True
            da, db = self.a.device, self.b.device
            if (
                self.a.group is not None
                and self.b.group is not None
                and da is not None
                and db is not None
                and self.geometry is not None
            ):
                if self.channel is not None:
                    self._route = self.channel.route(da, db, self.geometry, self.router)
                else:
                    self._route = run_between(da, db, self.geometry, self.router)
        return self._route

    @property
    def length(self) -> float | None:
        """Metres: the declared length, else the route plus slack."""
        if self._measured:  # read several times per cable by the cabling rules
            return self._length
        self._measured = True
        if self.link.length is not None:
            self._length = float(self.link.length)
        elif self.channel is not None:
            da, db = self.a.device, self.b.device
            if self.resolved and da is not None and db is not None and self.geometry is not None:
                self._length = self.channel.length(da, db, self.geometry, self.router)
        else:
            route = self.route
            if route is not None and self.geometry is not None:
                self._length = route + self.geometry.slack
        return self._length

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


def run_between(
    a: DeviceFacts, b: DeviceFacts, geometry: SiteGeometry, router: PathwayGraph | None
) -> float | None:
    """A cable's run between two devices' ports, without slack (m): inside one rack the
    vertical distance; between racks along the pathways where a route joins the racks
    (v1.4), else up to the tray, along the rows and down (layout-format.md, Geometry).
    None where a port's height or a rack's place is unknown."""
    if a.port_height is None or b.port_height is None or a.place is None or b.place is None:
        return None
    if router is not None and a.rack is not b.rack:
        run = router.run(a.rack, a.place.top, a.port_height, b.rack, b.place.top, b.port_height)
        if run is not None:
            return run
    return route_length(a.place, a.port_height, b.place, b.port_height, a.rack is b.rack, geometry)


@dataclass(slots=True, eq=False)
class CduLoad:
    """A CDU group (the CDUs racks name together, v1.1) and the liquid heat of its racks."""

    cdus: list[DeviceFacts]
    racks: list[RackFacts] = field(default_factory=list)
    heat: float = 0.0  # W
    heat_unknown: bool = False  # some rack's load is a lower bound
    indexes: set[int] = field(default_factory=set)  # its racks' indexes
    # (what-if) The ids of its CDUs that have failed: they carry nothing.
    lost: frozenset[str] = frozenset()

    @property
    def cdu(self) -> DeviceFacts:
        """The group's first CDU, where findings about the group are reported."""
        return self.cdus[0]

    @property
    def capacities(self) -> list[float] | None:
        """Each CDU's capacity (0 for a failed one); None where one of them has none."""
        out = []
        for cdu in self.cdus:
            capacity = cdu.type.capacity if cdu.type is not None else None
            if capacity is None:
                return None
            out.append(0.0 if cdu.id in self.lost else float(capacity))
        return out

    @property
    def working(self) -> list[DeviceFacts]:
        """Its CDUs that have not failed."""
        return [cdu for cdu in self.cdus if cdu.id not in self.lost]

    @property
    def capacity(self) -> float | None:
        """All CDUs working."""
        capacities = self.capacities
        return None if capacities is None else sum(capacities)

    @property
    def n_plus_one(self) -> float | None:
        """With its largest CDU lost (a lone CDU keeps 0)."""
        capacities = self.capacities
        return None if capacities is None else sum(capacities) - max(capacities, default=0.0)

    @property
    def margin(self) -> float | None:
        """N+1 capacity less the heat: below 0 the group is not N+1 (COOL009)."""
        spare = self.n_plus_one
        return None if spare is None else spare - self.heat
