"""The core behind the designer's cabling dialogs: free ports, device search, the cable's
computed length and its proposed medium (connect.py), the Generate dialog's choices
(fabric_choices.py) and New from template's one-step fill (template_fill.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.analysis import Analysis
from rackdesigner.design.connect import (
    PortChoice,
    cable_length,
    free_ports,
    proposal,
    propose_media,
    rank_ports,
    search_devices,
)
from rackdesigner.design.fabric_choices import (
    default_fabric,
    default_leaf,
    dialog_wording,
    fitting_switches,
    gpu_nodes,
    parse_ratio,
    preview,
)
from rackdesigner.design.generators import FabricRequest, generate
from rackdesigner.design.template_fill import FillLayout, template_defaults
from rackdesigner.design.templates import NewOptions, build
from rackdesigner.edit import AddLink, EditError, LayoutIndex, Session
from rackdesigner.layout_io import dumps
from rackdesigner.layout_io.catalog import builtin
from rackdesigner.layout_io.document import loads
from rackdesigner.model.layout import Layout
from tests.builders import HEADER
from tests.strategies import examples

TWO_RACKS = (
    HEADER
    + """
[[racks]]
id = "a01"
row = "A"
slot = 1

[[racks.devices]]
id = "a01-n01"
model = "dgx-b200"
position = 1

[[racks.devices]]
id = "a01-n02"
model = "dgx-b200"
position = 11

[[racks.devices]]
id = "a01-leaf1"
model = "qm8700"
position = 21

[[racks]]
id = "a02"
row = "A"
slot = 2

[[racks.devices]]
id = "a02-n01"
model = "dgx-b200"
position = 1

[[racks]]
id = "b01"
row = "B"

[[racks.devices]]
id = "b01-n01"
model = "dgx-b200"
position = 1

