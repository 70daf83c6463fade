"""The shape of the compute fabrics (parts, tiers, each node's first leaf) without the rest.

``export --slurm-topology`` and ``--graph`` need which devices form each fabric, the
switches' tiers and, for Slurm, the leaf of each GPU node's lowest-numbered compute
port. The full fabric analysis (:mod:`.graph`) also finds single points of failure
and builds a networkx graph, and resolving every link builds an object per end:
on 150,000 cables that alone is more than the half second the Slurm export may take.
So this module reads the same facts more directly:

- where the analysis has already resolved the links (or built the fabrics), it reads
  those, and the result is the same by construction;
- otherwise it resolves the common ``device:group7`` ends itself, with the same rules
  (a compute port on both ends; a port cabled twice keeps its first cable; a cable
  from a device to itself is no fabric edge), and hands anything unusual back to the
  full resolver, so an odd layout is never read differently.

Fabrics come out in the order and with the names ``analysis.fabrics`` gives them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rackdesigner.analysis.facts import run_between
from rackdesigner.analysis.tiers import switch_tiers

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis, DeviceFacts
    from rackdesigner.model.layout import Link, PortGroup


@dataclass(slots=True)
class Sketch:
    """One fabric's devices (in line order), GPU nodes and switch tiers."""

    index: int
    name: str
    devices: list[DeviceFacts]
    nodes: list[DeviceFacts]
    tiers: dict[str, int | None] = field(default_factory=dict)  # switch id -> tier
    max_tier: int = 0
    leaf_of: dict[str, str] = field(default_factory=dict)  # GPU node -> first port's leaf


@dataclass(slots=True)
class Cabling:
    """Compute-fabric adjacency, and each GPU node's lowest-numbered compute port that is
    cabled to a switch (a switch next to a GPU node is a leaf, tier 1, by definition)."""

    adjacency: dict[str, dict[str, float]]
    node_ports: dict[str, tuple[int, int, str]]  # node -> lowest (rank, index, leaf)


def already(analysis: Analysis, name: str) -> bool:
    """Whether the analysis has computed ``links`` or ``fabrics`` already (a cached
    property in its ``__dict__``, or a ``_links`` / ``_fabrics`` slot that is filled)."""
    state = vars(analysis)
    return name in state or state.get(f"_{name}") is not None


def _rank(dev: DeviceFacts, group: PortGroup, ranks: dict[int, dict[str, int]]) -> int:
    table = ranks.get(id(dev.type))
    if table is None:
        assert dev.type is not None
        table = ranks[id(dev.type)] = {g.name: i for i, g in enumerate(dev.type.ports or ())}
    return table.get(group.name, len(table))


def _from_links(analysis: Analysis, leaves: bool = True) -> Cabling:
    links = analysis.links  # resolving them fills compute_edges
    adj: dict[str, dict[str, float]] = {}
    for (a, b), data in analysis.compute_edges.items():
        adj.setdefault(a, {})[b] = data["bandwidth"]
        adj.setdefault(b, {})[a] = data["bandwidth"]
    best: dict[str, tuple[int, int, str]] = {}
    if not leaves:
        return Cabling(adj, best)
    ranks: dict[int, dict[str, int]] = {}
    for link in links:
        if not link.compute or link.a.device is link.b.device:
            continue
        for end, other in ((link.a, link.b), (link.b, link.a)):
            dev = end.device
            if dev is None or not dev.is_gpu_node or end.group is None or other.device is None:
                continue
            if other.device.kind != "switch":
                continue  # a switch cabled to a GPU node is a leaf (tier 1) by definition
            key = (_rank(dev, end.group, ranks), end.index, other.device.id)
            known = best.get(dev.id)
            if known is None or key < known:
                best[dev.id] = key
    return Cabling(adj, best)


# One cable resolved the quick way: (link, a device, b device, a port, b port, a info,
# b info), a port's info being (compute?, speed, group rank, index).
PortInfo = tuple[bool, "float | None", int, int]
Wire = tuple["Link", "DeviceFacts", "DeviceFacts", str, str, PortInfo, PortInfo]


def quick_links(analysis: Analysis) -> list[Wire] | None:
    """Every link's two devices and ports without building the analysis's link objects;
    None where any link is unusual (an unknown device or port, a port cabled twice,
    duplicate device ids), and then the caller reads ``analysis.links``, which says what
    is wrong. Same rules as the full resolver for the rest."""
    by_id = analysis.device_by_id
    if len(by_id) != len(analysis.devices):
        return None  # duplicate ids: the analysis says which one a link means
    ports: dict[tuple[str, str], PortInfo | None] = {}
    groups: dict[str, dict[str, tuple[PortGroup, bool, int]]] = {}

    def port_info(dev: DeviceFacts, port: str) -> PortInfo | None:
        model = dev.device.model
        table = groups.get(model)
        if table is None:
            table = groups[model] = {}
            kind = dev.kind
            for rank, group in enumerate(dev.type.ports or () if dev.type else ()):
                table[group.name] = (group, group.effective_role(kind) == "compute", rank)
        name = port.rstrip("0123456789")
        digits = port[len(name) :]
        found = table.get(name) if name and digits and digits[0] != "0" else None
        if found is None or ":" in port or int(digits) > found[0].count:
            info = None
        else:
            info = (found[1], found[0].speed, found[2], int(digits))
        ports[model, port] = info
        return info

    missing = object()
    used: set[str] = set()
    wires: list[Wire] = []
    append = wires.append
    for link in analysis.layout.links:
        ka, kb = link.a, link.b
        da_id, _, pa = ka.partition(":")
        db_id, _, pb = kb.partition(":")
        da, db = by_id.get(da_id), by_id.get(db_id)
        if da is None or db is None:
            return None
        ia = ports.get((da.device.model, pa), missing)
        if ia is missing:
            ia = port_info(da, pa)
        ib = ports.get((db.device.model, pb), missing)
        if ib is missing:
            ib = port_info(db, pb)
        if ia is None or ib is None:
            return None
        size = len(used)
        used.add(ka)
        used.add(kb)
        if len(used) != size + 2:
            return None  # a port cabled twice: CAB005 decides which cable counts
        append((link, da, db, pa, pb, ia, ib))  # type: ignore[arg-type]
    return wires


