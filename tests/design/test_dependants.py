"""What a delete takes with it or breaks: cables, GPU nodes left without a compute
fabric, racks naming a deleted CDU or rear door; as a pure function, without Textual."""

from __future__ import annotations

from rackdesigner.design.dependants import dependants
from rackdesigner.layout_io import load_path
from rackdesigner.layout_io.catalog import builtin, for_layout
from rackdesigner.model.layout import Device, Layout, Link, Rack
from tests.conftest import ROOT


def _two_leaves() -> Layout:
    """Four DGX B200: n1 and n2 cabled to leaf1 only, n3 to leaf1 and leaf2, n4 to leaf2;
    leaf1 has one management cable to n1's BMC, which is not compute fabric."""
    nodes = [Device(f"n{i}", "dgx-b200", position=1 + 10 * (i - 1)) for i in range(1, 5)]
    leaves = [Device(f"leaf{i}", "qm9700", position=40 + i) for i in (1, 2)]
    links = [
        Link("n1:ib1", "leaf1:p1"),
        Link("n1:ib2", "leaf1:p2"),
        Link("n2:ib1", "leaf1:p3"),
        Link("n3:ib1", "leaf1:p4"),
        Link("n3:ib2", "leaf2:p1"),
        Link("n4:ib1", "leaf2:p2"),
        Link("n1:bmc1", "leaf1:mgmt1"),
    ]
    rack = Rack("a01", row="A", slot=1, devices=[*nodes, *leaves])
    return Layout(name="t", racks=[rack], links=links)


def test_a_leaf_takes_its_cables_and_strands_the_nodes_cabled_to_it_alone() -> None:
    found = dependants(_two_leaves(), builtin().devices, ["leaf1"])
    assert found.cables == 5
    assert found.stranded == ("n1", "n2")  # n3 keeps leaf2; the BMC cable is not compute
    assert found.racks == ()
    assert found
    assert found.text() == "leaf1 and its 5 cables; 2 nodes lose their compute fabric"
    one = dependants(_two_leaves(), builtin().devices, ["leaf2"])
    assert one.text() == "leaf2 and its 2 cables; node n4 loses its compute fabric"


def test_both_leaves_at_once_and_a_node_deleted_with_its_leaf_is_not_stranded() -> None:
    both = dependants(_two_leaves(), builtin().devices, ["leaf1", "leaf2"])
    assert both.cables == 7
    assert both.stranded == ("n1", "n2", "n3", "n4")
    assert both.text().startswith("leaf1 and leaf2 with their 7 cables; 4 nodes lose")
    with_node = dependants(_two_leaves(), builtin().devices, ["leaf2", "n4", "leaf2"])
    assert with_node.devices == ("leaf2", "n4")  # once each, in the order given
    assert with_node.stranded == ()  # n3 keeps leaf1; n4 goes itself
    assert with_node.cables == 2


def test_nothing_depends_on_an_uncabled_device() -> None:
    found = dependants(_two_leaves(), builtin().devices, ["n9-missing"])
    assert not found
    assert found.text() == "n9-missing"
    layout = load_path(ROOT / "layouts" / "training-128.toml")
    assert not dependants(layout, for_layout(layout).devices, ["a01-blank4"])


def test_racks_naming_a_deleted_rear_door_or_cdu() -> None:
    layout = load_path(ROOT / "layouts" / "inference-32-b200.toml")
    found = dependants(layout, for_layout(layout).devices, ["a01-door"])
    assert found.racks == (("a01", "rear door", "a01-door"),)
    assert found.text() == "a01-door; rack a01 loses its rear door a01-door"
    cdu = Device("a03-cdu", "coolit-chx750", position=1)
    racks = [
        Rack("a01", cooling="liquid", cdu=["a03-cdu", "other"]),
        Rack("a02", cooling="liquid", cdu="a03-cdu"),
        Rack("a03", devices=[cdu]),
    ]
    shared = dependants(Layout(name="t", racks=racks), builtin().devices, ["a03-cdu"])
    assert shared.racks == (("a01", "CDU", "a03-cdu"), ("a02", "CDU", "a03-cdu"))
    assert shared.text() == "a03-cdu; racks a01 and a02 lose their CDU a03-cdu"
    many = dependants(_two_leaves(), builtin().devices, ["n1", "n2", "n3", "n4"])
    assert many.text() == "4 devices with their 7 cables"


def test_the_session_index_gives_the_same_answer() -> None:
    from rackdesigner.edit import Session

    for layout, ids in (
        (_two_leaves(), ["leaf1"]),
        (_two_leaves(), ["leaf1", "leaf2", "n4"]),
        (load_path(ROOT / "layouts" / "inference-32-b200.toml"), ["a01-leaf", "a01-door"]),
        (load_path(ROOT / "layouts" / "training-128.toml"), ["a01-leaf1"]),
    ):
        session = Session(layout)
        catalog = session.index.catalog.devices
        assert dependants(layout, catalog, ids, index=session.index) == dependants(
            layout, catalog, ids
        )
