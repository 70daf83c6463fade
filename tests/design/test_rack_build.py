"""The core of Add rack, Add feed, Duplicate rack and Set cooling (rackdesigner.design.rack_build):
designer.md's defaults, the loader's messages for bad values, one undo step each."""

from __future__ import annotations

import pytest

from rackdesigner.check.engine import check
from rackdesigner.design.rack_build import (
    check_feed_form,
    check_rack_form,
    cooling_choices,
    duplicate_rack,
    feed_defaults,
    next_slot,
    rack_defaults,
    set_cooling,
)
from rackdesigner.edit import EditError, Session
from rackdesigner.layout_io import dumps, load_path
from rackdesigner.model.layout import Device, Feed, Layout, Rack
from tests.conftest import ROOT


def test_add_rack_defaults_in_an_empty_layout_and_after() -> None:
    session = Session(Layout(name="new"))
    defaults = rack_defaults(session.layout, session.index, None)
    assert defaults == {
        "id": "a01",
        "row": "A",
        "slot": "1",
        "height": "42 U",
        "cooling": "air",
        "sides": "A, B",
        "voltage": "415 V",
        "phases": "3",
        "current": "63 A",
    }
    checked = check_rack_form(session.layout, session.index, defaults)
    assert checked.errors == {} and checked.command is not None
    session.do(checked.command)
    rack = session.layout.racks[0]
    assert (rack.id, rack.row, rack.slot, rack.height_u, rack.cooling_mode) == (
        "a01",
        "A",
        1,
        42,
        "air",
    )
    assert [(f.id, f.side, f.voltage, f.phases, f.current) for f in rack.feeds] == [
        ("a01-A", "A", 415, 3, 63),
        ("a01-B", "B", 415, 3, 63),
    ]
    # The next rack of the row: the next id and slot; one undo removes rack and feeds.
    again = rack_defaults(session.layout, session.index, "A")
    assert (again["id"], again["slot"]) == ("a02", "2")
    assert rack_defaults(session.layout, session.index, "B")["id"] == "b01"
    session.undo()
    assert session.layout.racks == []


def test_add_rack_puts_a_pdu_made_for_each_feed_on_its_rail() -> None:
    """Two 415 V 3-phase 63 A feeds: the catalog's PDU for that circuit (inlet 380-415 V,
    63 A; rated 43.6 kW within the feed's 415 x 63 x sqrt 3 = 45.3 kW: PWR014, PWR011)
    on each, side A's on the left rail, side B's on the right. A node placed after draws
    through them: its power cords name a PDU (export --power), and no power rule fires
    about the PDUs."""
    from rackdesigner.analysis import Analysis
    from rackdesigner.edit import PlaceDevice
    from rackdesigner.export.tables import power_rows

    session = Session(Layout(name="new"))
    checked = check_rack_form(
        session.layout, session.index, rack_defaults(session.layout, session.index, None)
    )
    assert checked.note == ""
    session.do(checked.command)
    rack = session.layout.racks[0]
    assert [(d.id, d.model, d.side, d.feed) for d in rack.devices] == [
        ("a01-pdu-a", "pdu-3ph-415v-63a", "left", "a01-A"),
        ("a01-pdu-b", "pdu-3ph-415v-63a", "right", "a01-B"),
    ]
    session.do(PlaceDevice("a01", "dgx-h100", 1))
    cords = power_rows(Analysis(session.layout))
    assert cords and all(row[6] in ("a01-pdu-a", "a01-pdu-b") for row in cords)
    codes = {d.code for d in session.findings}
    assert not codes & {"PWR011", "PWR014", "PWR015"}, codes
    session.undo()
    session.undo()  # one step: rack, feeds and PDUs
    assert session.layout.racks == []


def test_add_rack_says_which_feeds_no_catalog_pdu_is_made_for() -> None:
    """415 V 20 A is no standard IEC 60309 rating of a catalog PDU (16, 32, 63 A): the
    feeds come without PDUs and the note says so."""
    session = Session(Layout(name="new"))
    values = rack_defaults(session.layout, session.index, None) | {"current": "20 A"}
    checked = check_rack_form(session.layout, session.index, values)
    assert checked.note.startswith("no catalog PDU is made for feeds a01-A, a01-B")
    session.do(checked.command)
    assert session.layout.racks[0].devices == []


def test_next_rack_id_pads_to_the_widest_existing_id_and_fills_gaps() -> None:
    layout = Layout("t", racks=[Rack("a001", row="A", slot=1), Rack("a003", row="A", slot=3)])
    session = Session(layout)
    defaults = rack_defaults(session.layout, session.index, "A")
    assert defaults["id"] == "a002"
    assert defaults["slot"] == "2"
    assert next_slot(layout, "B") == 1


def test_bad_values_get_the_loaders_message_by_field_and_change_nothing() -> None:
    session = Session(Layout(name="new"))
    values = rack_defaults(session.layout, session.index, None)
    values.update(current="63 V", height="42.5 U", cooling="water", id="a 1", sides="A, A")
    errors = check_rack_form(session.layout, session.index, values).errors
    # The loader's own message, as under the inspector's fields.
    assert errors["current"] == 'current "63 V" is a voltage, expected a current (A)'
    assert "whole number of rack units" in errors["height"]
    assert "air | liquid | rear-door | immersion" in errors["cooling"]
    assert "whitespace" in errors["id"]
    assert "name a side once" in errors["sides"]
    assert session.layout.racks == []


def test_a_taken_slot_or_id_is_refused_with_the_free_one() -> None:
    session = Session(Layout("t", racks=[Rack("a01", row="A", slot=1)]))
    values = rack_defaults(session.layout, session.index, "A")
    values.update(id="a01", slot="1")
    errors = check_rack_form(session.layout, session.index, values).errors
    assert errors["id"] == "there is already a rack a01; ids are unique"
    assert errors["slot"] == "slot 1 of row A is taken by rack a01; the next free one is 2"


