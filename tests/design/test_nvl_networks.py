"""The NVL72 hall's storage / in-band spines and its out-of-band network
(``rackdesigner.design.nvl_networks``, docs/rack-scale.md)."""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from rackdesigner.check.engine import check
from rackdesigner.cli.main import cli
from rackdesigner.design import nvl_networks
from rackdesigner.design.templates import NewOptions, build
from rackdesigner.layout_io import dumps
from rackdesigner.layout_io.catalog import builtin, for_layout
from rackdesigner.model.layout import Device, Layout, Rack

# The out-of-band switches: the network racks' SN2201 (AC) and the NVL72 racks' ToRs on
# their busbar (sn2201-dc).
OOB_SWITCHES = {nvl_networks.MGMT_SWITCH, nvl_networks.TOR_SWITCH}


@cache
def _hall(sus: int, template: str = "gb200-superpod") -> Layout:
    return build(NewOptions(template=template, sus=sus)).layout


def _rack_of(layout: Layout) -> dict[str, str]:
    return {d.id: r.id for r in layout.racks for d in r.devices}


def test_spines_per_row_take_every_uplink_evenly() -> None:
    """8 leaves of 18 x 800GbE uplinks (1:1 over 36 x 400GbE) on 3 spines of 48 each; the
    count is the fewest that divides the uplinks and leaves the spine cages to spare."""
    assert nvl_networks.LEAF_UPLINKS == 18
    assert nvl_networks.spines_per_row(8) == 3
    for leaves in (2, 4, 8, 12):
        spines = nvl_networks.spines_per_row(leaves)
        assert nvl_networks.LEAF_UPLINKS % spines == 0
        down = leaves * nvl_networks.LEAF_UPLINKS // spines
        assert down + nvl_networks.SPINE_OOB_PORTS < nvl_networks.CAGES


@pytest.mark.parametrize("sus", [1, 3])
def test_storage_leaves_go_up_one_to_one_to_their_rows_spines(sus: int) -> None:
    """Per SU: 3 storage spines in the network racks that hold no leaf pair, 144 leaf-spine
    cables at 800GbE (8 leaves x 18), each leaf 6 to every spine of its own row, as much
    up as down (36 x 400GbE); each spine keeps 8 cages for the storage arrays, where the
    SU's parallel file system is cabled (v1.4)."""
    layout = _hall(sus)
    catalog = for_layout(layout)
    rack_of = _rack_of(layout)
    row_of = {r.id: r.row for r in layout.racks}
    models = Counter(d.model for r in layout.racks for d in r.devices)
    assert models[nvl_networks.STORAGE_SPINE] == 3 * sus
    links = [link for link in layout.links if ":spine" in link.a]
    assert len(links) == 144 * sus
    per_pair = Counter((link.a.split(":")[0], link.b.split(":")[0]) for link in links)
    assert set(per_pair.values()) == {6}
    for leaf, spine in per_pair:
        assert row_of[rack_of[leaf]] == row_of[rack_of[spine]]
    leaf_type = catalog.devices[nvl_networks.STORAGE_LEAF]
    spine_type = catalog.devices[nvl_networks.STORAGE_SPINE]
    groups = {g.name: g for g in leaf_type.ports or ()}
    down = groups["p"].count * float(groups["p"].speed or 0)
    up = groups["spine"].count * float(groups["spine"].speed or 0)
    assert up == down  # 1:1
    assert sum(g.count for g in leaf_type.ports or () if g.name != "mgmt") <= 64
    spine_groups = {g.name: g for g in spine_type.ports or ()}
    assert spine_groups["leaf"].count == 48
    assert spine_groups["array"].count == 8  # the storage arrays' connection point
    assert sum(g.count for g in spine_type.ports or () if g.name != "mgmt") == 64
    spines = [d.id for r in layout.racks for d in r.devices if d.model == spine_type.key]
    # v1.4: the array cages take the SU's parallel file system, which `new` sizes for the
    # storage level: at "good" 576 GPUs ask 15 x 576 / 256 = 33.75 GB/s, one DDN AI400X2
    # Turbo (80 GB/s) a SU, its 8 client ports spread over the 3 spines (3 + 3 + 2).
    model_of = {d.id: d.model for r in layout.racks for d in r.devices}
    arrays = [link for link in layout.links if ":array" in link.b]
    assert len(arrays) == 8 * sus
    assert {catalog.devices[model_of[link.a.split(":")[0]]].kind for link in arrays} == {"storage"}
    assert {link.b.split(":")[0] for link in arrays} == set(spines)
    # A spine never shares a network rack with a storage leaf pair.
    leaves = [d.id for r in layout.racks for d in r.devices if d.model == leaf_type.key]
    leaf_racks = {rack_of[leaf] for leaf in leaves}
    assert not leaf_racks & {rack_of[s] for s in spines}
    assert f"{3 * sus} storage spines" in (layout.comment or "")
    assert f"{8 * sus} cables, {16 * sus} cages free" in (layout.comment or "")


