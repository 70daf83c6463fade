"""Network rules (NET) in the cases the fixtures cannot show: other workloads and severities,
default thresholds that need large layouts, and where each rule stays silent."""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.check.engine import check
from rackdesigner.layout_io import load_text
from tests.topology.test_topology import fat_tree, layout_text

TRAINING = '[workload]\nkind = "training"'
INFERENCE = '[workload]\nkind = "inference"'


def findings(
    code: str, devices: list[tuple[str, str]], links: list[tuple[str, str]], head: str = ""
) -> list:
    _, diagnostics = check(load_text(layout_text(devices, links, head=head)), select=[code])
    return [d for d in diagnostics if d.code == code]


# -- NET001 --------------------------------------------------------------------------------


def _ethernet(nodes: int) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    devices = [(f"n{i}", "g493-sb0") for i in range(1, nodes + 1)] + [("eth", "sn5600")]
    return devices, [(f"n{i}:eth1", f"eth:p{i}") for i in range(1, nodes + 1)]


PCIE = '[catalog.g493-sb0]\ngpu = "h100-pcie"\n'


@pytest.mark.parametrize("workload", ["", INFERENCE])
def test_net001_only_for_training(workload: str) -> None:
    assert findings("NET001", *_ethernet(5), head=PCIE + workload) == []


def test_net001_fine_tuning_counts_as_training() -> None:
    found = findings("NET001", *_ethernet(5), head=PCIE + '[workload]\nkind = "fine-tuning"')
    assert [d.entity for d in found] == ["fabric eth"]


# -- NET002 --------------------------------------------------------------------------------