def test_no_sides_means_no_feeds_and_a_new_row_name_makes_a_row() -> None:
    session = Session(Layout("t", racks=[Rack("a01", row="A", slot=1)]))
    values = rack_defaults(session.layout, session.index, "A")
    values.update(id="b01", row="B", slot="1", sides="")
    session.do(check_rack_form(session.layout, session.index, values).command)
    assert session.index.rack("b01").row == "B"
    assert session.index.rack("b01").feeds == []


def test_add_feed_defaults_take_the_next_side_and_the_last_feeds_values() -> None:
    session = Session(load_path(ROOT / "layouts" / "inference-32-b200.toml"))
    rack = session.index.rack("a01")
    defaults = feed_defaults(rack)
    assert defaults == {
        "id": "a01-C",
        "side": "C",
        "voltage": "415 V",
        "phases": "3",
        "current": "63 A",
        "circuit": "",
    }
    bad = dict(defaults, id="a01-A")
    assert check_feed_form(session.index, "a01", bad).errors == {
        "id": "there is already a feed a01-A; ids are unique"
    }
    session.do(check_feed_form(session.index, "a01", defaults).command)
    assert [f.id for f in session.index.rack("a01").feeds][-1] == "a01-C"
    assert feed_defaults(Rack("z01"))["id"] == "z01-A"


def test_duplicate_rack_renames_devices_feeds_and_inner_references_in_one_step() -> None:
    session = Session(load_path(ROOT / "layouts" / "inference-32-b200.toml"))
    before = dumps(session.layout)
    command, new = duplicate_rack(session.layout, session.index, "a01")
    assert new == "a03"
    session.do(command)
    copy = session.index.rack("a03")
    original = session.index.rack("a01")
    assert copy.slot == 3 and copy.row == "A"
    assert [d.id for d in copy.devices] == [d.id.replace("a01", "a03", 1) for d in original.devices]
    assert [f.id for f in copy.feeds] == ["a03-A", "a03-B"]
    assert all(f.circuit is None for f in copy.feeds)  # a circuit feeds one rack
    assert copy.door == "a03-door"
    assert all(d.hostname is None for d in copy.devices)
    # The cables inside a01 come along; the ones to a02 stay a01's.
    inside = [link for link in session.layout.links if link.a.startswith("a03-")]
    assert inside and all(link.b.startswith("a03-") for link in inside)
    session.undo()
    assert dumps(session.layout) == before


def test_cooling_choices_list_only_cdus_and_free_rear_doors() -> None:
    session = Session(load_path(ROOT / "layouts" / "training-128.toml"))
    choices = cooling_choices(session.layout, session.index, "a01")
    kinds = {session.index.type_of(session.index.device(d)).kind for d in choices.cdus}
    assert kinds == {"cdu"} and choices.cdus == ["a06-cdu", "a07-cdu"]
    assert choices.doors == [] and choices.door_models == ["rear-door-hx"]
    assert choices.chosen_cdus == ["a06-cdu", "a07-cdu"]
    inference = Session(load_path(ROOT / "layouts" / "inference-32-b200.toml"))
    choices = cooling_choices(inference.layout, inference.index, "a01")
    # a02's door cools a02: only a01's own door is offered.
    assert choices.doors == ["a01-door"] and choices.chosen_door == "a01-door"
    assert choices.cdus == []


def test_set_cooling_rear_door_with_a_new_door_is_one_step_and_checks_clean() -> None:
    layout = Layout(
        "t",
        racks=[
            Rack(
                "a01",
                row="A",
                slot=1,
                feeds=[Feed("a01-A", 415.0, 3, 63.0, side="A")],
                devices=[Device("a01-n01", "dgx-h100", 1), Device("a01-n02", "dgx-h100", 9)],
            )
        ],
    )
    session = Session(layout)
    assert any(d.code == "COOL001" for d in session.findings)
    command = set_cooling(session.index, "a01", "rear-door", new_door_model="rear-door-hx")
    session.do(command)
    rack = session.index.rack("a01")
    assert rack.cooling == "rear-door" and rack.door == "a01-door01"
    assert session.index.device("a01-door01").model == "rear-door-hx"
    assert not any(d.code in ("COOL001", "COOL007") for d in session.findings)
    full = check(session.layout)[1]
    assert sorted((d.code, d.entity) for d in session.findings) == sorted(
        (d.code, d.entity) for d in full
    )
    session.undo()
    assert session.index.rack("a01").cooling is None
    assert session.index.device("a01-door01") is None


def test_set_cooling_liquid_needs_cdus_and_other_modes_clear_cdu_and_door() -> None:
    session = Session(load_path(ROOT / "layouts" / "training-128.toml"))
    with pytest.raises(EditError, match="needs a CDU"):
        set_cooling(session.index, "a01", "liquid", cdus=[])
    session.do(set_cooling(session.index, "a01", "liquid", cdus=["a06-cdu"]))
    assert session.index.rack("a01").cdu == "a06-cdu"
    with pytest.raises(EditError, match="already cooled that way"):
        set_cooling(session.index, "a01", "liquid", cdus=["a06-cdu"])
    session.do(set_cooling(session.index, "a01", "air"))
    rack = session.index.rack("a01")
    assert (rack.cooling, rack.cdu, rack.door) == ("air", None, None)
    inference = Session(load_path(ROOT / "layouts" / "inference-32-b200.toml"))
    inference.do(set_cooling(inference.index, "a01", "immersion"))
    assert inference.index.rack("a01").door is None
