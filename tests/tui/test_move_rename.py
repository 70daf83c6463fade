"""A device moved to another rack keeps telling the technician its old rack when its id
carries that rack's prefix (a01-n04 standing in a02). The move offers the new rack's id, in
the same undo step; the racks view names devices by id with their label under it, as the
elevations and the cable schedule do."""

from __future__ import annotations

from pathlib import Path

import pytest

from rackdesigner.design.moving import moved_id
from rackdesigner.edit import EditError, MoveDevice, Session
from rackdesigner.layout_io import load_path
from rackdesigner.tui.screens.confirm import ConfirmScreen
from tests.conftest import ROOT
from tests.tui.pilot import app_for, copy, recent_notices, run, settle, wait_for


@pytest.fixture(scope="module")
def training() -> Session:
    return Session(load_path(ROOT / "layouts" / "training-128.toml"))


def test_the_id_a_device_takes_in_its_new_rack(training: Session) -> None:
    """a01-n04 to a05: a05-n04 is taken (a05 holds n01-n04), so the next free a05-n id,
    a05-n05; a01-leaf1 to a03 (no a03-leaf1): a03-leaf1; a03-sw-stor1 to a01: a01-sw-stor1.
    No offer for an id that does not name its rack, or within one rack."""
    index = training.index
    assert moved_id("a01-n04", "a01", "a05", index) == "a05-n05"
    assert moved_id("a01-leaf1", "a01", "a03", index) == "a03-leaf1"
    assert moved_id("a03-sw-stor1", "a03", "a01", index) == "a01-sw-stor1"
    assert moved_id("a01-n04", "a02", "a05", index) is None  # its id names a01, not a02
    assert moved_id("a01-n04", "a01", "a01", index) is None
    assert moved_id("a01-", "a01", "a02", index) is None


def test_a_move_is_checked_without_being_made(training: Session) -> None:
    """a01-n04 (4 U) at a02 U29 would cover a02-n04's U29-U32: refused, nothing changed;
    at a02 U33 (free to U36) it can be made."""
    revision = training.revision
    with pytest.raises(EditError, match="taken by device a02-n04"):
        MoveDevice("a01-n04", rack_id="a02", position=29).check(training.index)
    MoveDevice("a01-n04", rack_id="a02", position=33).check(training.index)
    assert training.index.rack_of("a01-n04").id == "a01"
    assert training.revision == revision


@pytest.mark.slow  # a long journey: the slow step
def test_moving_across_racks_with_keys_offers_the_rename_escape_keeps_it_home(
    tmp_path: Path,
) -> None:
    """m, right, 4 x up (U29 to U33), enter: the question; escape: nothing moved. Again and
    "keep": moved, its id unchanged. A move onto taken units is refused without asking."""
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            revision = session.revision
            app.main.go_to("a01-n04")
            await settle(pilot)
            await pilot.press("m", "right", *["up"] * 4, "enter")
            await wait_for(pilot, ConfirmScreen)
            question = app.screen
            assert isinstance(question, ConfirmScreen)
            assert "Rename it a02-n05?" in question.message
            await pilot.press("escape")
            await settle(pilot)
            assert session.revision == revision
            assert session.index.rack_of("a01-n04").id == "a01"
            assert "Move cancelled" in recent_notices(app)
            # Again, and keep the id.
            app.main.go_to("a01-n04")
            await settle(pilot)
            await pilot.press("m", "right", *["up"] * 4, "enter")
            await wait_for(pilot, ConfirmScreen)
            await pilot.press("tab", "enter")
            await settle(pilot)
            assert session.index.rack_of("a01-n04").id == "a02"
            assert session.revision == revision + 1
            # Onto a05's nodes (U29 is a05-n04's): refused, no question.
            app.main.go_to("a02-n04")
            await settle(pilot)
            await pilot.press("m", *["right"] * 3, "enter")
            await settle(pilot)
            assert not isinstance(app.screen, ConfirmScreen)
            assert "taken by device" in recent_notices(app)
            assert session.index.rack_of("a02-n04").id == "a02"

    run(journey)


def test_the_racks_view_names_a_device_by_id_with_its_label_under_it(tmp_path: Path) -> None:
    """a03-stor1 (2 U at U13, labelled "IBM Storage Scale System 3500 1"): its id on U14, its label
    on U13 where its model was; a 4 U node without a label keeps id then model."""
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(200, 60)) as pilot:
            await settle(pilot)
            view = app.main.racks
            view.scroll_to(y=0, animate=False, immediate=True, force=True)
            await pilot.pause()

            def line(unit: int) -> str:
                return view.render_line(view.line_of_unit(unit)).text

            assert "┃ a03-stor1     ┃" in line(14)
            assert "┃ IBM Storage Sc┃" in line(13)
            assert "┃ a01-n04       ┃" in line(32) and "┃ sys-421ge-tnhr┃" in line(31)

    run(journey)
