"""The liquid loop in the designer, by real keys: the GB200 SU's rack a04 in the
inspector (its CDUs, their facility loop, the group's margin with one CDU lost, the
coolant's supply and return, its cold plates' flow, its rear door's chilled loop), a CDU
and a tray under the cursor, and the loops in the summary view (4).

The figures (docs/liquid-cooling.md's worked example): 8 racks × 104,705 W = 837.6 kW
on 3 CHx750 of 750 kW at 5 K; one lost 1,500 − 837.6 = 662.4 kW; supply 32 + 5 =
37.0 °C, return 37 + 9.985 = 47.0 °C; a rack's flow 104.705 × 1.5 = 157 L/min; fws-1
837.6 of 930 kW (margin 92.4 kW), return 41.0 °C; chw-1 160.8 of 180 kW, 26.9 °C."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rackdesigner.tui.widgets.summary_view import loop_lines
from tests.conftest import ROOT
from tests.tui.pilot import SMALL, app_for, run, settle, shown


async def _until_shown(pilot: object, app: object, ref: tuple[str, str], key: str) -> None:
    """``key`` until the inspector shows ``ref`` (a rack's 42 units at most)."""
    for _ in range(48):
        if app.main.inspector.ref == ref:  # type: ignore[attr-defined]
            return
        await pilot.press(key)  # type: ignore[attr-defined]
        await settle(pilot)
    raise AssertionError(f"{key} never reached {ref}")


# Opening and checking a whole GB200 SU is a few seconds of CPU: the end-to-end step.
@pytest.mark.slow
def test_the_inspector_and_the_summary_show_the_liquid_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(ROOT / "layouts" / "gb200-nvl72-su.toml", tmp_path / "su.toml")
    monkeypatch.chdir(tmp_path)

    async def journey() -> None:
        app = app_for(Path("su.toml"), tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            racks = app.main.racks
            assert racks.current_rack_id() == "a01"
            # a01 holds the first CDU: on the CDU's unit, its rating and its group.
            await pilot.press("home")
            await settle(pilot)
            await _until_shown(pilot, app, ("device", "a01-cdu1"), "down")
            facts = app.main.inspector.facts_text()
            assert "loop fws-1 · 32.0 °C\n750.0 kW at 5 K\n" in facts
            assert "margin 662.4 kW, 1 lost\ncoolant 37.0→47.0 °C" in facts
            for _ in range(3):  # a02, a03, a04
                await pilot.press("right")
                await settle(pilot)
            assert racks.current_rack_id() == "a04"
            await pilot.press("escape")  # off any device: the rack itself
            await settle(pilot)
            await _until_shown(pilot, app, ("rack", "a04"), "up")
            facts = app.main.inspector.facts_text()
            assert (
                "CDUs a01-cdu1 +2\nloop fws-1 · 32.0 °C\nmargin 662.4 kW, 1 lost\n"
                "coolant 37.0→47.0 °C\nflow 157 L/min\ndoor 20.1 kW → chw-1"
            ) in facts
            await pilot.press("4")
            await settle(pilot)
            assert shown(app) == "summary"
            summary = app.main.summary
            head = [
                "".join(text for text, _ in line)
                for line in summary.head
                if line and line[0][1] != "columns"
            ]
            assert (
                "Loop fws-1  W32 32.0→41.0 °C · 837.6 of 930.0 kW · margin 92.4 kW · 1,340 L/min"
            ) in head
            assert (
                "  CDU a01-cdu1 + a02-cdu1 + a03-cdu1  837.6 of 2,250.0 kW at 5 K · N+1 (one "
                "lost) margin 662.4 kW"
            ) in head
            # At 80 × 24 the group's flow line would leave fewer racks in view: left out
            # here, it is the loop's lines' second where the screen has room.
            flow = "      needs 1,256 L/min, pumps not given · coolant 37.0→47.0 °C"
            assert flow not in head
            assert summary.summary is not None
            full = ["".join(text for text, _ in line) for line in loop_lines(summary.summary.loops)]
            assert full[2] == flow
            assert "Loop chw-1  chilled 18.0→26.9 °C · 160.8 of 180.0 kW · margin 19.2 kW" in (
                "\n".join(head)
            )
            # fws-1 at 90.1 % of its plant: its margin is marked as the racks' near limits.
            fws = next(line for line in summary.head if line and line[1][0] == "fws-1  ")
            assert ("margin 92.4 kW", "warning") in fws

    run(journey)
