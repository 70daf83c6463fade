"""Snapshots of the cabling dialogs: Connect ports, Generate fabric, New from template.

Compared byte for byte with tests/golden/tui/wiring/ (the mechanism of
test_snapshots.py; regenerate with RACKDESIGNER_REGENERATE_GOLDEN=1 after looking at
the new SVGs). One app session takes every snapshot.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.pilot import (
    GOLDEN,
    SNAPSHOT_SIZE,
    app_for,
    four_nodes,
    match_golden,
    run,
    settle,
    until,
    wait_for_preview,
)

FOLDER = GOLDEN / "wiring"


def _check(name: str, svg: str) -> None:
    match_golden(FOLDER / f"{name}.svg", svg)


def test_connect_generate_and_template_dialogs_match_their_snapshots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    four_nodes(tmp_path / "nodes.toml")
    monkeypatch.chdir(tmp_path)  # a relative path in the header, the same everywhere

    async def journey() -> None:
        app = app_for(Path("nodes.toml"), tmp_path)
        async with app.run_test(size=SNAPSHOT_SIZE) as pilot:
            await settle(pilot)
            shots: list[tuple[str, str]] = []
            assert app.main.go_to("a01-n01")
            await pilot.press("l")
            await pilot.pause()
            await pilot.press("a", "0", "2")
            await pilot.pause()
            shots.append(("connect-dialog", app.export_screenshot()))
            await pilot.press("escape", "g")
            await pilot.pause()
            await wait_for_preview(pilot, app.screen)  # type: ignore[arg-type]
            await pilot.pause()
            shots.append(("generate-dialog", app.export_screenshot()))
            await pilot.press("escape")
            await pilot.pause()
            await app.main.run_action("new_from_template")
            await until(pilot, lambda: type(app.screen).__name__ == "TemplateScreen", "dialog")
            await pilot.pause()
            shots.append(("template-dialog", app.export_screenshot()))
            for name, svg in shots:
                _check(name, svg)

    run(journey)
