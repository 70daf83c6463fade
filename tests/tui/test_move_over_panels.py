"""A move (m) and a place (a) onto listed blanking panels, by real keys: the panels make
way, the units left get panels, one ctrl+z undoes each."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.pilot import SMALL, app_for, copy, go_to, place, run, settle


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_m_and_a_onto_blanking_panels_take_their_place(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            await go_to(pilot, "a01-leaf2")
            await settle(pilot)
            # U20 up to U37, where the 2U panel a01-blank2 sits (U37-U38).
            await pilot.press("m", *["up"] * 17)
            await pilot.pause()
            assert app.main.racks.ghost is not None and app.main.racks.ghost.unit == 37
            await pilot.press("enter")
            await settle(pilot)
            index = session.index
            assert index.device("a01-leaf2").position == 37
            front = index.occupied("a01", "front")
            assert front[20].model == "blank-1u" and front[38].model == "blank-1u"
            assert any("(over 1 blanking panel)" in text for _, text in app.notices[-3:])
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert index.device("a01-leaf2").position == 20
            assert index.device("a01-blank2").position == 37
            assert index.device("a01-blank2").model == "blank-2u"
            # a on a panel (a01-blank4, 2U, U41-U42), qm9700: the switch goes at the
            # cursor's unit in the panel's place (not the nearest free units), a 1U panel
            # on the other unit; one ctrl+z.
            assert app.main.go_to("a01-blank4")
            await settle(pilot)
            unit = app.main.racks.cursor.unit
            assert unit in (41, 42)
            await place(pilot, "qm9700")
            front = index.occupied("a01", "front")
            assert front[unit].model == "qm9700"
            other = 83 - unit
            assert front[other].model == "blank-1u"
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert index.device("a01-blank4").model == "blank-2u"

    run(journey)
