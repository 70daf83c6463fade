"""Building in the designer with real keys and palette names: Add rack
from an empty file, Set cooling with its pickers, Place device (``a``) with designer.md's
placement rule, 0U rails and half-depth faces, Duplicate rack, Add / Remove feed, the
catalog panel and the mouse (click-place, drag-move, a refused drop)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList, SelectionList

from rackdesigner.layout_io import load_path
from rackdesigner.tui.screens.build import ChoiceScreen, CoolingScreen, FormScreen
from tests.tui.pilot import (
    add_rack,
    app_for,
    copy,
    drag,
    last_notice,
    palette,
    place,
    recent_notices,
    run,
    search_catalog,
    set_cooling,
    settle,
    snapshot,
    spot,
    type_text,
)

# ---- journeys ------------------------------------------------------------------------------


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_from_an_empty_file_add_rack_cool_it_and_place_nodes_pdus_and_a_switch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a relative path: the header (and snapshots) show new.toml
    path = Path("new.toml")  # does not exist: an empty layout, created on save

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(100, 32)) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None and session.layout.racks == []
            # Place device without a rack says what to do first.
            await pilot.press("a")
            await pilot.pause()
            assert "Add rack" in last_notice(app)
            # Escape cancels the dialog and changes nothing.
            await palette(pilot, "Add rack")
            await pilot.press("escape")
            await settle(pilot)
            assert session.layout.racks == [] and not session.can_undo
            # Enter accepts the defaults.
            await palette(pilot, "Add rack")
            await snapshot(pilot, "add-rack")
            await pilot.press("enter")
            await settle(pilot)
            rack = session.index.rack("a01")
            assert rack is not None and (rack.row, rack.slot, rack.height_u) == ("A", 1, 42)
            assert rack.cooling_mode == "air"
            assert [(f.id, f.side, f.voltage, f.phases, f.current) for f in rack.feeds] == [
                ("a01-A", "A", 415, 3, 63),
                ("a01-B", "B", 415, 3, 63),
            ]
            # Each feed gets the PDU made for it, on its side's rail.
            assert [(d.id, d.model, d.side, d.feed) for d in rack.devices] == [
                ("a01-pdu-a", "pdu-3ph-415v-63a", "left", "a01-A"),
                ("a01-pdu-b", "pdu-3ph-415v-63a", "right", "a01-B"),
            ]
            assert "2 PDUs on them" in last_notice(app)
            assert app.main.racks.current_rack_id() == "a01"
            # The cursor is on the top unit: a 10 U node goes as high as it fits.
            await place(pilot, "dgx-b2")
            assert session.index.device("a01-n01").position == 33
            assert "U33-U42" in last_notice(app) and "top" in last_notice(app)
            # The bottom: End, then a.
            await pilot.press("end")
            await place(pilot, "dgx-b2")
            assert session.index.device("a01-n02").position == 1
            # At a taken unit (the cursor is on the node just placed, U10): the nearest
            # free units that fit, U11-U20.
            assert app.main.racks.cursor.unit == 10
            await place(pilot, "qm8700")
            assert session.index.device("a01-sw01").position == 11
            assert "U10 and up were taken" in last_notice(app)
            # A PDU is 0U: it asks for a rail; enter takes the emptier (left).
            await place(pilot, "415v-63", "enter", snap="rail-question")
            assert session.index.device("a01-pdu01").side == "left"
            # The cursor is on that rail now (a on a rail places there without asking).
            assert app.main.racks.cursor.rail == "left"
            # A half-depth switch asks for the face: down, enter = rear.
            await pilot.press("end", "up")
            await place(pilot, "sn22", "down", "enter", snap="face-question")
            mgmt = session.index.device("a01-sw02")
            assert mgmt.face == "rear" and mgmt.position == 12
            # Two air DGX B200s are too hot for air: a rear door, placed by the dialog.
            await set_cooling(pilot, "rear-door", snap="set-cooling-rear-door")
            rack = session.index.rack("a01")
            assert rack.cooling == "rear-door" and rack.door == "a01-door01"
            assert session.index.device("a01-door01").model == "rear-door-hx"
            assert not [d for d in session.findings if d.code in ("COOL001", "COOL007")]
            await pilot.press("ctrl+s")
            await settle(pilot)
            await pilot.pause()
        saved = load_path(path)
        assert [d.id for d in saved.racks[0].devices] == [
            "a01-pdu-a",
            "a01-pdu-b",
            "a01-n01",
            "a01-n02",
            "a01-sw01",
            "a01-pdu01",
            "a01-sw02",
            "a01-door01",
        ]

    run(journey)


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_a_bad_value_is_refused_inline_a_new_row_is_shown_and_duplicate_rack(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = Path("new.toml")

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(100, 32)) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            await add_rack(pilot, current="63 V")
            # Refused inline with the loader's message; the dialog stays and nothing changed.
            assert isinstance(app.screen, FormScreen)
            error = app.screen.query_one("#form-error-current")
            assert 'current "63 V" is a voltage, expected a current (A)' in str(error.render())
            assert session.layout.racks == []
            await snapshot(pilot, "add-rack-refused")
            # The refused field has the focus: clear it, type a current, enter.
            await pilot.press("home", "ctrl+k")
            await type_text(pilot, "32 A")
            await pilot.press("enter")
            await settle(pilot)
            assert float(session.index.rack("a01").feeds[0].current) == 32
            await place(pilot, "dgx-b2")
            # Duplicate rack: devices and feeds under new ids, the next slot; one undo step.
            await palette(pilot, "Duplicate rack")
            await settle(pilot)
            copy_rack = session.index.rack("a02")
            assert copy_rack is not None and copy_rack.slot == 2
            assert [d.id for d in copy_rack.devices] == ["a02-pdu-a", "a02-pdu-b", "a02-n01"]
            assert [d.feed for d in copy_rack.devices[:2]] == ["a02-A", "a02-B"]
            assert [f.id for f in copy_rack.feeds] == ["a02-A", "a02-B"]
            assert app.main.racks.current_rack_id() == "a02"
            # A new row name in Add rack makes the row; the racks view shows it.
            await add_rack(pilot, id="b01", row="B", slot="1")
            assert session.index.rack("b01").row == "B"
            assert app.main.racks.row_name() == "B" and app.main.racks.current_rack_id() == "b01"
            # Add feed with defaults: the next side; Remove feed picks one of the rack's.
            await palette(pilot, "Add feed")
            assert isinstance(app.screen, FormScreen)
            await snapshot(pilot, "add-feed")
            await pilot.press("enter")
            await settle(pilot)
            assert [f.id for f in session.index.rack("b01").feeds] == ["b01-A", "b01-B", "b01-C"]
            await palette(pilot, "Remove feed")
            assert isinstance(app.screen, ChoiceScreen)
            await snapshot(pilot, "remove-feed")
            await pilot.press("up", "enter")  # the default is the last: up is b01-B
            await settle(pilot)
            assert [f.id for f in session.index.rack("b01").feeds] == ["b01-A", "b01-C"]
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert len(session.index.rack("b01").feeds) == 3
            # Remove rack asks first (Cancel is the default): shift+tab to Delete rack.
            await palette(pilot, "Remove rack")
            await pilot.press("shift+tab", "enter")
            await settle(pilot)
            assert session.index.rack("b01") is None
            assert app.main.racks.current_rack_id() in ("a01", "a02")

    run(journey)


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_cooling_pickers_list_only_their_kind_place_at_a_taken_unit_and_several(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy("training-128.toml", tmp_path)
    monkeypatch.chdir(tmp_path)
    path = Path("training-128.toml")

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(100, 32)) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            app.main.go_to("a01-n02")  # U11-U14; the cursor on its top unit
            assert app.main.racks.cursor.unit == 14
            await place(pilot, "sys-422")  # 4 U: U15-U18 (U7-U10 is farther)
            placed = session.index.device("a01-n05")
            assert placed.position == 15
            assert "a01-n05 (sys-422ga-nbrt-lcc) in a01 at U15-U18" in recent_notices(app)
            # Several at once: space marks, enter stacks them upward from the cursor.
            app.main.go_to("a01-n01")  # U3-U6: the nearest free above are U7-U10
            await pilot.press("a")
            await type_text(pilot, "qm87")
            await pilot.press("space", *["backspace"] * 4)
            await type_text(pilot, "blank-1")
            await pilot.press("space")
            await snapshot(pilot, "catalog-picker-marked")
            await pilot.press("enter")
            await settle(pilot)
            assert session.index.device("a01-sw01").position == 7
            # The next free id is padded as its prefix's ids are (a01-blank1..4 exist,
            # unpadded): a01-blank5, not a01-blank05 (two digits only for a first id).
            assert session.index.device("a01-blank5").position == 8
            await pilot.press("ctrl+z")  # one step
            await settle(pilot)
            assert session.index.device("a01-sw01") is None
            assert session.index.device("a01-blank5") is None
            # Set cooling: the pickers list only CDUs and rear doors.
            await palette(pilot, "Set cooling")
            screen = app.screen
            assert isinstance(screen, CoolingScreen) and screen.mode == "liquid"
            cdus = screen.query_one("#cooling-cdus", SelectionList)
            values = [cdus.get_option_at_index(i).value for i in range(cdus.option_count)]
            assert values == ["a06-cdu", "a07-cdu"]  # only kind cdu, of all 200+ devices
            assert sorted(cdus.selected) == ["a06-cdu", "a07-cdu"]
            doors = screen.query_one("#cooling-doors", OptionList)
            ids = [doors.get_option_at_index(i).id for i in range(doors.option_count)]
            assert ids == ["new:rear-door-hx"]  # no rear door in the layout: a new one
            await snapshot(pilot, "set-cooling-liquid")
            # Liquid on one CDU only: tab to the list, space unticks a06-cdu, enter.
            await pilot.press("tab", "space", "enter")
            await settle(pilot)
            assert session.index.rack("a01").cdu == "a07-cdu"
            assert any(d.code == "COOL009" for d in session.findings)  # no N+1 now
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert session.index.rack("a01").cdu == ["a06-cdu", "a07-cdu"]

    run(journey)


@pytest.mark.slow  # a long journey: the slow step
def test_mouse_click_a_catalog_entry_then_a_unit_places_drag_moves_refused_drop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy("training-128.toml", tmp_path)
    monkeypatch.chdir(tmp_path)
    path = Path("training-128.toml")

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(120, 50)) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            # The catalog panel, searched by typing.
            await search_catalog(pilot, "qm87")
            listing = app.main.query_one("#catalog-list", OptionList)
            # Grouped by kind while searching too: the Switches heading, then the matches.
            assert listing.get_option_at_index(0).disabled
            assert listing.get_option_at_index(1).id == "qm8700"
            # Enter in the search places the first match at the racks view's cursor (a01
            # U42, where a 2U blanking panel sits: it makes way, a 1U panel closes U41).
            await pilot.press("enter")
            await settle(pilot)
            assert session.index.device("a01-sw01").position == 42
            assert session.index.occupied("a01", "front")[41].model == "blank-1u"
            await pilot.click("#catalog-list", offset=(4, 1))
            await pilot.pause()
            assert app.main.build.armed == "qm8700"
            app.main.go_to("a01-leaf1")  # scrolls U19 into view; U25 is free
            await pilot.click("#racks", offset=spot(app, 0, 25))
            await settle(pilot)
            switch = session.index.device("a01-sw02")
            assert switch is not None and switch.position == 25
            assert app.main.build.armed is None
            # Drag a01-leaf1 (U19) up to U26: moved, as with m.
            await drag(pilot, app, (0, 19), (0, 26))
            assert session.index.device("a01-leaf1").position == 26
            assert "Moved a01-leaf1 to a01 U26" in last_notice(app)
            assert app.main.racks.current_device_id() == "a01-leaf1"
            # Drag it onto the node at U29-U32: refused, nothing changes.
            revision = session.revision
            await drag(pilot, app, (0, 26), (0, 30))
            assert "taken by device a01-n04" in last_notice(app)
            assert session.index.device("a01-leaf1").position == 26
            assert session.revision == revision
            assert app.main.racks.current_device_id() == "a01-leaf1"
            # A large terminal: the catalog panel stays open under the inspector; the
            # picker with nothing typed lists every type by kind.
            await pilot.resize_terminal(200, 60)
            await settle(pilot)
            await snapshot(pilot, "catalog-panel-200x60")
            await pilot.press("a")
            await pilot.pause()
            await snapshot(pilot, "catalog-picker-200x60")
            await pilot.press("escape")

    run(journey)
