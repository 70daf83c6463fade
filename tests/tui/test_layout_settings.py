"""Layout settings: the workload, site, rules and thresholds in the inspector by
real keys; a choice field's chooser; one undo step per edit."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from rackdesigner.layout_io import dumps
from rackdesigner.tui.actions import palette as palette_actions
from tests.conftest import ROOT
from tests.tui.pilot import SMALL, app_for, palette, run, settle, type_text


def net002(tmp_path: Path) -> Path:
    target = tmp_path / "net002.toml"
    shutil.copy(ROOT / "tests" / "rules" / "NET002" / "fires.toml", target)
    return target


def verdicts(app) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    session = app.workspace.session
    return sorted((d.severity, d.entity) for d in session.findings if d.code == "NET002")


def test_the_palette_names_layout_settings() -> None:
    assert "Layout settings" in [action.name for action in palette_actions()]


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_inference_in_layout_settings_changes_net002s_verdict_and_undo_brings_it_back(
    tmp_path: Path,
) -> None:
    path = net002(tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SMALL) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            before = dumps(session.layout)
            assert ("error", "device a01-leaf") in verdicts(app)  # 2:1 against 1:1
            await palette(pilot, "Layout settings")
            await settle(pilot)
            inspector = app.main.inspector
            assert inspector.ref == ("layout", "")
            assert inspector.border_title == "Layout settings"
            assert inspector.editing == "name" and app.focused is inspector.editor
            # name, description, revision, notes, then the workload's kind.
            await pilot.press("tab", "tab", "tab", "tab")
            assert inspector.editing == "workload.kind"
            assert inspector.text_of("workload.kind") == "training"
            # A choice field: its chooser lists the kinds; pgdn picks the next one.
            chooser = inspector.chooser
            assert chooser.display and chooser.choices == ["training", "fine-tuning", "inference"]
            await pilot.press("pagedown", "pagedown")
            assert inspector.editor.value == "inference"
            await pilot.press("enter")
            await settle(pilot)
            assert session.layout.workload is not None
            assert session.layout.workload.kind == "inference"
            # 2:1 is within 4:1: a01-leaf is silent; a leaf with no uplinks is a warning.
            assert verdicts(app) == [("warning", "device a01-rail3")]
            assert inspector.text_of("workload.kind") == "inference"
            # A typed value the loader refuses: its message under the field, nothing changed.
            await pilot.press("ctrl+u")
            await type_text(pilot, "serving")
            await pilot.press("enter")
            await settle(pilot)
            note = inspector.note("workload.kind")
            assert note is not None and "kind" in note and "inference" in note
            assert session.layout.workload.kind == "inference"
            # One undo step gives back the file as it was, and the errors.
            await pilot.press("escape", "ctrl+z")
            await settle(pilot)
            assert dumps(session.layout) == before
            assert ("error", "device a01-leaf") in verdicts(app)

    run(journey)


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_a_threshold_typed_in_layout_settings_is_the_loaders_and_empty_is_the_default(
    tmp_path: Path,
) -> None:
    path = net002(tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=(200, 60)) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            before = dumps(session.layout)
            await palette(pilot, "Layout settings")
            await settle(pilot)
            inspector = app.main.inspector
            inspector.edit("thresholds.oversubscription_max_training")
            await pilot.pause()
            await type_text(pilot, "2.0")
            await pilot.press("enter")
            await settle(pilot)
            assert session.layout.rules is not None
            assert session.layout.rules.thresholds["oversubscription_max_training"] == 2.0
            assert ("error", "device a01-leaf") not in verdicts(app)  # 2:1 is allowed now
            # A long label has its own line; the value is under it.
            lines = inspector.lines_view
            row = lines.rows["thresholds.oversubscription_max_training"]
            texts = [strip.text for strip in lines.lines()]
            assert texts[row - 1].strip() == "oversubscription_max_training"
            assert texts[row].strip() == "2.0"
            # The loader's own message on a bad value.
            inspector.edit("thresholds.cable_max")
            await pilot.pause()
            await type_text(pilot, "7 kW")
            await pilot.press("enter")
            await settle(pilot)
            note = inspector.note("thresholds.cable_max")
            assert note is not None and "is a power" in note
            await pilot.press("escape")
            # Rules: a code no rule matches is refused; a known prefix is taken.
            inspector.edit("rules.ignore")
            await pilot.pause()
            await type_text(pilot, "NET002")
            await pilot.press("enter")
            await settle(pilot)
            assert verdicts(app) == []
            await pilot.press("ctrl+z", "ctrl+z")
            await settle(pilot)
            assert dumps(session.layout) == before

    run(journey)
