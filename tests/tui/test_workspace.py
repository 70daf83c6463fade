"""The designer's workspace without Textual: edits and their outcomes, the save flow's
questions, unsaved changes, the autosave sidecar, recovery, duplicating and go-to, and a
fabric check that fails."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rackdesigner.edit import MoveDevice, RemoveDevice, Session
from rackdesigner.layout_io import dumps, load_path
from rackdesigner.tui import autosave
from rackdesigner.tui.workspace import Question, Workspace, empty_session, load_layout
from tests.conftest import ROOT
from tests.tui.pilot import copy


def opened(path: Path) -> Workspace:
    loaded = load_layout(str(path))
    assert loaded.session is not None and not loaded.errors
    loaded.session.check_fast()
    workspace = Workspace(str(path))
    workspace.use(loaded.session, loaded.path)
    return workspace


def answer(flow, *answers: str | None):  # type: ignore[no-untyped-def]
    """Run a save flow, answering its questions in turn; (questions asked, outcome)."""
    asked: list[Question] = []
    pending = list(answers)
    try:
        question = next(flow)
        while True:
            asked.append(question)
            question = flow.send(pending.pop(0) if pending else None)
    except StopIteration as stop:
        return asked, stop.value


def test_the_workspace_imports_no_textual() -> None:
    code = (
        "import sys; import rackdesigner.tui.workspace; "
        "assert not [m for m in sys.modules if m.split('.')[0] == 'textual'], 'textual'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_loading_a_file_a_missing_one_and_a_broken_one(tmp_path: Path) -> None:
    steps: list[str] = []
    loaded = load_layout(str(copy("training-128.toml", tmp_path)), lambda _p, t: steps.append(t))
    assert loaded.session is not None and loaded.session.analysis is None  # checked later
    assert steps == ["reading and converting…", "reading the catalog…", "drawing…"]
    missing = load_layout(str(tmp_path / "new.toml"))
    assert missing.session is not None and missing.session.layout.name == "new"
    broken = tmp_path / "broken.toml"
    broken.write_text("[[racks]\n", encoding="utf-8")
    assert load_layout(str(broken)).errors
    session, keep = empty_session(str(tmp_path / "new.toml"))
    assert session.layout.name == "new" and keep == str(tmp_path / "new.toml")
    assert empty_session(str(broken))[1] is None


def test_an_edit_gives_its_outcome_and_a_refusal_changes_nothing(tmp_path: Path) -> None:
    workspace = opened(copy("training-128.toml", tmp_path))
    session = workspace.session
    assert session is not None
    refused = workspace.do(MoveDevice("a01-leaf1", position=20))
    assert not refused.applied and refused.refusal and "taken by device" in str(refused.error)
    assert session.index.device("a01-leaf1").position == 19 and not workspace.dirty
    done = workspace.do(RemoveDevice("a01-blank4"))
    assert done.applied and done.touched == {"a01"} and done.said is None
    moved = workspace.do(MoveDevice("a01-leaf1", position=41))
    said = moved.said  # the problems it brought, worst first
    assert said is not None and "PLC003" in {said.worst.code, *(d.code for d in said.others)}
    assert workspace.dirty and workspace.edits_since_autosave == 2
    assert workspace.facts(("rack", "a01"))[0].startswith("load ")
    assert "PLC003" in [d.code for d in workspace.findings_of(("device", "a01-leaf1"))]
    assert workspace.history_step("undo") is not None
    assert session.index.device("a01-leaf1").position == 19


def test_duplicate_goes_into_the_next_free_units_above_and_go_to_names_what_is_missing(
    tmp_path: Path,
) -> None:
    workspace = opened(copy("training-128.toml", tmp_path))
    command = workspace.duplicate("a01-leaf1")
    assert not isinstance(command, str) and command is not None
    taken = workspace.session.index.occupied("a01", "front")  # type: ignore[union-attr]
    position = getattr(command, "position", None)
    assert position is not None and position > 19 and position not in taken
    assert all(u in taken for u in range(20, position))  # the first free unit above
    assert workspace.ref_for("a01") == ("rack", "a01")
    assert workspace.ref_for("a01-leaf1") == ("device", "a01-leaf1")
    said = workspace.ref_for("a01-leaf9")
    assert isinstance(said, str) and said.startswith("No rack, device, feed or link 'a01-leaf9'")


def test_save_asks_nothing_for_its_own_file_and_a_path_for_an_untitled_layout(
    tmp_path: Path,
) -> None:
    path = copy("training-128.toml", tmp_path)
    workspace = opened(path)
    workspace.do(RemoveDevice("a01-blank4"))
    asked, outcome = answer(workspace.save_flow(None))
    assert asked == [] and outcome.saved and not workspace.dirty
    assert load_path(path).racks[0].devices != [] and "a01-blank4" not in path.read_text()

    untitled = Workspace()
    untitled.use(Session(load_path(path)), None)
    target = tmp_path / "copy.toml"
    asked, outcome = answer(untitled.save_flow(None), str(target))
    assert [q.title for q in asked] == ["Save as"] and asked[0].prompt
    assert outcome.saved and untitled.path == str(target) and target.exists()
    asked, outcome = answer(untitled.save_flow(str(path)), "cancel")  # another file exists
    assert [q.title for q in asked] == ["Overwrite?"] and not outcome.saved


def test_a_file_changed_on_disk_is_asked_about_and_overwritten_only_when_told(
    tmp_path: Path,
) -> None:
    # (Was the Pilot journey test_file_changed_on_disk_before_save_asks: ctrl+s turning a
    # Question into a dialog is the quit journey's; what is asked and done is here.)
    path = copy("finetune-8gpu.toml", tmp_path)
    workspace = opened(path)
    session = workspace.session
    assert session is not None
    device = session.layout.racks[0].devices[0].id
    workspace.do(RemoveDevice(device))
    changed = path.read_text(encoding="utf-8") + "\n# edited elsewhere\n"
    path.write_text(changed, encoding="utf-8")
    asked, outcome = answer(workspace.save_flow(None), None)  # dismissed: as cancel
    assert [q.title for q in asked] == ["Changed on disk"] and not outcome.saved
    asked, outcome = answer(workspace.save_flow(None), "cancel")
    assert "changed on disk" in asked[0].text and asked[0].default == "cancel"
    assert [v for v, _ in asked[0].choices] == ["overwrite", "cancel"]
    assert not outcome.saved and path.read_text(encoding="utf-8") == changed
    assert workspace.dirty
    _, outcome = answer(workspace.save_flow(None), "overwrite")
    assert outcome.saved and not workspace.dirty
    assert path.read_text(encoding="utf-8") == dumps(session.layout)


def test_comments_a_save_would_drop_are_asked_about(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)
    text = path.read_text(encoding="utf-8")
    head, _, tail = text.partition("[[racks]]")
    path.write_text(head + "[[racks]]\n# a comment the rewrite cannot keep" + tail, "utf-8")
    workspace = opened(path)
    if not workspace.session or not workspace.session.document.dropped_comments:
        pytest.skip("this comment is kept by the canonical form")
    workspace.do(RemoveDevice("a01-blank4"))
    asked, outcome = answer(workspace.save_flow(None), "cancel")
    assert [q.title for q in asked] == ["Comments would be lost"] and not outcome.saved
    _, outcome = answer(workspace.save_flow(None), "save")
    assert outcome.saved


def test_unsaved_changes_are_asked_about_and_discarding_drops_the_autosave(
    tmp_path: Path,
) -> None:
    path = copy("training-128.toml", tmp_path)
    workspace = opened(path)
    assert workspace.unsaved_question("Quit") is None and workspace.autosave_job() is None
    workspace.do(RemoveDevice("a01-blank4"))
    question = workspace.unsaved_question("Quit")
    assert question is not None and [v for v, _ in question.choices] == [
        "save",
        "discard",
        "cancel",
    ]
    job = workspace.autosave_job()
    assert job is not None and workspace.autosave_job(busy=True) is None
    session, where, revision = job
    assert workspace.autosave_write(session, where, revision, dumps(session.layout)) is None
    assert autosave.sidecar(path).exists() and workspace.autosave_job() is None
    # An edit while the text was made: that text is not kept.
    workspace.do(RemoveDevice("a01-leaf2"))
    stale = workspace.autosave_job()
    assert stale is not None
    workspace.do(RemoveDevice("a01-leaf1"))
    workspace.autosave_write(*stale, text="stale")
    assert autosave.sidecar(path).read_text(encoding="utf-8") != "stale"
    workspace.discard_unsaved()
    assert not autosave.sidecar(path).exists() and workspace.autosave_job() is None


def test_recovering_an_autosave_keeps_the_layout_unsaved_until_saved(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)
    workspace = opened(path)
    workspace.do(RemoveDevice("a01-blank4"))
    side = autosave.write(path, dumps(workspace.session.layout))  # type: ignore[union-attr]
    os.utime(side, (time.time() + 5, time.time() + 5))
    again = Workspace(str(path))
    loaded = load_layout(str(path))
    again.use(loaded.session, loaded.path)  # type: ignore[arg-type]
    assert again.newer_autosave(loaded) == side
    question = again.recovery_question(str(path), side)
    assert [v for v, _ in question.choices] == ["recover", "discard", "later"]
    assert again.recover(str(path), side) is None
    assert again.recovered and again.dirty and again.session is not None
    assert again.session.index.device("a01-blank4") is None
    assert "a01-blank4" in path.read_text(encoding="utf-8")  # the file as it was
    _, outcome = answer(again.save_flow(None))
    assert outcome.saved and not again.dirty and not side.exists()


def test_a_failed_fabric_check_is_reported_once_and_not_started_again(tmp_path: Path) -> None:
    workspace = opened(copy("training-128.toml", tmp_path))
    session = workspace.session
    assert session is not None and workspace.fabric_due()
    job = session.fabric_job()
    job.error = RuntimeError("the graph broke")
    job.done = True
    result = workspace.fabric_done(session, job)
    assert not result.accepted and result.failed is not None and "the graph broke" in result.failed
    assert workspace.fabric_error == result.failed
    assert not workspace.fabric_due()  # not restarted for the same layout
    workspace.do(RemoveDevice("a01-blank4"))  # an edit: the next check may succeed
    assert workspace.fabric_error is None and workspace.fabric_due()
    job = session.fabric_job()
    job.run()
    assert workspace.fabric_done(session, job).accepted and workspace.fabric_error is None


def test_a_saved_layout_reopens_as_saved_and_clean(tmp_path: Path) -> None:
    # (Was the second app of the Pilot journey test_training_journey_..._save_reopen.)
    path = copy("training-128.toml", tmp_path)
    workspace = opened(path)
    workspace.do(RemoveDevice("a01-blank4"))
    _, outcome = answer(workspace.save_flow(None))
    assert outcome.saved
    again = Workspace(str(path))
    loaded = load_layout(str(path))
    assert loaded.session is not None and not loaded.errors
    again.use(loaded.session, loaded.path)
    assert again.newer_autosave(loaded) is None
    assert dumps(again.session.layout) == path.read_text(encoding="utf-8")  # type: ignore[union-attr]
    assert again.session.index.device("a01-blank4") is None  # type: ignore[union-attr]
    assert not again.dirty
