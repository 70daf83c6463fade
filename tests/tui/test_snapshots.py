"""Snapshots of the designer: each view, the help screen and the export dialog at 100x30.

``App.export_screenshot()`` SVGs of the training layout are compared byte for byte with
tests/golden/tui/. A change to a screen is a deliberate act: drive the app in tmux, look
at the new SVG (render it with cairosvg and open it), then regenerate the files with

    RACKDESIGNER_REGENERATE_GOLDEN=1 python -m pytest -q tests/test_tui_snapshots.py

and commit them with the change that explains why they moved. (pytest-textual-snapshot is
not used: its syrupy pin needs pytest<9.) One app session takes every snapshot, so the
test costs one layout load.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.tui.test_app import app_for, run, settle

GOLDEN = ROOT / "tests" / "golden" / "tui"
SNAPSHOT_SIZE = (100, 30)
REGENERATE = bool(os.environ.get("RACKDESIGNER_REGENERATE_GOLDEN"))


def match_golden(path: Path, svg: str) -> None:
    """``svg`` (an ``export_screenshot()``) against the golden file ``path``; with
    RACKDESIGNER_REGENERATE_GOLDEN set, write it there instead. Every screen snapshot of
    the designer's tests goes through here."""
    if REGENERATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(svg, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path}: regenerate (see test_tui_snapshots.py)"
    assert svg == path.read_text(encoding="utf-8"), (
        f"the {path.stem} screen differs from {path}; if the change is intended, regenerate "
        "(see test_tui_snapshots.py)"
    )


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
            assert app.inspector.note("position") is not None
            shots.append(("inspector-refused", app.export_screenshot()))
            for name, svg in shots:
                _check(name, svg)

    run(journey)
