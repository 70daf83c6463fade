"""New from template keeps the file the user opened: `rackdesigner edit infer.toml` (a
file that does not exist yet), then New from template, then ctrl+s writes infer.toml; a
file that holds a layout is replaced only after the save asks."""

from __future__ import annotations

from pathlib import Path

import pytest

from rackdesigner.layout_io import load_path
from rackdesigner.tui.screens.confirm import ConfirmScreen
from rackdesigner.tui.screens.template import TemplateScreen
from tests.tui.pilot import SMALL, app_for, palette, run, settle, wait_for, wait_gone


async def _template(pilot, app) -> None:  # type: ignore[no-untyped-def]
    """Palette New from template, enter (the dialog opens on inference-32), until built."""
    await palette(pilot, "New from template")
    await wait_for(pilot, TemplateScreen)
    await pilot.press("enter")
    await wait_gone(pilot, TemplateScreen)


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_new_from_template_saves_to_the_file_the_user_opened(tmp_path: Path) -> None:
    """``edit infer.toml`` (no such file yet), New from template: ctrl+s writes infer.toml
    without a question, and again once saved. Then Open a file that holds a layout and New
    from template again: the save asks before it replaces it (cancel keeps the file; a
    second ctrl+s, overwrite, replaces it)."""
    path = tmp_path / "infer.toml"
    other = tmp_path / "mine.toml"
    other.write_text('format = 1\nname = "mine"\n', encoding="utf-8")

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            await _template(pilot, app)
            session = app.workspace.session
            assert session is not None
            assert app.workspace.path == str(path) and app.workspace.dirty
            assert session.layout.name == "infer"  # the file's stem, as for any new layout
            assert any("ctrl+s saves it to" in text for _, text in app.notices[-3:])
            # Nothing to replace: ctrl+s writes infer.toml without a question.
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert not isinstance(app.screen, ConfirmScreen)
            assert not app.workspace.dirty
            saved = load_path(path)
            assert [d.model for _, d in saved.devices()].count("dgx-b200") == 4
            # Saved once, it is the file's layout: the next save asks nothing either.
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert not isinstance(app.screen, ConfirmScreen)
            # A file that holds a layout: the template's save asks first.
            app.main.open_path(str(other))
            await settle(pilot)
            await _template(pilot, app)
            assert app.workspace.path == str(other)
            await pilot.press("ctrl+s")
            await wait_for(pilot, ConfirmScreen)
            assert app.screen.message == f"{other} exists. Replace it with this layout?"  # type: ignore[attr-defined]
            await pilot.press("escape")  # cancel: the file keeps its layout
            await settle(pilot)
            assert 'name = "mine"' in other.read_text(encoding="utf-8")
            assert app.workspace.dirty
            await pilot.press("ctrl+s")
            await wait_for(pilot, ConfirmScreen)
            await pilot.click("#answer-overwrite")
            await settle(pilot)
            assert not app.workspace.dirty
            saved = load_path(other)
            assert saved.name == "mine"
            assert [d.model for _, d in saved.devices()].count("dgx-b200") == 4

    run(journey)
