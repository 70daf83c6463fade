"""The dialogs about unsaved changes: Quit's focused default is Cancel, so Enter
pressed by habit keeps the app and the changes (Save and Discard are a deliberate key away);
the export dialog says it exports the layout as edited, not the file."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Button

from rackdesigner.edit import RemoveDevice
from rackdesigner.tui.screens.confirm import ConfirmScreen
from tests.tui.pilot import SIZE, app_for, copy, run, settle


def test_enter_on_the_quit_question_cancels_and_the_choices_are_a_key_away(
    tmp_path: Path,
) -> None:
    path = copy("training-128.toml", tmp_path)
    original = path.read_bytes()

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            app.main.do(RemoveDevice("a01-blank4"))
            await settle(pilot)
            assert app.workspace.dirty
            await pilot.press("ctrl+q")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ConfirmScreen)
            assert screen.default == "cancel"
            focused = app.focused
            assert isinstance(focused, Button) and focused.id == "answer-cancel"
            await pilot.press("enter")
            await pilot.pause()
            assert not isinstance(app.screen, ConfirmScreen)
            assert app.is_running and app.workspace.dirty
            assert path.read_bytes() == original
            # Asked again: shift+tab reaches Discard (Save, Discard, [Cancel]); the file
            # stays as it was and the app ends.
            await pilot.press("ctrl+q")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("shift+tab")
            await pilot.pause()
            focused = app.focused
            assert isinstance(focused, Button) and focused.id == "answer-discard"
            await pilot.press("enter")
            await pilot.pause()
        assert app.return_code == 0
        assert path.read_bytes() == original

    run(journey)


def test_the_export_dialog_says_it_exports_the_unsaved_edited_layout(tmp_path: Path) -> None:
    from rackdesigner.tui.screens.export import ExportScreen

    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+e")
            await pilot.pause()
            assert isinstance(app.screen, ExportScreen) and not app.screen.unsaved
            assert "unsaved" not in app.screen.title_text()
            await pilot.press("escape")
            await pilot.pause()
            app.main.do(RemoveDevice("a01-blank4"))
            await settle(pilot)
            await pilot.press("ctrl+e")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ExportScreen) and screen.unsaved
            title = screen.query_one("#export-title")
            assert "unsaved changes" in str(title.render())
            # Still one line at 80 columns: the whole dialog fits, its buttons too.
            assert title.size.height == 1
            go = screen.query_one("#export-go")
            assert go.region.bottom <= 24 and go.region.height > 0
            await pilot.press("escape")
            await pilot.pause()

    run(journey)
