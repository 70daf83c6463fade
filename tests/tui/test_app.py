"""The designer's journeys, driven with real keys through Textual's Pilot.

Each test opens a copy of a layout in a temporary folder, presses what a person would press
and checks what the app shows and what lands on disk. Pilot tests run in-process and
headless; the real-terminal smoke test lives in test_terminal.py. One app boot carries
several features (a boot costs more than the keys): what an edit, a save or a recovery does
without the screen is tested through the Workspace (test_workspace.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual import events

from rackdesigner.edit import RemoveDevice, Session
from rackdesigner.layout_io import dumps, load_path
from rackdesigner.tui import autosave
from rackdesigner.tui.screens.confirm import ConfirmScreen
from rackdesigner.tui.screens.load_error import LoadErrorScreen
from rackdesigner.tui.screens.prompt import PromptScreen
from tests.conftest import ROOT
from tests.tui.pilot import (
    SIZE,
    app_for,
    codes,
    copy,
    go_to,
    palette,
    paste,
    run,
    settle,
    type_text,
)


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_training_journey_fabric_failure_move_refuse_undo_redo_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rackdesigner.edit.checker import FabricJob

    runs: list[int] = []

    def broken(self: FabricJob) -> FabricJob:
        runs.append(self.revision)
        self.error = RuntimeError("the cable graph broke")
        self.done = True
        return self

    monkeypatch.setattr(FabricJob, "run", broken)
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            # A fabric check that fails says so once and is not run again.
            for _ in range(5):  # were it restarted, it would have run again by now
                await pilot.pause(0.02)
            await settle(pilot)
            assert len(runs) == 1
            failed = [t for s, t in app.notices if s == "error" and "Fabric check" in t]
            assert failed == ["Fabric check failed: RuntimeError: the cable graph broke"]
            title = str(app.main.problems.border_title)
            assert title.endswith(" · fabric check failed: RuntimeError: the cable graph broke")
            assert not app.main.header.checking
            # An edit changes the layout: its fabric is checked again (and fails again).
            await pilot.press("ctrl+g")
            await type_text(pilot, "a01-blank4")
            await pilot.press("enter", "delete")
            await settle(pilot)
            assert len(runs) == 2
            # The check works again; undo brings the panel back.
            monkeypatch.undo()
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert len(runs) == 2 and "fabric check failed" not in str(
                app.main.problems.border_title
            )
            assert session.index.device("a01-blank4") is not None
            # Select a rack: the cursor is on the first rack's top unit.
            assert app.main.racks.current_rack_id() == "a01"
            await pilot.press("right")
            assert app.main.racks.current_rack_id() == "a02"
            await pilot.press("left")
            assert app.main.racks.current_device_id() == "a01-blank4"
            # Free U41-U42 by deleting the blanking panel there.
            await pilot.press("delete")
            await settle(pilot)
            assert session.index.device("a01-blank4") is None
            # Go to the first leaf by id through the palette.
            await go_to(pilot, "a01-leaf1", by_palette=True)
            assert app.main.racks.current_device_id() == "a01-leaf1"
            assert app.main.inspector.ref == ("device", "a01-leaf1")
            # Into an occupied unit: refused, with the reason, and nothing changes.
            # (training-128 stacks the two leaves at U19 and U20.)
            await pilot.press("m", "up", "enter")
            await settle(pilot)
            assert "taken by device a01-leaf2" in app.notices[-1][1]
            assert session.index.device("a01-leaf1").position == 19
            assert codes(app, "PLC003") == []
            # To a free unit at the top: placed; the switch is now outside the middle.
            await pilot.press("m", *["up"] * 22, "enter")
            await settle(pilot)
            assert session.index.device("a01-leaf1").position == 41
            assert codes(app, "PLC003") == ["device a01-leaf1"]
            assert app.main.racks.marks.devices.get("a01-leaf1") == "warning"
            assert app.main.header.dirty
            # Undo twice (the move, then the delete); redo once (the delete).
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert codes(app, "PLC003") == []
            assert session.index.device("a01-leaf1").position == 19
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert session.index.device("a01-blank4") is not None
            await pilot.press("ctrl+y")
            await settle(pilot)
            assert session.index.device("a01-blank4") is None
            await pilot.press("ctrl+s")
            await settle(pilot)
            await pilot.pause()
            assert not app.workspace.dirty
            assert any("Saved" in text for _, text in app.notices)

        # What reopening it gives: test_workspace.py (the file is the layout, clean).
        expected_session = Session(load_path(ROOT / "layouts" / "training-128.toml"))
        expected_session.do(RemoveDevice("a01-blank4"))
        assert path.read_text(encoding="utf-8") == dumps(expected_session.layout)
        assert not autosave.sidecar(path).exists()

    run(journey)


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_inspector_rails_refused_unit_click_arrows_wheel_duplicate_rename_and_quit(
    tmp_path: Path,
) -> None:
    path = copy("finetune-8gpu.toml", tmp_path)
    original = path.read_bytes()

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None
            before = dumps(session.layout)
            inspector = app.main.inspector
            # The 0U PDUs on the side rails: shift+arrows stop on them, arrows do not.
            await pilot.press("shift+left")
            assert inspector.ref == ("device", "a01-pdu-a")
            await pilot.press("right")
            assert app.main.racks.cursor.rail is None
            # A wrong unit in the inspector is refused inline.
            await go_to(pilot, "a01-A", by_palette=True)
            assert inspector.ref == ("feed", "a01-A")
            await pilot.press("enter")  # edit: the first field takes the focus
            await pilot.pause()
            # id, side, circuit, voltage, phases, current
            await pilot.press("tab", "tab", "tab", "tab", "tab")
            assert inspector.editing == "current" and app.focused is inspector.editor
            await pilot.press("end", "ctrl+u")
            await type_text(pilot, "63 V")
            await pilot.press("enter")
            await settle(pilot)
            note = inspector.note("current")
            assert note is not None and '"63 V" is a voltage, expected a current (A)' in note
            assert app.focused.has_class("-invalid")
            # Drawn under the field, the typed text kept in it.
            lines = [strip.text for strip in inspector.lines_view.lines()]
            row = inspector.lines_view.rows["current"]
            assert lines[row + 1].startswith('✖ current "63 V" is a')
            assert inspector.text_of("current") == "63 V"
            assert dumps(session.layout) == before
            assert not app.workspace.dirty
            # A good value goes through and can be undone.
            await pilot.press("ctrl+u")
            await type_text(pilot, "40 A")
            await pilot.press("enter")
            await settle(pilot)
            assert session.index.feed("a01-A").current == 40.0
            assert inspector.note("current") is None
            assert inspector.text_of("current") == "40 A"
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert dumps(session.layout) == before

            # On 80x24, back on the rack's top unit (a 1U blanking panel).
            await pilot.press("escape")
            await pilot.resize_terminal(80, 24)
            assert app.main.go_to("a01-blank18")
            await settle(pilot)
            lines = inspector.lines_view
            device = inspector.ref
            assert device == ("device", "a01-blank18")
            # A click on the model line puts that field in the input.
            row = lines.rows["model"] - lines.top
            await pilot.click("#inspector-lines", offset=(2, row))
            await pilot.pause()
            assert inspector.editing == "model" and app.focused is inspector.editor
            assert inspector.editor.value == inspector.text_of("model") == "blank-1u"
            # Down and up step between fields; the lines scroll to the one edited, which
            # 80x24 does not show at first.
            assert lines.rows["label"] >= lines.size.height
            await pilot.press(*["down"] * 5)
            assert inspector.editing == "label"
            assert lines.top <= lines.rows["label"] < lines.top + lines.size.height
            await pilot.press("down", "up")
            assert inspector.editing == "label"
            # A value through the input is the layout's, and one undo step.
            await type_text(pilot, "spare")
            await pilot.press("enter")
            await settle(pilot)
            assert session.index.device(device[1]).label == "spare"
            assert inspector.text_of("label") == "spare"
            # An undo while the field is open shows the value it brought back.
            await pilot.press("ctrl+z")
            await settle(pilot)
            assert session.index.device(device[1]).label is None
            assert inspector.editing == "label" and inspector.editor.value == ""
            # The wheel scrolls the lines.
            await pilot.press("escape")
            top = lines.top
            # (Pilot has no wheel; its own mouse-event helper sends one where the pointer is.)
            await pilot._post_mouse_events([events.MouseScrollUp], "#inspector-lines", (2, 1))
            await pilot.pause()
            assert lines.top < top
            assert dumps(session.layout) == before

            # Duplicate, rename, then quit with unsaved changes.
            await pilot.resize_terminal(*SIZE)
            assert app.main.go_to("a01-blank18")
            await settle(pilot)
            await pilot.press("down")  # from the 1U panel at U42 to the 2U one at U40-U41
            assert app.main.racks.current_device_id() == "a01-blank17"
            await pilot.press("delete")
            await settle(pilot)
            assert app.workspace.dirty
            # Duplicate the 1U panel above into the nearest free unit, then rename the copy.
            await pilot.press("up")
            assert app.main.racks.current_device_id() == "a01-blank18"
            await pilot.press("c")
            await settle(pilot)
            copy_id = app.main.racks.current_device_id()
            assert copy_id not in (None, "a01-blank18")
            assert session.index.device(copy_id).position == 41
            await pilot.press("r")
            await pilot.pause()
            assert isinstance(app.screen, PromptScreen)
            await pilot.press("ctrl+u")
            await type_text(pilot, "a01-top")
            await pilot.press("enter")
            await settle(pilot)
            assert session.index.device(copy_id) is None
            assert session.index.device("a01-top").model == "blank-1u"
            assert inspector.ref == ("device", "a01-top")
            # The palette's Quit asks too; escape cancels and the app stays.
            await palette(pilot, "Quit")
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, ConfirmScreen)
            assert app.is_running
            # An app-wide key reaches the main screen under a dialog: ctrl+q over the help.
            await pilot.press("question_mark")
            await pilot.pause()
            assert len(app.screen_stack) == 2
            await pilot.press("ctrl+q")
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            assert "unsaved changes" in app.screen.message
            await pilot.press("shift+tab", "enter")  # back from Cancel to Discard
            await pilot.pause()
        assert app.return_code == 0

    run(journey)
    assert path.read_bytes() == original
    assert not autosave.sidecar(path).exists()


@pytest.mark.slow  # a long journey (seconds): the slow step
def test_files_malformed_then_start_empty_first_save_asks_a_path_open_another_and_recover(
    tmp_path: Path,
) -> None:
    """A malformed file shows its error and line and the app runs on (Start empty); the
    untitled first save asks for a path; Open another file whose autosave is newer offers
    to recover it, and the recovered changes are saved. (What the autosave writes and
    recovery does without the screen: test_workspace.py.)"""
    path = tmp_path / "broken.toml"
    path.write_text('format = 1\nname = "x"\n[[racks]\nid = "a01"\n', encoding="utf-8")
    target = tmp_path / "new-hall.toml"
    other = copy("finetune-8gpu.toml", tmp_path)
    # An autosave of "other" with a device deleted, newer than the file (as after a crash).
    crashed = Session(load_path(other))
    deleted = crashed.layout.racks[0].devices[0].id
    crashed.do(RemoveDevice(deleted))
    autosave.write(other, dumps(crashed.layout))
    old = other.stat().st_mtime_ns - 10**9
    os.utime(other, ns=(old, old))
    original = other.read_bytes()

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.pause()
            assert isinstance(app.screen, LoadErrorScreen)
            text = str(app.screen.query_one("#load-errors").render())
            assert f"{path}:3" in text
            assert "E000" in text
            await pilot.press("tab", "enter")  # Open another…, [Start empty], Quit
            await settle(pilot)
            assert app.is_running
            assert app.workspace.session is not None
            assert app.workspace.session.layout.racks == []
            # Untitled: the first save asks for a path.
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert isinstance(app.screen, PromptScreen)
            await pilot.press("ctrl+u")
            await paste(pilot, str(target))
            await pilot.press("enter")
            await settle(pilot)
            assert target.exists()
            assert app.workspace.path == str(target)
            # Open another: its newer autosave is offered first.
            await palette(pilot, "Open")
            assert isinstance(app.screen, PromptScreen)
            await pilot.press("ctrl+u")
            await paste(pilot, str(other))
            await pilot.press("enter")
            await settle(pilot)
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)
            assert "Recover" in app.screen.title_text
            await pilot.press("enter")  # Recover
            await settle(pilot)
            assert app.workspace.path == str(other)
            assert app.main.racks.current_rack_id() == "a01"
            assert app.workspace.session is not None
            assert app.workspace.dirty
            assert app.workspace.session.index.device(deleted) is None
            assert other.read_bytes() == original  # the file as it was until saved
            await pilot.press("ctrl+s")
            await settle(pilot)
            await pilot.pause()
            assert not app.workspace.dirty

    run(journey)
    assert 'name = "untitled"' in target.read_text(encoding="utf-8")
    assert f'"{deleted}"' not in other.read_text(encoding="utf-8")
    assert not autosave.sidecar(other).exists()
