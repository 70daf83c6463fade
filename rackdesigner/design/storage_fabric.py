"""A cluster's parallel file system and its storage fabric, the way NVIDIA's SuperPOD RAs build it.

The DGX SuperPOD H100 reference architecture (RA-11333-001 V11, Storage Fabric; docs/storage.md
cites it) gives the shape: a storage fabric "independent of the compute fabric", its leaves
taking the DGX nodes' two storage ports "slightly oversubscribed with a ratio near 4:3" and
the storage appliances "at a 1:1 port to uplink ratio", leaves up to spines. Here, per
scalable unit (SU) of ``su_nodes`` nodes: node leaves of 32 node ports and 24 uplinks (4:3;
port k of every node of the SU on leaf k, so a leaf's loss leaves each node its other port),
a storage leaf for the SU's share of the appliances with as much uplink as the appliances
have ports (1:1), and spines above the leaves of up to ``pod_sus`` SUs (a pod: the RA's
tested four). Each pod is a storage fabric of its own with its own appliances; no super-spine
joins the pods (the RAs give no counts for one). For the RA's 4-SU, 127-node SuperPOD with the
storage its cable table implies (48 storage cables of 2 x 200 Gb/s: twelve 8-port AI400X2)
this is its 16 storage-fabric QM9700 and 494 NDR cables (tests/design/test_storage_fabric.py).

The appliances are sized for the workload's storage level (the RA's Table 6, by GPU;
analysis/storage.py) from their vendors' read and write rates, and racked in storage racks at
the end of the pod's first row; the switches go where the compute generator's placement
puts them (generators/floor.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from rackdesigner.analysis.reach import SPLIT
from rackdesigner.analysis.storage import LEVELS, requirement
from rackdesigner.design.generators.base import (
    FabricRequest,
    GenerateError,
    NodePorts,
    SwitchModel,
    default_switch,
)
from rackdesigner.design.generators.build import Builder, Switch
from rackdesigner.layout_io.catalog import Catalog
from rackdesigner.layout_io.catalog import for_layout as catalog_for
from rackdesigner.model.layout import Device, DeviceType, Layout, PortGroup, Rack

DEFAULT_APPLIANCE = "ddn-ai400x2t"
NODE_DOWN = 32  # node ports a node leaf takes (the RA's SU: 32 DGX x 2 on 2 leaves)
UP_NUMERATOR, UP_DENOMINATOR = 3, 4  # the RA's "near 4:3": 3 up for every 4 down
POD_SUS = 4  # the RA's "fully tested system scales to four SUs"
AIR_MAX = 15e3  # W: rules v1.1 air_cooling_max (COOL001), a storage rack is air-cooled
RACK_SHARE = 0.8  # of it for the appliances; the rest for the storage leaves racked beside
STORAGE_RACK_U = 40  # units for appliances in a 42 U rack (the top two for a switch)


@dataclass(frozen=True, slots=True)
class StorageRequest:
    level: str = "good"
    appliance: str = DEFAULT_APPLIANCE
    appliances: int | None = None  # None: the fewest that meet the level
    su_nodes: int = 32
    pod_sus: int = POD_SUS
    switch: str | None = None  # None: the default switch of the nodes' storage ports
    # Gives the new storage racks their feeds and PDUs before the switches are placed, so
    # that a leaf goes where the rack's cooling still takes it with the PDUs' own draw.
    furnish: Callable[[list[Rack]], object] | None = None


@dataclass(slots=True)
class StorageCounts:
    nodes: int = 0
    pods: int = 0
    appliances: int = 0
    node_leaves: int = 0
    storage_leaves: int = 0
    spines: int = 0
    node_leaf_cables: int = 0
    leaf_spine_cables: int = 0
    appliance_cables: int = 0
    storage_racks: int = 0

    @property
    def switches(self) -> int:
        return self.node_leaves + self.storage_leaves + self.spines

    @property
    def cables(self) -> int:
        return self.node_leaf_cables + self.leaf_spine_cables + self.appliance_cables


@dataclass(slots=True)
class _Pod:
    nodes: list[int]  # node indexes
    appliances: list[str] = field(default_factory=list)  # appliance device ids


def storage_group(dtype: DeviceType) -> PortGroup | None:
    """A GPU node type's storage port group (its fastest, where it has several)."""
    best = None
    for group in dtype.ports or ():
        if group.effective_role(dtype.kind) != "storage":
            continue
        if best is None or (group.speed or 0.0) > (best.speed or 0.0):
            best = group
    return best


