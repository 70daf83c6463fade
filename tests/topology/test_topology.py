"""The fabric analytics of rackdesigner.analysis.fabric_graph on small generated layouts.

Layouts are built as TOML text (:func:`layout_text`) so they go through the real loader:
devices are stacked in one tall rack (positions do not matter to the fabric), links name
``device:port`` ends.
"""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.fabric_graph import Fabric
from rackdesigner.layout_io import load_text

GBPS = 1e9

# A small InfiniBand switch and a head node with InfiniBand compute ports (an endpoint on the
# fabric that is not a GPU node).
CATALOG = """
[catalog.sw16]
kind = "switch"
height = "1 U"
power = "500 W"
ports = [{ name = "p", count = 16, speed = "400 Gbps", tech = "infiniband" }]

[catalog.head]
kind = "cpu-node"
height = "1 U"
power = "800 W"
ports = [{ name = "ib", count = 2, speed = "400 Gbps", tech = "infiniband" }]

[catalog.head-compute]
kind = "cpu-node"
height = "1 U"
power = "800 W"
ports = [{ name = "ib", count = 2, speed = "400 Gbps", tech = "infiniband", role = "compute" }]
"""


def layout_text(
    devices: list[tuple[str, str]],
    links: list[tuple[str, str]],
    *,
    head: str = "",
    catalog: str = CATALOG,
) -> str:
    """Racks of four devices each, side by side; ``devices`` are (id, model)."""
    out = ["format = 1", 'name = "topology test"', head, catalog]
    for number, (device_id, model) in enumerate(devices):
        if number % 4 == 0:
            out += [
                "[[racks]]",
                f'id = "r{number // 4 + 1}"',
                'row = "A"',
                f"slot = {number // 4 + 1}",
            ]
        out += [
            "[[racks.devices]]",
            f'id = "{device_id}"',
            f'model = "{model}"',
            f"position = {1 + 10 * (number % 4)}",
        ]
    for a, b in links:
        out += ["[[links]]", f'a = "{a}"', f'b = "{b}"', 'media = "aoc"']
    return "\n".join(out) + "\n"


def analyse(
    devices: list[tuple[str, str]], links: list[tuple[str, str]], **kwargs: str
) -> Analysis:
    return Analysis(load_text(layout_text(devices, links, **kwargs)))


def only_fabric(analysis: Analysis) -> Fabric:
    assert len(analysis.fabrics) == 1, [f.name for f in analysis.fabrics]
    return analysis.fabrics[0]


