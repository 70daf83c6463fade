"""Rules v1.1: one test for each verdict that misled before (issue 8, "What is wrong today"),
and the v1.1 keys the fixtures do not vary (power factor, site floor rating, Dragonfly+)."""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.check.engine import check
from rackdesigner.layout_io.document import loads
from tests.builders import HEADER, findings
from tests.topology.test_topology import fat_tree, layout_text


def _net(code: str, devices: list[tuple[str, str]], links: list[tuple[str, str]], head: str = ""):
    document = loads(layout_text(devices, links, head=head))
    _, diagnostics = check(document.layout, select=[code], source_map=document.source_map)
    return [d for d in diagnostics if d.code == code]


TRAINING = '[workload]\nkind = "training"'


# -- NET007: the node's whole fabric bandwidth -----------------------------------------------


def test_net007_promises_a_dgx_h100_its_eight_ports_not_one() -> None:
    found = _net(
        "NET007", *fat_tree(nodes_per_leaf=2, leaves=2, cables_per_node=8, uplinks_per_leaf=16)
    )
    (finding,) = found
    # 8 x 400 Gbit/s x 85 % = 340 GB/s (v1: 42.5 GB/s, one port's share)
    assert finding.values["inter"] == pytest.approx(8 * 400e9 * 0.85)
    assert "340 GB/s between nodes" in finding.message


def test_net007_is_capped_at_the_figure_inside_the_node() -> None:
    # A PCIe node with 8 x 400G: 400 GB/s x 85 % across, but its GPUs reach each other at
    # PCIe Gen5's 64 GB/s x 85 % = 54.4 GB/s, which caps the figure.
    catalog = (
        '[catalog.pcie8]\nkind = "gpu-node"\nheight = "4 U"\ngpu = "h100-pcie"\ngpus = 8\n'
        'power = "6 kW"\nports = [ { name = "ib", count = 8, speed = "400 Gbps", '
        'tech = "infiniband" } ]\n'
    )
    devices, links = fat_tree(
        nodes_per_leaf=2, leaves=1, cables_per_node=8, uplinks_per_leaf=0, node_model="pcie8"
    )
    (finding,) = _net("NET007", devices, links, head=catalog)
    assert finding.values["inter"] == pytest.approx(64e9 * 8 * 0.85)
    assert "capped at the figure inside the node" in finding.message


# -- NET002: lateral links and the groups' global ratio --------------------------------------


def _two_leaves_one_cable(nodes: int = 16) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    devices = [(f"a{i}", "dgx-h100") for i in range(nodes)]
    devices += [(f"b{i}", "dgx-h100") for i in range(nodes)]
    devices += [("leafA", "qm9700"), ("leafB", "qm9700")]
    links = [(f"a{i}:ib1", f"leafA:p{i + 1}") for i in range(nodes)]
    links += [(f"b{i}:ib1", f"leafB:p{i + 1}") for i in range(nodes)]
    links.append(("leafA:p64", "leafB:p64"))
    return devices, links


def test_two_leaves_joined_by_one_cable_are_not_a_non_blocking_fabric() -> None:
    # v1 ignored links between switches of one tier: no NET002, 6.4 Tbit/s of bisection.
    found = _net("NET002", *_two_leaves_one_cable(), head=TRAINING)
    assert [(d.entity, d.severity) for d in found] == [
        ("device leafA", "error"),
        ("device leafB", "error"),
    ]
    assert found[0].values["ratio"] == pytest.approx(1 / 16)
    assert found[0].values["global"] == pytest.approx(400e9)
    assert found[0].values["nodes"] == pytest.approx(16 * 400e9)


def test_lateral_links_below_the_top_tier_count_as_uplinks() -> None:
    # leaf1 has 4 x 400G down, 2 up to the spine and 2 lateral to leaf2: 1:1.
    devices, links = fat_tree(nodes_per_leaf=2, leaves=2, cables_per_node=2, uplinks_per_leaf=2)
    links += [("leaf1:p20", "leaf2:p20"), ("leaf1:p21", "leaf2:p21")]
    assert _net("NET002", devices, links, head=TRAINING) == []
    analysis = Analysis(loads(layout_text(devices, links)).layout)
    leaf = analysis.fabrics[0].switches["leaf1"]
    assert (leaf.down, leaf.up, leaf.lateral) == (1.6e12, 8e11, 8e11)
    assert leaf.oversubscription == pytest.approx(1.0)


