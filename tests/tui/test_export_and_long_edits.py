"""Issue 14's leftovers, driven through Pilot on small bundled layouts: the floor view by
mouse, the themes recolouring what the views draw, the views built ahead, and the export
dialog's settings and progress."""

from __future__ import annotations

from pathlib import Path

from rich.segment import Segment
from textual.widgets import Checkbox, Input, OptionList, Select

from rackdesigner.export.registry import KINDS
from rackdesigner.export.render import palette
from rackdesigner.tui.controllers.views_ahead import BUILT, stamp_of
from rackdesigner.tui.screens.export import ExportScreen
from rackdesigner.tui.themes import DARK, LIGHT
from rackdesigner.tui.widgets.floor_view import COLUMN_W, HEADER_LINES, LABEL_W
from tests.tui.pilot import SIZE, app_for, copy, run, settle, shown


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


def test_floor_click_selects_enter_and_double_click_open_and_themes_recolour(
    tmp_path: Path,
) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
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

            # Themes: what the racks and floor views draw takes the theme's device and
            # density colours (the SVG drawings' palette), not only the attribute.
            assert app.theme == DARK
            height = app.main.racks.size.height
            dark_racks = _colours(_drawn(app.main.racks, height))
            node_dark = palette.swatch("gpu-node", "dark").fill.lower()
            node_light = palette.swatch("gpu-node", "light").fill.lower()
            assert node_dark in dark_racks and node_light not in dark_racks
            app.theme = LIGHT
            await pilot.pause()
            light_racks = _colours(_drawn(app.main.racks, height))
            assert node_light in light_racks and node_dark not in light_racks
            assert app.main.racks.rich_style.bgcolor.triplet.hex == palette.SURFACES["light"]["bg"]
            await pilot.press("2")
            await pilot.pause()
            light_floor = _colours(_drawn(app.main.floor, app.main.floor.size.height))
            app.theme = DARK
            await pilot.pause()
            dark_floor = _colours(_drawn(app.main.floor, app.main.floor.size.height))
            assert light_floor != dark_floor
            assert set(palette.DENSITY_COLOURS["dark"]) & dark_floor
            assert not set(palette.DENSITY_COLOURS["dark"]) & light_floor

    run(journey)


def test_views_are_built_ahead_and_a_stale_view_shows_its_last_figures(tmp_path: Path) -> None:
    from rackdesigner.edit import RemoveDevice

    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path, views_ahead=True)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None

            def ready() -> bool:
                return all(
                    (found := app.main.views.view_data(n)) is not None
                    and found[0] == stamp_of(session)
                    for n in BUILT
                )

            for _ in range(300):
                if ready():
                    break
                await pilot.pause(0.02)
            assert ready(), "summary and topology are built without being shown"
            # Shown at once: the key finds the data built ahead.
            await pilot.press("4")
            assert app.main.summary.summary is not None and app.main.summary.border_subtitle == ""
            figures = app.main.summary.summary
            # An edit: the summary shows its last figures, marked, until the new ones come.
            await pilot.press("1")
            revision = session.revision
            assert app.main.do(RemoveDevice("a01-blank4")) is None
            assert session.revision != revision
            app.main.action_view("summary")  # on this thread: the worker cannot have answered yet
            assert app.main.summary.summary is figures
            assert app.main.summary.border_subtitle == "updating…"
            for _ in range(300):
                if app.main.summary.summary is not figures and not app.main.summary.border_subtitle:
                    break
                await pilot.pause(0.02)
            assert (
                app.main.summary.summary is not figures and app.main.summary.border_subtitle == ""
            )

    run(journey)


def test_export_dialog_offers_each_kinds_settings_and_shows_progress(tmp_path: Path) -> None:
    from pypdf import PdfReader

    path = copy("inference-32-b200.toml", tmp_path)
    target = tmp_path / "pack.pdf"

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+e")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ExportScreen)

            def shown(name: str) -> bool:
                return bool(screen.query_one(f"#export-{name}").display)

            # Elevations: theme and date; no paper, no graph settings.
            assert shown("theme") and shown("date")
            assert not shown("paper") and not shown("scope") and not shown("aggregate")
            # The graph: its scope and aggregate, no theme.
            kinds = screen.query_one("#export-kinds", OptionList)
            kinds.highlighted = [k.option for k in KINDS].index("--graph")
            await pilot.pause()
            assert shown("scope") and shown("aggregate") and not shown("theme")
            assert isinstance(screen.query_one("#export-aggregate"), Checkbox)
            # The print pack: paper size too, as `export --pdf --paper letter`.
            kinds.highlighted = [k.option for k in KINDS].index("--pdf")
            await pilot.pause()
            assert shown("paper") and shown("theme") and shown("date")
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
            for _ in range(1500):
                await pilot.pause(0.02)
                if app.screen is not screen and any("pack.pdf" in t for _, t in app.notices):
                    break
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
            for _ in range(500):
                await pilot.pause(0.02)
                if not again.running:
                    break
            assert app.screen is again
            assert "not a date" in str(again.query_one("#export-hint").render())
            await pilot.press("escape")
            assert app.screen is not again

    run(journey)
