"""The report's v1.1 fabric figures: lateral links, global ratio, bisection by max flow, hops."""

from __future__ import annotations

import networkx as nx
import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.layout_io import load_text
from rackdesigner.topology.figures import FabricFigures, adjacency, all_fabric_figures
from tests.topology.test_topology import CATALOG, fat_tree, layout_text

GBPS = 1e9
SW32 = (
    CATALOG
    + """
[catalog.sw32]
kind = "switch"
height = "1 U"
power = "500 W"
ports = [{ name = "p", count = 32, speed = "400 Gbps", tech = "infiniband" }]
"""
)


def figures(devices: list[tuple[str, str]], links: list[tuple[str, str]]) -> FabricFigures:
    analysis = Analysis(load_text(layout_text(devices, links, catalog=SW32)))
    (fabric,) = all_fabric_figures(analysis)
    return fabric


def brute_force_bisection(devices: list[tuple[str, str]], links: list[tuple[str, str]]) -> float:
    """The definition's max flow on the whole graph, nothing merged."""
    analysis = Analysis(load_text(layout_text(devices, links, catalog=SW32)))
    (fabric,) = analysis.fabrics
    adj = adjacency(analysis)
    leaves = [
        d.id for d in fabric.devices if d.id in fabric.switches and fabric.switches[d.id].tier == 1
    ]
    half = len(leaves) // 2
    flow = nx.DiGraph()
    for a, row in adj.items():
        for b, bandwidth in row.items():
            flow.add_edge(a, b, capacity=bandwidth)
    for leaf in leaves[:half]:
        flow.add_edge("s", leaf, capacity=fabric.switches[leaf].down)
    for leaf in leaves[half:]:
        flow.add_edge(leaf, "t", capacity=fabric.switches[leaf].down)
    return nx.maximum_flow_value(flow, "s", "t")


def two_leaves_joined_by_one_cable() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """rules.md's example: two leaves of 16 × 400G node ports joined by one 400G cable."""
    devices, links = [], []
    for leaf in (1, 2):
        for n in (1, 2):
            node = f"n{leaf}-{n}"
            devices.append((node, "dgx-h100"))
            links += [(f"{node}:ib{i}", f"leaf{leaf}:p{(n - 1) * 8 + i}") for i in range(1, 9)]
        devices.append((f"leaf{leaf}", "sw32"))
    links.append(("leaf1:p17", "leaf2:p17"))
    return devices, links


def test_two_leaves_joined_by_one_cable() -> None:
    fig = figures(*two_leaves_joined_by_one_cable())
    assert fig.bisection.bandwidth == pytest.approx(400 * GBPS)
    assert fig.bisection.ratio == pytest.approx(1 / 16)
    assert fig.global_ratio == pytest.approx(1 / 16)
    assert len(fig.groups) == 2
    assert fig.oversubscription == pytest.approx(16)
    # Leaves are the top tier: no oversubscription of their own; one lateral cable.
    (tier,) = [t for t in fig.tiers if t.tier == 1]
    assert tier.oversubscription is None and tier.lateral_cables == 1
    # NET007 v1.1: the node's whole fabric bandwidth × 0.85 ÷ r.
    assert fig.inter == pytest.approx(8 * 400 * GBPS * 0.85 / 16)


def test_a_head_node_on_both_leaves_does_not_join_their_groups() -> None:
    """rules.md's two leaves of 16 x 400G node ports joined by one 400G cable, with a head
    node on compute ports cabled to both leaves. A host forwards no fabric traffic, so the
    groups stay two, each of 2 nodes at 0.4 / 6.4 = 1/16, as NET002 judges them (the
    fabric's groups): r = 16, between nodes 8 x 400 x 0.85 / 16 = 170 Gbit/s. The report's
    figures once joined the groups through the head node and showed none (r = 1)."""
    devices, links = two_leaves_joined_by_one_cable()
    devices.append(("head1", "head-compute"))
    links += [("head1:ib1", "leaf1:p18"), ("head1:ib2", "leaf2:p18")]
    analysis = Analysis(load_text(layout_text(devices, links, catalog=SW32)))
    (fabric,) = analysis.fabrics
    (fig,) = all_fabric_figures(analysis)
    assert len(fabric.groups) == 2
    assert [(g.anchor, g.gpu_nodes) for g in fig.groups] == [("leaf1", 2), ("leaf2", 2)]
    assert fig.global_ratio == pytest.approx(1 / 16)
    assert fig.oversubscription == pytest.approx(16) == fabric.oversubscription
    assert fig.inter == pytest.approx(8 * 400 * GBPS * 0.85 / 16)


