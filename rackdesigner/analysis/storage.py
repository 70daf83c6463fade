"""The storage tiers and the storage fabric, as the STO rules, the report and what-if read them.

Three tiers (docs/storage.md): each GPU node's local NVMe (``nvme``, ``nvme_read``,
``nvme_write`` of its type), the parallel file system and the object store (devices of kind
``storage`` whose type gives ``storage_tier``, with their per-appliance ``read_bandwidth``,
``write_bandwidth`` and ``usable_capacity``). A storage device whose type names no tier
serves the parallel file system: that is what a storage appliance in a GPU cluster is for.

The storage fabric is every cable whose two ends are storage ports (``role = "storage"``,
the default of a storage device's fast ports). A cluster that carries storage on its compute
fabric says so by giving its appliances' data ports ``role = "compute"`` and cabling them
into that fabric (converged): the compute fabric's cables then count too. A GPU node
reaches the parallel file system when a path of such cables through switches joins it to
a parallel-fs appliance; what the fabric carries between the appliances and the GPU nodes
is the maximum flow from the one to the other over the cables' rates (each direction alike:
the links are full duplex, so reads and writes see the same figure).

NVIDIA's guidance for the parallel file system's rates (:data:`LEVELS`) is the DGX SuperPOD
H100 reference architecture's Table 6, "Guidelines for storage performance" (RA-11333-001
V11, 2023-09-22, Storage Architecture): single-node and per-SU (32 DGX H100, 256 GPUs)
read and write at the levels good, better and best. Other cluster sizes scale by GPU, as
the table's own 4-SU column does (4 x the SU's): a GPU's share of a node's figure (1/8) and
of an SU's (1/256).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Protocol

from rackdesigner.analysis.facts import DeviceFacts, LinkFacts
from rackdesigner.model.layout import PortGroup, Workload


class Source(Protocol):
    """What the storage facts read of an analysis (:class:`rackdesigner.analysis.Analysis`,
    which this module may not import: it builds them)."""

    @property
    def devices(self) -> list[DeviceFacts]: ...

    @property
    def links(self) -> list[LinkFacts]: ...

    @property
    def compute_edges(self) -> dict[tuple[str, str], dict[str, Any]]: ...

    @property
    def device_by_id(self) -> dict[str, DeviceFacts]: ...

    @property
    def types_used(self) -> dict[str, list[DeviceFacts]]: ...


BYTE = 8.0  # bits: the RA and the vendors give bytes per second, the model holds bit/s
PARALLEL_FS = "parallel-fs"
OBJECT = "object"
SU_GPUS = 256  # the RA's SU: 32 DGX H100 of 8 GPUs
NODE_GPUS = 8  # the RA's node: one DGX H100


@dataclass(frozen=True, slots=True)
class Level:
    """One column of the RA's Table 6, in bit/s."""

    name: str
    node_read: float  # one 8-GPU node
    node_write: float
    su_read: float  # one SU of 256 GPUs, aggregate
    su_write: float

    def per_gpu(self) -> tuple[float, float, float, float]:
        """(node read, node write, aggregate read, aggregate write) per GPU."""
        return (
            self.node_read / NODE_GPUS,
            self.node_write / NODE_GPUS,
            self.su_read / SU_GPUS,
            self.su_write / SU_GPUS,
        )


def _gbps(value: float) -> float:
    return value * 1e9 * BYTE


# DGX SuperPOD H100 RA (RA-11333-001 V11), Table 6, GBps: single-node read / write, single
# SU aggregate read / write (its 4-SU column is four times the SU's, 62 x 4 = 248 ~ 250).
LEVELS: dict[str, Level] = {
    "good": Level("good", _gbps(4), _gbps(2), _gbps(15), _gbps(7)),
    "better": Level("better", _gbps(8), _gbps(4), _gbps(40), _gbps(20)),
    "best": Level("best", _gbps(40), _gbps(20), _gbps(125), _gbps(62)),
}
DEFAULT_LEVEL = "good"  # the RA's lowest guidance, where a layout declares none

# The guide: "checkpoint every 100 steps" (with the workload's steps_per_second).
DEFAULT_CHECKPOINT_STEPS = 100