def fat_tree(
    nodes_per_leaf: int,
    leaves: int,
    cables_per_node: int,
    uplinks_per_leaf: int,
    spines: int = 1,
    leaf_model: str = "qm9700",
    spine_model: str = "qm9700",
    node_model: str = "dgx-h100",
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Nodes single-homed to their leaf with ``cables_per_node`` cables; each leaf's uplinks
    spread round-robin over the spines."""
    devices: list[tuple[str, str]] = []
    links: list[tuple[str, str]] = []
    spine_port = {s: 0 for s in range(1, spines + 1)}
    for leaf in range(1, leaves + 1):
        leaf_id = f"leaf{leaf}"
        port = 0
        for n in range(1, nodes_per_leaf + 1):
            node_id = f"n{leaf}-{n}"
            devices.append((node_id, node_model))
            for cable in range(1, cables_per_node + 1):
                port += 1
                links.append((f"{node_id}:ib{cable}", f"{leaf_id}:p{port}"))
        devices.append((leaf_id, leaf_model))
        for up in range(uplinks_per_leaf):
            port += 1
            spine = up % spines + 1
            spine_port[spine] += 1
            links.append((f"{leaf_id}:p{port}", f"spine{spine}:p{spine_port[spine]}"))
    devices += [(f"spine{s}", spine_model) for s in range(1, spines + 1)]
    return devices, links


# -- tiers, oversubscription, bisection --------------------------------------------------


def test_two_tier_one_to_one_fat_tree_has_no_oversubscription() -> None:
    fabric = only_fabric(
        analyse(
            *fat_tree(nodes_per_leaf=2, leaves=2, cables_per_node=8, uplinks_per_leaf=16, spines=2)
        )
    )
    assert fabric.is_fat_tree and fabric.max_tier == 2
    assert fabric.tech == "infiniband"
    assert fabric.gpus == 32 and len(fabric.nodes) == 4
    leaves, spines = fabric.tier_switches(1), fabric.tier_switches(2)
    assert sorted(s.device.id for s in leaves) == ["leaf1", "leaf2"]
    assert sorted(s.device.id for s in spines) == ["spine1", "spine2"]
    for leaf in leaves:
        assert leaf.down == leaf.up == 16 * 400 * GBPS
        assert leaf.oversubscription == pytest.approx(1.0)
    for spine in spines:
        assert spine.top and spine.oversubscription is None
        assert spine.down == 16 * 400 * GBPS and spine.up == 0


def test_leaf_with_32_down_and_16_up_is_two_to_one() -> None:
    fabric = only_fabric(
        analyse(*fat_tree(nodes_per_leaf=4, leaves=2, cables_per_node=8, uplinks_per_leaf=16))
    )
    for leaf in fabric.tier_switches(1):
        assert leaf.down == 32 * 400 * GBPS
        assert leaf.up == 16 * 400 * GBPS
        assert leaf.oversubscription == pytest.approx(2.0)


def test_lower_tier_switch_without_uplinks_is_infinitely_oversubscribed() -> None:
    devices, links = fat_tree(nodes_per_leaf=2, leaves=1, cables_per_node=2, uplinks_per_leaf=4)
    # rail 3 of both nodes on a leaf with no uplinks
    devices.append(("rail3", "qm9700"))
    links += [("n1-1:ib3", "rail3:p1"), ("n1-2:ib3", "rail3:p2")]
    fabric = only_fabric(analyse(devices, links))
    rail = fabric.switches["rail3"]
    assert rail.tier == 1 and not rail.top
    assert rail.oversubscription == float("inf")


def test_single_switch_fabric_is_non_blocking() -> None:
    devices = [(f"n{i}", "dgx-h100") for i in range(1, 5)] + [("leaf", "qm9700")]
    links = [(f"n{i}:ib{c}", f"leaf:p{(i - 1) * 8 + c}") for i in range(1, 5) for c in range(1, 9)]
    fabric = only_fabric(analyse(devices, links))
    leaf = fabric.switches["leaf"]
    assert fabric.max_tier == 1 and not fabric.is_fat_tree
    assert leaf.top and leaf.oversubscription is None
    assert fabric.injection == 4 * 8 * 400 * GBPS
    assert fabric.bisection == pytest.approx(fabric.injection / 2)


def test_bisection_of_non_blocking_fabric_is_half_the_injection() -> None:
    fabric = only_fabric(
        analyse(*fat_tree(nodes_per_leaf=2, leaves=2, cables_per_node=8, uplinks_per_leaf=16))
    )
    assert fabric.injection == 4 * 8 * 400 * GBPS
    assert fabric.bisection == pytest.approx(fabric.injection / 2)


def test_bisection_of_oversubscribed_fabric_is_half_the_uplinks() -> None:
    fabric = only_fabric(
        analyse(*fat_tree(nodes_per_leaf=4, leaves=2, cables_per_node=8, uplinks_per_leaf=16))
    )
    assert fabric.bisection == pytest.approx(2 * 16 * 400 * GBPS / 2)


def test_node_bandwidth_sums_parallel_cables() -> None:
    devices = [("n1", "dgx-h100"), ("n2", "dgx-h100"), ("leaf", "qm9700")]
    links = [
        ("n1:ib1", "leaf:p1"),
        ("n1:ib2", "leaf:p2"),
        ("n1:ib3", "leaf:p3"),
        ("n2:ib1", "leaf:p4"),
    ]
    fabric = only_fabric(analyse(devices, links))
    assert fabric.node_bandwidth == {"n1": 1200 * GBPS, "n2": 400 * GBPS}


def test_three_tiers() -> None:
    devices = [
        ("n1", "dgx-h100"),
        ("n2", "dgx-h100"),
        ("leaf1", "qm9700"),
        ("leaf2", "qm9700"),
        ("spine1", "qm9700"),
        ("spine2", "qm9700"),
        ("core", "qm9700"),
    ]
    links = [
        ("n1:ib1", "leaf1:p1"),
        ("n2:ib1", "leaf2:p1"),
        ("leaf1:p2", "spine1:p1"),
        ("leaf2:p2", "spine2:p1"),
        ("spine1:p2", "core:p1"),
        ("spine2:p2", "core:p2"),
    ]
    fabric = only_fabric(analyse(devices, links))
    assert {s.device.id: s.tier for s in fabric.switches.values()} == {
        "leaf1": 1,
        "leaf2": 1,
        "spine1": 2,
        "spine2": 2,
        "core": 3,
    }
    assert fabric.max_tier == 3 and fabric.is_fat_tree
    assert fabric.switches["spine1"].oversubscription == pytest.approx(1.0)
    assert fabric.switches["core"].oversubscription is None


# -- fabrics: parts, roles, technology ---------------------------------------------------


def test_disconnected_parts_are_separate_fabrics_in_file_order() -> None:
    devices = [("n1", "dgx-h100"), ("leafa", "qm9700"), ("n2", "dgx-h100"), ("leafb", "qm9700")]
    links = [("n2:ib1", "leafb:p1"), ("n1:ib1", "leafa:p1")]
    fabrics = analyse(devices, links).fabrics
    assert [f.name for f in fabrics] == ["leafa", "leafb"]
    assert [[n.id for n in f.nodes] for f in fabrics] == [["n1"], ["n2"]]


def test_storage_and_management_ports_form_no_fabric() -> None:
    devices = [
        ("n1", "dgx-h100"),
        ("n2", "dgx-h100"),
        ("mgmt", "sn2201"),
        ("st", "storage-node"),
        ("ib", "qm9700"),
    ]
    links = [("n1:bmc1", "mgmt:mgmt1"), ("n2:bmc1", "mgmt:mgmt2"), ("st:ib1", "ib:p1")]
    assert analyse(devices, links).fabrics == []


def test_ethernet_fabric_technology() -> None:
    devices = [("n1", "g493-sb0"), ("n2", "g493-sb0"), ("eth", "sn5600")]
    links = [("n1:eth1", "eth:p1"), ("n2:eth1", "eth:p2")]
    head = '[catalog.g493-sb0]\ngpu = "h100-pcie"'
    fabric = only_fabric(analyse(devices, links, head=head))
    assert fabric.tech == "ethernet"
    assert fabric.gpus == 16
    # a link runs at its slower end: 200 Gbps node port into an 800 Gbps switch port
    assert fabric.node_bandwidth["n1"] == 200 * GBPS


# -- single points of failure ------------------------------------------------------------


def test_single_leaf_connecting_four_nodes_is_a_cut_switch() -> None:
    devices = [(f"n{i}", "dgx-h100") for i in range(1, 5)] + [("leaf", "qm9700")]
    links = [(f"n{i}:ib1", f"leaf:p{i}") for i in range(1, 5)]
    fabric = only_fabric(analyse(devices, links))
    assert [(d.id, parts) for d, parts in fabric.cut_switches] == [("leaf", 4)]


def test_node_with_one_cable_has_a_cut_link() -> None:
    devices = [
        ("n1", "dgx-h100"),
        ("n2", "dgx-h100"),
        ("n3", "dgx-h100"),
        ("leaf1", "qm9700"),
        ("leaf2", "qm9700"),
    ]
    links = [
        ("n1:ib1", "leaf1:p1"),
        ("n1:ib2", "leaf2:p1"),
        ("n2:ib1", "leaf1:p2"),
        ("n2:ib2", "leaf2:p2"),
        ("n3:ib1", "leaf1:p3"),
    ]
    fabric = only_fabric(analyse(devices, links))
    assert [(link.entity, cut) for link, cut in fabric.cut_links] == [
        ("link n3:ib1 -> leaf1:p3", 1)
    ]
    assert [(d.id, parts) for d, parts in fabric.cut_switches] == [("leaf1", 2)]


def test_node_with_eight_cables_to_one_leaf_has_no_cut_link() -> None:
    devices = [("n1", "dgx-h100"), ("n2", "dgx-h100"), ("leaf", "qm9700")]
    links = [(f"n{i}:ib{c}", f"leaf:p{(i - 1) * 8 + c}") for i in (1, 2) for c in range(1, 9)]
    fabric = only_fabric(analyse(devices, links))
    assert fabric.cut_links == []
    # ... but the leaf they all hang on still is a single point of failure
    assert [(d.id, parts) for d, parts in fabric.cut_switches] == [("leaf", 2)]


def test_rail_optimised_fabric_has_no_single_point_of_failure() -> None:
    devices = [(f"n{i}", "dgx-h100") for i in range(1, 5)]
    devices += [(f"rail{r}", "qm9700") for r in range(1, 9)]
    links = [(f"n{i}:ib{r}", f"rail{r}:p{i}") for i in range(1, 5) for r in range(1, 9)]
    fabric = only_fabric(analyse(devices, links))
    assert fabric.cut_switches == [] and fabric.cut_links == []


def test_uplink_bridge_cuts_off_the_nodes_behind_it() -> None:
    devices, links = fat_tree(nodes_per_leaf=3, leaves=2, cables_per_node=1, uplinks_per_leaf=1)
    fabric = only_fabric(analyse(devices, links))
    uplinks = {link.entity: cut for link, cut in fabric.cut_links if "spine" in link.entity}
    assert uplinks == {"link leaf1:p4 -> spine1:p1": 3, "link leaf2:p4 -> spine1:p2": 3}
    parts = {d.id: p for d, p in fabric.cut_switches}
    assert parts == {"leaf1": 4, "leaf2": 4, "spine1": 2}


def test_fabric_with_one_gpu_node_has_no_single_points_of_failure() -> None:
    devices = [("n1", "dgx-h100"), ("leaf", "qm9700")]
    fabric = only_fabric(analyse(devices, [("n1:ib1", "leaf:p1")]))
    assert fabric.cut_switches == [] and fabric.cut_links == []


# -- regressions ---------------------------------------------------------------------------


def test_a_login_node_on_infiniband_is_not_in_the_fabric_by_default() -> None:
    # rules.md: fast ports default to compute on GPU nodes and switches only.
    devices, links = fat_tree(nodes_per_leaf=2, leaves=1, cables_per_node=2, uplinks_per_leaf=2)
    devices.append(("login", "head"))
    links.append(("login:ib1", "leaf1:p16"))
    fabric = only_fabric(analyse(devices, links))
    assert "login" not in {d.id for d in fabric.devices}
    assert fabric.switches["leaf1"].oversubscription == pytest.approx(2.0)  # 4 down, 2 up


def test_endpoint_on_a_leaf_is_not_an_uplink() -> None:
    devices, links = fat_tree(nodes_per_leaf=2, leaves=1, cables_per_node=2, uplinks_per_leaf=2)
    devices.append(("login", "head-compute"))
    links.append(("login:ib1", "leaf1:p16"))
    fabric = only_fabric(analyse(devices, links))
    leaf = fabric.switches["leaf1"]
    assert leaf.up == 2 * 400 * GBPS  # the spine only
    assert leaf.oversubscription == pytest.approx(2.5)  # 4 node + 1 head cables down, 2 up


def test_two_nodes_back_to_back_on_one_cable_have_a_cut_link() -> None:
    fabric = only_fabric(analyse([("n1", "dgx-h100"), ("n2", "dgx-h100")], [("n1:ib1", "n2:ib1")]))
    assert [(link.entity, cut) for link, cut in fabric.cut_links] == [("link n1:ib1 -> n2:ib1", 1)]