def test_non_blocking_fat_tree() -> None:
    devices, links = fat_tree(
        nodes_per_leaf=2, leaves=4, cables_per_node=8, uplinks_per_leaf=16, spines=2
    )
    fig = figures(devices, links)
    injection = 8 * 8 * 400 * GBPS
    assert fig.bisection.bandwidth == pytest.approx(injection / 2)
    assert fig.bisection.ratio == pytest.approx(1.0)
    assert fig.oversubscription == pytest.approx(1.0) and fig.global_ratio is None
    assert fig.hops.hops == 4 and not fig.hops.through_nodes
    # The two spines share every leaf: merged into one class; nodes of a leaf likewise.
    assert fig.bisection.classes == 4 + 4 + 1
    assert fig.inter == pytest.approx(min(8 * 400 * GBPS * 0.85, 450e9 * 8 * 0.85))


def test_oversubscribed_fat_tree_bisection_is_the_uplinks() -> None:
    devices, links = fat_tree(
        nodes_per_leaf=2, leaves=4, cables_per_node=8, uplinks_per_leaf=8, spines=2
    )
    fig = figures(devices, links)
    assert fig.bisection.bandwidth == pytest.approx(2 * 8 * 400 * GBPS)
    assert fig.bisection.ratio == pytest.approx(0.5)
    assert fig.oversubscription == pytest.approx(2.0)
    assert next(t for t in fig.tiers if t.tier == 1).oversubscription == pytest.approx(2.0)


@pytest.mark.parametrize("uplinks", [4, 8, 13, 16])
def test_merging_twins_keeps_the_max_flow(uplinks: int) -> None:
    devices, links = fat_tree(
        nodes_per_leaf=2, leaves=5, cables_per_node=8, uplinks_per_leaf=uplinks, spines=3
    )
    assert figures(devices, links).bisection.bandwidth == pytest.approx(
        brute_force_bisection(devices, links)
    )


def test_twins_cabled_unlike_are_not_merged() -> None:
    """Two nodes on the same two leaves, n1 with 2 cables to leaf1 and 1 to leaf2, n2 the
    other way round: merged as twins they would carry min(3, 3) x 400G = 1.2 Tbit/s from
    leaf1 to leaf2; each can carry min(2, 1) x 400G, 0.8 Tbit/s in all, the definition's
    maximum flow on the graph."""
    devices = [("n1", "dgx-h100"), ("n2", "dgx-h100"), ("leaf1", "sw32"), ("leaf2", "sw32")]
    links = [
        ("n1:ib1", "leaf1:p1"),
        ("n1:ib2", "leaf1:p2"),
        ("n1:ib3", "leaf2:p1"),
        ("n2:ib1", "leaf1:p3"),
        ("n2:ib2", "leaf2:p2"),
        ("n2:ib3", "leaf2:p3"),
    ]
    assert brute_force_bisection(devices, links) == pytest.approx(800 * GBPS)
    assert figures(devices, links).bisection.bandwidth == pytest.approx(800 * GBPS)


def test_lateral_links_below_the_top_count_as_uplinks() -> None:
    # Two leaves of 16 node ports, 8 uplinks each to a spine and 8 cables to each other.
    devices, links = two_leaves_joined_by_one_cable()
    links = [link for link in links if link != ("leaf1:p17", "leaf2:p17")]
    links += [(f"leaf1:p{16 + i}", f"leaf2:p{16 + i}") for i in range(1, 9)]
    links += [
        (f"leaf{leaf}:p{24 + i}", f"spine:p{(leaf - 1) * 8 + i}")
        for leaf in (1, 2)
        for i in range(1, 9)
    ]
    devices.append(("spine", "sw32"))
    fig = figures(devices, links)
    leaf = next(t for t in fig.tiers if t.tier == 1)
    assert leaf.oversubscription == pytest.approx(1.0)  # 16 down ÷ (8 up + 8 lateral)
    assert leaf.lateral_cables == 8
    assert fig.oversubscription == pytest.approx(1.0)