def level_of(workload: Workload | None) -> tuple[Level, bool]:
    """The storage level the layout declares (``[workload] storage_level``), else the
    default; and whether it was declared."""
    name = workload.storage_level if workload is not None else None
    if name in LEVELS:
        return LEVELS[name], True
    return LEVELS[DEFAULT_LEVEL], False


@dataclass(frozen=True, slots=True)
class Requirement:
    """What a level asks of the parallel file system for ``gpus`` GPUs (bit/s)."""

    level: Level
    gpus: int
    read: float
    write: float

    def node(self, gpus: int) -> tuple[float, float]:
        """What one node of ``gpus`` GPUs should read and write at."""
        node_read, node_write, _, _ = self.level.per_gpu()
        return node_read * gpus, node_write * gpus


def requirement(level: Level, gpus: int) -> Requirement:
    _, _, read, write = level.per_gpu()
    return Requirement(level, gpus, read * gpus, write * gpus)


@dataclass(slots=True)
class Tier:
    """The appliances of one tier and what they add up to. A figure no appliance gives is
    left out of the sums; ``*_unknown`` count the appliances without it."""

    name: str
    devices: list[DeviceFacts] = field(default_factory=list)
    read: float = 0.0
    write: float = 0.0
    read_unknown: int = 0
    write_unknown: int = 0
    usable: float = 0.0
    usable_unknown: int = 0
    raw: float = 0.0

    def add(self, dev: DeviceFacts) -> None:
        dtype = dev.type
        assert dtype is not None
        self.devices.append(dev)
        if dtype.read_bandwidth is not None:
            self.read += float(dtype.read_bandwidth)
        else:
            self.read_unknown += 1
        if dtype.write_bandwidth is not None:
            self.write += float(dtype.write_bandwidth)
        else:
            self.write_unknown += 1
        if dtype.usable_capacity is not None:
            self.usable += float(dtype.usable_capacity)
        else:
            self.usable_unknown += 1
        if dtype.nvme is not None:
            self.raw += float(dtype.nvme)

    @property
    def read_known(self) -> bool:
        return bool(self.devices) and self.read_unknown < len(self.devices)

    @property
    def write_known(self) -> bool:
        return bool(self.devices) and self.write_unknown < len(self.devices)


def tier_of(dev: DeviceFacts) -> str | None:
    """The storage tier a device serves (a storage device without one: the parallel file
    system), None for any other device."""
    if dev.type is None or dev.type.kind != "storage":
        return None
    return dev.type.storage_tier or PARALLEL_FS


