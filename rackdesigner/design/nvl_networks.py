"""The NVL72 hall's Ethernet networks: storage and in-band, and out-of-band management.

The DGX SuperPOD GB200 RA (Network Fabrics) carries its five networks on four physical
fabrics: the NVLink domain, the compute InfiniBand fabric, a "Storage and In-band Ethernet
Fabric" and the out-of-band network. The compute fabric is the rail generator's; this module
adds the other two, as docs/rack-scale.md describes and cites:

- **Out-of-band**: the two management ToR switches of every DGX GB200 rack ("2x TOR Switches
  for management", DGX GB200 user guide; SN2201, the North-South deployment guide), near the
  top of the rack, carrying every management port of the rack between them on copper: the
  18 compute trays' BMCs, the 9 switch trays' BMC and COMe ports, the 8 power shelves'
  controllers (44 ports, 22 a ToR); each ToR has an uplink to each storage / in-band leaf
  of its rack's pair. Network racks side by side share an SN2201 for the management ports
  of the switches they hold (compute leaves, spines and cores, storage leaves and spines),
  with two uplinks to two storage spines of its row (or, past the spines' ports, to two
  SN2201s already placed: a tree).
- **Storage and in-band**: SN5600 leaves in pairs (the deployment guide's EVPN multihoming
  pair), a pair for every two NVL72 racks; each tray's two BlueField-3 ports go one to
  each leaf of its pair ("each pair of in-band management and storage ports provide
  parallel pathways", the RA), so losing a leaf leaves every tray on the other. The leaves
  stand in the network rack beside their two racks and go up 1:1 (36 x 400GbE down,
  18 x 800GbE up) to the row's storage spines, SN5600s in the network racks that hold no
  leaf pair; each spine keeps cages free for the storage arrays (a connection point:
  the appliances are vendor-certified and not in the catalog).

The storage arrays (``place_arrays``, v1.4): the row's parallel file system appliances in a
storage rack after its last rack, their client ports on the spines' array cages, spread over
the spines (docs/storage.md). What is not built: a super-spine tier joining the rows' storage
spines (the North-South guide has an ASN range for super-spines; its counts were not found),
so each SU's storage fabric and its appliances close on its own spines.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from rackdesigner.analysis.geometry import SiteGeometry, port_height, rack_places, route_length
from rackdesigner.analysis.reach import MediaChooser, form_of
from rackdesigner.design.generators import GenerateError
from rackdesigner.layout_io.catalog import Catalog
from rackdesigner.model.layout import Device, DeviceType, Layout, Link, PortGroup, Rack

MGMT_SWITCH = "sn2201"
# The NVL72 rack's ToRs take DC from its busbar: it has no PDU, its feeds are the power
# shelves' whips (NVL72 AI Factory RA: the GB300 rack's SN2201s on the DC busbar; DGX GB200
# user guide: "Power shelves for supplying power to all trays and switches").
TOR_SWITCH = "sn2201-dc"
MGMT_POSITIONS = (41, 42)  # U: the top of the 42 U rack, above the upper compute trays
MGMT_PORTS = 48  # the SN2201's 1 GbE RJ45 ports (catalog)
MGMT_UPLINKS = 4  # its 100 GbE QSFP28 ports
STORAGE_BASE = "sn5600"
STORAGE_LEAF = "sn5600-storage"  # the layout's own entries (storage_leaf_type, ...)
STORAGE_SPINE = "sn5600-storage-spine"
RACKS_PER_STORAGE_PAIR = 2
# U of the two leaves of a pair in their network rack, and of the storage spines in the
# network racks without a pair: the middle, where the rack's air switches go (PLC rules
# keep switches mid-rack).
STORAGE_POSITIONS = (20, 22, 24, 18)
STORAGE_SPEED = 400e9  # b/s: the BlueField-3 ports (catalog: 2 x 400 Gbps a tray)
SPINE_SPEED = 800e9  # b/s: the SN5600's OSFP cages at their full rate, leaf to spine
UPLINK_SPEED = 100e9  # b/s: the SN2201's QSFP28 uplinks
CAGES = 64  # the SN5600's OSFP cages (catalog)
TRAY_PORTS = 36  # a leaf's tray ports: one of each of its pair's 2 x 18 trays
# 1:1: as much up as down, 36 x 400GbE = 18 x 800GbE (the DGX SuperPOD RAs' compute
# fabrics are 1:1; no storage-fabric ratio was found, so the leaf is not oversubscribed).
LEAF_UPLINKS = int(TRAY_PORTS * STORAGE_SPEED // SPINE_SPEED)
OOB_PORTS = 4  # a leaf's SN2201 uplinks: one from each of its two racks' 2 ToRs
SPINE_OOB_PORTS = 8  # a spine's 100GbE ports for the network racks' SN2201 uplinks
NET_MGMT_UPLINKS = 2  # a network rack's SN2201 to two storage spines of its row
NET_MGMT_SPAN = 3  # network racks side by side that share one SN2201 (copper, a few metres)


@dataclass(slots=True)
class Row:
    """One row's Ethernet switches, as :func:`place_switches` placed them."""

    nvl: list[Rack]
    homes: list[Rack]  # each leaf pair's network rack, in the order of the pairs
    spines: list[str]  # the storage spines' ids
    network: list[Rack] = field(default_factory=list)  # network racks with an SN2201
    served: dict[str, list[Rack]] = field(default_factory=dict)  # its racks, by SN2201 rack
    # (v1.4) the row's parallel file system appliances, on the spines' array ports, and the
    # storage racks they stand in
    arrays: list[str] = field(default_factory=list)
    storage: list[Rack] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Counts:
    """What the networks add (tests and the file's header)."""

    mgmt_switches: int  # SN2201s, in the NVL72 racks and the network racks
    storage_leaves: int
    storage_spines: int
    bmc_cables: int  # management ports of the NVL72 racks' trays and shelves
    switch_mgmt_cables: int  # management ports of the network racks' switches
    storage_cables: int  # tray to storage leaf
    spine_cables: int  # storage leaf to storage spine
    uplink_cables: int  # SN2201 uplinks (to storage leaves and spines)
    free_array_ports: int  # spine cages left for the storage arrays
    over: int  # runs longer than the layout's cable_max (CAB001)
    array_cables: int = 0  # storage appliances to the storage spines' array cages

    @property
    def arrays_cabled(self) -> bool:
        return self.array_cables > 0

    @property
    def total_cables(self) -> int:
        """Every cable the storage, in-band and out-of-band networks add."""
        return (
            self.storage_cables
            + self.spine_cables
            + self.bmc_cables
            + self.switch_mgmt_cables
            + self.uplink_cables
            + self.array_cables
        )


