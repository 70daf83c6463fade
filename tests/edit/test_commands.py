"""Every edit command: what it changes, that revert gives back an equal layout, that the
index stays current, and every refusal with its message and the layout unchanged."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest

from rackdesigner.design.placing import nearest_fit
from rackdesigner.edit import (
    AddFeed,
    AddLink,
    AddRack,
    Batch,
    Command,
    EditError,
    LayoutIndex,
    MoveDevice,
    PlaceDevice,
    RemoveDevice,
    RemoveFeed,
    RemoveLink,
    RemoveRack,
    RenameEntity,
    SetField,
    UpdateDevice,
    UpdateFeed,
    UpdateLink,
    UpdateRack,
    UpdateSection,
)
from rackdesigner.layout_io import dumps, load_text
from rackdesigner.model.layout import Device, Feed, Layout, Rack

TEXT = """format = 1
name = "t"

[[racks]]
id = "a01"
row = "A"
slot = 1
cooling = "liquid"
cdu = "a02-cdu1"
feeds = [
  { id = "a01-A", side = "A", voltage = "415 V", phases = 3, current = "63 A" },
  { id = "a01-B", side = "B", voltage = "415 V", phases = 3, current = "63 A" },
]

[[racks.devices]]
id = "a01-n01"
model = "dgx-h100"
position = 3

[[racks.devices]]
id = "a01-n02"
model = "dgx-h100"
position = 11

[[racks.devices]]
id = "a01-leaf1"
model = "qm9700"
position = 20

[[racks.devices]]
id = "a01-mgmt"
model = "sn2201"
position = 21
face = "rear"

[[racks.devices]]
id = "a01-pdu1"
model = "pdu-3ph-415v-63a"
side = "left"

[[racks]]
id = "a02"
row = "A"
slot = 2
feeds = [{ id = "a02-A", side = "A", voltage = "415 V", phases = 3, current = "32 A" }]

[[racks.devices]]
id = "a02-cdu1"
model = "coolit-chx80"
position = 1

[[links]]
a = "a01-n01:ib1"
b = "a01-leaf1:p1"
media = "dac"

