"""Guidance in the designer: a new problem is named with its fix; Apply fix (x) applies it.

The journey opens one DGX H100 in an air rack, places a second one (COOL001: 20.4 kW on
air), reads the notification, applies the offered fix from the problems panel and undoes
it, all with the keys a user presses (``a`` and the catalog picker place the node).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rackdesigner.edit import PlaceDevice
from tests.conftest import ROOT
from tests.tui.pilot import (
    SNAPSHOT_SIZE,
    app_for,
    codes,
    match_golden,
    palette,
    place,
    run,
    settle,
)

DATA = ROOT / "tests" / "data" / "guide"
GOLDEN = ROOT / "tests" / "golden" / "tui" / "guide"


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "dgx-air.toml"
    shutil.copy(DATA / "dgx-air.toml", target)
    return target


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_problems_panel_snapshot_then_a_second_dgx_is_named_with_its_fix_fixed_with_x_undone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The problems panel with COOL001 highlighted and its fix under the list (the 100x30
    snapshot); undone, then the journey with the keys a user presses."""
    _copy(tmp_path)
    monkeypatch.chdir(tmp_path)  # a relative path: the header reads the same everywhere

    async def journey() -> None:
        app = app_for(Path("dgx-air.toml"), tmp_path)
        async with app.run_test(size=SNAPSHOT_SIZE) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            assert codes(app, "COOL001") == []
            # -- the snapshot
            app.main.do(PlaceDevice("a01", "dgx-h100", 12))
            await settle(pilot)
            await pilot.press("ctrl+o")
            await pilot.pause()
            app.clear_notifications()
            await pilot.pause()
            subtitle = str(app.main.problems.border_subtitle)
            assert subtitle.startswith("fix: cool the rack with a rear door")
            _check("problems-with-fix", app.export_screenshot())
            await pilot.press("ctrl+z", "escape")
            await settle(pilot)
            assert session.index.device("a01-n02") is None and codes(app, "COOL001") == []
            assert app.focused is app.main.racks
            app.notices.clear()
            # -- the journey
            await place(pilot, "dgx-h100")  # a, type, enter: at the cursor (the top unit)
            assert session.index.device("a01-n02") is not None
            said = [text for severity, text in app.notices if severity == "error"]
            assert said, app.notices
            assert (
                "COOL001 rack a01: 20.4 kW on air exceeds 15 kW: cool the rack with a rear "
                "door, or move a node" in said[0]
            )
            assert "liquid" not in said[0]
            assert "and 2 more" in said[0]
            assert codes(app, "COOL001") == ["rack a01"]
            # To the problems panel: the worst finding (COOL001) is highlighted first.
            await pilot.press("ctrl+o")
            await pilot.pause()
            assert app.main.problems.current is not None
            assert app.main.problems.current.code == "COOL001"
            assert "rear door" in str(app.main.problems.border_subtitle)
            keys = {b.binding.key for b in app.screen.active_bindings.values() if b.binding.show}
            assert "x" in keys
            await pilot.press("x")
            await settle(pilot)
            assert codes(app, "COOL001") == []
            assert codes(app, "COOL002") == []
            rack = session.index.rack("a01")
            assert rack.cooling == "rear-door" and rack.door == "a01-door"
            assert any("Fixed COOL001" in text for _, text in app.notices)
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert codes(app, "COOL001") == ["rack a01"]
            assert session.index.device("a01-door") is None
            # A finding without a mechanical fix (NET007, a figure): no "fix" in the
            # footer; x and the palette's Apply fix say so and change nothing.
            app.main.problems.focus()
            while (
                app.main.problems.current is not None and app.main.problems.current.code != "NET007"
            ):
                await pilot.press("down")
            await pilot.pause()
            keys = {b.binding.key for b in app.screen.active_bindings.values() if b.binding.show}
            assert "x" not in keys
            revision = session.revision
            app.notices.clear()
            await pilot.press("x")
            await pilot.pause()
            assert session.revision == revision
            assert any("has no mechanical fix" in text for _, text in app.notices)
            app.notices.clear()
            await palette(pilot, "Apply fix")
            assert session.revision == revision
            assert any("NET007" in t and "no mechanical fix" in t for _, t in app.notices)

    run(journey)


def _check(name: str, svg: str) -> None:
    match_golden(GOLDEN / f"{name}.svg", svg)
