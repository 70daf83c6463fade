"""The summary view by real keys: a cursor over the racks' lines, enter opens that
rack in the racks view; narrower than its wide table it draws the compact one, and what is
still cut scrolls sideways."""

from __future__ import annotations

from pathlib import Path

import pytest

from rackdesigner.tui.widgets.summary_view import COMPACT_W, WIDE_W
from tests.tui.pilot import app_for, copy, run, settle, shown


def test_enter_on_a_summary_line_opens_that_rack_and_the_table_fits_120_columns(
    tmp_path: Path,
) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(120, 36)) as pilot:
            await settle(pilot)
            await pilot.press("4")
            await settle(pilot)
            summary = app.main.summary
            assert shown(app) == "summary" and app.focused is summary
            assert summary.summary is not None
            racks = [r.rack for r in summary.summary.racks]
            assert len(racks) >= 3
            # 120 columns: the compact table, which fits without scrolling sideways.
            width = summary.scrollable_content_region.width
            assert summary.compact and COMPACT_W <= width < WIDE_W
            assert summary.max_scroll_x == 0
            assert summary.current_rack() == racks[0]
            await pilot.press("down", "down")
            await pilot.pause()
            assert summary.current_rack() == racks[2]
            await pilot.press("up")
            await pilot.pause()
            assert summary.current_rack() == racks[1]
            await pilot.press("enter")
            await settle(pilot)
            assert shown(app) == "racks" and app.focused is app.main.racks
            assert app.main.racks.current_rack_id() == racks[1]
            assert app.main.inspector.ref == ("rack", racks[1])
            # Back to the summary: the same rack is still highlighted.
            await pilot.press("4")
            await settle(pilot)
            assert summary.current_rack() == racks[1]

    run(journey)


def test_a_wide_terminal_gets_the_wide_table_and_a_narrow_one_scrolls_sideways(
    tmp_path: Path,
) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(200, 60)) as pilot:
            await settle(pilot)
            await pilot.press("4")
            await settle(pilot)
            assert not app.main.summary.compact
            assert app.main.summary.max_scroll_x == 0
        app = app_for(path, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("4")
            await settle(pilot)
            summary = app.main.summary
            assert summary.compact and summary.max_scroll_x > 0
            await pilot.press("right", "right")
            await pilot.pause()
            assert summary.scroll_offset.x > 0
            await pilot.press("left", "left")
            await pilot.pause()
            assert summary.scroll_offset.x == 0

    run(journey)


def test_the_header_fits_one_line_at_120_columns_and_two_unbroken_lines_at_80(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy("training-128.toml", tmp_path)
    monkeypatch.chdir(tmp_path)  # a relative path in the header, the same everywhere

    async def journey() -> None:
        for size, lines in (((120, 36), 1), ((80, 24), 2), ((200, 60), 1)):
            app = app_for(Path("training-128.toml"), tmp_path)
            async with app.run_test(size=size) as pilot:
                await settle(pilot)
                header = app.main.header
                width = header.content_size.width
                drawn = header.render()
                said = drawn.plain.split("\n")
                assert len(said) == lines, (size, said)
                assert all(len(line) <= width for line in said), (size, said)
                assert "128\u00a0GPUs" in drawn.plain and "training-128.toml" in drawn.plain
                if size[0] == 200:  # wide: everything in full
                    assert drawn.plain == header.text().plain
                    assert "182.7\u00a0kW\u00a0/\u00a0276.0\u00a0kW" in drawn.plain
                else:
                    assert "182.7/276.0\u00a0kW" in drawn.plain

    run(journey)
