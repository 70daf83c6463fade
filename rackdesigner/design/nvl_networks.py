"""The NVL72 hall's Ethernet networks: storage and in-band, and out-of-band management.

The DGX SuperPOD GB200 RA (Network Fabrics) carries its five networks on four physical
fabrics: the NVLink domain, the compute InfiniBand fabric, a "Storage and In-band Ethernet
Fabric" and the out-of-band network. The compute fabric is the rail generator's; this module
adds the other two, as docs/rack-scale.md describes and cites:

- **Out-of-band**: the two management ToR switches of every DGX GB200 rack ("2x TOR Switches
  for management", DGX GB200 user guide; SN2201, the North-South deployment guide), near the
  top of the rack, each carrying half of the rack's BMC ports (18 compute trays, 9 switch
  trays) on copper, each with an uplink to each storage / in-band leaf of its rack's pair.
- **Storage and in-band**: SN5600 leaves in pairs (the deployment guide's EVPN multihoming
  pair), a pair for every two NVL72 racks; each tray's two BlueField-3 ports go one to
  each leaf of its pair ("each pair of in-band management and storage ports provide
  parallel pathways", the RA), so losing a leaf leaves every tray on the other. The leaves
  stand in the network rack beside their two racks.

What is not built: the storage leaves' uplinks to the storage system and the in-band spines
(the storage appliances are vendor-certified and not in the catalog), and the power
shelves' BMC ports (the catalog's shelf declares none).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rackdesigner.analysis.geometry import SiteGeometry, port_height, rack_places, route_length
from rackdesigner.analysis.reach import STRAIGHT, MediaChooser
from rackdesigner.design.generators import GenerateError
from rackdesigner.layout_io.catalog import Catalog
from rackdesigner.model.layout import Device, DeviceType, Layout, Link, PortGroup, Rack

MGMT_SWITCH = "sn2201"
MGMT_POSITIONS = (41, 42)  # U: the top of the 42 U rack, above the upper compute trays
STORAGE_BASE = "sn5600"
STORAGE_LEAF = "sn5600-storage"  # the layout's own entry (storage_leaf_type)
RACKS_PER_STORAGE_PAIR = 2
# U of the two leaves of a pair in their network rack: the middle, where the rack's air
# switches go (PLC rules keep switches mid-rack).
STORAGE_POSITIONS = (20, 22)
STORAGE_SPEED = 400e9  # b/s: the BlueField-3 ports (catalog: 2 x 400 Gbps a tray)
UPLINK_SPEED = 100e9  # b/s: the SN2201's QSFP28 uplinks
TRAY_PORTS = 36  # a leaf's tray ports: one of each of its pair's 2 x 18 trays
OOB_PORTS = 4  # a leaf's SN2201 uplinks: one from each of its two racks' 2 ToRs


@dataclass(frozen=True, slots=True)
class Counts:
    """What the networks add (tests and the file's header)."""

    mgmt_switches: int
    storage_leaves: int
    bmc_cables: int
    storage_cables: int
    uplink_cables: int
    over: int  # runs longer than the layout's cable_max (CAB001)


def storage_leaf_type(catalog: Catalog) -> DeviceType:
    """The layout's storage leaf: the built-in SN5600 whose 64 OSFP cages (10-800 GbE) run
    at the rate of what is cabled to them, 400GbE for the trays' BlueField-3 ports and
    100GbE for the SN2201 uplinks, on storage and management ports (not the compute
    fabric's). Its own key, so an SN5600 elsewhere in the layout (``--leaf sn5600``) keeps
    the built-in ports."""
    base = catalog.devices[STORAGE_BASE]
    return replace(
        base,
        key=STORAGE_LEAF,
        name=f"{base.name} (storage and in-band leaf)",
        ports=[
            PortGroup("p", 64 - OOB_PORTS, STORAGE_SPEED, "ethernet", "storage"),
            PortGroup("oob", OOB_PORTS, UPLINK_SPEED, "ethernet", "management"),
            PortGroup("mgmt", 1, 1e9, "ethernet", "management"),
        ],
        notes=f"{STORAGE_BASE} with its cages at the rates cabled: {64 - OOB_PORTS} x 400GbE "
        f"(trays' BlueField-3), {OOB_PORTS} x 100GbE (SN2201 uplinks). {base.notes or ''}".strip(),
    )


def place_switches(nvl_racks: list[Rack], network_racks: list[Rack]) -> list[Rack]:
    """The two management ToRs in every NVL72 rack of a row and a storage leaf pair for
    every two of them, in the network rack nearest the two (each network rack a pair at
    most): before the compute fabric, so the generator leaves their units and air to them.
    Returns each pair's network rack, in the order of the pairs."""
    for rack in nvl_racks:
        for k, position in enumerate(MGMT_POSITIONS):
            # Half depth, ports to the hot aisle (the catalog's note: face = "rear").
            rack.devices.append(
                Device(f"{rack.id}-mgmt{k + 1}", MGMT_SWITCH, position=position, face="rear")
            )
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
        for j, position in enumerate(STORAGE_POSITIONS):
            home.devices.append(Device(f"{home.id}-stor{j + 1}", STORAGE_LEAF, position=position))
    return homes


def cable(
    layout: Layout,
    catalog: Catalog,
    nvl_racks: list[Rack],
    homes: list[Rack],
    tray_models: frozenset[str],
    switch_tray: str,
    cable_max: float,
) -> Counts:
    """The BMC, storage and uplink cables of :func:`place_switches`' switches (``homes``:
    what it returned, the network rack of each pair), each on the cheapest medium that
    reaches its computed run (the media table, CAB003)."""
    geometry = SiteGeometry.of(layout.site)
    places = rack_places(layout)
    heights = {
        device.id: (rack, port_height(device.position, catalog.devices[device.model].height_u))
        for rack in [*nvl_racks, *homes]
        for device in rack.devices
        if device.position is not None
    }
    choosers: dict[float, MediaChooser] = {}

    def link(a: str, b: str, speed: float) -> None:
        rack_a, height_a = heights[a.split(":", 1)[0]]
        rack_b, height_b = heights[b.split(":", 1)[0]]
        run = route_length(
            places[id(rack_a)], height_a, places[id(rack_b)], height_b, rack_a is rack_b, geometry
        )
        chooser = choosers.get(speed)
        if chooser is None:
            chooser = choosers[speed] = MediaChooser(speed, None, STRAIGHT)
        media = chooser.farthest if run is None else chooser(run + geometry.slack)
        if media is None:
            raise GenerateError(f"{a} -> {b}: no medium reaches {run:.1f} m")
        if run is not None and run + geometry.slack > cable_max:
            over[0] += 1
        layout.links.append(Link(a, b, media))

    over = [0]
    bmc = storage = uplinks = 0
    for rack in nvl_racks:
        managed = [d.id for d in rack.devices if d.model in tray_models or d.model == switch_tray]
        # Alternate ToRs: each carries half the rack's BMC ports (14 and 13 of 27).
        ports = [0, 0]
        for k, device_id in enumerate(managed):
            tor = k % 2
            ports[tor] += 1
            link(f"{device_id}:bmc1", f"{rack.id}-mgmt{tor + 1}:mgmt{ports[tor]}", 1e9)
            bmc += 1
    for pair_index, home in enumerate(homes):
        pair = nvl_racks[
            pair_index * RACKS_PER_STORAGE_PAIR : (pair_index + 1) * RACKS_PER_STORAGE_PAIR
        ]
        leaves = [f"{home.id}-stor{k + 1}" for k in range(len(STORAGE_POSITIONS))]
        used = [0] * len(leaves)
        oob = [0] * len(leaves)
        for rack in pair:
            trays = [d.id for d in rack.devices if d.model in tray_models]
            for tray in trays:
                # Port k of every tray on leaf k of the pair: two parallel paths a tray.
                for k, leaf in enumerate(leaves):
                    used[k] += 1
                    link(f"{tray}:eth{k + 1}", f"{leaf}:p{used[k]}", STORAGE_SPEED)
                    storage += 1
            for tor in range(len(MGMT_POSITIONS)):
                for k, leaf in enumerate(leaves):
                    oob[k] += 1
                    link(f"{rack.id}-mgmt{tor + 1}:up{k + 1}", f"{leaf}:oob{oob[k]}", UPLINK_SPEED)
                    uplinks += 1
    return Counts(
        mgmt_switches=len(nvl_racks) * len(MGMT_POSITIONS),
        storage_leaves=len(homes) * len(STORAGE_POSITIONS),
        bmc_cables=bmc,
        storage_cables=storage,
        uplink_cables=uplinks,
        over=over[0],
    )


__all__ = ["Counts", "cable", "place_switches", "storage_leaf_type"]
