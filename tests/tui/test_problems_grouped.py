"""The problems panel grouped by code, by real keys: 32 CAB004 warnings are one
line with their count and worst entity; enter opens the group; choosing a finding moves the
racks' cursor to it; left closes the group again."""

from __future__ import annotations

from pathlib import Path

from rackdesigner.tui.findings import Locator, subject_of
from tests.builders import hdr_fabric
from tests.tui.pilot import SIZE, app_for, run, settle


def test_a_code_with_many_findings_is_one_line_enter_opens_it_and_a_finding_moves_the_cursor(
    tmp_path: Path,
) -> None:
    path = hdr_fabric(tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            problems = app.main.problems
            cab004 = [d for d in problems.findings if d.code == "CAB004"]
            assert len(cab004) >= 8
            # One line per code: the panel is far shorter than the findings.
            assert len(problems.rows) < len(problems.findings)
            assert sum(1 for r in problems.rows if r.group.code == "CAB004") == 1
            await pilot.press("ctrl+o")
            await pilot.pause()
            assert app.focused is problems
            for _ in range(len(problems.rows)):
                row = problems.current_row
                if row is not None and row.group.code == "CAB004":
                    break
                await pilot.press("down")
            row = problems.current_row
            assert row is not None and row.finding is None and row.group.count == len(cab004)
            # The group's line stands for its worst finding (the hint and x act on it).
            assert problems.current is row.group.worst
            await pilot.press("enter")
            await pilot.pause()
            assert problems.is_expanded("CAB004")
            assert sum(1 for r in problems.rows if r.group.code == "CAB004") == len(cab004) + 1
            assert problems.current_row is not None and problems.current_row.finding is None
            # Down twice: the group's second finding; enter goes to its entity.
            await pilot.press("down", "down")
            await pilot.pause()
            chosen = problems.current
            assert chosen is not None and chosen is problems.current_row.finding
            assert chosen is row.group.findings[1]
            await pilot.press("enter")
            await settle(pilot)
            ref = subject_of(chosen)
            assert ref is not None
            where = Locator(session.layout)(ref)
            assert where is not None
            assert app.focused is app.main.racks
            assert app.main.racks.current_rack_id() == where.rack
            assert app.main.racks.current_device_id() == where.device
            # Back in the panel, left closes the group and leaves the cursor on its line.
            await pilot.press("ctrl+o")
            await pilot.pause()
            await pilot.press("left")
            await pilot.pause()
            assert problems.current_row is not None and problems.current_row.finding is None
            await pilot.press("left")
            await pilot.pause()
            assert not problems.is_expanded("CAB004")
            assert sum(1 for r in problems.rows if r.group.code == "CAB004") == 1
            # An edit elsewhere keeps the group highlighted (the same worst finding).
            await pilot.press("right")
            await pilot.pause()
            assert problems.is_expanded("CAB004")
            problems.show(session.findings)
            assert problems.is_expanded("CAB004") and problems.current_row is not None
            assert problems.current_row.group.code == "CAB004"

    run(journey)


def test_x_on_a_group_offers_to_fix_all_of_it_as_one_step(tmp_path: Path) -> None:
    """On the CAB004 group's line (▸32×), x asks: fix all 32 (enter), only the highlighted
    one, or cancel; all is one step: every CAB004 goes, one ctrl+z brings them back."""
    from rackdesigner.tui.screens.confirm import ConfirmScreen

    path = hdr_fabric(tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            problems = app.main.problems
            count = sum(1 for d in session.findings if d.code == "CAB004")
            assert count == 32
            await pilot.press("ctrl+o")
            await pilot.pause()
            for _ in range(len(problems.rows)):
                row = problems.current_row
                if row is not None and row.group.code == "CAB004":
                    break
                await pilot.press("down")
            assert problems.current_group is not None and len(problems.current_group) == 32
            revision = session.revision
            await pilot.press("x")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            assert "32 CAB004 findings" in app.screen.message
            await pilot.press("enter")  # the default: fix all
            await settle(pilot)
            assert [d for d in session.findings if d.code == "CAB004"] == []
            assert session.revision == revision + 1  # one step
            assert any(text.startswith("Fixed 32 of 32: ") for _, text in app.notices[-3:])
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert sum(1 for d in session.findings if d.code == "CAB004") == 32

    run(journey)
