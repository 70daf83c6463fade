"""View switches leave the garbage of their repaints to one collection once switching
pauses (``COLLECT_AFTER_SWITCH_S``), not to the collector's own timing inside a switch."""

from __future__ import annotations

import gc
from pathlib import Path
from types import SimpleNamespace

import pytest

from rackdesigner.tui import main_screen
from tests.tui.pilot import SIZE, app_for, copy, run, settle


def test_one_collection_after_a_burst_of_switches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    collections: list[int] = []
    monkeypatch.setattr(main_screen, "COLLECT_AFTER_SWITCH_S", 0.3)
    monkeypatch.setattr(
        main_screen,
        "gc",
        SimpleNamespace(collect=lambda: collections.append(1), freeze=gc.freeze),
    )

    async def journey() -> None:
        app = app_for(copy("training-128.toml", tmp_path), tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            collections.clear()
            for key in "4321":
                await pilot.press(key)
            assert app.main.view_name == "racks"
            assert not collections  # none inside the burst
            await pilot.pause(0.6)
            assert collections == [1]  # one, once the switching paused

    run(journey)