def test_balanced_dragonfly_has_global_ratio_one() -> None:
    devices, links = [], []
    for g in (1, 2, 3):
        devices += [(f"g{g}-n", "dgx-h100"), (f"g{g}-leaf", "sw32"), (f"g{g}-spine", "sw32")]
        links += [(f"g{g}-n:ib{i}", f"g{g}-leaf:p{i}") for i in range(1, 9)]
        links += [(f"g{g}-leaf:p{8 + i}", f"g{g}-spine:p{i}") for i in range(1, 9)]
    # Each spine: 8 down, 4 global to each other group's spine.
    port = {1: 8, 2: 8, 3: 8}
    for a, b in ((1, 2), (1, 3), (2, 3)):
        for _ in range(4):
            port[a] += 1
            port[b] += 1
            links.append((f"g{a}-spine:p{port[a]}", f"g{b}-spine:p{port[b]}"))
    fig = figures(devices, links)
    assert len(fig.groups) == 3
    assert fig.global_ratio == pytest.approx(1.0)
    assert fig.oversubscription == pytest.approx(1.0)


def test_hops_through_a_node_where_no_switch_path_exists() -> None:
    devices = [("n1", "dgx-h100"), ("n2", "dgx-h100"), ("n3", "dgx-h100")]
    devices += [("leafa", "sw32"), ("leafb", "sw32")]
    links = [
        ("n1:ib1", "leafa:p1"),
        ("n2:ib1", "leafa:p2"),
        ("n2:ib2", "leafb:p1"),
        ("n3:ib1", "leafb:p2"),
    ]
    fig = figures(devices, links)
    assert fig.hops.hops == 4 and fig.hops.through_nodes


def test_one_leaf_is_half_the_injection() -> None:
    devices, links = fat_tree(nodes_per_leaf=2, leaves=1, cables_per_node=8, uplinks_per_leaf=0)
    fig = figures(devices, links)
    assert fig.bisection.bandwidth == pytest.approx(2 * 8 * 400 * GBPS / 2)
    assert fig.bisection.ratio == 1.0 and fig.hops.hops == 2


@pytest.mark.parametrize("name", ["training-128", "gb200-nvl72-su", "inference-32-b200"])
def test_figures_without_detail_are_the_same_figures(name: str) -> None:
    """``detail=False`` (what ``diff`` asks for) leaves out the cable counts and the hops,
    and nothing else."""
    from rackdesigner.layout_io.document import load
    from rackdesigner.topology.figures import NOT_SEARCHED
    from tests.conftest import ROOT

    analysis = Analysis(load(ROOT / "layouts" / f"{name}.toml").layout)
    full = all_fabric_figures(analysis)
    lean = all_fabric_figures(analysis, detail=False)
    assert full and len(lean) == len(full)
    for a, b in zip(full, lean, strict=True):
        assert b.hops == NOT_SEARCHED and a.hops.hops is not None
        for tier in b.tiers:
            assert not tier.cables and not tier.lateral_cables
        # Without the cables, only the switches' tiers are there (no tier 0).
        assert [
            (t.tier, t.switches, t.oversubscription, t.down, t.up, t.lateral)
            for t in a.tiers
            if t.switches
        ] == [(t.tier, t.switches, t.oversubscription, t.down, t.up, t.lateral) for t in b.tiers]
        for name_ in (
            "oversubscription",
            "oversubscription_by_switch",
            "groups",
            "global_ratio",
            "bisection",
            "intra",
            "inter",
            "sus",
            "within_su",
            "across_su",
        ):
            assert getattr(b, name_) == getattr(a, name_), name_