def pfs_appliance(catalog: Catalog, key: str) -> DeviceType:
    """The catalog's parallel file system appliance ``key``, or why it cannot be one."""
    appliance = catalog.devices.get(key)
    if appliance is None or appliance.kind != "storage":
        near = catalog.nearest(key)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise GenerateError(f"--storage-model {key}: no storage appliance of that key{hint}")
    if (appliance.storage_tier or "parallel-fs") != "parallel-fs":
        raise GenerateError(
            f"--storage-model {key} serves the {appliance.storage_tier} tier; the parallel file "
            "system needs a parallel-fs appliance (rackdesigner catalog lists them)"
        )
    return appliance


def appliance_count(catalog: Catalog, key: str, level: str, gpus: int, pods: int) -> int:
    """The fewest appliances of ``key`` whose read and write rates meet ``level`` for
    ``gpus`` GPUs (a figure the appliance does not give is not sized for), at least one a
    pod."""
    dtype = catalog.devices[key]
    need = requirement(LEVELS[level], gpus)
    count = pods
    if dtype.read_bandwidth:
        count = max(count, math.ceil(need.read / float(dtype.read_bandwidth) - 1e-9))
    if dtype.write_bandwidth:
        count = max(count, math.ceil(need.write / float(dtype.write_bandwidth) - 1e-9))
    return count


def _switch_entry(base: DeviceType, key: str, groups: list[PortGroup], what: str) -> DeviceType:
    """A layout entry for the built-in switch ``base`` with its ports at the rates and roles
    the storage fabric cables them."""
    mgmt = [g for g in base.ports or () if g.effective_role(base.kind) == "management"]
    shown = ", ".join(f"{g.count} x {float(g.speed or 0) / 1e9:g}G {g.name}" for g in groups)
    return replace(
        base,
        key=key,
        name=f"{base.name} ({what})",
        ports=[*groups, *mgmt],
        notes=f"{base.key} as a storage-fabric switch, its ports at the rates cabled "
        f"(storage role): {shown}. {base.notes or ''}".strip(),
    )


def _model(entry: DeviceType, group: str) -> SwitchModel:
    port = entry.port_group(group)
    assert port is not None
    return SwitchModel(
        entry.key,
        entry,
        group,
        sum(g.count for g in entry.ports or () if g.effective_role(entry.kind) == "storage"),
        float(port.speed or 0.0),
        port.tech,
        max(1, math.ceil(entry.height_u)),
        float(entry.power or 0.0),
        entry.full_depth,
    )


class _Builder(Builder):
    """The compute generator's builder, cabling the nodes' storage ports instead."""

    def __init__(self, layout: Layout, group: str, catalog: Catalog):
        self._group = group
        super().__init__(layout, FabricRequest(fabric="leaf-spine"), catalog=catalog)

    def _nodes(self) -> NodePorts:
        ids: list[str] = []
        racks: list[int] = []
        found: PortGroup | None = None
        for index, rack in enumerate(self.layout.racks):
            for dev in rack.devices:
                dtype = self.catalog.devices.get(dev.model)
                if dtype is None or dtype.kind != "gpu-node":
                    continue
                group = storage_group(dtype)
                if group is None or group.name != self._group:
                    continue
                found = found or group
                ids.append(dev.id)
                racks.append(index)
        if found is None:
            raise GenerateError("no GPU node has storage ports to cable")
        return NodePorts(
            tuple(ids), tuple(racks), found.name, found.count, float(found.speed or 0), found.tech
        )