@dataclass(slots=True)
class Fabric:
    """The storage fabric: the devices its cables join, with each pair's rate (bit/s) and
    cable count."""

    edges: dict[str, dict[str, float]] = field(default_factory=dict)
    links: int = 0
    converged: bool = False
    _cables: dict[tuple[str, str], int] | None = field(default=None, repr=False)
    # The storage cables not yet counted into ``cables`` (counted when first read).
    _uncounted: list[LinkFacts] = field(default_factory=list, repr=False)

    @property
    def cables(self) -> dict[tuple[str, str], int]:
        """Each cabled device pair ``(a, b)``, ``a < b``, with its number of cables: counted
        when first read (what-if reads them; a check does not)."""
        if self._cables is None:
            cables: dict[tuple[str, str], int] = {}
            for lf in self._uncounted:
                assert lf.a.device is not None and lf.b.device is not None
                left, right = lf.a.device.id, lf.b.device.id
                pair = (left, right) if left < right else (right, left)
                cables[pair] = cables.get(pair, 0) + 1
            self._cables, self._uncounted = cables, []
        return self._cables

    def add(self, a: str, b: str, speed: float, count: int = 1) -> None:
        self.links += count
        pair = (a, b) if a < b else (b, a)
        cables = self.cables
        cables[pair] = cables.get(pair, 0) + count
        if a == b:
            return  # a device cabled to itself carries nothing anywhere
        self.edges.setdefault(a, {})
        self.edges.setdefault(b, {})
        self.edges[a][b] = self.edges[a].get(b, 0.0) + speed
        self.edges[b][a] = self.edges[b].get(a, 0.0) + speed

    def without(self, gone: frozenset[str], cut: Iterable[tuple[str, str, float]]) -> Fabric:
        """This fabric with the devices ``gone`` and the cables ``cut`` (their two ends and
        rate) taken out: what a failure leaves, derived without walking the layout's cables
        again (what-if runs it once per failure). Only the rows a failure changes are
        copied: a failure's cost is what it touches, not the fabric's size."""
        out = Fabric(dict(self.edges), self.links, self.converged, dict(self.cables))
        edges, cables = out.edges, out.cables
        rows: dict[str, dict[str, float]] = {}  # the rows copied so far

        def row(device: str) -> dict[str, float]:
            found = rows.get(device)
            if found is None:
                found = rows[device] = edges[device] = dict(edges[device])
            return found

        for device in gone:
            out.links -= cables.pop((device, device), 0)
            for other in self.edges.get(device, ()):
                pair = (device, other) if device < other else (other, device)
                out.links -= cables.pop(pair, 0)
                if other not in gone and other in edges:
                    del row(other)[device]
            edges.pop(device, None)
        for a, b, rate in cut:
            pair = (a, b) if a < b else (b, a)
            if cables.get(pair, 0) <= 0:
                continue  # gone with a device, or not a storage cable
            cables[pair] -= 1
            out.links -= 1
            if not cables[pair]:
                del cables[pair]
            if a == b:
                continue
            for x, y in ((a, b), (b, a)):
                left = row(x)[y] - rate
                if left > EPSILON and pair in cables:
                    row(x)[y] = left
                else:
                    del row(x)[y]
        for device, kept in rows.items():
            if not kept and device in edges:
                del edges[device]  # as if never cabled
        return out

    def touched_by(self, gone: frozenset[str], cut: Iterable[tuple[str, str, float]]) -> set[str]:
        """The devices whose cables ``gone`` and ``cut`` change: they and their neighbours."""
        out = set()
        for device in gone:
            if device in self.edges:
                out.add(device)
                out.update(self.edges[device])
        for a, b, _ in cut:
            out.update((a, b))
        return out


EPSILON = 1e-6  # bit/s: below this a rate left is rounding


@dataclass(slots=True)
class StorageFacts:
    pfs: Tier
    objects: Tier
    nodes: Sequence[DeviceFacts]  # the GPU nodes, in layout order
    fabric: Fabric
    node_bandwidth: dict[str, float]  # bit/s of each GPU node's storage cables
    reached: set[str]  # GPU nodes with a path to a parallel-fs appliance
    flow: float  # bit/s the fabric carries between the parallel-fs appliances and the nodes
    switches: list[str]  # the storage fabric's switches, in layout order
    leaves: list[str]  # of them, those a GPU node or an appliance is cabled to
    failed: frozenset[str] = frozenset()
    _pods: Pods | None = None
    # The layout's cables whose ends are neither both compute nor both storage ports, in
    # order: where a storage port may meet a compute one (STO009 reads them). Set where
    # these facts were built from the layout's cables, None where derived from facts
    # before (a failure's: its layout's cables are not these).
    mixed: list[LinkFacts] | None = field(default=None, init=False, repr=False)
    _links: object = field(default=None, init=False, repr=False)  # the cables ``mixed`` is of
    _node_ids: set[str] | None = field(default=None, init=False, repr=False)

    def mixed_among(self, links: object) -> list[LinkFacts] | None:
        """``mixed`` where these facts were built from ``links`` (the very list: a view of
        some of an analysis's cables is not), else None."""
        return self.mixed if self.mixed is not None and links is self._links else None

    def node_ids(self) -> set[str]:
        """The GPU nodes' ids (made once)."""
        if self._node_ids is None:
            self._node_ids = {dev.id for dev in self.nodes}
        return self._node_ids

    def pods(self) -> Pods:
        """The fabric's connected parts and what each carries (built once)."""
        if self._pods is None:
            self._pods = _pods_of(self)
        return self._pods

    @property
    def gpus(self) -> int:
        return sum(dev.gpus for dev in self.nodes)

    @property
    def cabled_nodes(self) -> int:
        return sum(1 for dev in self.nodes if self.node_bandwidth.get(dev.id, 0.0) > 0)

    def path_read(self) -> float | None:
        """The aggregate read the GPU nodes get from the parallel file system: the
        appliances' figure where they give one, capped by what the fabric carries."""
        if not self.pfs.devices:
            return None
        if not self.pfs.read_known:
            return self.flow
        return min(self.pfs.read, self.flow)

    def path_write(self) -> float | None:
        if not self.pfs.devices:
            return None
        if not self.pfs.write_known:
            return self.flow
        return min(self.pfs.write, self.flow)

    def oversubscription(self) -> float | None:
        """Down (GPU-node) over up bandwidth of the storage leaves the nodes are cabled to,
        over all of them together; None without uplinks (a one-switch fabric)."""
        down = up = 0.0
        node_ids = {dev.id for dev in self.nodes}
        switches = set(self.switches)
        edges = self.fabric.edges
        for leaf in self.leaves:
            if not any(other in node_ids for other in edges.get(leaf, {})):
                continue  # an appliances' leaf: its uplinks carry them, not the nodes
            for other, rate in edges.get(leaf, {}).items():
                if other in node_ids:
                    down += rate
                elif other in switches:
                    up += rate
        if down <= 0 or up <= 0:
            return None
        return down / up


