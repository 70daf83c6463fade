"""An autosave that cannot be written: a full disk or a folder that refuses new
files is said once (a notice offering Save as) and in the header ("autosave failed:
<reason>") until an autosave or a save succeeds; the next interval tries again. A save
into such a folder names the folder, not the file."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from rackdesigner.edit import Session
from rackdesigner.layout_io import dumps, saving
from rackdesigner.tui import autosave as sidecar
from rackdesigner.tui.workspace import Workspace, load_layout
from tests.tui.pilot import SIZE, app_for, copy, run, settle


def _full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(folder: Path, name: str, claimed: object = None) -> tuple[int, str]:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(saving, "make_temporary", refuse)


def _read_only_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    # As root a chmod refuses nothing: the folder's refusal comes from the test hook.
    def refuse(folder: Path, name: str, claimed: object = None) -> tuple[int, str]:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(folder))

    monkeypatch.setattr(saving, "make_temporary", refuse)


def _edited(tmp_path: Path) -> tuple[Workspace, Session, str]:
    path = str(copy("finetune-8gpu.toml", tmp_path))
    loaded = load_layout(path)
    assert loaded.session is not None
    workspace = Workspace(path)
    workspace.use(loaded.session, path)
    from rackdesigner.edit import UpdateRack

    outcome = workspace.do(UpdateRack("a01", row="B"))
    assert outcome.applied
    return workspace, loaded.session, path


def test_the_workspace_says_a_failed_autosave_once_and_clears_it_when_one_succeeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace, session, path = _edited(tmp_path)
    _full_disk(monkeypatch)
    job = workspace.autosave_job()
    assert job is not None
    text = dumps(session.layout)
    notice = workspace.autosave_write(*job, text)
    assert notice is not None and "No space left on device" in notice and "Save as" in notice
    assert workspace.autosave_failed == "No space left on device"
    assert not sidecar.sidecar(path).exists()
    # The next interval tries again: still due, still failing, not said a second time.
    job = workspace.autosave_job()
    assert job is not None
    assert workspace.autosave_write(*job, text) is None
    assert workspace.autosave_failed == "No space left on device"
    monkeypatch.undo()
    job = workspace.autosave_job()
    assert job is not None
    assert workspace.autosave_write(*job, text) is None
    assert workspace.autosave_failed == "" and sidecar.sidecar(path).exists()


def test_a_save_refused_by_the_folder_names_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace, _session, path = _edited(tmp_path)
    _read_only_folder(monkeypatch)
    flow = workspace.save_flow(None)
    with pytest.raises(StopIteration) as stop:
        next(flow)
    outcome = stop.value.value
    assert not outcome.saved and outcome.error is not None
    assert f"the folder {tmp_path} does not allow new files" in outcome.error
    assert path in outcome.error


def test_the_designer_shows_a_failed_autosave_in_a_notice_and_the_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = copy("finetune-8gpu.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("delete")  # the device under the cursor: an unsaved change
            await settle(pilot)
            assert app.workspace.dirty
            _read_only_folder(monkeypatch)
            app.main.files.autosave_now()  # the interval's tick
            await settle(pilot)
            failed = [text for severity, text in app.notices if "Autosave failed" in text]
            assert len(failed) == 1 and "Save as" in failed[0]
            assert f"the folder {tmp_path} does not allow new files" in failed[0]
            header = app.main.header.text().plain
            assert "● unsaved · autosave failed: Permission denied: the folder" in header
            app.main.files.autosave_now()  # the next tick: tried again, not said again
            await settle(pilot)
            assert sum("Autosave failed" in text for _, text in app.notices) == 1
            # The save into that folder names it too.
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert f"the folder {tmp_path} does not allow new files" in app.notices[-1][1]
            monkeypatch.undo()
            app.main.files.autosave_now()
            await settle(pilot)
            assert sidecar.sidecar(path).exists()
            assert "autosave failed" not in app.main.header.text().plain
            assert "● unsaved" in app.main.header.text().plain

    run(journey)
