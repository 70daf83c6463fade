"""The floor, topology and summary views, view switching and the export dialog, driven
with keys through Textual's Pilot on the bundled training layout (7 racks, one fabric)."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from textual.widgets import Input

from rackdesigner.report.summary import summarise
from rackdesigner.tui.screens.export import ExportScreen
from rackdesigner.tui.widgets.footer import DesignerFooter
from rackdesigner.tui.widgets.summary_view import bar
from rackdesigner.tui.widgets.view_bar import ViewBar
from tests.tui.pilot import SIZE, app_for, copy, palette, run, settle, shown


def test_views_switch_by_digit_palette_and_tab_and_each_one_works(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            # Floor by key: the cursor starts on the racks view's rack; enter opens a rack.
            await pilot.press("2")
            assert shown(app) == "floor" and app.focused is app.main.floor
            assert app.main.floor.current_rack_id() == "a01"
            assert [c.rack for c in app.main.floor.rows[0][1]][:3] == ["a01", "a02", "a03"]
            await pilot.press("right", "right")
            assert app.main.floor.current_rack_id() == "a03"
            await pilot.pause(0.2)  # the inspector follows once the cursor rests
            assert app.main.inspector.ref == ("rack", "a03")
            await pilot.press("enter")
            assert shown(app) == "racks" and app.main.racks.current_rack_id() == "a03"
            # Summary through the palette: worst first, GPUs by model, cost per GPU.
            await palette(pilot, "Summary view")
            await settle(pilot)
            assert shown(app) == "summary"
            summary = app.main.summary.summary
            assert summary is not None and summary.gpus_by_model == {"h100-sxm": 128}
            worst = [r.worst for r in summary.racks]
            assert worst == sorted(worst, reverse=True)
            assert summary.cdus and summary.cdus[0].margin is not None
            head = " ".join(t for line in app.main.summary.head for t, _ in line)
            assert "per GPU" in head and "N+1" in head
            # Topology by clicking its tab; enter on a leaf jumps to it in the racks view.
            bar = app.main.query_one("#view-bar", ViewBar)
            await pilot.click("#view-bar", offset=(bar.x_of("topology"), 0))
            await settle(pilot)
            assert shown(app) == "topology" and app.focused is app.main.topology
            labels = [str(line.node.label) for line in app.main.topology._tree_lines]
            assert any("scalable unit 1" in label and "× 4" in label for label in labels)
            leaf = next(i for i, label in enumerate(labels) if label.startswith("a01-leaf1"))
            app.main.topology.cursor_line = leaf
            await pilot.press("enter")
            await pilot.pause()
            assert shown(app) == "racks"
            assert app.main.racks.current_device_id() == "a01-leaf1"
            # Back with 1 from another view, and an edit shows in the floor view.
            await pilot.press("4", "1")
            assert shown(app) == "racks" and app.focused is app.main.racks

    run(journey)


def test_view_keys_pressed_faster_than_the_screen_repaints_arrive_in_order(
    tmp_path: Path,
) -> None:
    """Keys sent as a held key or tmux's send-keys sends them, without waiting for a
    repaint: each digit switches in order, and the arrows after one move the new view's
    cursor. (The digits were the views' own bindings: they bubbled up from whichever view
    had focus, so ``4 3 2 1`` came out of order, and a key was lost while none had.)"""
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        switched: list[str] = []
        show = app.main._view_shown

        def record(name: str) -> None:
            switched.append(name)
            show(name)

        app.main._view_shown = record  # type: ignore[method-assign]
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            keys = ["4", "3", "2", "1"] * 5
            for key in keys:
                app.simulate_key(key)
            await settle(pilot)
            views = {"1": "racks", "2": "floor", "3": "topology", "4": "summary"}
            assert switched == [views[k] for k in keys], " ".join(switched)
            assert app.main.view_name == "racks" and app.focused is app.main.racks
            racks_cursor = app.main.racks.cursor
            for key in ("2", "right", "right"):
                app.simulate_key(key)
            await settle(pilot)
            assert app.focused is app.main.floor and app.main.floor.current_rack_id() == "a03"
            assert app.main.racks.cursor == racks_cursor
            # Under a dialog a digit is the dialog's: the help screen stays, the view too.
            await pilot.press("question_mark")
            await pilot.press("4")
            assert app.main.view_name == "floor" and len(app.screen_stack) == 2
            await pilot.press("escape")
            # Back in a view, digits switch again.
            await pilot.press("1")
            assert app.main.view_name == "racks"
            # In a panel, the panel keeps them; in a field, a digit is typed.
            await pilot.press("ctrl+o")
            await pilot.press("2")
            assert app.main.view_name == "racks" and app.focused is app.main.problems
            await pilot.press("escape", "enter")
            assert app.focused is app.main.inspector.editor
            await pilot.press("end", "3")
            assert app.main.view_name == "racks" and app.main.inspector.editor.value.endswith("3")

    run(journey)


def test_footer_follows_the_focus_and_a_click_presses_its_key(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            footer = app.main.query_one("#footer", DesignerFooter)
            described = [item.description for item in footer.items]
            assert described[:3] == ["place", "link", "fabric"]
            assert footer.palette is not None and footer.palette.description == "palette"
            await pilot.press("2")
            assert "open" in [item.description for item in footer.items]
            assert "place" not in [item.description for item in footer.items]
            # Every item drawn fits the width, the palette at the right edge.
            spans = footer.spans()
            assert spans[-1][2] == footer.size.width
            assert all(a[2] <= b[1] for a, b in pairwise(spans))
            # A click on "help" presses ?: the help screen opens.
            index = next(i for i, item in enumerate(footer.items) if item.description == "help")
            start = next(s for i, s, _ in spans if i == index)
            await pilot.click("#footer", offset=(start + 1, 0))
            await settle(pilot)
            assert len(app.screen_stack) == 2

    run(journey)


def test_summary_bars_and_order_come_from_the_report() -> None:
    assert bar(0.5, 4) == ("██", "··")
    assert bar(2.0, 4) == ("████", "")
    assert bar(None, 3) == ("", "   ")


def test_export_dialog_writes_with_the_cli_exporter_and_refuses_the_input(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)
    target = tmp_path / "out" / "floor.svg"

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+e")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ExportScreen)
            await pilot.press("down", "down")  # elevations, svg-dir, floorplan
            field = screen.query_one("#export-path", Input)
            assert field.value == str(tmp_path / "training-128-floorplan.svg")
            field.value = str(target)
            field.focus()
            await pilot.press("enter")
            for _ in range(300):
                await pilot.pause(0.02)
                if target.exists():
                    break
            await settle(pilot)
            assert b"<svg" in target.read_bytes()[:400]
            assert any("Wrote" in text for _, text in app.notices)
            # The input layout is never an output.
            before = path.read_bytes()
            await palette(pilot, "Export")
            field = app.screen.query_one("#export-path", Input)
            field.value = str(path)
            field.focus()
            await pilot.press("enter")
            await settle(pilot)
            assert path.read_bytes() == before
            assert "it is the input layout" in app.notices[-1][1]

    run(journey)


def test_summarise_sorts_worst_first_and_counts_gpus(tmp_path: Path) -> None:
    from rackdesigner.analysis import Analysis
    from rackdesigner.layout_io.document import load
    from tests.conftest import ROOT

    analysis = Analysis(load(ROOT / "layouts" / "inference-32-b200.toml").layout)
    summary = summarise(analysis)
    assert summary.gpus == 32 and summary.per_gpu is not None
    assert [r.rack for r in summary.racks] == ["a01", "a02"]  # a01 carries more
    assert summary.racks[0].heat_what == "door" and summary.racks[0].heat_limit == 75e3
    # Every line of the busiest feed, and the busiest of them named with its limit.
    first = summary.racks[0]
    assert set(first.lines) == {"L1", "L2", "L3"}
    assert first.current == max(first.lines.values()) and first.current_limit > 0