def spines_per_row(leaves: int) -> int:
    """The fewest storage spines that take every leaf's uplinks, each leaf the same number
    to every spine, with the spines' SN2201 ports and a cage or more left for storage."""
    for spines in range(1, LEAF_UPLINKS + 1):
        if LEAF_UPLINKS % spines == 0 and leaves * LEAF_UPLINKS // spines < (
            CAGES - SPINE_OOB_PORTS
        ):
            return spines
    raise GenerateError(f"{leaves} storage leaves: more than one spine tier takes")


def _sn5600(
    catalog: Catalog, key: str, what: str, ports: list[PortGroup], notes: str
) -> DeviceType:
    base = catalog.devices[STORAGE_BASE]
    return replace(
        base,
        key=key,
        name=f"{base.name} ({what})",
        ports=[*ports, PortGroup("mgmt", 1, 1e9, "ethernet", "management")],
        notes=f"{STORAGE_BASE} with its cages at the rates cabled: {notes}. "
        f"{base.notes or ''}".strip(),
    )


def storage_leaf_type(catalog: Catalog) -> DeviceType:
    """The layout's storage leaf: the built-in SN5600 whose 64 OSFP cages (10-800 GbE) run
    at the rate of what is cabled to them, 400GbE for the trays' BlueField-3 ports, 800GbE
    up to the storage spines and 100GbE for the SN2201 uplinks, on storage and management
    ports (not the compute fabric's). Its own key, so an SN5600 elsewhere in the layout
    (``--leaf sn5600``) keeps the built-in ports."""
    free = CAGES - TRAY_PORTS - LEAF_UPLINKS - OOB_PORTS
    return _sn5600(
        catalog,
        STORAGE_LEAF,
        "storage and in-band leaf",
        [
            PortGroup("p", TRAY_PORTS, STORAGE_SPEED, "ethernet", "storage"),
            PortGroup("spine", LEAF_UPLINKS, SPINE_SPEED, "ethernet", "storage"),
            PortGroup("oob", OOB_PORTS, UPLINK_SPEED, "ethernet", "management"),
        ],
        f"{TRAY_PORTS} x 400GbE (trays' BlueField-3), {LEAF_UPLINKS} x 800GbE up (1:1), "
        f"{OOB_PORTS} x 100GbE (SN2201 uplinks), {free} cages free",
    )


