"""The views (racks, floor, topology, summary), view switching, the footer, the views built
ahead, the themes and the export dialog, driven with keys and the mouse through Textual's
Pilot on the bundled layouts. One app boot carries the views' features, one the export
dialog's."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
from rich.segment import Segment
from textual.widgets import Checkbox, Input, OptionList, Select

from rackdesigner.edit import RemoveDevice
from rackdesigner.export.registry import KINDS
from rackdesigner.export.render import palette as drawing
from rackdesigner.report.summary import summarise
from rackdesigner.tui.controllers.views_ahead import BUILT, stamp_of
from rackdesigner.tui.screens.export import ExportScreen
from rackdesigner.tui.themes import DARK, LIGHT
from rackdesigner.tui.widgets.floor_view import COLUMN_W, HEADER_LINES, LABEL_W
from rackdesigner.tui.widgets.footer import DesignerFooter
from rackdesigner.tui.widgets.summary_view import bar
from rackdesigner.tui.widgets.view_bar import ViewBar
from tests.tui.pilot import SIZE, app_for, copy, palette, run, settle, shown, until


def _colours(segments: list[Segment]) -> set[str]:
    """Every foreground and background colour of some drawn segments, as hex."""
    found = set()
    for segment in segments:
        style = segment.style
        for colour in (style.color, style.bgcolor) if style else ():
            if colour is not None and colour.triplet is not None:
                found.add(colour.triplet.hex)
    return found


def _drawn(widget: object, lines: int) -> list[Segment]:
    out: list[Segment] = []
    for y in range(lines):
        out.extend(widget.render_line(y))  # type: ignore[attr-defined]
    return out


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_views_footer_built_ahead_fast_keys_digits_palette_tab_floor_mouse_and_themes(
    tmp_path: Path,
) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path, views_ahead=True)
        switched: list[str] = []
        show = app.main._view_shown

        def record(name: str) -> None:
            switched.append(name)
            show(name)

        app.main._view_shown = record  # type: ignore[method-assign]
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None

            # -- the footer follows the focus and a click presses its key
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
            await pilot.press("escape", "1")
            await settle(pilot)
            assert app.main.view_name == "racks" and len(app.screen_stack) == 1

            # -- the views are built ahead, and a stale view shows its last figures
            def ready() -> bool:
                return all(
                    (found := app.main.views.view_data(n)) is not None
                    and found[0] == stamp_of(session)
                    for n in BUILT
                )

            await until(pilot, ready, "summary and topology are built without being shown")
            # Shown at once: the key finds the data built ahead.
            await pilot.press("4")
            # At 100 × 32 the water loop leaves too few racks for the workload's lines: its
            # gist is under the view.
            assert app.main.summary.summary is not None
            assert app.main.summary.border_subtitle.startswith("workload fits")
            figures = app.main.summary.summary
            # An edit: the summary shows its last figures, marked, until the new ones come.
            await pilot.press("1")
            revision = session.revision
            assert app.main.do(RemoveDevice("a01-blank4")) is None
            assert session.revision != revision
            app.main.action_view("summary")  # on this thread: the worker cannot have answered yet
            assert app.main.summary.summary is figures
            assert app.main.summary.border_subtitle == "updating…"
            await until(
                pilot,
                lambda: (
                    app.main.summary.summary is not figures
                    and app.main.summary.border_subtitle.startswith("workload fits")
                ),
                "the summary's new figures, unmarked (the workload's gist, not updating…)",
            )
            await pilot.press("1")
            await settle(pilot)

            # -- view keys pressed faster than the screen repaints arrive in order: keys
            # sent as a held key or tmux's send-keys sends them, without waiting for a
            # repaint. (The digits were the views' own bindings: they bubbled up from
            # whichever view had focus, so ``4 3 2 1`` came out of order, and a key was lost
            # while none had.)
            switched.clear()
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
            await pilot.press("escape")
            await settle(pilot)
            assert app.focused is app.main.racks

            # -- the views switch by digit, palette and tab, and each one works
            # Floor by key: the cursor starts on the racks view's rack; enter opens a rack.
            await pilot.press("1")
            await pilot.press("2")
            assert shown(app) == "floor" and app.focused is app.main.floor
            assert app.main.floor.current_rack_id() == "a01"
            assert [c.rack for c in app.main.floor.rows[0][1]][:3] == ["a01", "a02", "a03"]
            await pilot.press("right", "right")
            assert app.main.floor.current_rack_id() == "a03"
            # The inspector follows once the cursor rests (a timer).
            await until(pilot, lambda: app.main.inspector.ref == ("rack", "a03"), "inspected")
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
            view_bar = app.main.query_one("#view-bar", ViewBar)
            await pilot.click("#view-bar", offset=(view_bar.x_of("topology"), 0))
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
            # Back with 1 from another view.
            await pilot.press("4", "1")
            assert shown(app) == "racks" and app.focused is app.main.racks

            # -- the floor by mouse: a click selects, enter and a double click open
            await pilot.press("2")
            floor = app.main.floor
            cells = floor.rows[0][1]
            third = cells[2]

            def where(cell: object) -> tuple[int, int]:
                column = cell.column  # type: ignore[attr-defined]
                x = floor.gutter.left + LABEL_W + column * COLUMN_W + 2 - floor.scroll_offset.x
                return x, floor.gutter.top + HEADER_LINES + 1 - floor.scroll_offset.y

            # A click selects the rack under the pointer; the racks view stays behind.
            await pilot.click("#floor", offset=where(third))
            await pilot.pause()
            assert floor.current_rack_id() == third.rack
            assert shown(app) == "floor"
            # Enter opens it in the racks view.
            await pilot.press("enter")
            await pilot.pause()
            assert shown(app) == "racks" and app.main.racks.current_rack_id() == third.rack
            # A double click on another rack opens that one.
            await pilot.press("2")
            await pilot.pause()
            # Another rack in sight (the view scrolls to keep its cursor on screen).
            other = next(
                c
                for c in cells
                if c.rack != third.rack
                and floor.gutter.left + LABEL_W < where(c)[0] < floor.size.width - 2
            )
            await pilot.double_click("#floor", offset=where(other))
            await settle(pilot)
            assert shown(app) == "racks" and app.main.racks.current_rack_id() == other.rack

            # -- themes: what the racks and floor views draw takes the theme's device and
            # density colours (the SVG drawings' palette), not only the attribute.
            assert app.theme == DARK
            height = app.main.racks.size.height
            dark_racks = _colours(_drawn(app.main.racks, height))
            node_dark = drawing.swatch("gpu-node", "dark").fill.lower()
            node_light = drawing.swatch("gpu-node", "light").fill.lower()
            assert node_dark in dark_racks and node_light not in dark_racks
            app.theme = LIGHT
            await pilot.pause()
            light_racks = _colours(_drawn(app.main.racks, height))
            assert node_light in light_racks and node_dark not in light_racks
            assert app.main.racks.rich_style.bgcolor.triplet.hex == drawing.SURFACES["light"]["bg"]
            await pilot.press("2")
            await pilot.pause()
            light_floor = _colours(_drawn(app.main.floor, app.main.floor.size.height))
            app.theme = DARK
            await pilot.pause()
            dark_floor = _colours(_drawn(app.main.floor, app.main.floor.size.height))
            assert light_floor != dark_floor
            assert set(drawing.DENSITY_COLOURS["dark"]) & dark_floor
            assert not set(drawing.DENSITY_COLOURS["dark"]) & light_floor

    run(journey)


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_export_dialog_writes_with_the_cli_exporter_offers_each_kinds_settings_and_progress(
    tmp_path: Path,
) -> None:
    from pypdf import PdfReader

    path = copy("inference-32-b200.toml", tmp_path)
    floorplan = tmp_path / "out" / "floor.svg"
    target = tmp_path / "pack.pdf"

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            # ctrl+e; the kind by arrows: its path follows (beside the layout).
            await pilot.press("ctrl+e")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ExportScreen)
            await pilot.press("down", "down")  # elevations, svg-dir, floorplan
            field = screen.query_one("#export-path", Input)
            assert field.value == str(tmp_path / "inference-32-b200-floorplan.svg")
            field.value = str(floorplan)
            field.focus()
            await pilot.press("enter")
            await until(pilot, floorplan.exists, "the floor plan written")
            await settle(pilot)
            assert b"<svg" in floorplan.read_bytes()[:400]
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
            await pilot.press("escape")
            await pilot.pause()

            # Each kind's settings, and the progress of a print pack.
            await pilot.press("ctrl+e")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ExportScreen)

            def offered(name: str) -> bool:
                return bool(screen.query_one(f"#export-{name}").display)

            # Elevations: theme and date; no paper, no graph settings.
            assert offered("theme") and offered("date")
            assert not offered("paper") and not offered("scope") and not offered("aggregate")
            # The graph: its scope and aggregate, no theme.
            kinds = screen.query_one("#export-kinds", OptionList)
            kinds.highlighted = [k.option for k in KINDS].index("--graph")
            await pilot.pause()
            assert offered("scope") and offered("aggregate") and not offered("theme")
            assert isinstance(screen.query_one("#export-aggregate"), Checkbox)
            # The print pack: paper size too, as `export --pdf --paper letter`.
            kinds.highlighted = [k.option for k in KINDS].index("--pdf")
            await pilot.pause()
            assert offered("paper") and offered("theme") and offered("date")
            paper = screen.query_one("#export-paper", Select)
            assert paper.value == "a4"
            paper.value = "letter"
            screen.query_one("#export-date", Input).value = "2026-12-01"
            field = screen.query_one("#export-path", Input)
            field.value = str(target)
            field.focus()
            await pilot.press("enter")
            # The dialog closes, then the export worker resumes and notifies: wait for
            # both, as a user sees them (checking the notice the moment the screen pops
            # raced the worker's continuation on a loaded machine).
            await until(
                pilot,
                lambda: app.screen is not screen and any("pack.pdf" in t for _, t in app.notices),
                "the dialog closed and the export said so",
            )
            assert app.screen is not screen, "the dialog closes when the export is done"
            steps = screen.steps
            pages = [(done, total) for what, done, total in steps if what == "printing pages"]
            assert pages and pages[0][0] == 0 and pages[-1][0] == pages[-1][1] > 1
            assert any(what == "writing files" for what, _, _ in steps)
            assert any("Wrote" in text and "pack.pdf" in text for _, text in app.notices)
            reader = PdfReader(str(target))
            box = reader.pages[0].mediabox
            assert {round(float(box.width)), round(float(box.height))} == {612, 792}  # letter
            # A bad date is refused in the dialog, which stays open for another go.
            await pilot.press("ctrl+e")
            await pilot.pause()
            again = app.screen
            assert isinstance(again, ExportScreen)
            again.query_one("#export-date", Input).value = "yesterday"
            again.query_one("#export-path", Input).focus()
            await pilot.press("enter")
            await until(pilot, lambda: not again.running, "the export refused")
            assert app.screen is again
            assert "not a date" in str(again.query_one("#export-hint").render())
            await pilot.press("escape")
            assert app.screen is not again

    run(journey)


def test_summary_bars_and_order_come_from_the_report() -> None:
    assert bar(0.5, 4) == ("██", "··")
    assert bar(2.0, 4) == ("████", "")
    assert bar(None, 3) == ("", "   ")


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
