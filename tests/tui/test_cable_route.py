"""(v1.4) A selected cable's route: ``t`` (Trace cable) on a device picks one of its cables;
the inspector lists its segments with their lengths, its routed and stock lengths; the
floor view draws its way along the pathways. The trace's characters, the controller against
the fake and one journey that presses the keys."""

from __future__ import annotations

import shutil
from pathlib import Path

from rackdesigner.design.cable_route import FloorRoute
from rackdesigner.tui.controllers.cable_route import CableRoutes
from rackdesigner.tui.ui import CursorAt
from rackdesigner.tui.widgets.floor_view import CELL_LINES, COLUMN_W, ROW_LINES, trace
from tests.conftest import ROOT
from tests.tui.fake_ui import FakeUI
from tests.tui.pilot import SIZE, app_for, go_to, run, settle, type_text, until
from tests.tui.test_workspace import opened

EXAMPLE = ROOT / "tests" / "data" / "plant" / "example.toml"


def test_a_route_along_one_row_is_a_line_on_its_lane() -> None:
    """Racks from slot 1: slot 3's centre is column (3 - 1) x 11 + 5 = 27, slot 8's 82; the
    lane of row 0 is its line 3 (under its three lines of cells)."""
    drawn = trace([(3.0, 0), (3.0, 0), (8.0, 0), (8.0, 0)], first=1, columns=10)
    assert list(drawn) == [3]
    line = drawn[3]
    assert line[27] == "●" and line[82] == "●"
    assert {line[x] for x in range(28, 82)} == {"─"} and len(line) == 82 - 27 + 1


def test_a_route_between_rows_turns_at_the_cross_aisle() -> None:
    """b03 (row 1) along tray-b to slot 0, across to row 0, along tray-a to a05: slot 0 is
    before the first rack, so its column is the floor's edge (0); the turns are corners."""
    drawn = trace([(3.0, 1), (0.0, 1), (0.0, 0), (5.0, 0)], first=1, columns=8)
    lane_a, lane_b = CELL_LINES, ROW_LINES + CELL_LINES
    assert drawn[lane_b][27] == "●" and drawn[lane_b][0] == "└"
    assert drawn[lane_a][0] == "┌" and drawn[lane_a][4 * COLUMN_W + 5] == "●"
    assert all(drawn[y][0] == "│" for y in range(lane_a + 1, lane_b))


def _fake(tmp_path: Path) -> FakeUI:
    path = tmp_path / "example.toml"
    shutil.copy(EXAMPLE, path)
    return FakeUI(opened(path))


def test_trace_asks_for_the_port_and_shows_the_cable(tmp_path: Path) -> None:
    """The leaf has 16 cables: the port is asked for; p33's channel runs from rack a02 along
    tray-a (slot 2 to 0), across cross-0 to row B, along tray-b to b01 (slot 1)."""
    ui = _fake(tmp_path)
    routes = CableRoutes(ui.workspace, ui)
    ui.at = CursorAt(rack="a02", device="a02-leaf1")
    ui.answers = ["p33"]
    ui.dialog(routes.trace())
    assert ui.inspected[-1] == ("link", "a02-leaf1:p33") and ui.view_name == "floor"
    routes.follow(ui.workspace.inspected)
    route = ui.routes[-1]
    assert isinstance(route, FloorRoute) and route.routed
    assert route.points[0] == (2.0, 0) and route.points[-1] == (1.0, 1)
    assert (0.0, 0) in route.points and (0.0, 1) in route.points
    assert route.summary == "a02-leaf1:p33 → b01-spine1:p1: tray-a > cross-0 > tray-b · 8.21 m"
    # The floor view's own cursor keeps it; the racks view's device clears it.
    routes.follow(("rack", "b01"))
    assert ui.routes[-1] is route
    ui.view_name = "racks"
    routes.follow(("device", "a01-n01"))
    assert ui.routes[-1] is None
    routes.follow(("device", "a02-leaf1"))
    assert len(ui.routes) == 2  # nothing shown, nothing to clear: not asked again


def test_trace_needs_a_device_with_cables(tmp_path: Path) -> None:
    ui = _fake(tmp_path)
    routes = CableRoutes(ui.workspace, ui)
    ui.at = CursorAt(rack="a01")
    ui.dialog(routes.trace())
    ui.at = CursorAt(rack="a02", device="a02-pp1")
    ui.dialog(routes.trace())
    assert [n for _, n in ui.notices] == [
        "Put the cursor on a device with cables first.",
        "a02-pp1 has no cables.",
    ]
    assert ui.inspected == []


def test_trace_a_cable_with_keys_on_the_floor_and_in_the_inspector(tmp_path: Path) -> None:
    """Go to the node (ctrl+g), t, type its port, enter: the floor view shows the route
    drawn over it and the inspector the cable's segments and lengths (docs/cable-plant.md:
    4.30 m routed, 5 m stock, tray-a 0.6 m)."""
    path = tmp_path / "example.toml"
    shutil.copy(EXAMPLE, path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await go_to(pilot, "a01-n01")
            await settle(pilot)
            await pilot.press("t")
            await pilot.pause()
            await type_text(pilot, "ib1")
            await pilot.press("enter")
            await settle(pilot)
            main = app.main
            await until(pilot, lambda: main.view_name == "floor", "the floor view")
            floor = main.floor
            assert floor.route is not None and floor.route.link == "a01-n01:ib1"
            assert "a01-n01:ib1 → a02-leaf1:p1: tray-a · 4.30 m" in str(floor.border_subtitle)
            lane = "".join(seg.text for seg in floor.render_line(2 + CELL_LINES))
            assert lane.count("●") == 2 and "─" * 5 in lane
            facts = main.inspector.facts_text()
            assert "routed 4.30 m · stock 5 m" in facts
            assert "segments (1):" in facts and "tray-a 0.60 m" in facts
            # Back to the racks: the device under the cursor is inspected, the route goes.
            await pilot.press("1")
            await settle(pilot)
            assert floor.route is None

    run(journey)


def test_the_floor_first_shown_brings_the_cable_s_rack_into_view(tmp_path: Path) -> None:
    """The floor view made when first shown puts its cursor on the rack before it has a
    size; once sized it scrolls to it. At 100 columns the floor shows a few slots: rack a12
    (slot 12) of the GB200 SU is a scroll away from slot 1, and a cable from it (Go to its
    id, then 2) shows with a12 in view (the floor scrolled)."""
    path = tmp_path / "su.toml"
    shutil.copy(ROOT / "layouts" / "gb200-nvl72-su.toml", path)

    def in_view(floor: object) -> bool:
        from rackdesigner.tui.widgets.floor_view import FloorView

        assert isinstance(floor, FloorView)
        cells = floor.rows[floor.row][1]
        column = cells[floor.index].column
        return floor.first_column() <= column < floor.first_column() + floor.columns_shown()

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await go_to(pilot, "a12-c01:ib1")
            await settle(pilot)
            await pilot.press("2")
            await settle(pilot)
            floor = app.main.floor
            assert floor.current_rack_id() == "a12" and floor.route is not None
            assert in_view(floor)
            assert floor.first_column() > 0

    run(journey)
