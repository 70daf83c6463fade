"""The views but the racks are made when first shown (``tui/views.py``), and what they post
still reaches the main screen, whose handlers go by Textual's names: enter on the floor,
on a topology entry and on a summary line each opens the racks view there."""

from __future__ import annotations

from pathlib import Path

from rackdesigner.tui.views import VIEWS
from tests.tui.pilot import SIZE, app_for, copy, run, settle, shown, until


def test_views_are_made_when_first_shown_and_what_they_post_reaches_the_screen(
    tmp_path: Path,
) -> None:
    async def journey() -> None:
        app = app_for(copy("training-128.toml", tmp_path), tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            made = [len(app.main.query(f"#{view.name}")) for view in VIEWS]
            assert made == [1, 0, 0, 0, 0]  # the racks only
            # The floor: made by its key, focused; enter opens the rack under its cursor.
            await pilot.press("2")
            await settle(pilot)
            assert shown(app) == "floor" and app.focused is app.main.floor
            await pilot.press("right", "enter")
            await until(pilot, lambda: app.main.racks.current_rack_id() == "a02", "on a02")
            assert shown(app) == "racks" and app.focused is app.main.racks
            # The topology: enter on a switch's entry puts the cursor on that switch.
            await pilot.press("3")
            await settle(pilot)
            tree = app.main.topology
            spine = next(
                node
                for node in tree.root.children[0].children[0].children
                if node.data == "a03-spine1"
            )
            tree.select_node(spine)
            await until(pilot, lambda: app.main.racks.current_device_id() == "a03-spine1", "")
            assert shown(app) == "racks"
            # The summary: enter on a line opens that rack.
            await pilot.press("4")
            await settle(pilot)
            rack = app.main.summary.current_rack()
            assert rack is not None
            await pilot.press("enter")
            await until(pilot, lambda: shown(app) == "racks", "the racks view")
            assert app.main.racks.current_rack_id() == rack
            assert [len(app.main.query(f"#{view.name}")) for view in VIEWS] == [1, 1, 1, 1, 0]

    run(journey)
