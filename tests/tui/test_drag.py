"""Direct manipulation: drag a device to another rack (and undo it), in the
compact zoom too, and drag a catalog entry onto a unit to place it; one undo step each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.widgets import OptionList

from rackdesigner.tui.screens.confirm import ConfirmScreen
from rackdesigner.tui.widgets.racks_view import COLUMN_W, LABEL_W
from tests.tui.pilot import (
    app_for,
    copy,
    drag,
    last_notice,
    recent_notices,
    run,
    search_catalog,
    settle,
    spot,
    wait_for,
)


def _compact_spot(app: Any, rack: int, unit: int) -> tuple[int, int]:
    """Where unit ``unit`` of the ``rack``-th rack is drawn at any zoom (its line's body)."""
    view = app.main.racks
    x = view.gutter.left + rack * COLUMN_W + LABEL_W + 1 + 4 - view.scroll_offset.x
    return x, view.gutter.top + view.line_of_unit(unit) - view.scroll_offset.y


async def _drag_catalog_entry(pilot: Any, entry: tuple[int, int], target: tuple[int, int]) -> None:
    """Press on a catalog entry, move over the racks with the button held, release there."""
    await pilot.mouse_down("#catalog-list", offset=entry)
    await pilot._post_mouse_events([events.MouseMove], "#racks", target, button=1)
    await pilot._post_mouse_events([events.MouseUp], "#racks", target, button=1)
    await settle(pilot)


def test_drag_a_node_to_another_rack_then_undo_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(120, 50)) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            app.main.go_to("a01-n04")  # U29-U32; a02's U33-U36 are free
            await settle(pilot)
            revision = session.revision
            # Grab it at U30, let go over a02's U34: it lands at U33, a unit under the pointer.
            # Its id names a01: the move offers a02's next free id (a02-n04 is taken), and
            # Enter takes it; move and rename are one undo step.
            await drag(pilot, app, (0, 30), (1, 34))
            await wait_for(pilot, ConfirmScreen)
            await pilot.press("enter")
            await settle(pilot)
            assert session.index.device("a01-n04") is None
            assert session.index.rack_of("a02-n05").id == "a02"
            assert session.index.device("a02-n05").position == 33
            assert "Moved a01-n04 to a02 U33 as a02-n05" in recent_notices(app)
            assert session.revision == revision + 1  # one undo step
            assert app.main.racks.current_device_id() == "a02-n05"
            assert app.main.racks.current_rack_id() == "a02"
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert session.index.rack_of("a01-n04").id == "a01"
            assert session.index.device("a01-n04").position == 29
            assert app.main.racks.current_rack_id() == "a01"

    run(journey)


