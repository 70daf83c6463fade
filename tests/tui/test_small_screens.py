"""The views at 80x24 and 200x60: whole racks only when scrolling sideways (no piece of the
previous rack on the left, the first rack never cut), what is in view and what lies beyond
said; the NVL72 rack's trays and shelves told apart in the whole-rack zoom; its busbar
drawn; the topology view's switches in order and the storage and out-of-band networks.

training-128: row A holds 7 racks of 21 columns each (COLUMN_W). At 80x24 the racks view
is 47 columns wide inside its border and scrollbar: 2 racks whole (42), 5 columns over; at
200x60 it is 141: 6 racks (126), 15 over.
"""

from __future__ import annotations

from pathlib import Path

from rackdesigner.tui.widgets.racks_view import COLUMN_W
from tests.tui.pilot import app_for, copy, run, settle


def test_sideways_at_80x24_whole_racks_and_how_many_lie_beyond(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            view = app.main.racks
            assert view.racks_shown() == 2
            assert "Row A · front · 1–2 of 7" in str(view.border_title)
            assert view.render_line(0).text.rstrip().endswith("→5")
            await pilot.press("right", "right", "right")  # the cursor on a04
            await settle(pilot)
            assert view.scroll_offset.x == 2 * COLUMN_W  # a03 and a04, whole
            assert "3–4 of 7" in str(view.border_title)
            title, unit = view.render_line(0).text, view.render_line(1).text
            assert title.split()[:2] == ["a03", "a04"] and title.rstrip().endswith("→3")
            assert unit.startswith("42 ┃ a03-blank17 ½ ┃ 42 ┃ a04-blank4 ½  ┃")
            assert unit[2 * COLUMN_W :].strip() == ""  # no piece of a05
            # A wheel's few columns move a whole rack, either way.
            view.scroll_to(x=2 * COLUMN_W + 3, animate=False, immediate=True)
            await pilot.pause()
            assert view.scroll_offset.x == 3 * COLUMN_W
            view.scroll_to(x=3 * COLUMN_W - 3, animate=False, immediate=True)
            await pilot.pause()
            assert view.scroll_offset.x == 2 * COLUMN_W
            # A click on the hint of the racks beyond goes to the next one.
            await pilot.click("#racks", offset=(1 + 2 * COLUMN_W + 2, 3))
            await settle(pilot)
            assert view.current_rack_id() == "a05"

    run(journey)


def test_at_200x60_the_last_rack_in_view_leaves_the_first_whole(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(200, 60)) as pilot:
            await settle(pilot)
            view = app.main.racks
            await pilot.press(*["right"] * 6)  # a07, the last
            await settle(pilot)
            # Before, the view scrolled 6 columns (7 x 21 - 141) and cut a01's units.
            assert view.scroll_offset.x == COLUMN_W
            assert view.racks_shown() == 6
            assert view.render_line(1).text.startswith("42 ┃ a02-blank4 ½  ┃")
            assert view.render_line(0).text.split()[0] == "a02"

    run(journey)


def test_the_floor_and_the_summary_say_what_is_in_view(tmp_path: Path) -> None:
    """Floor at 80x24: 46 columns less the row label's 5 leave 3 slots of 11; a01-a03
    shown, "→4" beyond. Summary at 80x24: 6 lines of figures (GPUs, cost, site, the water
    loop fws-1 and its CDU group's first line, a blank: the group's flow line is left out
    where it would leave fewer racks in view) and the column names over 3 racks' lines
    (10 lines between the border and the scrollbar); 4 more below."""
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await settle(pilot)
            await pilot.press("2")
            await settle(pilot)
            floor = app.main.floor
            assert str(floor.border_title) == "Floor · 1 row · 7 racks · 3 in view"
            row = floor.render_line(2).text
            assert row.split()[:4] == ["A", "▐a01", "●▌", "a02"] and row.rstrip().endswith("→4")
            assert "a04" not in row
            await pilot.press("4")
            await settle(pilot)
            summary = app.main.summary
            title = str(summary.border_title)
            assert title == "Summary · 7 racks, nearest their limits first · 1–3 in view, 4 more ↓"

    run(journey)


def test_the_topology_view_sorts_switches_and_shows_the_other_networks(
    tmp_path: Path,
) -> None:
    """training-128: one compute fabric, the storage network (the two SN5600s, 40 cables:
    16 GPU nodes x 2 storage ports and the 2 ESS 3500s' 4 each) and the out-of-band one
    (the SN2201, 30 cables: 16 nodes' BMCs, 12 switches' and 2 storage nodes' management
    ports)."""
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("3")
            await settle(pilot)
            tree = app.main.topology
            assert str(tree.border_title) == "Topology · 1 fabric · storage · out-of-band"
            labels = [str(node.label) for node in tree.root.children]
            assert labels[1].startswith("storage network · 2 switches · 40 cables")
            assert labels[2].startswith("out-of-band (management) network · 1 switch · 30 ")
            storage = tree.root.children[1]
            assert [str(n.label).split(" · ")[0] for n in storage.children] == [
                "a03-sw-stor1",
                "a03-sw-stor2",
            ]

    run(journey)
