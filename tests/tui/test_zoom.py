"""Seeing the whole rack: the compact zooms (``z`` and the palette) at 80x24, with
labels that stay legible, and a rack opened scrolled to its occupied units."""

from __future__ import annotations

from pathlib import Path

import pytest

from rackdesigner.edit import AddRack, PlaceDevice, Session
from rackdesigner.layout_io import dumps
from rackdesigner.model.layout import Layout
from tests.tui.pilot import GOLDEN, SMALL, app_for, copy, palette, run, settle, snapshot


def _lines(app) -> list[str]:  # type: ignore[no-untyped-def]
    """The racks view's lines as drawn, without styles."""
    view = app.main.racks
    return [view.render_line(y).text for y in range(view.scrollable_content_region.height)]


def _labels(app) -> list[int]:  # type: ignore[no-untyped-def]
    """The unit numbers at the left of the first rack's lines."""
    out = []
    for text in _lines(app)[1:]:
        head = text[:3].strip()
        if head.isdigit():
            out.append(int(head))
    return out


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_z_cycles_one_two_and_the_whole_rack_which_shows_u1_to_u42_at_80x24(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy("training-128.toml", tmp_path)
    monkeypatch.chdir(tmp_path)  # a relative path: the header reads the same everywhere
    path = Path("training-128.toml")

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            view = app.main.racks
            # 1 U per row, as before: only the top of the rack fits.
            assert view.units_per_row() == 1
            shown = _labels(app)
            assert shown[0] == 42 and 1 not in shown and len(shown) < 15
            await pilot.press("z")
            await pilot.pause()
            assert view.units_per_row() == 2
            assert "2 U per row" in str(view.border_title)
            assert _labels(app)[:3] == [41, 39, 37]  # each line from its lowest unit
            await pilot.press("z")
            await pilot.pause()
            # The whole rack: every line from U42's down to U1's, the bottom and the caption.
            k = view.units_per_row()
            assert k > 2
            labels = _labels(app)
            assert labels[-1] == 1 and labels[0] + k - 1 >= 42
            assert labels == list(range(labels[0], 0, -k))
            lines = _lines(app)
            assert any("└" in line for line in lines)
            assert any("42 U · liquid" in line for line in lines)
            assert view.scroll_offset.y == 0
            # Labels stay legible: the nodes by id, the stacked leaves as "+2".
            text = "\n".join(lines)
            assert "a01-n01" in text and "a01-n04" in text
            assert "a01-n03     +2" in text  # a01-leaf1 and a01-leaf2 share its line
            assert f"{k} U per row" in str(view.border_title)
            assert "whole rack" in app.notices[-1][1]
            await snapshot(pilot, "whole-rack-80x24", GOLDEN / "zoom")
            # The cursor walks the devices of a line, then the next line.
            assert view.current_device_id() == "a01-blank4"
            await pilot.press("down")
            assert view.current_device_id() == "a01-blank3"
            for _ in range(10):
                await pilot.press("down")
                if view.current_device_id() == "a01-leaf2":
                    break
            assert view.current_device_id() == "a01-leaf2"
            # Its line now names the cursor's device, with the other two as "+2".
            assert "a01-leaf2   +2" in "\n".join(_lines(app))
            await pilot.press("down")
            assert view.current_device_id() == "a01-leaf1"
            # z again: back to 1 U per row, the cursor kept and in view.
            await pilot.press("z")
            await pilot.pause()
            assert view.units_per_row() == 1
            assert view.current_device_id() == "a01-leaf1"
            assert 19 in _labels(app)
            # The palette names each level.
            await palette(pilot, "Zoom whole rack")
            assert view.zoom == 0
            await palette(pilot, "Zoom 2 U per row")
            assert view.zoom == 2
            await palette(pilot, "Zoom 1 U per row")
            assert view.zoom == 1

    run(journey)


def test_a_click_in_the_compact_zoom_selects_what_its_line_names(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            view = app.main.racks
            view.set_zoom(0)
            await pilot.pause()
            labels = _labels(app)
            line = labels.index(1) + 1  # U1's line, under the title
            x = view.gutter.left + 4 + 3  # the body of the first rack
            await pilot.click("#racks", offset=(x, view.gutter.top + line))
            await settle(pilot)
            assert view.current_device_id() == "a01-n01"

    run(journey)


def test_a_rack_opens_scrolled_to_its_occupied_units(tmp_path: Path) -> None:
    session = Session(Layout(name="low"))
    session.do(AddRack("a01", row="A", slot=1))
    session.do(PlaceDevice("a01", "dgx-b200", 1))
    session.do(AddRack("b01", row="B", slot=1))
    session.do(PlaceDevice("b01", "dgx-b200", 5))
    path = tmp_path / "low.toml"
    path.write_text(dumps(session.layout), encoding="utf-8")

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            view = app.main.racks
            # Not at the empty top: the cursor on the node, its units on screen.
            assert view.current_device_id() == "a01-n01"
            # The unit above it first, then the node's ten from its top (80x24 shows nine).
            assert _labels(app)[:2] == [11, 10]
            assert view.scroll_offset.y > 0
            await pilot.press("]")  # the next row's rack opens the same way
            await pilot.pause()
            assert view.current_device_id() == "b01-n01"
            assert _labels(app)[:2] == [15, 14]

    run(journey)


def test_the_cursor_scrolled_up_stays_under_the_title_line(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            view = app.main.racks
            assert app.main.go_to("a01-n01")
            await pilot.pause()
            for _ in range(8):
                await pilot.press("up")
                row = view.line_of_unit(view.cursor.unit) - view.scroll_offset.y
                assert 1 <= row < view.scrollable_content_region.height  # never row 0
            assert view.scroll_offset.y > 0

    run(journey)


def test_the_move_ghost_steps_a_line_per_key_in_the_compact_zooms(tmp_path: Path) -> None:
    """Issue 23: in 2 U per row (and the whole rack) ``m`` then an arrow moves the ghost one
    line, the zoom's units, not one unit (which left it on the same line for k - 1 keys);
    enter places it there as one undo step."""
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            view = app.main.racks
            await pilot.press("z")  # 2 U per row
            await pilot.pause()
            assert app.main.go_to("a01-n04")  # U29-U32
            await settle(pilot)
            await pilot.press("m", "up")
            await pilot.pause()
            assert view.ghost is not None and view.ghost.unit == 31
            await pilot.press("down", "down")
            await pilot.pause()
            assert view.ghost.unit == 27
            await pilot.press("up", "up")  # U31-U34: free
            revision = session.revision
            await pilot.press("enter")
            await settle(pilot)
            assert session.index.device("a01-n04").position == 31
            assert session.revision == revision + 1
            await pilot.press("z")  # the whole rack: k units a line
            await pilot.pause()
            k = view.units_per_row()
            assert k > 2
            assert app.main.go_to("a01-n04")
            await settle(pilot)
            await pilot.press("m", "down")
            await pilot.pause()
            assert view.ghost is not None and view.ghost.unit == 31 - k
            await pilot.press("escape")
            await pilot.pause()
            assert view.ghost is None

    run(journey)