def plan_storage(layout: Layout, request: StorageRequest) -> StorageCounts:
    """Add the parallel file system and its storage fabric to ``layout`` (in place), for
    every GPU node with storage ports; the counts (a :class:`GenerateError` says why not)."""
    if request.level not in LEVELS:
        raise GenerateError(f"storage level {request.level!r}: choose good, better or best")
    catalog = catalog_for(layout)
    appliance = pfs_appliance(catalog, request.appliance)
    nodes = _storage_nodes(layout, catalog)
    if not nodes:
        raise GenerateError("no GPU node has storage ports to cable")
    base_key, base, group, tech = _storage_switch(layout, catalog, nodes, request.switch)
    cages = sum(g.count for g in base.ports or () if g.effective_role(base.kind) != "management")
    speed = float(group.speed or 0.0)
    app_group = _appliance_group(layout, appliance, tech)
    app_speed = float(app_group.speed or speed)
    per_pod = request.su_nodes * request.pod_sus
    pods = [
        _Pod(list(range(i, min(len(nodes), i + per_pod)))) for i in range(0, len(nodes), per_pod)
    ]
    gpus = sum(int(catalog.devices[d.model].gpus or 0) for _, d in nodes)
    count = request.appliances or appliance_count(
        catalog, appliance.key, request.level, gpus, len(pods)
    )
    if count < len(pods):
        raise GenerateError(f"{count} appliances for {len(pods)} storage pods: one a pod at least")
    leaf_key, split_key = _leaf_entries(layout, base, base_key, cages, tech, speed, app_speed)
    counts = StorageCounts(nodes=len(nodes), pods=len(pods), appliances=count)
    before = len(layout.racks)
    _rack_appliances(layout, catalog, appliance, pods, nodes, count, counts)
    if request.furnish is not None:
        request.furnish(layout.racks[before:])
    b = _Builder(layout, group.name, catalog_for(layout))
    leaf = _model(layout.catalog[leaf_key], "p")
    app_leaf = _model(layout.catalog[split_key], "s" if split_key != leaf_key else "p")
    client = (app_group.name, app_group.count, app_speed)
    for number, pod in enumerate(pods):
        _build_pod(b, pod, number, request, leaf, app_leaf, client, counts)
    plan = b.finish({}, [])
    from rackdesigner.design.generators.apply import apply_plan

    apply_plan(layout, plan)
    return counts


def _storage_switch(
    layout: Layout, catalog: Catalog, nodes: list[tuple[Rack, Device]], key: str | None
) -> tuple[str, DeviceType, PortGroup, str]:
    """The storage switch (``key``, else the default for the nodes' storage ports), the
    nodes' storage port group and the fabric's technology: the switch's, the nodes' ports
    set to it where they run another (:func:`_nodes_on`)."""
    group = storage_group(catalog.devices[nodes[0][1].model])
    assert group is not None
    base_key = key or default_switch(group.tech, float(group.speed or 0.0))
    base = catalog.devices.get(base_key)
    if base is None or base.kind != "switch":
        raise GenerateError(f"storage switch {base_key}: no switch of that key")
    tech = next((g.tech for g in base.ports or () if g.tech and g.speed and g.speed > 1e9), None)
    tech = tech or group.tech or "infiniband"
    if (group.tech or "infiniband") != tech:
        group = _nodes_on(layout, catalog, nodes, group, tech)
    return base_key, base, group, tech


