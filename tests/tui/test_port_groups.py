"""A device's port groups in the inspector, and CAB004's Apply fix by real keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from rackdesigner.layout_io import dumps
from tests.builders import hdr_fabric
from tests.tui.pilot import SIZE, app_for, go_to, run, settle, type_text


def speed_warnings(app) -> list[str]:  # type: ignore[no-untyped-def]
    session = app.workspace.session
    return [d.entity for d in session.findings if d.code == "CAB004" and "speed" in d.message]


def test_cab004_fixed_by_apply_fix_in_the_problems_panel(tmp_path: Path) -> None:
    path = hdr_fabric(tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            before = dumps(session.layout)
            assert len(speed_warnings(app)) >= 8
            await pilot.press("ctrl+o")  # the problems panel
            await pilot.pause()
            problems = app.main.problems
            for _ in range(len(session.findings)):
                current = problems.current
                if current is not None and current.code == "CAB004":
                    break
                await pilot.press("down")
            assert problems.current is not None and problems.current.code == "CAB004"
            # On the group's line x asks whether to fix the whole group: enter, all of it
            # (one step; the first fix, the port group's speed, takes every one away).
            await pilot.press("x")
            await pilot.pause()
            await pilot.press("enter")
            await settle(pilot)
            assert speed_warnings(app) == []
            entry = session.layout.catalog["dgx-b200"]
            ib = next(g for g in entry.ports or () if g.name == "ib")
            assert float(ib.speed or 0) == 200e9
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert dumps(session.layout) == before

    run(journey)


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_a_devices_port_group_is_edited_in_its_inspector_as_one_undo_step(
    tmp_path: Path,
) -> None:
    path = hdr_fabric(tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            before = dumps(session.layout)
            node = next(d for _, d in session.layout.devices() if d.model == "dgx-b200")
            await go_to(pilot, node.id, by_palette=True)
            await settle(pilot)
            inspector = app.main.inspector
            assert inspector.ref == ("device", node.id)
            assert inspector.text_of("ports.ib.speed") == "400 Gbps"
            shown = " ".join(strip.text.strip() for strip in inspector.lines_view.lines())
            assert "ports ib (model dgx-b200, all" in shown
            inspector.edit("ports.ib.speed")
            await pilot.pause()
            await pilot.press("ctrl+u")
            await type_text(pilot, "200 W")
            await pilot.press("enter")
            await settle(pilot)
            note = inspector.note("ports.ib.speed")
            assert note is not None and "is a power" in note
            await pilot.press("ctrl+u")
            await type_text(pilot, "200 Gbps")
            await pilot.press("enter")
            await settle(pilot)
            assert speed_warnings(app) == []
            assert inspector.text_of("ports.ib.speed") == "200 Gbps"
            # tech is a choice field: its chooser lists the technologies.
            await pilot.press("tab")
            assert inspector.editing == "ports.ib.tech"
            assert inspector.chooser.display
            assert inspector.chooser.choices == ["infiniband", "ethernet"]
            await pilot.press("escape", "ctrl+z")
            await settle(pilot)
            assert dumps(session.layout) == before

    run(journey)