@pytest.mark.parametrize("sus", [1, 3, 4])
def test_every_switch_and_shelf_has_its_management_port_on_an_sn2201(sus: int) -> None:
    """Every 1 GbE management port in the hall is cabled to an SN2201 of its own row: the
    trays' BMCs, the switch trays' BMC and COMe, the power shelves' PMC, and the RJ45
    management port of every switch in the network racks (compute leaves, spines and cores,
    storage leaves and spines), including the racks the fabric's generator adds for its
    cores (4 SUs). Network racks side by side share an SN2201, each with two 100GbE uplinks to two
    parents: storage spines of its row, or in a row with more SN2201s than the spines take
    (tested at 173 SUs in test_a_core_rows_sn2201s_form_a_tree), two SN2201s before it."""
    layout = _hall(sus)
    catalog = for_layout(layout)
    rack_of = _rack_of(layout)
    row_of = {r.id: r.row for r in layout.racks}
    model_of = {d.id: d.model for r in layout.racks for d in r.devices}
    cabled = {}
    for link in layout.links:
        cabled[link.a] = link.b
        cabled[link.b] = link.a
    ports = [
        f"{d.id}:{g.name}{k + 1}"
        for r in layout.racks
        for d in r.devices
        if d.model not in OOB_SWITCHES
        for g in catalog.devices[d.model].ports or ()
        if g.effective_role(catalog.devices[d.model].kind) == "management" and (g.speed or 0) <= 1e9
        for k in range(g.count)
    ]
    assert any(p.endswith(":pmc1") for p in ports) and any(p.endswith(":come1") for p in ports)
    missing = [p for p in ports if p not in cabled]
    assert missing == []
    for port in ports:
        other = cabled[port].split(":")[0]
        assert model_of[other] in OOB_SWITCHES
        assert row_of[rack_of[other]] == row_of[rack_of[port.split(":")[0]]]
    network = [
        d.id for r in layout.racks if not r.nvlink_domain for d in r.devices if d.model == "sn2201"
    ]
    assert network
    for switch in network:
        ups = [cabled.get(f"{switch}:up{k}") for k in (1, 2)]
        assert all(up and model_of[up.split(":")[0]] == nvl_networks.STORAGE_SPINE for up in ups)
        assert len({up.split(":")[0] for up in ups if up}) == 2
    if sus == 1:
        # The pairs of network racks side by side (a05+a06, a09+a10, a13+a14) share one; the
        # storage rack at the row's end (v1.4) has its own, for its appliance's port.
        assert len(network) == 4
    # No SN2201 over its 48 ports.
    per_switch = Counter(cabled[p].split(":")[0] for p in ports)
    assert max(per_switch.values()) <= 48


@pytest.mark.parametrize("template", ["gb200-superpod", "gb300-superpod"])
def test_power_and_space_in_the_network_racks_add_up(template: str) -> None:
    """The spines and SN2201s are in the racks' load before their PDUs are sized: no PWR or
    PLC warning of any kind, and no error at all. GB300's Q3400 power is an estimate
    (PWR009, info). The one warning a GB300 hall has: its racks at the RA's 142 kW draw
    142,000 W / 48 V = 2,958 A from a busbar whose 2,900 A is unverified (PWR017)."""
    layout = _hall(1, template)
    _, diagnostics = check(layout)
    assert [d for d in diagnostics if d.severity == "error"] == []
    codes = {
        d.code
        for d in diagnostics
        if d.severity != "info" and d.code.startswith(("PWR", "PLC", "COOL"))
    }
    assert codes == ({"PWR017"} if template == "gb300-superpod" else set())
    kinds = {d.code for d in diagnostics if d.severity == "warning"}
    assert kinds <= {"CAB001", "PWR017"}


