"""Snapshots of the building dialogs (issue 15: Add rack, Add feed, Remove feed, Set cooling,
the catalog picker, the rail and face questions) and of the catalog panel in a large
terminal, compared byte for byte with tests/golden/tui/build/ as test_tui_snapshots.py
does (regenerate with RACKDESIGNER_REGENERATE_GOLDEN=1 after looking at them)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .conftest import ROOT
from .test_tui import app_for, palette, run, settle, type_text
from .test_tui_build import wait_for
from .test_tui_snapshots import REGENERATE, SNAPSHOT_SIZE

GOLDEN = Path(__file__).parent / "golden" / "tui" / "build"


def _check(name: str, svg: str) -> None:
    path = GOLDEN / f"{name}.svg"
    if REGENERATE:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(svg, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path}: regenerate (see test_tui_snapshots.py)"
    assert svg == path.read_text(encoding="utf-8"), (
        f"the {name} screen differs from {path}; if the change is intended, regenerate "
        "(see test_tui_snapshots.py)"
    )


def test_each_building_dialog_matches_its_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(ROOT / "layouts" / "training-128.toml", tmp_path / "training-128.toml")
    monkeypatch.chdir(tmp_path)

    async def journey() -> None:
        from rackdesigner.tui.screens.build import ChoiceScreen

        app = app_for(Path("training-128.toml"), tmp_path)
        shots: list[tuple[str, str]] = []
        async with app.run_test(size=SNAPSHOT_SIZE) as pilot:
            await settle(pilot)

            async def shot(name: str, *close: str) -> None:
                await pilot.pause()
                shots.append((name, app.export_screenshot()))
                await pilot.press(*close)
                await settle(pilot)

            for name in ("Add rack", "Add feed", "Remove feed", "Set cooling"):
                await palette(pilot, name)
                await shot(name.lower().replace(" ", "-"), "escape")
            await pilot.press("a")
            await type_text(pilot, "qm")
            await pilot.press("space")
            await shot("catalog-picker", "escape")
            await pilot.press("a")
            await shot("catalog-picker-all", "escape")
            await pilot.press("a")
            await type_text(pilot, "415v-63")
            await pilot.press("enter")
            await wait_for(pilot, ChoiceScreen)
            await shot("rail-question", "escape")
            await pilot.press("a")
            await type_text(pilot, "sn22")
            await pilot.press("enter")
            await wait_for(pilot, ChoiceScreen)
            await shot("face-question", "escape")
            # A large terminal: the catalog panel stays open under the inspector.
            await pilot.resize_terminal(200, 60)
            await settle(pilot)
            await shot("catalog-panel-200x60")
        for name, svg in shots:
            _check(name, svg)

    run(journey)