def wire_length(analysis: Analysis, wire: Wire) -> float | None:
    """Metres: the declared length, else the route plus slack (as ``LinkFacts.length``)."""
    link, da, db = wire[0], wire[1], wire[2]
    if link.length is not None:
        return float(link.length)
    route = run_between(da, db, analysis.geometry, analysis.pathway_graph)
    return None if route is None else route + analysis.geometry.slack


def cabling(analysis: Analysis, leaves: bool = True, wires: list[Wire] | None = None) -> Cabling:
    """The compute fabric's cabled pairs, read the quick way where that is the same; with
    ``leaves``, each GPU node's first port's leaf too. ``wires``: quick_links' result,
    where the caller has it already."""
    if already(analysis, "links"):  # resolved already: read the facts
        return _from_links(analysis, leaves)
    if wires is None:
        wires = quick_links(analysis)
    if wires is None:
        return _from_links(analysis, leaves)
    adj: dict[str, dict[str, float]] = {}
    best: dict[str, tuple[int, int, str]] = {}
    for _, da, db, _, _, ia, ib in wires:
        if da is db or not (ia[0] and ib[0]):
            continue
        da_id, db_id = da.id, db.id
        sa, sb = ia[1], ib[1]
        speed = (sb if sa is None else (sa if sb is None or sa <= sb else sb)) or 0.0
        row = adj.get(da_id)
        if row is None:
            row = adj[da_id] = {}
        total = row[db_id] = row.get(db_id, 0.0) + speed
        other = adj.get(db_id)
        if other is None:
            other = adj[db_id] = {}
        other[da_id] = total
        if not leaves:
            continue
        if da.is_gpu_node:
            if db.kind == "switch":
                key = (ia[2], ia[3], db_id)
                known = best.get(da_id)
                if known is None or key < known:
                    best[da_id] = key
        elif db.is_gpu_node and da.kind == "switch":
            key = (ib[2], ib[3], da_id)
            known = best.get(db_id)
            if known is None or key < known:
                best[db_id] = key
    return Cabling(adj, best)


def _anchor(
    devices: list[DeviceFacts], nodes: list[DeviceFacts], tiers: dict[str, int | None]
) -> DeviceFacts:
    """The device a fabric is named after, by the rule of ``Fabric.anchor``: its first leaf
    (tier 1) in file order, else its first switch, else its first GPU node, else its first
    device. So the name is the same whether or not the full analysis ran first."""
    first_switch = None
    for dev in devices:
        if dev.kind == "switch":
            if tiers.get(dev.id) == 1:
                return dev
            if first_switch is None:
                first_switch = dev
    if first_switch is not None:
        return first_switch
    return nodes[0] if nodes else devices[0]


def sketches(analysis: Analysis, wiring: Cabling | None = None) -> list[Sketch]:
    """Every fabric's parts and tiers, in ``analysis.fabrics`` order and naming."""
    wiring = wiring or cabling(analysis)
    if already(analysis, "fabrics"):
        found = [
            Sketch(
                f.index,
                f.name,
                f.devices,
                f.nodes,
                {sid: s.tier for sid, s in f.switches.items()},
                f.max_tier,
            )
            for f in analysis.fabrics
        ]
    else:
        found = _sketched(analysis, wiring.adjacency)
    for sketch in found:
        for node in sketch.nodes:
            port = wiring.node_ports.get(node.id)
            if port is not None:
                sketch.leaf_of[node.id] = port[2]
    return found


def _sketched(analysis: Analysis, adj: dict[str, dict[str, float]]) -> list[Sketch]:
    """The fabrics as the analysis would find them, from the cabling alone: its connected
    parts in the order of their first device, each named after its anchor."""
    by_id = analysis.device_by_id
    found = []
    for number, part in enumerate(_connected_parts(adj, by_id), start=1):
        devices = sorted((by_id[n] for n in part), key=lambda d: d.order)
        nodes = [d for d in devices if d.is_gpu_node]
        switches = {d.id for d in devices if d.kind == "switch"}
        tier = switch_tiers([n.id for n in nodes], adj, switches)
        tiers = {sid: tier.get(sid) for sid in (d.id for d in devices) if sid in switches}
        anchor = _anchor(devices, nodes, tiers)
        top = max((t for t in tiers.values() if t is not None), default=0)
        found.append(Sketch(number, anchor.id, devices, nodes, tiers, top))
    return found


def _connected_parts(
    adj: dict[str, dict[str, float]], by_id: Mapping[str, DeviceFacts]
) -> list[list[str]]:
    """The cabling's connected parts (breadth first), ordered by their first device."""
    seen: set[str] = set()
    parts: list[list[str]] = []
    for start in adj:
        if start in seen:
            continue
        seen.add(start)
        part = [start]
        queue = deque([start])
        while queue:
            for neighbour in adj[queue.popleft()]:
                if neighbour not in seen:
                    seen.add(neighbour)
                    part.append(neighbour)
                    queue.append(neighbour)
        parts.append(part)
    parts.sort(key=lambda part: min(by_id[n].order for n in part))
    return parts