def _leaf_entries(
    layout: Layout,
    base: DeviceType,
    base_key: str,
    cages: int,
    tech: str,
    speed: float,
    app_speed: float,
) -> tuple[str, str]:
    """The storage leaves' catalog entries, made from the storage switch: the nodes' leaf,
    and where the appliances' ports are slower, theirs with split cages (the same key
    where they are not)."""
    leaf_key = f"{base_key}-storage-fabric"
    layout.catalog[leaf_key] = _switch_entry(
        base, leaf_key, [PortGroup("p", cages, speed, tech, "storage")], "storage fabric"
    )
    if app_speed >= speed:
        return leaf_key, leaf_key
    # The appliances' slower ports on split cages (2 x 200G on a 400G port, the RA's
    # "NDR cables, 2x 200 Gbps"): a storage leaf of its own.
    split = int(speed // app_speed)
    half = cages // 2
    split_key = f"{base_key}-storage-split"
    layout.catalog[split_key] = _switch_entry(
        base,
        split_key,
        [
            PortGroup("s", half * split, app_speed, tech, "storage"),
            PortGroup("p", cages - half, speed, tech, "storage"),
        ],
        "storage leaf for the appliances, split cages",
    )
    return leaf_key, split_key


def _storage_nodes(layout: Layout, catalog: Catalog) -> list[tuple[Rack, Device]]:
    """The GPU nodes with storage ports (of the first such node's group), in layout order."""
    found: list[tuple[Rack, Device]] = []
    name = None
    for rack, dev in layout.devices():
        dtype = catalog.devices.get(dev.model)
        if dtype is None or dtype.kind != "gpu-node":
            continue
        group = storage_group(dtype)
        if group is None or (name is not None and group.name != name):
            continue
        name = group.name
        found.append((rack, dev))
    return found


def _nodes_on(
    layout: Layout,
    catalog: Catalog,
    nodes: list[tuple[Rack, Device]],
    group: PortGroup,
    tech: str,
) -> PortGroup:
    """The nodes' storage ports run in the storage switch's technology (ConnectX-7 and
    BlueField-3 ports are VPI: InfiniBand or Ethernet; the DGX SuperPOD H100 RA's storage is
    "provided over InfiniBand"): the layout's own entry for each node model says so."""
    for key in sorted({dev.model for _, dev in nodes}):
        dtype = catalog.devices[key]
        own = layout.catalog.get(key)
        ports = [replace(g, tech=tech) if g.name == group.name else g for g in dtype.ports or ()]
        note = (
            f" Storage ports ({group.name}) run {tech}, the storage fabric's technology "
            "(VPI adapters; set by rackdesigner new)."
        )
        layout.catalog[key] = (
            replace(own, ports=ports)
            if own is not None
            else DeviceType(key, ports=ports, comment=note)
        )
    return replace(group, tech=tech)


def _appliance_group(layout: Layout, appliance: DeviceType, tech: str) -> PortGroup:
    """The appliance's client port group, ordered in the fabric's technology: where the
    catalog gives the other (the AI400X2 Turbo's ports are InfiniBand or Ethernet), the
    layout's own entry says so."""
    group = next(
        (g for g in appliance.ports or () if g.effective_role(appliance.kind) == "storage"), None
    )
    if group is None:
        raise GenerateError(f"{appliance.key} has no storage ports to cable (STO008)")
    if (group.tech or "infiniband") == tech:
        return group
    ports = [replace(g, tech=tech) if g is group else g for g in appliance.ports or ()]
    layout.catalog[appliance.key] = DeviceType(
        appliance.key,
        ports=ports,
        comment=f" Ordered with {tech} client ports, the storage fabric's technology (set by "
        "rackdesigner new).",
    )
    return replace(group, tech=tech)


def _rack_appliances(
    layout: Layout,
    catalog: Catalog,
    appliance: DeviceType,
    pods: list[_Pod],
    nodes: list[tuple[Rack, Device]],
    count: int,
    counts: StorageCounts,
) -> None:
    """The appliances spread over the pods, each pod's in storage racks after the last rack
    of the row of its first node (air-cooled, within the air limit with room for a switch)."""
    height = max(1, math.ceil(appliance.height_u))
    power = float(appliance.power or 0.0)
    # An appliance without a published draw (power 0) is racked by height alone.
    by_air = int(AIR_MAX * RACK_SHARE // power) if power > 0 else STORAGE_RACK_U
    per_rack = max(1, min(STORAGE_RACK_U // height, by_air))
    shares = [count // len(pods) + (1 if k < count % len(pods) else 0) for k in range(len(pods))]
    for pod, share in zip(pods, shares, strict=True):
        row = nodes[pod.nodes[0]][0].row
        for first in range(0, share, per_rack):
            slot = 1 + max((r.slot or 0 for r in layout.racks if r.row == row), default=0)
            rack_id = f"{(row or 's').lower()}{slot:02d}"
            taken = {r.id for r in layout.racks}
            while rack_id in taken:
                rack_id += "s"
            rack = Rack(rack_id, row=row, slot=slot, cooling="air", label="storage")
            for k in range(min(per_rack, share - first)):
                device_id = f"{rack_id}-pfs{k + 1}"
                rack.devices.append(Device(device_id, appliance.key, position=1 + k * height))
                pod.appliances.append(device_id)
            layout.racks.append(rack)
            counts.storage_racks += 1


def _build_pod(
    b: Builder,
    pod: _Pod,
    number: int,
    request: StorageRequest,
    leaf: SwitchModel,
    app_leaf: SwitchModel,
    client: tuple[str, int, float],
    counts: StorageCounts,
) -> None:
    """One pod: its SUs' node leaves, a storage leaf per SU with appliances, spines above.
    ``client``: the appliances' client port group, its port count and rate."""
    _, ports_each, app_speed = client
    nodes = b.nodes
    rails = nodes.rails
    sus = [pod.nodes[i : i + request.su_nodes] for i in range(0, len(pod.nodes), request.su_nodes)]
    shares = [
        len(pod.appliances) // len(sus) + (1 if k < len(pod.appliances) % len(sus) else 0)
        for k in range(len(sus))
    ]
    appliances = iter(pod.appliances)
    leaves: list[Switch] = []
    homes: set[str] = set()  # the appliances' leaves
    full_down = min(NODE_DOWN, request.su_nodes * rails)
    up = math.ceil(full_down * UP_NUMERATOR / UP_DENOMINATOR - 1e-9)
    for s, members in enumerate(sus):
        spots = [b.node_spot(i) for i in members]
        target = b.centre(spots)
        near = b.floor.rows_of(spots)
        # Port k of every node on leaf k: two leaves at least where the nodes have two
        # ports, so no one leaf's loss cuts a node off (the RA's two leaves an SU).
        count = max(1, math.ceil(len(members) * rails / NODE_DOWN), min(rails, 2))
        label = f"storage pod {number + 1} SU {s + 1}"
        su_leaves = [
            b.switch(leaf, "sleaf", target, near, f"{label} leaf {k + 1}") for k in range(count)
        ]
        for r in range(rails):
            b.attach(members, r, su_leaves[r % count])
            counts.node_leaf_cables += len(members)
        for switch in su_leaves:
            switch.want_up = up
        leaves += su_leaves
        counts.node_leaves += count
        mine = [next(appliances) for _ in range(shares[s])]
        if not mine:
            continue
        if _collapsed(sus, su_leaves, rails, mine, ports_each, app_leaf.key == leaf.key):
            # Every node on every leaf, and room for the appliances' ports spread over the
            # leaves: each node reaches every appliance through any leaf, no spine needed.
            for k, device in enumerate(mine):
                _cable_spread(b, device, client, su_leaves, k, counts)
            for switch in su_leaves:
                switch.want_up = 0
            continue
        where = b.floor.where[mine[0]][0]
        home = b.switch(
            app_leaf,
            "sleaf",
            b.centre([where]),
            frozenset({where.row}),
            f"storage pod {number + 1} SU {s + 1} appliances",
        )
        for device in mine:
            _cable_appliance(b, device, client, home, counts)
        home.want_up = math.ceil(home.down * app_speed / leaf.speed - 1e-9)
        if app_leaf.key != leaf.key:
            home.model = replace(app_leaf, group="p", speed=leaf.speed, ports=app_leaf.ports)
            home.next_port = 1
        leaves.append(home)
        homes.add(home.id)
        counts.storage_leaves += 1
    _spines(b, leaves, leaf, number, counts, homes, request.pod_sus)


def _collapsed(
    sus: list[list[int]],
    leaves: list[Switch],
    rails: int,
    appliances: list[str],
    ports_each: int,
    same_model: bool,
) -> bool:
    """Whether a one-SU pod's leaves take its appliances too: every node has a port on every
    leaf and each leaf has room for its share of the appliances' ports."""
    if len(sus) != 1 or len(leaves) > rails or not same_model:
        return False
    share = math.ceil(len(appliances) * ports_each / len(leaves))
    return all(leaf.next_port - 1 + share <= leaf.model.ports for leaf in leaves)


def _cable_spread(
    b: Builder,
    device: str,
    client: tuple[str, int, float],
    leaves: list[Switch],
    offset: int,
    counts: StorageCounts,
) -> None:
    """The appliance's client ports round the leaves (port k on leaf k + offset)."""
    name, ports, speed = client
    for k in range(ports):
        switch = leaves[(k + offset) % len(leaves)]
        chooser = b.chooser(min(speed, switch.model.speed), SPLIT, switch.model.tech)
        b.cable_ends(device, f"{device}:{name}{k + 1}", switch.id, switch.end(), chooser)
        switch.down += 1
        counts.appliance_cables += 1


def _cable_appliance(
    b: Builder, device: str, client: tuple[str, int, float], switch: Switch, counts: StorageCounts
) -> None:
    """Every client port of the appliance ``device`` to the next ports of ``switch``."""
    name, ports, speed = client
    chooser = b.chooser(min(speed, switch.model.speed), SPLIT, switch.model.tech)
    for k in range(ports):
        end = switch.end()
        b.cable_ends(device, f"{device}:{name}{k + 1}", switch.id, end, chooser)
        switch.down += 1
        counts.appliance_cables += 1


def _spines(
    b: Builder,
    leaves: list[Switch],
    model: SwitchModel,
    pod: int,
    counts: StorageCounts,
    homes: frozenset[str] | set[str] = frozenset(),
    pod_sus: int = POD_SUS,
) -> None:
    """The pod's spines: the fewest (two at least) over which every leaf's uplinks spread
    round-robin within the spines' ports; none where one leaf is the whole pod. Every node
    leaf reaches every spine; an appliances' leaf (``homes``) with fewer uplinks than
    spines takes as many spines as it has uplinks: each node leaf still reaches it."""
    wanting = [leaf for leaf in leaves if leaf.want_up > 0]
    if len(leaves) <= 1 or not wanting:
        return
    total = sum(leaf.want_up for leaf in wanting)
    fewest = min(
        (leaf.want_up for leaf in wanting if leaf.id not in homes),
        default=max(leaf.want_up for leaf in wanting),
    )
    count = max(2, math.ceil(total / model.ports))
    while count <= fewest:
        loads = [0] * count
        for index, leaf in enumerate(wanting):
            base, extra = divmod(leaf.want_up, count)
            for t in range(count):
                loads[(t + index) % count] += base + (1 if t < extra else 0)
        if max(loads) <= model.ports:
            break
        count += 1
    else:
        smaller = (
            f"use smaller pods (--storage-pod-sus, now {pod_sus} SUs a pod)"
            if pod_sus > 1
            else "a pod of one SU is the smallest: give the nodes fewer storage ports"
        )
        raise GenerateError(
            f"storage pod {pod + 1}: {len(wanting)} leaves of {total} uplinks need more than one "
            f"spine tier of {model.ports}-port {model.key}; {smaller}"
        )
    spots = [leaf.spot for leaf in leaves]
    spines = [
        b.switch(
            model,
            "sspine",
            b.centre(spots),
            b.floor.rows_of(spots),
            f"storage pod {pod + 1} spine {j + 1}",
        )
        for j in range(count)
    ]
    for index, leaf in enumerate(wanting):
        b.round_robin(leaf, spines, leaf.want_up, index)
        counts.leaf_spine_cables += leaf.want_up
    counts.spines += count


__all__ = [
    "DEFAULT_APPLIANCE",
    "StorageCounts",
    "StorageRequest",
    "appliance_count",
    "pfs_appliance",
    "plan_storage",
    "storage_group",
]