def storage_spine_type(
    catalog: Catalog, leaves: int, array_speed: float = SPINE_SPEED
) -> DeviceType:
    """The layout's storage spine for a row of ``leaves`` storage leaves: the built-in
    SN5600 with a cage for each leaf uplink, 100GbE ports for the network racks' SN2201
    uplinks, and the rest (``array``) for the storage arrays, at ``array_speed`` (the
    appliances' client ports, where ``new`` cables them: a cage runs 10-800 GbE)."""
    down = leaves * LEAF_UPLINKS // spines_per_row(leaves)
    free = CAGES - down - SPINE_OOB_PORTS
    return _sn5600(
        catalog,
        STORAGE_SPINE,
        "storage and in-band spine",
        [
            PortGroup("leaf", down, SPINE_SPEED, "ethernet", "storage"),
            PortGroup("oob", SPINE_OOB_PORTS, UPLINK_SPEED, "ethernet", "management"),
            PortGroup("array", free, array_speed, "ethernet", "storage"),
        ],
        f"{down} x 800GbE (storage leaves), {SPINE_OOB_PORTS} x 100GbE (network racks' "
        f"SN2201 uplinks), {free} x {array_speed / 1e9:g}GbE for the storage arrays",
    )


def tor_devices(rack: Rack) -> list[Device]:
    """An NVL72 rack's two management ToRs, on its busbar: half depth, ports to the hot
    aisle (the catalog's note: face = "rear")."""
    return [
        Device(f"{rack.id}-mgmt{k + 1}", TOR_SWITCH, position=position, face="rear")
        for k, position in enumerate(MGMT_POSITIONS)
    ]