def storage_facts(
    analysis: Source,
    failed: Iterable[str] = (),
    *,
    cut: Iterable[tuple[str, str, float]] = (),
    before: StorageFacts | None = None,
) -> StorageFacts:
    """The tiers and the storage fabric of ``analysis``'s layout; with ``failed`` (device
    ids: appliances, switches, nodes) and ``cut`` (cables, by their two devices and rate)
    as if those were gone: what is left of the storage with them failed (what-if).
    ``before``: the facts with nothing failed, to derive these from (cheaper than walking
    the layout's devices and cables again)."""
    gone = frozenset(failed)
    if before is not None:
        pfs, objects = _tier_left(before.pfs, gone), _tier_left(before.objects, gone)
        nodes = [dev for dev in before.nodes if dev.id not in gone]
        cuts = list(cut)
        fabric = before.fabric.without(gone, cuts)
        switches = [s for s in before.switches if s in fabric.edges]
        return _derived(before, _Left(pfs, objects, nodes, fabric, switches, gone), cuts)
    pfs, objects, nodes = _by_role(analysis, gone)
    mixed: list[LinkFacts] = []
    fabric = _fabric(analysis, gone, pfs.devices, mixed)
    cuts = list(cut)
    if cuts:
        fabric = fabric.without(frozenset(), cuts)
    get = analysis.device_by_id.get
    switches = [
        key
        for key in fabric.edges
        if (d := get(key)) is not None and (t := d.type) is not None and t.kind == "switch"
    ]
    facts = _facts(pfs, objects, nodes, fabric, switches, gone)
    facts.mixed, facts._links = mixed, analysis.links
    return facts


def _by_role(analysis: Source, gone: frozenset[str]) -> tuple[Tier, Tier, list[DeviceFacts]]:
    """The parallel file system's and the object store's appliances and the GPU nodes, in
    layout order, less those ``gone``: read off the types the layout uses (a device's tier
    and kind are its type's), not device by device (a hall's 37,000 devices are a dozen
    types)."""
    pfs, objects = Tier(PARALLEL_FS), Tier(OBJECT)
    node_lists: list[list[DeviceFacts]] = []
    tier_lists: dict[str, list[list[DeviceFacts]]] = {PARALLEL_FS: [], OBJECT: []}
    for devices in analysis.types_used.values():
        if not devices:
            continue
        dtype = devices[0].type
        if dtype is None:
            continue
        if dtype.kind == "gpu-node":
            node_lists.append(devices)
        elif dtype.kind == "storage":
            tier_lists.get(dtype.storage_tier or PARALLEL_FS, []).append(devices)
    nodes = _in_order(node_lists, gone)
    for tier in (pfs, objects):
        for dev in _in_order(tier_lists[tier.name], gone):
            tier.add(dev)
    return pfs, objects, nodes


def _in_order(lists: list[list[DeviceFacts]], gone: frozenset[str]) -> list[DeviceFacts]:
    """The devices of ``lists`` (each a type's, in layout order) in layout order, less
    those ``gone``."""
    if not lists:
        return []
    merged = lists[0] if len(lists) == 1 else sorted(chain(*lists), key=_order)
    if gone:
        return [dev for dev in merged if dev.id not in gone]
    return list(merged)


