"""Snapshots of the designer: each view, the help screen and the export dialog at 100x30.

``App.export_screenshot()`` SVGs of the training layout are compared byte for byte with
tests/golden/tui/. A change to a screen is a deliberate act: drive the app in tmux, look
at the new SVG (render it with cairosvg and open it), then regenerate the files with

    RACKDESIGNER_REGENERATE_GOLDEN=1 python -m pytest -q tests/tui/test_snapshots.py

and commit them with the change that explains why they moved. (pytest-textual-snapshot is
not used: its syrupy pin needs pytest<9.) One app session takes every snapshot, so the
test costs one layout load.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.tui.pilot import GOLDEN, SNAPSHOT_SIZE, app_for, match_golden, run, settle


def _check(name: str, svg: str) -> None:
    match_golden(GOLDEN / f"{name}.svg", svg)


def test_each_view_the_help_and_the_export_dialog_match_their_snapshots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A relative path, so the header (which shows the file) is the same on every machine.
    shutil.copy(ROOT / "layouts" / "training-128.toml", tmp_path / "training-128.toml")
    monkeypatch.chdir(tmp_path)

    async def journey() -> None:
        app = app_for(Path("training-128.toml"), tmp_path)
        async with app.run_test(size=SNAPSHOT_SIZE) as pilot:
            await settle(pilot)
            shots: list[tuple[str, str]] = []
            for key, name in (("1", "racks"), ("2", "floor"), ("3", "topology"), ("4", "summary")):
                await pilot.press(key)
                await settle(pilot)
                await pilot.pause()
                shots.append((f"{name}-view", app.export_screenshot()))
            await pilot.press("1", "question_mark")
            await pilot.pause()
            shots.append(("help", app.export_screenshot()))
            await pilot.press("escape", "ctrl+e")
            await pilot.pause()
            shots.append(("export-dialog", app.export_screenshot()))
            # A refused value: the field input over its line, the loader's message under it.
            await pilot.press("escape", "enter", "tab", "tab", "end", "ctrl+u", *"3 V", "enter")
            await settle(pilot)
            assert app.main.inspector.note("position") is not None
            shots.append(("inspector-refused", app.export_screenshot()))
            for name, svg in shots:
                _check(name, svg)

    run(journey)