def test_slurm_topology_leaves_the_ethernet_switches_out(tmp_path: Path) -> None:
    """The storage leaves and spines and the SN2201s are not part of the compute fabric:
    ``export --slurm-topology`` names only the InfiniBand switches and the trays."""
    path = tmp_path / "hall.toml"
    path.write_text(dumps(_hall(1)), encoding="utf-8")
    conf = tmp_path / "topology.conf"
    result = CliRunner().invoke(
        cli, ["export", str(path), "--slurm-topology", str(conf)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    text = conf.read_text(encoding="utf-8")
    assert "SwitchName=" in text and "leaf" in text
    for word in ("stor", "sspine", "mgmt"):
        assert word not in text


def test_a_core_rows_sn2201s_form_a_tree() -> None:
    """More network-rack SN2201s in a row than its 3 spines' 24 x 100GbE take (here rows
    of a hall whose cores fill racks of their own): the rest take the spare uplinks (up3,
    up4) of SN2201s already placed, each on two distinct parents, so every one reaches a
    spine. Built through the functions, on one row, to keep the test fast."""
    catalog = builtin()
    nvl = [Rack(f"r{k:02d}", row="A", slot=k) for k in range(1, 9)]
    network = [Rack(f"n{k:02d}", row="A", slot=20 + 2 * k) for k in range(40)]
    row = nvl_networks.place_switches(nvl, network[:7])
    for rack in network:
        rack.devices.append(Device(f"{rack.id}-leaf", "qm9700", position=10))
    layout = Layout("tree", racks=[*nvl, *network])
    layout.catalog[nvl_networks.STORAGE_LEAF] = nvl_networks.storage_leaf_type(catalog)
    layout.catalog[nvl_networks.STORAGE_SPINE] = nvl_networks.storage_spine_type(catalog, 8)
    merged = for_layout(layout)
    # No NVL72 trays here: cable the network racks only.
    row = nvl_networks.Row([], [], row.spines)
    nvl_networks.place_network_oob(row, network, merged)
    assert len(row.network) == 40  # none side by side: one each
    nvl_networks.cable(layout, merged, [row], 100.0)
    parent: dict[str, list[str]] = {}
    for link in layout.links:
        if ":up" in link.a and link.a.split(":")[0].endswith("-mgmt1"):
            parent.setdefault(link.a.split(":")[0], []).append(link.b.split(":")[0])
    assert len(parent) == 40
    assert all(len(set(p)) == 2 for p in parent.values())
    on_spines = [s for s, p in parent.items() if all("sspine" in x for x in p)]
    assert len(on_spines) == 12  # 3 spines x 8 ports / 2

    def reaches(switch: str, seen: frozenset[str] = frozenset()) -> bool:
        assert switch not in seen  # a tree, no loop
        return all("sspine" in p or reaches(p, seen | {switch}) for p in parent[switch])

    assert all(reaches(s) for s in parent)


def test_the_network_racks_the_fabric_adds_beside_nvl72_racks_weigh_as_network_racks() -> None:
    """At 4 SUs the compute fabric's generator adds network racks for its cores, copied from
    their neighbours: beside an NVL72 rack the copy kept the rack's declared 1,360 kg (its
    trays as built) and rear door, so with its switches (233-240 kg) it was 1,593-1,600 kg on
    0.72 m², 2,212-2,222 kg/m², over the hall's 2,100 kg/m² (7 PLC008 errors). A network rack
    holds switches on air: no door, no NVL72 weight."""
    layout = _hall(4)
    added = [r for r in layout.racks if r.label == "network rack" and not r.nvlink_domain]
    assert all(r.door is None for r in added)
    assert all(r.weight is None for r in added if not r.cdu and r.cooling == "air")
    _, diagnostics = check(layout, select=["PLC004", "PLC008"])
    assert [d for d in diagnostics if d.severity == "error"] == []