def _order(dev: DeviceFacts) -> int:
    return dev.order


def _tier_left(tier: Tier, gone: frozenset[str]) -> Tier:
    out = Tier(tier.name)
    for dev in tier.devices:
        if dev.id not in gone:
            out.add(dev)
    return out


def _facts(
    pfs: Tier,
    objects: Tier,
    nodes: list[DeviceFacts],
    fabric: Fabric,
    switches: list[str],
    gone: frozenset[str],
) -> StorageFacts:
    """The facts read off a storage fabric: each node's cables, the leaves, the nodes a
    path reaches and the maximum flow."""
    edges = fabric.edges
    if not edges:  # no storage cable: no node cabled or reached, nothing carried
        return StorageFacts(pfs, objects, nodes, fabric, {}, set(), 0.0, switches, [], gone)
    ids = [dev.id for dev in nodes]
    node_ids = set(ids)
    cabled = [i for i in ids if i in edges]
    rows = map(edges.__getitem__, cabled)
    node_bandwidth = dict(zip(cabled, map(sum, map(dict.values, rows)), strict=True))
    switch_set = set(switches)
    ends = node_ids | {dev.id for dev in pfs.devices} | {dev.id for dev in objects.devices}
    leaves = [s for s in switches if not ends.isdisjoint(edges[s])]
    sources = [dev.id for dev in pfs.devices if dev.id in edges]
    reached = _reached(fabric, sources, switch_set, node_ids)
    flow = _max_flow(fabric, sources, node_ids, switch_set)
    facts = StorageFacts(
        pfs, objects, nodes, fabric, node_bandwidth, reached, flow, switches, leaves, gone
    )
    facts._node_ids = node_ids
    return facts


@dataclass(slots=True)
class Pods:
    """The storage fabric's connected parts (each pod of a hall is a storage fabric of its
    own) and what each carries from its appliances to its nodes: a failure changes the
    parts it touches only, so what-if works out their flow alone."""

    of: dict[str, int]  # device -> its part
    devices: list[set[str]]
    flow: list[float]  # bit/s each part carries (the parts' flows add up to the fabric's)


def _pods_of(facts: StorageFacts) -> Pods:
    edges = facts.fabric.edges
    of: dict[str, int] = {}
    devices: list[set[str]] = []
    for start in edges:
        if start in of:
            continue
        part, queue = {start}, [start]
        of[start] = len(devices)
        while queue:
            for other in edges[queue.pop()]:
                if other not in of:
                    of[other] = len(devices)
                    part.add(other)
                    queue.append(other)
        devices.append(part)
    node_ids = {dev.id for dev in facts.nodes}
    switches = set(facts.switches)
    sources: list[list[str]] = [[] for _ in devices]
    for dev in facts.pfs.devices:
        if dev.id in of:
            sources[of[dev.id]].append(dev.id)
    flow = [
        _max_flow(facts.fabric, sources[i], node_ids, part & switches) if sources[i] else 0.0
        for i, part in enumerate(devices)
    ]
    return Pods(of, devices, flow)


@dataclass(frozen=True, slots=True)
class _Left:
    """What is left of the tiers and the fabric after a failure, before what follows."""

    pfs: Tier
    objects: Tier
    nodes: list[DeviceFacts]
    fabric: Fabric
    switches: list[str]
    gone: frozenset[str]