[[links]]
a = "a01-n01:ib1"
b = "a01-leaf1:p1"
media = "dac"
"""
)


@pytest.fixture
def layout() -> Layout:
    return loads(TWO_RACKS).layout


def test_free_ports_leave_out_the_cabled_ones_in_catalog_order(layout: Layout) -> None:
    index = LayoutIndex(layout)
    node = free_ports(index, "a01-n01")
    assert [p.port for p in node][:3] == ["ib2", "ib3", "ib4"]
    assert all(p.role == "compute" and p.tech == "infiniband" for p in node if p.group == "ib")
    switch = free_ports(index, "a01-leaf1")
    assert switch[0].end == "a01-leaf1:p2" and switch[0].speed == 200e9
    assert switch[-1].end == "a01-leaf1:mgmt1" and switch[-1].role == "management"
    assert free_ports(index, "nope") == []
    # Cabling a port takes it off the list; undoing gives it back.
    session = Session(layout)
    session.do(AddLink("a01-n01:ib2", "a01-leaf1:p2", "dac"))
    assert free_ports(session.index, "a01-n01")[0].port == "ib3"
    session.undo()
    assert free_ports(session.index, "a01-n01")[0].port == "ib2"


def test_search_orders_exact_then_prefix_then_substring_and_empty_by_distance(
    layout: Layout,
) -> None:
    index = LayoutIndex(layout)
    found, more = search_devices(index, "a01-n01")
    assert found == ["a01-n01"] and not more
    found, _ = search_devices(index, "n01")
    assert found == ["a01-n01", "a02-n01", "b01-n01"]
    found, _ = search_devices(index, "A0")  # case-insensitive; prefix matches in id order
    assert found == ["a01-leaf1", "a01-n01", "a01-n02", "a02-n01"]
    # Empty: the rack of ``near`` first, then its neighbours outwards; ``exclude`` skipped.
    found, more = search_devices(index, "", near="b01-n01", exclude=["b01-n01"])
    assert found == ["a02-n01", "a01-n01", "a01-n02", "a01-leaf1"] and not more
    found, more = search_devices(index, "", near="a02-n01")
    assert found == ["a02-n01", "a01-n01", "a01-n02", "a01-leaf1", "b01-n01"]
    found, more = search_devices(index, "", limit=2)
    assert found == ["a01-n01", "a01-n02"] and more
    assert search_devices(index, "", limit=5) == (
        [*found, "a01-leaf1", "a02-n01", "b01-n01"],
        False,
    )


def test_rank_ports_puts_the_compatible_ones_first(layout: Layout) -> None:
    index = LayoutIndex(layout)
    node = free_ports(index, "a01-n01")[0]
    mgmt = PortChoice("x:mgmt1", "mgmt", 1e9, "ethernet", "management")
    ranked = rank_ports([mgmt, *free_ports(index, "a01-leaf1")[:2]], node)
    assert [p.port for p in ranked] == ["p2", "p3", "mgmt1"]
    assert rank_ports([mgmt], None) == [mgmt]


def test_cable_length_is_the_one_the_cabling_rules_compute(layout: Layout) -> None:
    index = LayoutIndex(layout)
    facts = Analysis(layout).links[0]
    assert cable_length(layout, index, "a01-n01:ib1", "a01-leaf1:p1") == pytest.approx(facts.length)
    # Across racks: up to the top, over the tray, down again, plus slack.
    across = cable_length(layout, index, "a01-n01:ib2", "a02-n01:ib1")
    layout.links.append(type(layout.links[0])("a01-n01:ib2", "a02-n01:ib1"))
    assert across == pytest.approx(Analysis(layout).links[-1].length)
    assert cable_length(layout, index, "a01-n01:ib2", "b01-n01:ib1") is None  # no slot


def test_the_media_proposal_follows_the_length_and_speed() -> None:
    assert propose_media(1.5, 400e9).media == "dac"
    assert propose_media(2.5, 400e9).media == "acc"  # 400G DAC reaches 2 m (rules v1.1)
    assert propose_media(2.5, 200e9).media == "dac"  # 200G DAC reaches 3 m
    assert propose_media(30.0, 400e9).media == "mmf"  # no AOC at 400G (media.toml)
    assert propose_media(500.0, 400e9).media == "smf"
    beyond = propose_media(50_000.0, 400e9)
    assert beyond.media is None and "beyond" in beyond.reason
    # Without a length: the medium that reaches farthest at the speed. No AOC exists at
    # 400G (media.toml); single-mode fibre reaches farthest at every speed band.
    unknown = propose_media(None, 400e9)
    assert unknown.media == "smf" and unknown.length is None and "500 m" in unknown.reason
    assert propose_media(None, 400e9, form="split").reason.endswith("100 m at 400G+")
    assert propose_media(None, 200e9).media == "smf"
    # Switch to a node's adapter is a splitter: 400G copper reaches 3 m there, not 2 m.
    assert propose_media(2.5, 400e9, form="split").media == "dac"
    # A layout's own reach overrides count, as they do for CAB003 and the generators.
    assert propose_media(2.5, 400e9, {"reach_dac": 3.0}).media == "dac"


def test_proposal_for_two_ports_uses_the_slower_end(layout: Layout) -> None:
    index = LayoutIndex(layout)
    node = free_ports(index, "a01-n02")[0]
    leaf = free_ports(index, "a01-leaf1")[0]
    found = proposal(layout, index, node, leaf)
    assert found.speed == 200e9 and found.media == "dac"
    assert proposal(layout, index, node, leaf, length=40.0).media == "aoc"


def test_gpu_nodes_are_the_selection_or_all() -> None:
    layout = loads(TWO_RACKS).layout
    catalog = builtin()
    every = gpu_nodes(layout, catalog)
    assert every.ids == ("a01-n01", "a01-n02", "a02-n01", "b01-n01") and every.gpus == 32
    assert not every.from_selection and every.speed == 400e9 and every.tech == "infiniband"
    chosen = gpu_nodes(layout, catalog, {"a01-n02", "a02-n01", "a01-leaf1"})
    assert chosen.ids == ("a01-n02", "a02-n01") and chosen.from_selection
    assert chosen.ignored == ("a01-leaf1",)
    assert gpu_nodes(layout, catalog, {"a01-leaf1"}).ids == every.ids
    assert default_fabric(every) == "leaf-spine"
    assert default_fabric(gpu_nodes(layout, catalog, {"a01-n01"})) == "direct"


def test_only_switches_that_fit_the_nodes_are_offered() -> None:
    catalog = builtin()
    infiniband = [s.key for s in fitting_switches(catalog, "infiniband")]
    assert infiniband == ["q3400", "qm9700", "qm8700"]  # fastest first; no Ethernet, no mgmt switch
    assert [s.key for s in fitting_switches(catalog, "ethernet")] == ["sn5600"]
    nodes = gpu_nodes(loads(TWO_RACKS).layout, catalog)
    switches = fitting_switches(catalog, nodes.tech)
    assert default_leaf(switches, nodes, None) == "qm9700"
    assert default_leaf(switches, nodes, 200e9) == "qm8700"
    assert default_leaf(switches, nodes, 800e9) == "q3400"  # XDR (Quantum-X800)


def test_parse_ratio() -> None:
    assert parse_ratio("2:1") == 2.0
    assert parse_ratio(" 3 : 2 ") == 1.5
    assert parse_ratio("4") == 4.0
    for bad in ("", "x", "1:2", "2:0", "-1"):
        with pytest.raises(ValueError):
            parse_ratio(bad)


def test_preview_counts_are_the_plans() -> None:
    layout = loads(TWO_RACKS).layout
    layout.links = []
    request = FabricRequest(fabric="leaf-spine", leaf="qm8700", redundant=False)
    plan = generate(layout, request)
    shown = preview(plan, builtin())
    assert (shown.leaves, shown.spines, shown.cores) == (
        plan.counts["leaves"],
        plan.counts["spines"],
        plan.counts["cores"],
    )
    assert shown.cables == len(plan.links) == 32
    assert sum(n for _, n in shown.media) == 32
    assert shown.racks_added == tuple(r.id for r in plan.new_racks)
    assert shown.lines()[1].startswith("cables 32: ")
    rack = plan.devices[0][0]  # where the plan puts its one switch
    assert shown.switch_racks == ((rack, 1),)
    assert shown.lines()[0].endswith(f"in {rack} (1)")


def test_a_preview_names_a_few_added_racks_and_notes_and_counts_the_rest() -> None:
    # 100,000 GPUs add 566 network racks, each with a note: the dialog listed them all.
    from dataclasses import replace

    layout = loads(TWO_RACKS).layout
    layout.links = []
    shown = preview(generate(layout, FabricRequest(fabric="leaf-spine")), builtin())
    racks = tuple(f"n{i:02d}" for i in range(20))
    notes = tuple(f"added network rack n{i:02d}: no rack nearby had room" for i in range(10))
    lines = replace(shown, racks_added=racks, notes=notes).lines()
    assert "racks 20 added (n00, n01, n02, n03, n04, n05, n06, n07 and 12 more)" in lines
    assert [line for line in lines if line.startswith("added network rack")] == list(notes[:4])
    assert "and 6 more notes like these" in lines


def test_dialog_wording_names_the_dialogs_fields() -> None:
    text = dialog_wording("3 compute links already end here; rerun with --replace to remove them")
    assert "--" not in text and "Replace existing links" in text
    assert dialog_wording("--leaf x: no such model") == "leaf x: no such model"


def test_template_defaults_are_the_command_lines() -> None:
    assert template_defaults("inference-32").gpu == "b200"
    assert template_defaults("inference-32").fabric == "leaf-spine"
    superpod = template_defaults("superpod")
    assert superpod.sus == 1 and superpod.gpus == 256 and superpod.node == "dgx-h100"
    assert template_defaults("").gpus == 64


def test_fill_layout_is_one_undoable_step_and_refuses_a_layout_with_racks() -> None:
    built = build(NewOptions(template="small"))
    text = dumps(built.layout)
    session = Session(Layout(name="untitled"))
    empty = dumps(session.layout)
    session.do(FillLayout(built.layout, "New from template small"))
    assert dumps(session.layout) == text
    assert session.index.device("a01-n01") is not None and session.dirty
    fresh = Session(loads(text).layout)
    assert [d.code for d in session.findings] == [d.code for d in fresh.findings]
    with pytest.raises(EditError, match="not empty"):
        session.do(FillLayout(built.layout, "again"))
    session.undo()
    assert dumps(session.layout) == empty and session.index.device("a01-n01") is None
    assert not session.dirty
    session.redo()
    assert dumps(session.layout) == text


@settings(max_examples=examples(60), deadline=None)
@given(
    length=st.one_of(st.none(), st.floats(min_value=0, max_value=1e6)),
    speed=st.one_of(st.none(), st.floats(min_value=1e6, max_value=2e12)),
)
def test_the_media_proposal_never_raises_and_reaches_what_it_proposes(
    length: float | None, speed: float | None
) -> None:
    from rackdesigner.analysis.reach import reach

    found = propose_media(length, speed)
    if found.media is not None and length is not None:
        limit = reach(found.media, speed)
        assert limit is not None and length <= limit[1]
    if found.media is not None:  # whatever it proposes exists at that speed
        assert reach(found.media, speed) is not None


@settings(max_examples=examples(60), deadline=None)
@given(query=st.text(max_size=12))
def test_device_search_never_raises_and_only_lists_matches(query: str) -> None:
    index = LayoutIndex(loads(TWO_RACKS).layout)
    found, more = search_devices(index, query)
    assert len(found) <= 5 and not more and len(set(found)) == len(found)
    assert all(query.strip().lower() in d.lower() for d in found)


@settings(max_examples=examples(60), deadline=None)
@given(text=st.text(max_size=10))
def test_parse_ratio_says_why_or_gives_at_least_one(text: str) -> None:
    try:
        value = parse_ratio(text)
    except ValueError as error:
        assert str(error)
    else:
        assert value >= 1.0


def test_preview_of_a_two_tier_leaf_spine_at_2_to_1() -> None:
    """Six DGX B200 (48 ports of 400G) on 40-port QM8700: two tiers; at 2:1 the leaves have
    half as many uplinks as node ports, and the preview says so, racks added included."""
    more = """[[racks.devices]]