[[links]]
a = "a01-n02:ib1"
b = "a01-leaf1:p2"
media = "dac"
"""


@pytest.fixture
def layout() -> Layout:
    return load_text(TEXT)


def apply(layout: Layout, command: Command) -> LayoutIndex:
    """Apply, check the index against a fresh one, revert, check the layout is back, and
    apply again (redo); return the index."""
    before = copy.deepcopy(layout)
    index = LayoutIndex(layout)
    command.apply(layout, index)
    assert index.snapshot() == LayoutIndex(layout).snapshot()
    after = copy.deepcopy(layout)
    command.revert(layout, index)
    assert layout == before
    assert dumps(layout) == dumps(before)
    assert index.snapshot() == LayoutIndex(layout).snapshot()
    command.apply(layout, index)
    assert layout == after
    assert index.snapshot() == LayoutIndex(layout).snapshot()
    return index


def refused(layout: Layout, command: Command | Callable[[], Command], message: str) -> str:
    """The command is refused with ``message`` (a substring) and the layout is unchanged."""
    before = copy.deepcopy(layout)
    text = dumps(layout)
    index = LayoutIndex(layout)
    snapshot = index.snapshot()
    with pytest.raises(EditError) as caught:
        built = command() if callable(command) and not isinstance(command, Command) else command
        built.apply(layout, index)
    assert message in str(caught.value), str(caught.value)
    assert layout == before
    assert dumps(layout) == text
    assert index.snapshot() == snapshot
    return str(caught.value)


# -- racks -------------------------------------------------------------------------------------


def test_add_rack_from_fields(layout: Layout) -> None:
    apply(layout, AddRack("a03", row="A", slot=3, height="48 U", cooling="air"))
    rack = layout.racks[-1]
    assert (rack.id, rack.slot, float(rack.height or 0), rack.cooling) == ("a03", 3, 48.0, "air")
    assert rack.height is not None and str(rack.height) == "48 U"


def test_add_rack_with_feeds_and_devices(layout: Layout) -> None:
    rack = Rack(
        "b01",
        row="B",
        slot=1,
        feeds=[Feed("b01-A", voltage=415.0, phases=3, current=63.0, side="A")],
        devices=[Device("b01-n01", "dgx-h100", 3), Device("b01-n02", "dgx-h100", 11)],
    )
    index = apply(layout, AddRack(rack, at=0))
    assert layout.racks[0] is rack
    assert index.rack_of("b01-n02") is rack and index.feed("b01-A") is rack.feeds[0]


def test_add_rack_refusals(layout: Layout) -> None:
    refused(layout, AddRack("a01"), "there is already a rack a01")
    refused(layout, AddRack("a 3"), 'rack id "a 3" must not contain whitespace')
    refused(layout, AddRack("a:3"), 'rack id "a:3" must not contain ":"')
    refused(layout, AddRack("a03", row="A", slot=2), "slot 2 of row A is taken by rack a02")
    refused(
        layout, AddRack("a03", height="42"), 'height 42 has no unit, expected a height like "42 U"'
    )
    refused(layout, AddRack("a03", height="2 kg"), 'height "2 kg" is a mass')
    refused(layout, AddRack("a03", cooling="water"), "cooling must be one of air | liquid")
    refused(layout, AddRack("a03", colour="red"), "has no field 'colour'")
    overlapping = Rack("a03", devices=[Device("x1", "dgx-h100", 3), Device("x2", "dgx-h100", 5)])
    refused(layout, AddRack(overlapping), "device x2: U5-U10 of rack a03 is taken by device x1")
    taken = Rack("a03", devices=[Device("a01-n01", "dgx-h100", 3)])
    refused(layout, AddRack(taken), "there is already a device a01-n01")
    unknown = Rack("a03", devices=[Device("x1", "dgx-h10", 3)])
    refused(layout, AddRack(unknown), "unknown model dgx-h10 (did you mean dgx-h100")
    refused(layout, AddRack(Rack("a03", cdu="nowhere")), "cdu names nowhere, which is no device")


def test_remove_rack_takes_its_devices_and_their_links(layout: Layout) -> None:
    index = apply(layout, RemoveRack("a01"))
    assert [r.id for r in layout.racks] == ["a02"]
    assert layout.links == []
    assert index.device("a01-n01") is None and index.links_on_port("a01-leaf1:p1") == []


def test_remove_rack_refusal(layout: Layout) -> None:
    refused(layout, RemoveRack("a09"), "there is no rack a09 (did you mean")


def test_update_rack(layout: Layout) -> None:
    apply(layout, UpdateRack("a02", slot=5, height="48 U", max_weight="1400 kg", label="west"))
    rack = layout.racks[1]
    assert (rack.slot, float(rack.height or 0), float(rack.max_weight or 0)) == (5, 48.0, 1400.0)
    apply(layout, UpdateRack("a02", label=""))
    assert layout.racks[1].label is None


def test_update_rack_refusals(layout: Layout) -> None:
    refused(layout, UpdateRack("a02", slot=1), "slot 1 of row A is taken by rack a01")
    refused(layout, UpdateRack("a01", height="20 U"), "device a01-mgmt occupies U21, above U20")
    refused(layout, UpdateRack("a01", height="0 U"), "height must be at least 1")
    refused(layout, UpdateRack("a01", height="1.5 U"), "must be a whole number of rack units")
    refused(layout, UpdateRack("a01", cdu="a01-n01"), "cdu names device a01-n01, a gpu-node")
    refused(layout, UpdateRack("a01", cdu="a02-cdu9"), "cdu names a02-cdu9, which is no device")
    refused(layout, UpdateRack("a01", door="a01-n01"), "not a rear door")
    refused(layout, UpdateRack("a01", id="b01"), "the id changes by renaming")
    refused(layout, UpdateRack("a01", max_weight="-3 kg"), "negative")


# -- feeds -------------------------------------------------------------------------------------


def test_add_update_remove_feed(layout: Layout) -> None:
    apply(layout, AddFeed("a02", "a02-B", side="B", voltage="415 V", phases=3, current="32 A"))
    feed = layout.racks[1].feeds[-1]
    assert (feed.id, float(feed.current or 0)) == ("a02-B", 32.0)
    apply(layout, UpdateFeed("a02-B", current="63 A", derate="80 %"))
    assert float(feed.current or 0) == 63.0 and float(feed.derate or 0) == 0.8
    apply(layout, RemoveFeed("a02-B"))
    assert [f.id for f in layout.racks[1].feeds] == ["a02-A"]


def test_feed_refusals(layout: Layout) -> None:
    refused(
        layout,
        AddFeed("a02", "a01-A", voltage="415 V", phases=3, current="32 A"),
        "there is already a feed a01-A",
    )
    refused(layout, AddFeed("a02", "a02-B", voltage="415 V", phases=3), "missing key 'current'")
    refused(
        layout,
        AddFeed("a02", "a02-B", voltage="415 V", phases=2, current="32 A"),
        "phases must be one of 1 | 3, got 2",
    )
    refused(layout, AddFeed("a09", "x", voltage="415 V", phases=3, current="1 A"), "no rack a09")
    refused(
        layout,
        UpdateFeed("a01-A", current="63 V"),
        'feed a01-A: current "63 V" is a voltage, expected a current (A)',
    )
    refused(layout, UpdateFeed("a01-A", current="0 A"), 'current must be more than 0, got "0 A"')
    refused(layout, UpdateFeed("a01-A", voltage=""), "missing key 'voltage'")
    refused(layout, UpdateFeed("a01-A", derate=1.5), "derate must be at most 1")
    refused(layout, RemoveFeed("a01-C"), "there is no feed a01-C")


# -- devices -----------------------------------------------------------------------------------


def test_place_device_gets_the_next_free_id(layout: Layout) -> None:
    index = apply(layout, PlaceDevice("a01", "dgx-h100", 29))
    device = layout.racks[0].devices[-1]
    assert (device.id, device.position) == ("a01-n03", 29)
    assert index.occupied("a01")[36] is device
    apply(layout, PlaceDevice("a02", "blank-1u", 20, face="rear", id="a02-b1"))
    apply(layout, PlaceDevice("a02", "pdu-3ph-415v-32a", side="right"))
    assert layout.racks[1].devices[-1].id == "a02-pdu01"


def test_half_depth_devices_share_a_unit_on_opposite_faces(layout: Layout) -> None:
    apply(layout, PlaceDevice("a01", "blank-1u", 21, face="front"))
    refused(layout, PlaceDevice("a01", "blank-1u", 21, face="rear"), "on the rear face")


def test_place_device_refusals(layout: Layout) -> None:
    refused(
        layout, PlaceDevice("a01", "dgx-h100", 7), "U7-U10 of rack a01 is taken by device a01-n01"
    )
    refused(layout, PlaceDevice("a01", "dgx-h100", 38), "above the top of rack a01 (U42)")
    # Layout format v1.1: a position below 1 is refused by the loader's own converter, in
    # its words, as a position above 100 is.
    refused(layout, PlaceDevice("a01", "dgx-h100", 0), "position must be at least 1, got 0")
    refused(layout, PlaceDevice("a01", "dgx-h100", 101), "position must be at most 100")
    refused(layout, PlaceDevice("a01", "dgx-h100"), "give the position of its lowest unit")
    refused(layout, PlaceDevice("a01", "pdu-3ph-415v-63a", 30), "is a 0U device")
    refused(
        layout,
        PlaceDevice("a01", "dgx-h1000", 30),
        "unknown model dgx-h1000 (did you mean dgx-h100",
    )
    refused(layout, PlaceDevice("a01", "qm9700", 30, id="a02-cdu1"), "already a device a02-cdu1")
    refused(layout, PlaceDevice("a01", "qm9700", 30, id="bad id"), "must not contain whitespace")
    refused(layout, PlaceDevice("a01", "qm9700", 30, face="top"), "face must be one of front")
    refused(layout, PlaceDevice("a09", "qm9700", 30), "there is no rack a09")


def test_move_device_within_and_between_racks(layout: Layout) -> None:
    apply(layout, MoveDevice("a01-leaf1", position=30))
    assert layout.racks[0].devices[2].position == 30
    index = apply(layout, MoveDevice("a01-n02", "a02", position=20))
    assert index.rack_of("a01-n02") is layout.racks[1]
    assert [d.id for d in layout.racks[1].devices] == ["a02-cdu1", "a01-n02"]
    apply(layout, MoveDevice("a01-pdu1", side="right"))


def test_move_device_refusals(layout: Layout) -> None:
    refused(layout, MoveDevice("a01-leaf1", position=5), "taken by device a01-n01")
    refused(layout, MoveDevice("a01-n01", "a02", position=1), "taken by device a02-cdu1")
    refused(layout, MoveDevice("a01-n01", position=40), "above the top")
    refused(layout, MoveDevice("a01-n09", position=40), "there is no device a01-n09")
    refused(layout, MoveDevice("a01-n01", "a07"), "there is no rack a07")


def test_moving_a_device_over_itself_is_fine(layout: Layout) -> None:
    apply(layout, MoveDevice("a01-n01", position=2))
    assert layout.racks[0].devices[0].position == 2


def test_remove_device_takes_its_links(layout: Layout) -> None:
    index = apply(layout, RemoveDevice("a01-n01"))
    assert [link.a for link in layout.links] == ["a01-n02:ib1"]
    assert index.free_ports("a01-leaf1")[0] == "a01-leaf1:p1"
    refused(layout, RemoveDevice("a01-n01"), "there is no device a01-n01")


def test_update_device(layout: Layout) -> None:
    apply(layout, UpdateDevice("a01-n01", label="node 1", phase="L1"))
    apply(layout, UpdateDevice("a01-leaf1", model="qm8700"))
    refused(layout, UpdateDevice("a01-leaf1", model="dgx-h100"), "taken by device")
    refused(layout, UpdateDevice("a01-n01", phase="L4"), "phase must be one of L1")


# -- renames -----------------------------------------------------------------------------------


def test_rename_device_rewrites_links_and_cdu(layout: Layout) -> None:
    apply(layout, RenameEntity("device", "a02-cdu1", "cdu-west"))
    assert layout.racks[0].cdu == "cdu-west"
    index = apply(layout, RenameEntity("device", "a01-leaf1", "leaf-1"))
    assert [link.b for link in layout.links] == ["leaf-1:p1", "leaf-1:p2"]
    assert index.links_on_port("leaf-1:p1")[0].a == "a01-n01:ib1"
    assert index.device("a01-leaf1") is None


def test_rename_rack_and_feed(layout: Layout) -> None:
    index = apply(layout, RenameEntity("rack", "a02", "b02"))
    assert index.rack("b02") is layout.racks[1] and index.rack("a02") is None
    assert index.occupied("b02")[1].id == "a02-cdu1"
    apply(layout, RenameEntity("feed", "a01-A", "a01-X"))
    assert layout.racks[0].feeds[0].id == "a01-X"


def test_rename_refusals(layout: Layout) -> None:
    refused(layout, RenameEntity("device", "a01-n01", "a01-n02"), "already a device a01-n02")
    refused(layout, RenameEntity("device", "a01-n01", "a01:n1"), 'must not contain ":"')
    refused(layout, RenameEntity("device", "a01-n01", "a01 n1"), "must not contain whitespace")
    refused(layout, RenameEntity("device", "a01-n01", ""), "must not be empty")
    refused(layout, RenameEntity("device", "a01-n01", "x" * 65), "at most 64")
    refused(layout, RenameEntity("rack", "a01", "a02"), "already a rack a02")
    refused(layout, RenameEntity("feed", "a01-A", "a02-A"), "already a feed a02-A")
    refused(layout, RenameEntity("device", "a01-n01", "a01-n01"), "already called")
    refused(layout, RenameEntity("device", "zz", "yy"), "there is no device zz")
    with pytest.raises(EditError, match="only racks, feeds and devices"):
        RenameEntity("link", "a01-n01:ib1", "x")


# -- links -------------------------------------------------------------------------------------


def test_add_and_remove_link(layout: Layout) -> None:
    index = apply(layout, AddLink("a01-n01:ib2", "a01-leaf1:p3", "dac", length="2 m"))
    assert layout.links[-1].a == "a01-n01:ib2" and float(layout.links[-1].length or 0) == 2.0
    assert "a01-leaf1:p3" not in index.free_ports("a01-leaf1")
    apply(layout, RemoveLink("a01-n01:ib1"))
    assert [link.a for link in layout.links] == ["a01-n02:ib1", "a01-n01:ib2"]
    apply(layout, RemoveLink("a01-n02:ib1 -> a01-leaf1:p2"))


def test_link_refusals(layout: Layout) -> None:
    refused(layout, AddLink("a01-n01:ib1", "a01-leaf1:p9"), "port a01-n01:ib1 is already used")
    refused(layout, AddLink("a01-n01:ib2", "a01-leaf1:p1"), "port a01-leaf1:p1 is already used")
    refused(layout, AddLink("a01-n01:ib9", "a01-leaf1:p9"), "has ports ib1..ib8, not ib9")
    refused(layout, AddLink("a01-n01:xx1", "a01-leaf1:p9"), "has no port group 'xx'")
    refused(layout, AddLink("a01-n09:ib1", "a01-leaf1:p9"), "there is no device a01-n09")
    refused(layout, AddLink("a01-n01:ib2", "a01-n01:ib2"), "a cable needs two ports")
    refused(layout, AddLink("a01-n01:ib2", "a01-n01:ib3"), "self-link")
    refused(layout, AddLink("a01-n01", "a01-leaf1:p9"), "is not a port reference")
    refused(layout, AddLink("a01-n01:ib2", "a01-leaf1:p9", "string"), "media must be one of")
    refused(layout, AddLink("a01-n01:ib2", "a01-leaf1:p9", length="2 kg"), "is a mass")
    refused(layout, RemoveLink("a01-n01:ib7"), "there is no link a01-n01:ib7")
    refused(layout, UpdateLink("a01-n01:ib1", b="a01-leaf1:p2"), "a01-leaf1:p2 is already used")


def test_update_link_moves_an_end(layout: Layout) -> None:
    index = apply(layout, UpdateLink("a01-n01:ib1", b="a01-leaf1:p7", media="aoc"))
    assert index.links_on_port("a01-leaf1:p7")[0] is layout.links[0]
    assert index.links_on_port("a01-leaf1:p1") == []


# -- SetField ----------------------------------------------------------------------------------


def test_set_field_parses_text_as_the_loader_does(layout: Layout) -> None:
    apply(layout, SetField(("rack", "a01"), "height", "48 U"))
    assert str(layout.racks[0].height) == "48 U"
    apply(layout, SetField(("feed", "a01-A"), "current", "100 A"))
    apply(layout, SetField(("feed", "a01-A"), "phases", "1"))
    assert layout.racks[0].feeds[0].phases == 1
    apply(layout, SetField(("device", "a01-n01"), "position", "29"))
    apply(layout, SetField(("device", "a01-n02"), "label", "node two"))
    apply(layout, SetField(("link", "a01-n01:ib1"), "length", "3 m"))
    apply(layout, SetField(("site", ""), "power_budget", "2 MW"))
    assert layout.site is not None and float(layout.site.power_budget or 0) == 2e6
    apply(layout, SetField(("workload", ""), "model_params", "70e9"))
    apply(layout, SetField(("layout", ""), "description", "two racks"))
    apply(layout, SetField(("device", "a01-n02"), "id", "a01-node2"))
    assert layout.links[1].a == "a01-node2:ib1"


def test_set_field_removes_an_optional_key_with_empty_text(layout: Layout) -> None:
    apply(layout, SetField(("rack", "a01"), "cdu", ""))
    assert layout.racks[0].cdu is None


def test_set_field_refusals_are_the_loaders_messages(layout: Layout) -> None:
    # The same value in a file: the loader's message, entity first.
    file = TEXT.replace(
        'current = "63 A" },\n  { id = "a01-B"', 'current = "63 V" },\n  { id = "a01-B"'
    )
    with pytest.raises(Exception) as loading:
        load_text(file)
    message = refused(layout, SetField(("feed", "a01-A"), "current", "63 V"), "is a voltage")
    assert message in str(loading.value)
    refused(layout, SetField(("rack", "a01"), "height", "42"), "height 42 has no unit")
    refused(layout, SetField(("rack", "a01"), "height", "500 U"), "not a plausible height")
    refused(layout, SetField(("rack", "a01"), "slot", "0"), "slot must be at least 1, got 0")
    refused(layout, SetField(("rack", "a01"), "slot", "two"), "slot must be an integer")
    refused(layout, SetField(("rack", "a01"), "cdu", "a01-n05"), "which is no device")
    refused(layout, SetField(("device", "a01-n01"), "position", "12"), "taken by device a01-n02")
    refused(layout, SetField(("device", "a01-n01"), "model", "dgx-h10"), "unknown model")
    refused(layout, SetField(("device", "a01-n01"), "id", "a01-n02"), "already a device")
    refused(layout, SetField(("device", "a01-n01"), "id", "a 1"), "whitespace")
    refused(layout, SetField(("link", "a01-n01:ib1"), "length", "3 V"), "is a voltage")
    refused(layout, SetField(("site", ""), "slack", "-1 m"), "negative")
    refused(layout, SetField(("site", ""), "warp", "9"), "has no field 'warp'")
    refused(layout, SetField(("workload", ""), "kind", "mining"), "kind must be one of")
    refused(layout, SetField(("layout", ""), "name", ""), "a layout needs a name")
    with pytest.raises(EditError, match="catalog fields cannot be edited here"):
        SetField(("catalog", "dgx-h100"), "power", "1 kW")


def test_set_field_on_a_missing_section_creates_it_and_undo_removes_it(layout: Layout) -> None:
    assert layout.site is None
    apply(layout, SetField(("site", ""), "slack", "1 m"))
    assert layout.site is not None


# -- batches -----------------------------------------------------------------------------------


def test_batch_is_one_step(layout: Layout) -> None:
    batch = Batch(
        [
            PlaceDevice("a01", "qm9700", 30, id="a01-leaf2"),
            AddLink("a01-n01:ib2", "a01-leaf2:p1"),
            AddLink("a01-n02:ib2", "a01-leaf2:p2"),
            RenameEntity("device", "a01-leaf2", "a01-leafB"),
        ],
        "Add a second leaf",
    )
    apply(layout, batch)
    assert [link.b for link in layout.links[-2:]] == ["a01-leafB:p1", "a01-leafB:p2"]
    assert ("device", "a01-leafB") in batch.refs
    assert batch.effect.fabric


def test_a_refused_step_undoes_the_batch(layout: Layout) -> None:
    batch = Batch(
        [PlaceDevice("a01", "qm9700", 30, id="x1"), PlaceDevice("a01", "qm9700", 30, id="x2")],
        "Two switches",
    )
    message = refused(layout, batch, "step 2 of 2")
    assert "U30 of rack a01 is taken by device x1" in message


def test_the_index_answers_without_scanning(layout: Layout) -> None:
    index = LayoutIndex(layout)
    assert index.next_id("a01-n") == "a01-n03"
    assert index.next_id("b01-n") == "b01-n01"
    assert index.next_id("a", "rack") == "a03"
    assert index.free_ports("a01-n01")[:2] == ["a01-n01:ib2", "a01-n01:ib3"]
    assert index.links_on_port("a01-leaf1:p01")[0].a == "a01-n01:ib1"
    assert index.rack_of("a02-cdu1") is layout.racks[1]
    assert set(index.occupied("a01", "rear")) >= {20, 21}
    assert 21 not in index.occupied("a01", "front")
    RemoveDevice("a01-n01").apply(layout, index)
    assert index.next_id("a01-n") == "a01-n01"


def test_next_id_pads_to_the_widest_existing_id(layout: Layout) -> None:
    index = LayoutIndex(layout)
    PlaceDevice("a02", "blank-1u", 10, id="a02-b007").apply(layout, index)
    assert index.next_id("a02-b") == "a02-b001"
    PlaceDevice("a02", "blank-1u", 11, id="a02-b1").apply(layout, index)
    assert index.next_id("a02-b") == "a02-b002"


def test_update_section(layout: Layout) -> None:
    apply(layout, UpdateSection("workload", kind="training", parallelism="fsdp"))
    assert layout.workload is not None and layout.workload.parallelism == "fsdp"
    apply(layout, UpdateSection("layout", name="renamed", revision="r2"))
    assert layout.name == "renamed"
    refused(layout, UpdateSection("workload", steps_per_second=-1), "must be at least 0")
    with pytest.raises(EditError, match="there is no section racks"):
        UpdateSection("racks", id="x")


# -- PDU feeds (format v1.1) ---------------------------------------------------------------------


def test_a_pdu_feed_must_be_a_feed_of_its_rack(layout: Layout) -> None:
    apply(layout, SetField(("device", "a01-pdu1"), "feed", "a01-B"))
    refused(layout, SetField(("device", "a01-pdu1"), "feed", "a02-A"), "no feed of rack a01")


def test_renaming_or_removing_a_feed_follows_its_pdus(layout: Layout) -> None:
    SetField(("device", "a01-pdu1"), "feed", "a01-A").apply(layout)
    pdu = layout.racks[0].devices[-1]
    apply(layout, RenameEntity("feed", "a01-A", "a01-X"))
    assert pdu.feed == "a01-X"
    apply(layout, RemoveFeed("a01-X"))
    assert pdu.feed is None


def test_a_feed_reference_is_checked_as_the_schema_allows(layout: Layout) -> None:
    refused(layout, SetField(("device", "a01-pdu1"), "feed", "a01-C"), "no feed of rack a01")


def nearest_free(
    index: LayoutIndex, rack_id: str, model: str, near: int, face: str | None = None
) -> int | None:
    """Where the designer puts a device of ``model`` asked for at ``near`` in a rack as
    the index has it (:func:`~rackdesigner.design.placing.nearest_fit`); None for a 0U
    device."""
    rack = index.rack(rack_id)
    dtype = index.catalog.devices[model]
    assert rack is not None
    if dtype.height_u <= 0:
        return None
    faces = ("front", "rear") if dtype.full_depth else (face or "front",)
    taken = {unit for f in faces for unit in index.occupied(rack_id, f)}
    return nearest_fit(taken, int(rack.height_u), max(1, round(dtype.height_u)), near)


def test_the_nearest_free_units_from_the_index(layout: Layout) -> None:
    index = LayoutIndex(layout)
    assert nearest_free(index, "a01", "dgx-h100", 29) == 29  # U29-U36 are free
    assert nearest_free(index, "a01", "dgx-h100", 5) == 22  # U3-U18 and U20-U21 are taken
    assert nearest_free(index, "a01", "blank-1u", 21, face="front") == 21  # rear: the mgmt's
    assert nearest_free(index, "a01", "blank-1u", 20) == 19  # ties: the lower
    assert nearest_free(index, "a01", "pdu-3ph-415v-63a", 5) is None
    assert nearest_free(index, "a02", "coolit-chx750", 1) is None  # 42 U: no room left


def test_labels_read_like_menu_entries(layout: Layout) -> None:
    assert MoveDevice("a01-n02", position=11).label == "Move a01-n02 to U11"
    assert MoveDevice("a01-n02", "a02", position=20).label == "Move a01-n02 to a02 U20"
    assert RemoveLink("a01-n01:ib1").label == "Disconnect a01-n01:ib1"
    assert RenameEntity("device", "a", "b").label == "Rename device a to b"
    assert SetField(("rack", "a01"), "height", "48 U").label == "Set rack a01 height to 48 U"
    place = PlaceDevice("a01", "dgx-h100", 29)
    place.apply(layout)
    assert place.label == "Place a01-n03 (dgx-h100) in a01 at U29"
    assert place.refs == [("device", "a01-n03"), ("rack", "a01")]