def _derived(before: StorageFacts, left: _Left, cut: list[tuple[str, str, float]]) -> StorageFacts:
    """The facts after a failure from the facts before: the nodes' cables, the leaves,
    the nodes reached and the flow worked out again in the parts of the fabric the failure
    touches only, the rest as before."""
    fabric, gone = left.fabric, left.gone
    edges = fabric.edges
    touched = before.fabric.touched_by(gone, cut)
    pods = before.pods()
    hit = {pods.of[d] for d in touched if d in pods.of}
    part: set[str] = set().union(*(pods.devices[i] for i in hit))
    node_ids = {dev.id for dev in left.nodes}
    node_bandwidth = dict(before.node_bandwidth)
    for device in touched | gone:
        if device in node_ids and device in edges:
            node_bandwidth[device] = sum(edges[device].values())
        else:
            node_bandwidth.pop(device, None)
    ends = node_ids | {d.id for d in left.pfs.devices} | {d.id for d in left.objects.devices}
    leaves = [
        s
        for s in before.leaves
        if s in edges and (s not in touched or any(o in ends for o in edges[s]))
    ]
    switch_set = set(left.switches)
    sources = [d.id for d in left.pfs.devices if d.id in edges and d.id in part]
    reached = (before.reached - part) | _reached(fabric, sources, switch_set, node_ids)
    flow = before.flow - sum(pods.flow[i] for i in hit)
    flow += _max_flow(fabric, sources, node_ids, switch_set & part)
    return StorageFacts(
        left.pfs,
        left.objects,
        left.nodes,
        fabric,
        node_bandwidth,
        reached & node_ids,
        max(flow, 0.0),
        left.switches,
        leaves,
        gone,
    )


@dataclass(frozen=True, slots=True)
class Left:
    """What is left of the storage bandwidth with some parts failed (bit/s; None where the
    appliances give no figure), and the GPU nodes still reaching the parallel file system."""

    read: float | None
    write: float | None
    fabric: float
    nodes_reached: int
    nodes: int


def bandwidth_left(analysis: Source, failed: Iterable[str]) -> Left:
    """The parallel file system's read and write as the GPU nodes get them (the appliances'
    rates capped by what the fabric carries), with the devices ``failed`` (appliances,
    storage switches) gone: for what-if."""
    facts = storage_facts(analysis, failed)
    return Left(
        facts.path_read(), facts.path_write(), facts.flow, len(facts.reached), len(facts.nodes)
    )


_STORAGE = ("storage", "storage")


def is_storage_link(lf: LinkFacts, roles: dict[tuple[int, str | None], str] | None = None) -> bool:
    """Both ends are storage ports (roles as the port groups and device kinds give them).
    ``roles`` caches a port group's role on a device kind: a hall's 300,000 cables share a
    few dozen."""
    a, b = lf.a, lf.b
    ga, gb, da, db = a.group, b.group, a.device, b.device
    if ga is None or gb is None or da is None or db is None or lf.compute:
        return False
    if a.problem is not None or b.problem is not None:
        return False
    return link_roles(lf, {} if roles is None else roles) == _STORAGE


def link_roles(lf: LinkFacts, roles: dict[tuple[int, str | None], str]) -> tuple[str, str] | None:
    """Each end's role: its ends' pair's (worked out when the links were resolved), else
    asked through the cache ``roles``; None where an end does not resolve."""
    if lf.pair is not None:
        return lf.pair.roles
    a, b = lf.a, lf.b
    if a.group is None or b.group is None or a.device is None or b.device is None:
        return None
    return role_of(a.group, a.device.kind, roles), role_of(b.group, b.device.kind, roles)


def role_of(group: PortGroup, kind: str | None, roles: dict[tuple[int, str | None], str]) -> str:
    """``group``'s role on a device of ``kind``, through the cache ``roles``."""
    key = (id(group), kind)
    role = roles.get(key)
    if role is None:
        role = roles[key] = group.effective_role(kind)
    return role