def place_switches(nvl_racks: list[Rack], network_racks: list[Rack]) -> Row:
    """The two management ToRs in every NVL72 rack of a row, a storage leaf pair for every
    two of them in the network rack nearest the two (each network rack a pair at most),
    and the row's storage spines in the network racks left: before the compute fabric, so
    the generator leaves their units and air to them."""
    for rack in nvl_racks:
        rack.devices.extend(tor_devices(rack))
    free = list(network_racks)
    homes = []
    for k in range(0, len(nvl_racks), RACKS_PER_STORAGE_PAIR):
        pair = nvl_racks[k : k + RACKS_PER_STORAGE_PAIR]
        centre = sum(r.slot or 0 for r in pair) / len(pair)
        if not free:
            raise GenerateError("no network rack left for a storage leaf pair")
        home = min(free, key=lambda r: abs((r.slot or 0) - centre))
        free.remove(home)
        homes.append(home)
        for j, position in enumerate(STORAGE_POSITIONS[:2]):
            home.devices.append(Device(f"{home.id}-stor{j + 1}", STORAGE_LEAF, position=position))
    count = spines_per_row(len(homes) * 2)
    if not free:
        raise GenerateError("no network rack left for the storage spines")
    if count > len(free) * len(STORAGE_POSITIONS):
        raise GenerateError(f"{count} storage spines: more than the network racks take")
    # Round the free racks, so the spines spread over the row's middle racks.
    centre = sum(r.slot or 0 for r in nvl_racks) / max(1, len(nvl_racks))
    free.sort(key=lambda r: abs((r.slot or 0) - centre))
    spines = []
    for k in range(count):
        rack = free[k % len(free)]
        spine = f"{rack.id}-sspine{k // len(free) + 1}"
        rack.devices.append(
            Device(spine, STORAGE_SPINE, position=STORAGE_POSITIONS[k // len(free)])
        )
        spines.append(spine)
    return Row(nvl_racks, homes, spines)


def _free_unit(rack: Rack, catalog: Catalog) -> int | None:
    """The highest free U of a rack (the SN2201 goes at the top, short runs down). A
    blanking panel leaves a unit free: the half-depth SN2201 goes behind it, on the rear."""
    used: set[int] = set()
    for device in rack.devices:
        dtype = catalog.devices[device.model]
        if device.position is None or dtype.kind == "blank":
            continue
        height = max(1, round(dtype.height_u))
        used.update(range(device.position, device.position + height))
    for u in range(int(rack.height_u), 0, -1):
        if u not in used:
            return u
    return None


def _managed_ports(device: Device, catalog: Catalog) -> list[str]:
    """A device's own management ports: its 1 GbE management groups (BMC, COMe, PMC, a
    switch's RJ45 ``mgmt``), not the 100GbE management uplinks of the OOB fabric itself."""
    if device.model in (MGMT_SWITCH, TOR_SWITCH):
        return []  # its 1 GbE ports are the OOB network's downlinks
    dtype = catalog.devices[device.model]
    return [
        f"{device.id}:{group.name}{k + 1}"
        for group in dtype.ports or ()
        if group.effective_role(dtype.kind) == "management" and (group.speed or 0) <= 1e9
        for k in range(group.count)
    ]


def place_network_oob(row: Row, racks: list[Rack], catalog: Catalog) -> None:
    """An SN2201 for the row's network racks that hold switches (those ``new`` placed and
    those the compute fabric's generator placed or added): after the fabric, so it sees
    every switch. Network racks side by side share one, up to its 48 ports and
    :data:`NET_MGMT_SPAN` racks (short copper runs), in the first of them with a unit free
    (behind a blanking panel, the SN2201 being half depth, on the rear face)."""
    managed = [(rack, sum(len(_managed_ports(d, catalog)) for d in rack.devices)) for rack in racks]
    managed = sorted(((r, n) for r, n in managed if n), key=lambda item: item[0].slot or 0)
    for group in _oob_groups(managed):
        home = None
        for rack, _ in group:
            unit = _free_unit(rack, catalog)
            if unit is not None:
                rack.devices.append(
                    Device(f"{rack.id}-mgmt1", MGMT_SWITCH, position=unit, face="rear")
                )
                home = rack
                break
        if home is None:
            raise GenerateError(f"rack {group[0][0].id}: no unit left for its management switch")
        row.network.append(home)
        row.served[home.id] = [rack for rack, _ in group]


def _oob_groups(managed: list[tuple[Rack, int]]) -> list[list[tuple[Rack, int]]]:
    """Network racks (with their management ports, in slot order) that share an SN2201:
    side by side, at most :data:`NET_MGMT_SPAN` racks and 48 ports."""
    groups: list[list[tuple[Rack, int]]] = []
    for rack, ports in managed:
        last = groups[-1] if groups else None
        if (
            last is not None
            and (rack.slot or 0) == (last[-1][0].slot or 0) + 1
            and len(last) < NET_MGMT_SPAN
            and sum(n for _, n in last) + ports <= MGMT_PORTS
        ):
            last.append((rack, ports))
        else:
            if ports > MGMT_PORTS:
                raise GenerateError(f"rack {rack.id}: {ports} management ports, over one SN2201")
            groups.append([(rack, ports)])
    return groups


def cable(
    layout: Layout,
    catalog: Catalog,
    rows: list[Row],
    cable_max: float,
) -> Counts:
    """The management, storage and uplink cables of the rows' switches (:func:`place_switches`
    and :func:`place_network_oob`), each on the cheapest medium that reaches its computed
    run (the media table, CAB003)."""
    cabler = _Cabler(layout, catalog, rows, cable_max)
    arrays = 0
    for row in rows:
        cabler.tors(row)
        cabler.storage(row)
        arrays += _cable_arrays(row, catalog, cabler.link)
        cabler.network_switches(row)
    tally = cabler.tally
    spines = sum(len(row.spines) for row in rows)
    spine_type = catalog.devices.get(STORAGE_SPINE)
    free = 0
    if spine_type is not None:
        free = spines * sum(g.count for g in spine_type.ports or () if g.name == "array")
    return Counts(
        mgmt_switches=tally.mgmt,
        storage_leaves=sum(len(row.homes) * 2 for row in rows),
        storage_spines=spines,
        bmc_cables=tally.bmc,
        switch_mgmt_cables=tally.switch_mgmt,
        storage_cables=tally.storage,
        spine_cables=tally.spine_links,
        uplink_cables=tally.uplinks,
        free_array_ports=free - arrays,
        over=tally.over,
        array_cables=arrays,
    )


@dataclass(slots=True)
class _Tally:
    """What :class:`_Cabler` has added so far (:class:`Counts` names each)."""

    mgmt: int = 0
    bmc: int = 0
    switch_mgmt: int = 0
    storage: int = 0
    spine_links: int = 0
    uplinks: int = 0
    over: int = 0


class _Cabler:
    """Adds the networks' cables to the layout, row by row, each on the cheapest medium
    that reaches its run, and tallies them."""

    def __init__(self, layout: Layout, catalog: Catalog, rows: list[Row], cable_max: float):
        self.layout = layout
        self.catalog = catalog
        self.cable_max = cable_max
        self.geometry = SiteGeometry.of(layout.site)
        self.places = rack_places(layout)
        self.heights = {
            device.id: (rack, port_height(device.position, catalog.devices[device.model].height_u))
            for row in rows
            for rack in [
                *row.nvl,
                *row.homes,
                *row.storage,
                *(r for rs in row.served.values() for r in rs),
            ]
            for device in rack.devices
            if device.position is not None
        }
        self.switches = {
            device.id
            for rack in layout.racks
            for device in rack.devices
            if catalog.devices[device.model].kind == "switch"
        }
        self.choosers: dict[tuple[float, str], MediaChooser] = {}
        self.tally = _Tally()

    def link(self, a: str, b: str, speed: float) -> None:
        """One cable from port ``a`` to port ``b``, on the cheapest medium that reaches."""
        a_dev, b_dev = a.split(":", 1)[0], b.split(":", 1)[0]
        rack_a, height_a = self.heights[a_dev]
        rack_b, height_b = self.heights[b_dev]
        geometry = self.geometry
        run = route_length(
            self.places[id(rack_a)],
            height_a,
            self.places[id(rack_b)],
            height_b,
            rack_a is rack_b,
            geometry,
        )
        # A tray's port on a switch is a splitter's end, as CAB003 judges it (form_of).
        form = form_of(a_dev in self.switches, b_dev in self.switches)
        chooser = self.choosers.get((speed, form))
        if chooser is None:
            chooser = self.choosers[(speed, form)] = MediaChooser(speed, None, form)
        media = chooser.farthest if run is None else chooser(run + geometry.slack)
        if media is None:
            raise GenerateError(f"{a} -> {b}: no medium reaches {run:.1f} m")
        if run is not None and run + geometry.slack > self.cable_max:
            self.tally.over += 1
        self.layout.links.append(Link(a, b, media))

    def on_switch(self, switch: str, ports: list[str]) -> None:
        """Management ports onto an SN2201's 1 GbE ports, in order."""
        if len(ports) > MGMT_PORTS:
            raise GenerateError(f"{switch}: {len(ports)} management ports, the SN2201 has 48")
        for k, port in enumerate(ports):
            self.link(port, f"{switch}:mgmt{k + 1}", 1e9)

    def tors(self, row: Row) -> None:
        """Each NVL72 rack's management ports onto its two ToRs, alternately: each carries
        half of them."""
        for rack in row.nvl:
            managed = [port for d in rack.devices for port in _managed_ports(d, self.catalog)]
            tors = [f"{rack.id}-mgmt{k + 1}" for k in range(len(MGMT_POSITIONS))]
            for k, tor in enumerate(tors):
                self.on_switch(tor, managed[k :: len(tors)])
            self.tally.bmc += len(managed)
            self.tally.mgmt += len(tors)

    def storage(self, row: Row) -> None:
        """Each leaf pair: its two racks' trays and ToR uplinks, and its uplinks to every
        storage spine of the row."""
        spine_down = [0] * len(row.spines)
        for pair_index, home in enumerate(row.homes):
            pair = row.nvl[
                pair_index * RACKS_PER_STORAGE_PAIR : (pair_index + 1) * RACKS_PER_STORAGE_PAIR
            ]
            leaves = [f"{home.id}-stor{k + 1}" for k in range(2)]
            self._pair_racks(pair, leaves)
            self._leaf_uplinks(row, leaves, spine_down)

    def _pair_racks(self, pair: list[Rack], leaves: list[str]) -> None:
        """Port k of every tray on leaf k of the pair (two parallel paths a tray), and each
        ToR's uplink to each leaf."""
        used = [0] * len(leaves)
        oob = [0] * len(leaves)
        for rack in pair:
            kinds = self.catalog.devices
            trays = [d.id for d in rack.devices if kinds[d.model].kind == "gpu-node"]
            for tray in trays:
                for k, leaf in enumerate(leaves):
                    used[k] += 1
                    self.link(f"{tray}:eth{k + 1}", f"{leaf}:p{used[k]}", STORAGE_SPEED)
                    self.tally.storage += 1
            for number in range(len(MGMT_POSITIONS)):
                for k, leaf in enumerate(leaves):
                    oob[k] += 1
                    self.link(
                        f"{rack.id}-mgmt{number + 1}:up{k + 1}", f"{leaf}:oob{oob[k]}", UPLINK_SPEED
                    )
                    self.tally.uplinks += 1

    def _leaf_uplinks(self, row: Row, leaves: list[str], spine_down: list[int]) -> None:
        """1:1 up: each leaf the same number of 800GbE uplinks to every spine of its row
        (``spine_down`` counts each spine's leaf ports taken)."""
        per_spine = LEAF_UPLINKS // max(1, len(row.spines))
        for leaf in leaves:
            uplink = 0
            for s, spine in enumerate(row.spines):
                for _ in range(per_spine):
                    uplink += 1
                    spine_down[s] += 1
                    self.link(f"{leaf}:spine{uplink}", f"{spine}:leaf{spine_down[s]}", SPINE_SPEED)
                    self.tally.spine_links += 1

    def network_switches(self, row: Row) -> None:
        """Each network rack's SN2201: the management ports of the racks it serves, and
        two uplinks. The parent ports it can take, nearest first: the spines' 100GbE ports
        (round the spines), then the spare uplinks (up3, up4) of the SN2201s already
        placed, where a row has more than the spines take (a large hall's core-tier rows):
        a tree of SN2201s, every one on two parents."""
        pool = deque(f"{spine}:oob{k + 1}" for k in range(SPINE_OOB_PORTS) for spine in row.spines)
        for rack in row.network:
            switch = f"{rack.id}-mgmt1"
            ports = [
                port
                for served in row.served[rack.id]
                for d in served.devices
                for port in _managed_ports(d, self.catalog)
            ]
            self.on_switch(switch, ports)
            self.tally.switch_mgmt += len(ports)
            self.tally.mgmt += 1
            for j, parent in enumerate(_parents(pool, switch, rack)):
                self.link(f"{switch}:up{j + 1}", parent, UPLINK_SPEED)
                self.tally.uplinks += 1
            pool.extend(f"{switch}:up{k + 1}" for k in range(NET_MGMT_UPLINKS, MGMT_UPLINKS))


def _parents(pool: deque[str], switch: str, rack: Rack) -> list[str]:
    """A network rack SN2201's parent ports, taken from ``pool`` (nearest first): each on
    another device."""
    parents: list[str] = []
    for _ in range(NET_MGMT_UPLINKS):
        taken = {p.split(":")[0] for p in parents}
        port = next((p for p in pool if p.split(":")[0] not in taken), None)
        if port is None:
            raise GenerateError(f"{switch}: no uplink port left in row {rack.row}")
        pool.remove(port)
        parents.append(port)
    return parents


def _cable_arrays(row: Row, catalog: Catalog, link: Callable[[str, str, float], None]) -> int:
    """The row's storage appliances' client ports on the spines' array cages, port k of
    each appliance on spine (k + n) of the row (n: the appliance's number), so the loss of
    a spine leaves every appliance its other ports; the cables made."""
    if not row.arrays or not row.spines:
        return 0
    used = [0] * len(row.spines)
    made = 0
    for n, device in enumerate(row.arrays):
        dtype = catalog.devices[_model_of(row, device)]
        group = next(g for g in dtype.ports or () if g.effective_role(dtype.kind) == "storage")
        for k in range(group.count):
            s = (k + n) % len(row.spines)
            used[s] += 1
            link(
                f"{device}:{group.name}{k + 1}",
                f"{row.spines[s]}:array{used[s]}",
                float(group.speed or SPINE_SPEED),
            )
            made += 1
    return made


def _model_of(row: Row, device: str) -> str:
    for rack in row.storage:
        for dev in rack.devices:
            if dev.id == device:
                return dev.model
    raise GenerateError(f"{device}: not in the row's storage racks")


def place_arrays(row: Row, key: str, appliance: DeviceType, count: int, slot: int) -> Rack:
    """``count`` storage appliances of ``key`` in a storage rack at ``slot`` of the row (after
    its last rack): air-cooled, from U1 up."""
    first = row.nvl[0]
    prefix = (first.row or "x").lower()
    rack = Rack(f"{prefix}{slot:02d}", row=first.row, slot=slot, cooling="air", label="storage")
    height = max(1, round(appliance.height_u))
    for k in range(count):
        device_id = f"{rack.id}-pfs{k + 1}"
        rack.devices.append(Device(device_id, key, position=1 + k * height))
        row.arrays.append(device_id)
    row.storage.append(rack)
    return rack


__all__ = [
    "Counts",
    "Row",
    "cable",
    "place_arrays",
    "place_network_oob",
    "place_switches",
    "spines_per_row",
    "storage_leaf_type",
    "storage_spine_type",
    "tor_devices",
]