def _leaf(down: int, up: int) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Two DGX H100 with ``down`` cables in all to leaf1, which has ``up`` uplinks."""
    per_node = down // 2
    return fat_tree(nodes_per_leaf=2, leaves=1, cables_per_node=per_node, uplinks_per_leaf=up)


def test_net002_inference_allows_four_to_one() -> None:
    assert findings("NET002", *_leaf(16, 4), head=INFERENCE) == []
    found = findings("NET002", *_leaf(16, 3), head=INFERENCE)
    assert [(d.entity, d.severity) for d in found] == [("device leaf1", "warning")]
    assert found[0].values["ratio"] == pytest.approx(16 / 3)
    assert found[0].values["limit"] == 4.0
    assert "5.33:1 oversubscribed, above the 4:1 allowed for inference" in found[0].message


def test_net002_without_workload_warns_at_the_training_ratio() -> None:
    found = findings("NET002", *_leaf(4, 2))
    assert [(d.entity, d.severity) for d in found] == [("device leaf1", "warning")]
    assert "no [workload]" in found[0].message
    assert found[0].hint is not None and "2 more × 400 Gbps" in found[0].hint


def test_net002_training_error_and_non_blocking_silent() -> None:
    found = findings("NET002", *_leaf(4, 2), head=TRAINING)
    assert [(d.entity, d.severity) for d in found] == [("device leaf1", "error")]
    assert findings("NET002", *_leaf(4, 4), head=TRAINING) == []


def test_net002_threshold_override() -> None:
    head = TRAINING + "\n[rules.thresholds]\noversubscription_max_training = 2.0"
    assert findings("NET002", *_leaf(4, 2), head=head) == []


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
    found = findings("NET002", *_two_leaves_one_cable(), head=TRAINING)
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
    assert findings("NET002", devices, links, head=TRAINING) == []
    analysis = Analysis(load_text(layout_text(devices, links)))
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
    assert findings("NET002", *_dragonfly(4), head=TRAINING) == []
    found = findings("NET002", *_dragonfly(1), head=TRAINING)
    assert [d.entity for d in found] == ["device g1spine", "device g2spine"]
    assert found[0].values["ratio"] == pytest.approx(0.25)
    # Inference allows 4:1, so a global ratio of 1/4.
    assert findings("NET002", *_dragonfly(1), head='[workload]\nkind = "inference"') == []


# -- NET003 --------------------------------------------------------------------------------


def _two_nodes(cables: int) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    return fat_tree(nodes_per_leaf=2, leaves=1, cables_per_node=cables, uplinks_per_leaf=0)


def _workload(
    parallelism: str,
    steps: str = "steps_per_second = 1.0",
    kind: str = "training",
    extra: str = "model_params = 70e9\nbytes_per_param = 2",
) -> str:
    para = f'parallelism = "{parallelism}"\n' if parallelism else ""
    return f'[workload]\nkind = "{kind}"\n{para}{steps}\n{extra}'


def test_net003_fsdp_counts_three_times_the_parameters() -> None:
    found = findings("NET003", *_two_nodes(1), head=_workload("fsdp"))
    assert len(found) == 1
    # per fabric port: 3 × 70e9 × 2 B × (2 − 1)/2 nodes × 1 /s × 8 bit ÷ 1 port
    assert found[0].values["needed"] == pytest.approx(3 * 70e9 * 2 / 2 * 8)
    assert found[0].values["available"] == pytest.approx(400e9 * 0.85)
    assert found[0].values["ports"] == 1.0 and found[0].values["nodes"] == 2.0


def test_net003_divides_by_the_node_ports_not_its_gpus() -> None:
    # v1 divided the cross-node traffic by the node's 8 GPUs over 16 GPUs in the fabric
    # and warned here; hierarchical collectives send 1/8 of it per port, 210 Gbps < 340.
    assert findings("NET003", *_two_nodes(8), head=_workload("fsdp")) == []
    found = findings("NET003", *_two_nodes(4), head=_workload("fsdp"))
    assert len(found) == 1
    assert found[0].values["needed"] == pytest.approx(3 * 70e9 * 2 / 2 * 8 / 4)


@pytest.mark.parametrize(
    "head",
    [
        _workload("tensor"),
        _workload("pipeline"),
        _workload(""),
        _workload("zero3", steps=""),
        _workload("ddp", extra="model_params = 70e9"),
        _workload("ddp", kind="inference"),
    ],
)
def test_net003_silent_without_its_inputs(head: str) -> None:
    assert findings("NET003", *_two_nodes(1), head=head) == []


def test_net003_silent_for_a_single_node() -> None:
    devices = [("n1", "dgx-h100"), ("leaf", "qm9700")]
    assert findings("NET003", devices, [("n1:ib1", "leaf:p1")], head=_workload("ddp")) == []


# -- NET004 --------------------------------------------------------------------------------


# v1.2: above 128 GPUs (dragonfly_min_gpus) but far within the 64²/2 = 2,048 node ports a
# two-tier tree of 64-port switches closes: silent either way (tests/rules/NET004 fires).
@pytest.mark.parametrize(("nodes", "fires"), [(16, False), (17, False)])
def test_net004_default_threshold_is_128_gpus(nodes: int, fires: bool) -> None:
    devices = [(f"n{i}", "dgx-h100") for i in range(1, nodes + 1)]
    devices += [("leaf1", "qm9700"), ("leaf2", "qm9700"), ("spine", "qm9700")]
    links = [(f"n{i}:ib1", f"leaf{1 + i % 2}:p{i}") for i in range(1, nodes + 1)]
    links += [("leaf1:p40", "spine:p1"), ("leaf2:p40", "spine:p2")]
    found = findings("NET004", devices, links)
    assert [d.entity for d in found] == (["fabric leaf1"] if fires else [])


def test_net004_silent_for_one_tier() -> None:
    devices = [(f"n{i}", "dgx-h100") for i in range(1, 18)] + [("leaf", "qm9700")]
    links = [(f"n{i}:ib1", f"leaf:p{i}") for i in range(1, 18)]
    assert findings("NET004", devices, links) == []


# -- NET006 --------------------------------------------------------------------------------


def test_net006_silent_for_inference_and_for_one_node() -> None:
    devices = [("n1", "dgx-h100"), ("n2", "dgx-h100")]
    assert findings("NET006", devices, [], head=INFERENCE) == []
    assert findings("NET006", devices[:1], [], head=TRAINING) == []
    assert [d.entity for d in findings("NET006", devices, [], head=TRAINING)] == [
        "device n1",
        "device n2",
    ]


def test_net006_reports_every_smaller_fabric_against_the_largest() -> None:
    devices = [
        ("a", "dgx-h100"),
        ("leafa", "qm9700"),
        ("b1", "dgx-h100"),
        ("b2", "dgx-h100"),
        ("leafb", "qm9700"),
        ("c", "dgx-h100"),
        ("leafc", "qm9700"),
    ]
    links = [
        ("a:ib1", "leafa:p1"),
        ("b1:ib1", "leafb:p1"),
        ("b2:ib1", "leafb:p2"),
        ("c:ib1", "leafc:p1"),
    ]
    found = findings("NET006", devices, links, head=TRAINING)
    assert sorted(d.entity for d in found) == ["fabric leafa", "fabric leafc"]
    assert all("fabric leafb (16 GPUs on 2 nodes)" in d.message for d in found)


# -- NET007 --------------------------------------------------------------------------------


def test_net007_single_node_layout_gets_the_intra_node_figure_once_per_model() -> None:
    found = findings("NET007", [("n1", "dgx-h100"), ("n2", "dgx-h100"), ("n3", "dgx-b200")], [])
    assert [d.entity for d in found] == ["device n1", "device n3"]
    h100, b200 = found
    assert h100.values["intra"] == pytest.approx(450e9 * 8 * 0.85)
    assert h100.values["nodes"] == 2.0 and "and 1 more node of model dgx-h100" in h100.message
    assert b200.values["intra"] == pytest.approx(900e9 * 8 * 0.85)


def test_net007_non_blocking_fabric_is_not_divided() -> None:
    found = findings(
        "NET007", *fat_tree(nodes_per_leaf=2, leaves=2, cables_per_node=8, uplinks_per_leaf=16)
    )
    assert len(found) == 1
    # v1.1: the node's whole fabric bandwidth (8 × 400 Gbps × 85 %), not one port's share.
    assert found[0].values["inter"] == pytest.approx(8 * 400e9 * 0.85)
    assert "oversubscription" not in found[0].values
    assert "340 GB/s between nodes" in found[0].message


def test_net007_promises_a_dgx_h100_its_eight_ports_not_one() -> None:
    found = findings(
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
    (finding,) = findings("NET007", devices, links, head=catalog)
    assert finding.values["inter"] == pytest.approx(64e9 * 8 * 0.85)
    assert "capped at the figure inside the node" in finding.message


def _net003(workload_lines: str, width: bool = True) -> list[str]:
    """NET003's messages on its fires fixture with other workload lines (and without its
    bytes_per_param when ``width`` is False)."""
    from tests.conftest import ROOT

    text = (ROOT / "tests" / "rules" / "NET003" / "fires.toml").read_text(encoding="utf-8")
    text = text.replace('parallelism = "ddp"\n', workload_lines)
    if not width:
        text = text.replace("bytes_per_param = 2\n", "")
    _, diagnostics = check(load_text(text), select=["NET003"])
    return [d.message for d in diagnostics if d.code == "NET003"]


def test_net003_zero3_moves_half_as_much_again_as_ddp() -> None:
    """The fixture's DDP step needs 42.6 GB/s a port of 42.5: DDP with ZeRO-1 or -2 moves the
    same (k = 2) and fires; FSDP with zero_stage = 2 (SHARD_GRAD_OP) is ZeRO-2, k = 2, fires
    the same; full-shard FSDP, k = 3, needs 63.8 GB/s."""
    assert len(_net003('parallelism = "ddp"\nzero_stage = 1\n')) == 1
    same = _net003('parallelism = "fsdp"\nzero_stage = 2\n')
    assert len(same) == 1 and "needs 42.6 GB/s" in same[0]
    assert "needs 63.8 GB/s" in _net003('parallelism = "fsdp"\n')[0]


def test_net003_reads_the_gradient_width_from_the_precision() -> None:
    """Without bytes_per_param, precision = "fp32" sends 4 B a value: twice the fixture's
    42.6 GB/s, 85.1 GB/s; without either the rule stays silent."""
    fp32 = _net003('parallelism = "ddp"\nprecision = "fp32"\n', width=False)
    assert len(fp32) == 1 and "needs 85.1 GB/s" in fp32[0]
    assert _net003('parallelism = "ddp"\n', width=False) == []