def _fabric(
    analysis: Source, gone: frozenset[str], pfs: list[DeviceFacts], mixed: list[LinkFacts]
) -> Fabric:
    """The storage cables' device graph; with the compute fabric's when an appliance of the
    parallel file system is cabled into it (converged). A cable's ends' roles are its port
    pair's (asked once per kind of pair when the links were resolved). The cables that are
    neither compute nor storage ones go to ``mixed``."""
    fabric = Fabric()
    roles: dict[tuple[int, str | None], str] = {}
    # Converged: an appliance cabled into the compute fabric (its edges name it); only an
    # appliance with compute ports can be, and only then are the edges looked through.
    data = {
        d.id for d in pfs if any(g.effective_role(d.kind) == "compute" for g in d.ports.values())
    }
    converged = bool(data) and not data.isdisjoint(chain.from_iterable(analysis.compute_edges))
    edges = fabric.edges
    get = edges.get
    storage = fabric._uncounted  # its cables, counted by device pair if what-if asks
    keep = storage.append
    for lf in analysis.links:
        if lf.compute:
            continue
        ports = lf.pair
        if (ports.roles if ports is not None else link_roles(lf, roles)) != _STORAGE:
            mixed.append(lf)
            continue
        a, b = lf.a, lf.b
        if a.problem is not None or b.problem is not None:
            continue
        da, db = a.device, b.device
        assert da is not None and db is not None
        left, right = da.id, db.id
        if gone and (left in gone or right in gone):
            continue
        keep(lf)
        if left == right:
            continue  # a device cabled to itself carries nothing anywhere
        rate = lf.speed or 0.0
        row = get(left)
        if row is None:
            row = edges[left] = {}
        row[right] = row.get(right, 0.0) + rate
        row = get(right)
        if row is None:
            row = edges[right] = {}
        row[left] = row.get(left, 0.0) + rate
    fabric.links = len(storage)
    if converged:
        fabric.converged = True
        for (left, right), edge in analysis.compute_edges.items():
            if left in gone or right in gone:
                continue
            fabric.add(left, right, edge["bandwidth"], edge["count"])
    return fabric


def _reached(fabric: Fabric, sources: list[str], switches: set[str], nodes: set[str]) -> set[str]:
    """The GPU nodes a path from a source reaches, through switches only (a switch's nodes
    and switches picked out of its row by set operations, not one by one)."""
    seen = set(sources)
    reached: set[str] = set()
    queue = deque(sources)
    edges = fabric.edges
    empty: dict[str, float] = {}
    while queue:
        row = edges.get(queue.popleft(), empty)
        reached |= nodes.intersection(row)
        fresh = switches.intersection(row)
        fresh -= seen
        fresh -= nodes  # an id both a node's and a switch's (PLC005) is a node here
        seen |= fresh
        queue.extend(fresh)
    return reached


def _max_flow(fabric: Fabric, sources: list[str], nodes: set[str], switches: set[str]) -> float:
    """The most the fabric carries from the appliances in ``sources`` to the GPU nodes: a
    maximum flow over the switches, the appliances and the nodes each gathered into one
    vertex (a cable's rate is its capacity each way). A fabric of a few switches per
    thousand nodes: cheap even at 100,000 GPUs."""
    if not sources or not nodes:
        return 0.0
    source_set = set(sources)
    src, snk = "\0source", "\0sink"
    capacity: dict[str, dict[str, float]] = {}
    into: dict[str, float] = {}  # the appliances' cables into each switch
    direct = 0.0
    edges = fabric.edges
    for a in source_set:
        for b, rate in edges.get(a, {}).items():
            if b in switches:
                into[b] = into.get(b, 0.0) + rate
            elif b in nodes:
                direct += rate
    if not into:
        return direct
    capacity[src] = into
    for s in switches:
        out: dict[str, float] = {}
        down = 0.0
        for b, rate in edges.get(s, {}).items():
            if b in switches:
                out[b] = rate
            elif b in nodes:
                down += rate
        if down:
            out[snk] = down
        if out:
            capacity[s] = out
    return direct + _flow_value(capacity, src, snk)


def _flow_value(capacity: dict[str, dict[str, float]], src: str, snk: str) -> float:
    """The maximum flow from ``src`` to ``snk`` over the arcs ``capacity`` (bit/s):
    networkx's preflow-push (about 35 ms on a 100,000-GPU hall's 7,900 arcs, most of it
    building the graph)."""
    import networkx as nx

    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_edges_from(
        (a, b, {"capacity": rate}) for a, row in capacity.items() for b, rate in row.items()
    )
    if src not in graph or snk not in graph:
        return 0.0
    value = nx.maximum_flow_value(graph, src, snk)
    return float(value) if math.isfinite(value) else 0.0


__all__ = [
    "DEFAULT_CHECKPOINT_STEPS",
    "DEFAULT_LEVEL",
    "LEVELS",
    "OBJECT",
    "PARALLEL_FS",
    "Fabric",
    "Left",
    "Level",
    "Requirement",
    "Source",
    "StorageFacts",
    "Tier",
    "bandwidth_left",
    "is_storage_link",
    "level_of",
    "requirement",
    "role_of",
    "storage_facts",
    "tier_of",
]