def test_drag_in_the_whole_rack_zoom_and_a_refused_drop_on_a_taken_line(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            await pilot.press("z", "z")  # the whole rack
            await pilot.pause()
            view = app.main.racks
            assert view.units_per_row() > 2
            # a01-n04 (U29-U32) onto the empty line of a02 above it (U33-U36).
            start = _compact_spot(app, 0, 32)
            await pilot.mouse_down("#racks", offset=start)
            target = _compact_spot(app, 1, 36)
            await pilot._post_mouse_events([events.MouseMove], "#racks", target, button=1)
            assert view.ghost is not None and view.ghost.rack == 1
            await pilot._post_mouse_events(
                [events.MouseUp, events.Click], "#racks", target, button=1
            )
            await wait_for(pilot, ConfirmScreen)  # rename it for a02? No: keep a01-n04
            await pilot.press("tab", "enter")
            await settle(pilot)
            assert session.index.rack_of("a01-n04").id == "a02"
            assert session.index.device("a01-n04").position == 33
            # Back onto a01's nodes: refused with the reason; nothing changes.
            revision = session.revision
            start = _compact_spot(app, 1, 36)
            await pilot.mouse_down("#racks", offset=start)
            target = _compact_spot(app, 0, 19)  # a01-n03 and the two leaves fill it
            await pilot._post_mouse_events([events.MouseMove], "#racks", target, button=1)
            await pilot._post_mouse_events(
                [events.MouseUp, events.Click], "#racks", target, button=1
            )
            await settle(pilot)
            assert "taken by device" in last_notice(app)
            assert session.revision == revision
            assert session.index.rack_of("a01-n04").id == "a02"

    run(journey)


def test_drag_a_catalog_entry_onto_a_unit_places_it_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy("training-128.toml", tmp_path)
    monkeypatch.chdir(tmp_path)

    async def journey() -> None:
        app = app_for(Path("training-128.toml"), tmp_path)
        async with app.run_test(size=(120, 50)) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            await search_catalog(pilot, "qm87")
            listing = app.main.query_one("#catalog-list", OptionList)
            assert listing.get_option_at_index(1).id == "qm8700"
            app.main.go_to("a01-leaf1")  # U25 of a02 is free and on screen
            await settle(pilot)
            revision = session.revision
            await _drag_catalog_entry(pilot, (4, 1), spot(app, 1, 25))
            placed = session.index.device("a02-sw01")
            assert placed is not None and placed.position == 25
            assert session.revision == revision + 1  # one undo step
            assert app.main.build.armed is None  # a drag does not arm the entry
            assert app.main.racks.current_device_id() == "a02-sw01"
            assert app.focused is app.main.racks
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert session.index.device("a02-sw01") is None
            # Dropped off the racks (on the problems panel): nothing changes.
            revision = session.revision
            await pilot.mouse_down("#catalog-list", offset=(4, 1))
            await pilot._post_mouse_events([events.MouseMove], "#problems", (4, 2), button=1)
            await pilot._post_mouse_events([events.MouseUp], "#problems", (4, 2), button=1)
            await settle(pilot)
            assert session.revision == revision
            assert "Drop qm8700 on a unit" in last_notice(app)
            # A plain click on an entry still arms it (a click on a unit then places it).
            await pilot.click("#catalog-list", offset=(4, 1))
            await pilot.pause()
            assert app.main.build.armed == "qm8700"

    run(journey)


@pytest.mark.slow  # a long journey: the slow step
def test_a_dragged_catalog_entry_shows_its_ghost_where_the_drop_would_place_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23: before the drop, a catalog entry over a unit is drawn as a ghost (as a
    dragged device is) where it would go, and the header says so: it fits, or the unit is
    taken and it goes to the nearest free units; the drop places it there; the ghost goes."""
    copy("training-128.toml", tmp_path)
    monkeypatch.chdir(tmp_path)

    async def journey() -> None:
        app = app_for(Path("training-128.toml"), tmp_path)
        async with app.run_test(size=(120, 50)) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            view = app.main.racks
            await search_catalog(pilot, "qm87")
            app.main.go_to("a01-leaf1")
            await settle(pilot)
            await pilot.mouse_down("#catalog-list", offset=(4, 1))
            await pilot._post_mouse_events([events.MouseMove], "#racks", spot(app, 1, 25), button=1)
            await pilot.pause()
            ghost = view.ghost
            assert ghost is not None and ghost.block is not None
            assert (ghost.rack, ghost.unit, ghost.refused) == (1, 25, None)
            assert app.main.header.status == "drop: qm8700 fits at a02 U25"
            line = view.render_line(spot(app, 1, 25)[1] - view.gutter.top).text
            assert "░+qm8700" in line
            # Over a01-n04 (U29-U32): the drop would go to the nearest free unit, U28.
            await pilot._post_mouse_events([events.MouseMove], "#racks", spot(app, 0, 30), button=1)
            await pilot.pause()
            assert view.ghost is not None and (view.ghost.rack, view.ghost.unit) == (0, 28)
            assert app.main.header.status == "drop: U30 is taken, so qm8700 goes to a01 U28"
            revision = session.revision
            await pilot._post_mouse_events([events.MouseUp], "#racks", spot(app, 0, 30), button=1)
            await settle(pilot)
            assert view.ghost is None
            placed = session.index.device("a01-sw01")
            assert placed is not None and placed.position == 28
            assert session.revision == revision + 1
            # Dragged off the racks again: no ghost is left behind.
            await pilot.mouse_down("#catalog-list", offset=(4, 1))
            await pilot._post_mouse_events([events.MouseMove], "#racks", spot(app, 1, 25), button=1)
            await pilot._post_mouse_events([events.MouseMove], "#problems", (4, 2), button=1)
            await pilot.pause()
            assert view.ghost is None
            await pilot._post_mouse_events([events.MouseUp], "#problems", (4, 2), button=1)
            await settle(pilot)

    run(journey)


@pytest.mark.slow  # a long journey: the slow step
def test_a_device_dragged_to_the_edge_scrolls_to_a_rack_out_of_view_and_onto_a_title(
    tmp_path: Path,
) -> None:
    """Issue 23: at 80 columns two racks of row A show; a device dragged to the view's right
    edge scrolls the racks a rack per move until the one wanted (a05) is in view, and the
    drop moves it there. Dragged over another rack's title line, it goes to that rack at the
    same unit."""
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(80, 40)) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            view = app.main.racks
            app.main.go_to("a01-n04")  # U29-U32; a05's U33-U36 are free
            await settle(pilot)
            width = view.scrollable_content_region.width
            assert width < 5 * COLUMN_W  # a05 is out of view
            await pilot.mouse_down("#racks", offset=spot(app, 0, 30))
            await pilot._post_mouse_events([events.MouseMove], "#racks", spot(app, 0, 34), button=1)
            assert view.ghost is not None and (view.ghost.rack, view.ghost.unit) == (0, 33)
            for _ in range(10):
                edge = (view.gutter.left + width - 1, spot(app, 0, 34)[1])
                await pilot._post_mouse_events([events.MouseMove], "#racks", edge, button=1)
                if view.ghost.rack == 4:
                    break
            assert view.ghost.rack == 4 and view.ghost.unit == 33
            assert view.scroll_offset.x > 0
            left = view.scroll_offset.x
            assert left <= 4 * COLUMN_W and left + width >= 5 * COLUMN_W  # a05 in view
            await pilot._post_mouse_events([events.MouseUp, events.Click], "#racks", edge, button=1)
            await wait_for(pilot, ConfirmScreen)  # a05's id for it? No: keep a01-n04
            await pilot.press("tab", "enter")
            await settle(pilot)
            assert session.index.rack_of("a01-n04").id == "a05"
            assert session.index.device("a01-n04").position == 33
            # Onto the other rack in view by its title line: that rack, the same unit.
            first = -(-view.scroll_offset.x // COLUMN_W)
            other = first if first != 4 else first + 1
            assert other != 5  # (a06 is a CDU rack)
            await pilot.mouse_down("#racks", offset=spot(app, 4, 34))
            for unit in (35, 34):  # the drag starts; back to its units
                await pilot._post_mouse_events(
                    [events.MouseMove], "#racks", spot(app, 4, unit), button=1
                )
            title = (spot(app, other, 34)[0], view.gutter.top)
            await pilot._post_mouse_events([events.MouseMove], "#racks", title, button=1)
            assert view.ghost is not None and view.ghost.rack == other
            await pilot._post_mouse_events(
                [events.MouseUp, events.Click], "#racks", title, button=1
            )
            await settle(pilot)  # (a01-n04 names neither a05 nor this rack: no question)
            assert session.index.rack_of("a01-n04").id == f"a0{other + 1}"
            assert session.index.device("a01-n04").position == 33

    run(journey)