id = "a02-n02"
model = "dgx-b200"
position = 11

[[racks.devices]]
id = "a02-n03"
model = "dgx-b200"
position = 31

[[racks]]
id = "b01\""""
    layout = loads(TWO_RACKS.replace('[[racks]]\nid = "b01"', more)).layout
    layout.links = []
    catalog = builtin()
    by_ratio = {}
    for ratio in ("1:1", "2:1"):
        request = FabricRequest("leaf-spine", leaf="qm8700", oversubscription=parse_ratio(ratio))
        plan = generate(layout, request)
        shown = preview(plan, catalog)
        assert (shown.leaves, shown.spines, shown.cables) == (
            plan.counts["leaves"],
            plan.counts["spines"],
            len(plan.links),
        )
        assert shown.racks_added == tuple(r.id for r in plan.new_racks)
        assert sum(n for _, n in shown.switch_racks) == shown.switches
        by_ratio[ratio] = plan.counts
    assert by_ratio["2:1"]["node_leaf_cables"] == 48
    assert by_ratio["2:1"]["leaf_spine_cables"] * 2 == 48
    assert by_ratio["2:1"]["leaves"] < by_ratio["1:1"]["leaves"]


def test_a_proposed_cable_follows_the_declared_pathways() -> None:
    """(v1.4) Where the layout declares pathways, Connect ports measures a cable between
    racks along them, as the cabling rules do: leaf a02 to spine b01 in the plant example,
    2 x 1.255675 m of drops + 1.2 + 2.4 + 0.6 m along the trays + 0.5 m slack = 7.21135 m
    (the row-and-slot model would say 2 x 1.255675 + 0.6 + 2.4 + 0.5 = 6.01135 m)."""
    from rackdesigner.design.connect import cable_length
    from rackdesigner.edit.index import LayoutIndex
    from rackdesigner.layout_io import load_path
    from tests.conftest import ROOT

    layout = load_path(ROOT / "tests" / "data" / "plant" / "example.toml")
    index = LayoutIndex(layout)
    length = cable_length(layout, index, "a02-leaf1:p41", "b01-spine1:p9")
    assert length is not None and abs(length - 7.21135) < 1e-9