def _dragonfly(global_cables: int) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Two groups, each a leaf with two nodes (2 x 400G each) under a spine; the spines are
    joined by ``global_cables`` 400G global links."""
    devices: list[tuple[str, str]] = []
    links: list[tuple[str, str]] = []
    for g in (1, 2):
        devices += [(f"g{g}n1", "dgx-h100"), (f"g{g}n2", "dgx-h100")]
        devices += [(f"g{g}leaf", "qm9700"), (f"g{g}spine", "qm9700")]
        for n in (1, 2):
            for port in (1, 2):
                links.append((f"g{g}n{n}:ib{port}", f"g{g}leaf:p{2 * (n - 1) + port}"))
        for up in range(4):
            links.append((f"g{g}leaf:p{10 + up}", f"g{g}spine:p{1 + up}"))
    for cable in range(global_cables):
        links.append((f"g1spine:p{20 + cable}", f"g2spine:p{20 + cable}"))
    return devices, links


def test_dragonfly_global_links_are_judged_by_the_global_ratio() -> None:
    # Balanced: 4 x 400G global per group for 4 x 400G of node ports (ratio 1).
    assert _net("NET002", *_dragonfly(4), head=TRAINING) == []
    found = _net("NET002", *_dragonfly(1), head=TRAINING)
    assert [d.entity for d in found] == ["device g1spine", "device g2spine"]
    assert found[0].values["ratio"] == pytest.approx(0.25)
    # Inference allows 4:1, so a global ratio of 1/4.
    assert _net("NET002", *_dragonfly(1), head='[workload]\nkind = "inference"') == []


# -- COOL008 / COOL001: cold plates only where a type has them -------------------------------


def test_an_air_only_dgx_in_a_liquid_rack_sends_all_its_heat_to_the_room() -> None:
    text = (
        '[[racks]]\nid = "a01"\ncooling = "liquid"\ncdu = "cdu"\n\n'
        '[[racks.devices]]\nid = "n1"\nmodel = "dgx-h100"\nposition = 2\n\n'
        '[[racks.devices]]\nid = "cdu"\nmodel = "coolit-chx80"\nposition = 20\n'
    )
    (found,) = findings("COOL008", text)
    assert found.entity == "device n1"
    analysis = Analysis(loads(HEADER + text).layout)
    rack = analysis.racks[0]
    assert rack.liquid_heat == 0.0  # v1 sent 80 % of it into the CDU
    assert rack.air_heat == pytest.approx(10.2e3 + 1.5e3)


def test_cool001_offers_direct_to_chip_liquid_only_for_nodes_with_cold_plates() -> None:
    def rack(model: str) -> str:
        return "".join(
            f'[[racks.devices]]\nid = "n{i}"\nmodel = "{model}"\nposition = {2 + 8 * i}\n\n'
            for i in range(2)
        )

    (air_only,) = findings("COOL001", '[[racks]]\nid = "a01"\n\n' + rack("dgx-h100"))
    assert air_only.hint is not None
    assert "direct-to-chip" not in air_only.hint and "rear-door" in air_only.hint
    text = '[[racks]]\nid = "a01"\n\n' + rack("sys-421ge-tnhr2-lcc")
    # two liquid-ready nodes on air: 18 kW
    (cold_plates,) = findings("COOL001", text)
    assert cold_plates.hint is not None and "direct-to-chip" in cold_plates.hint


# -- Feeds: any side label, (k - 1) x the smallest side ---------------------------------------


def _three_pdu_rack(extra_feed: str = "") -> str:
    feeds = "".join(
        f'  {{ id = "f{s}", side = "{s}", circuit = "C{s}", voltage = "415 V", phases = 3, '
        'current = "60 A" },\n'
        for s in "ABC"
    )
    devices = "".join(
        f'[[racks.devices]]\nid = "n{i}"\nmodel = "dgx-h100"\nposition = {2 + 8 * i}\n\n'
        for i in range(4)
    )
    return f'[[racks]]\nid = "a01"\nfeeds = [\n{feeds}{extra_feed}]\n\n{devices}'


def test_nvidias_three_pdu_dgx_h100_rack_keeps_four_of_six_psus() -> None:
    text = _three_pdu_rack()
    assert findings("PWR008", text) == []  # v1 could only model A and B: 3 + 3
    analysis = Analysis(loads(HEADER + text).layout)
    rack = analysis.racks[0]
    side = 415 * 60 * 0.8 * 3**0.5
    assert rack.capacity == pytest.approx(2 * side)  # any one of three sides lost
    assert findings("PWR001", text) == []  # 40.8 kW of 69 kW
    # With any side lost each remaining side carries half: 40.8 kW / 2 / 3 / 239.6 V.
    assert max(rack.feeds[0].lines.values()) == pytest.approx(40.8e3 / 2 / 3 / (415 / 3**0.5))


def test_a_feed_without_a_side_counts_for_no_side() -> None:
    extra = '  { id = "fX", circuit = "CX", voltage = "415 V", phases = 3, current = "60 A" },\n'
    text = _three_pdu_rack(extra)
    assert [d.entity for d in findings("PWR013", text)] == ["rack a01 feed fX"]
    rack = Analysis(loads(HEADER + text).layout).racks[0]
    assert rack.capacity == pytest.approx(2 * 415 * 60 * 0.8 * 3**0.5)  # fX adds nothing


def test_power_factor_scales_capacity_and_currents() -> None:
    text = (
        '[rules.thresholds]\npower_factor = 0.9\n\n[[racks]]\nid = "a01"\nfeeds = [\n'
        '  { id = "f", voltage = "415 V", phases = 3, current = "32 A" },\n]\n\n'
        '[[racks.devices]]\nid = "x"\nmodel = "load"\nposition = 1\n\n'
        '[catalog.load]\nkind = "other"\nheight = "1 U"\npower = "17 kW"\n'
    )
    rack = Analysis(loads(HEADER + text).layout).racks[0]
    assert rack.capacity == pytest.approx(415 * 32 * 0.8 * 3**0.5 * 0.9)
    assert rack.feeds[0].lines["L1"] == pytest.approx(17e3 / 3 / (415 / 3**0.5 * 0.9))
    (over,) = findings("PWR001", text)  # 17 kW > 16.6 kW
    assert "× PF 0.9" in over.message
    assert findings("PWR001", text.replace("power_factor = 0.9", "power_factor = 1.0")) == []


# -- PWR002: outlet voltage and one phase ------------------------------------------------------


def test_a_starter_server_on_a_single_phase_208_v_30_a_pair_passes() -> None:
    text = (
        '[catalog.as-4125gs-tnrt2]\ngpu = "rtx-a6000"\ngpus = 4\n\n[[racks]]\nid = "a01"\n'
        "feeds = [\n"
        '  { id = "A", side = "A", circuit = "1", voltage = "208 V", phases = 1, '
        'current = "30 A" },\n'
        '  { id = "B", side = "B", circuit = "2", voltage = "208 V", phases = 1, '
        'current = "30 A" },\n'
        "]\n\n"
        '[[racks.devices]]\nid = "g"\nmodel = "as-4125gs-tnrt2"\nposition = 2\n'
    )
    # v1: an error for any single-phase GPU rack
    assert findings("PWR002", text) == []
    assert findings("PWR001", text) == []


# -- CAB003 / CAB004 ---------------------------------------------------------------------------


def _cable(media: str, length: str, node: str = "dgx-h100", extra: str = "") -> str:
    return (
        f'[[racks]]\nid = "a01"\n\n[[racks.devices]]\nid = "n"\nmodel = "{node}"\n'
        'position = 2\n\n[[racks.devices]]\nid = "s"\nmodel = "qm9700"\nposition = 20\n\n'
        f'[[links]]\na = "n:ib1"\nb = "s:p1"\nmedia = "{media}"\nlength = "{length}"\n{extra}'
    )


def test_400g_passive_copper_reaches_2_m_and_om3_30_m() -> None:
    (dac,) = findings("CAB003", _cable("dac", "2.5 m"))  # v1: 3 m for every DAC
    assert dac.values["reach"] == 2.0
    assert findings("CAB003", _cable("dac", "2 m")) == []
    (om3,) = findings("CAB003", _cable("mmf", "40 m", extra='grade = "om3"\n'))  # v1: 50 m
    assert om3.values["reach"] == 30.0
    assert findings("CAB003", _cable("mmf", "40 m")) == []  # OM4 by default: 50 m


def test_an_ndr_port_on_an_hdr_switch_is_a_warning_and_counts_at_200g() -> None:
    text = _cable("dac", "1 m").replace('model = "qm9700"', 'model = "qm8700"')
    (found,) = findings("CAB004", text)
    assert found.severity == "warning"  # v1: an error
    assert "the link runs at 200 Gbps" in found.message
    analysis = Analysis(loads(HEADER + text).layout)
    assert analysis.links[0].speed == 200e9


# -- PLC008 with the site's floor rating -------------------------------------------------------


def test_the_sites_floor_rating_replaces_the_threshold() -> None:
    rack = (
        '[[racks]]\nid = "a01"\n\n[[racks.devices]]\nid = "n"\nmodel = "dgx-h100"\nposition = 2\n'
    )
    # 130.45 + 150 kg on 0.72 m^2 = 389.5 kg/m^2
    assert findings("PLC008", rack) == []
    (found,) = findings("PLC008", '[site]\nfloor_load_max = "380 kg/m^2"\n\n' + rack)
    assert found.values["limit"] == 380.0
    assert found.values["floor_load"] == pytest.approx((130.45 + 150) / 0.72)
    assert "[site] floor_load_max" in found.message


# -- report: one side lost, CDU N+1 margin -----------------------------------------------------


def test_report_shows_one_side_lost_and_the_cdu_groups_n_plus_one_margin() -> None:
    from rackdesigner.layout_io.document import load
    from rackdesigner.report.report import build, to_text
    from tests.conftest import ROOT

    document = load(ROOT / "layouts" / "training-128.toml")
    report = build(Analysis(document.layout))
    a01 = next(r for r in report["power"]["racks"] if r["rack"] == "a01")
    side = 415 * 32 * 0.8 * 3**0.5
    assert a01["all_sides"] == pytest.approx(4 * side)
    assert a01["one_side_lost"] == pytest.approx(3 * side)
    (group,) = report["cooling"]["cdus"]
    assert group["cdus"] == ["a06-cdu", "a07-cdu"]
    assert group["n_plus_one"] == pytest.approx(750e3)
    assert group["margin"] == pytest.approx(750e3 - group["load"])
    text = to_text(report)
    assert "one side lost" in text
    assert "CDU group a06-cdu + a07-cdu" in text and "N+1 margin 649 kW" in text
