"""Session: edits re-checked, undo and redo, dirty and revision, fabric rules apart."""

from __future__ import annotations

import copy
import dataclasses
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from rackdesigner.check.engine import check
from rackdesigner.edit import (
    AddRack,
    Batch,
    EditError,
    History,
    MoveDevice,
    PlaceDevice,
    RemoveDevice,
    RemoveLink,
    RenameEntity,
    Session,
)
from rackdesigner.edit.checker import finding_order
from rackdesigner.layout_io import dumps, load_path
from rackdesigner.layout_io.document import load
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.refs import Ref
from rackdesigner.rules.registry import RULES
from tests.conftest import ROOT
from tests.edit.test_commands import TEXT

EXAMPLE = ROOT / "layouts" / "training-128.toml"


def full(session: Session) -> list[Diagnostic]:
    """A check from scratch of the session's layout, lines from its document's map."""
    layout, source_map = session.layout, session.document.source_map
    return sorted(check(layout, file=str(EXAMPLE), source_map=source_map)[1], key=finding_order)


@pytest.fixture
def session() -> Session:
    return Session(load(EXAMPLE))


def test_open_gives_the_findings_of_a_full_check(session: Session) -> None:
    assert session.findings == full(session)
    assert not session.dirty and not session.can_undo and not session.can_redo
    assert session.revision == 0


def test_do_undo_redo_keep_findings_and_state(session: Session) -> None:
    before = copy.deepcopy(session.layout)
    session.do(
        Batch([RemoveDevice("a02-blank2"), MoveDevice("a01-leaf2", "a02", position=38)], "move")
    )
    assert session.dirty and session.can_undo and session.revision == 1
    assert session.findings == full(session)
    assert session.undo() is not None
    assert session.layout == before and not session.dirty and session.can_redo
    assert session.findings == full(session)
    session.redo()
    assert session.revision == 3 and session.dirty
    assert session.findings == full(session)


def test_a_refused_command_changes_nothing(session: Session) -> None:
    text = dumps(session.layout)
    with pytest.raises(EditError, match="taken by device a01-n01"):
        session.do(PlaceDevice("a01", "qm9700", 5))
    assert dumps(session.layout) == text
    assert not session.can_undo and session.revision == 0


def test_saved_state_is_clean_again_after_undo_and_redo(session: Session) -> None:
    session.do(RemoveLink("a01-n01:ib1"))
    session.mark_saved()
    assert not session.dirty
    session.undo()
    assert session.dirty
    session.redo()
    assert not session.dirty
    session.undo()
    session.do(RemoveLink("a01-n01:ib2"))  # the saved state is now out of reach
    assert session.dirty


def test_fabric_rules_run_in_a_worker_thread(session: Session) -> None:
    session.do(RemoveLink("a01-n01:ib1"), fabric=False)
    assert session.fabric_stale
    job = session.fabric_job()
    worker = threading.Thread(target=job.run)
    worker.start()
    worker.join()
    assert session.accept_fabric(job)
    assert not session.fabric_stale
    assert session.findings == full(session)


def test_a_fabric_job_that_predates_an_edit_is_refused(session: Session) -> None:
    session.do(RemoveLink("a01-n01:ib1"), fabric=False)
    job = session.fabric_job()
    session.do(RemoveLink("a01-n01:ib2"), fabric=False)
    job.run()
    assert not session.accept_fabric(job)
    assert session.fabric_stale
    session.check_fabric()
    assert session.findings == full(session)


def _break_net003(monkeypatch: pytest.MonkeyPatch, check: Callable[[object], object]) -> None:
    """NET003 raising, for the sessions made after this (a checker takes its rules when
    it checks from scratch)."""
    monkeypatch.setitem(RULES, "NET003", dataclasses.replace(RULES["NET003"], check=check))


def test_a_failing_fabric_rule_is_reported_once_not_re_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[int] = []

    def broken(analysis: object) -> list[object]:
        calls.append(session.revision)
        return [1 / 0]

    _break_net003(monkeypatch, broken)
    session = Session(load(EXAMPLE), check=False)
    session.check_fast()
    assert session.fabric_stale and session.fabric_error is None
    job = session.fabric_job()
    job.run()
    assert not session.accept_fabric(job)
    assert session.fabric_error == "NET003: ZeroDivisionError: division by zero"
    assert calls == [0]
    # Nothing is due until the next edit: the app's worker does not start again.
    assert not session.fabric_stale
    session.check()
    session.check_fast()
    assert calls == [0] and not session.fabric_stale
    assert session.fabric_error == "NET003: ZeroDivisionError: division by zero"
    # The next edit, even one that leaves the fabric alone, runs the check again.
    session.do(RenameEntity("device", "a02-blank2", "a02-blank9"), fabric=False)
    assert session.fabric_stale
    session.check_fabric()
    assert calls == [0, 1] and not session.fabric_stale
    assert session.fabric_error == "NET003: ZeroDivisionError: division by zero"
    # The rule mended: the next check succeeds and clears the error.
    monkeypatch.undo()
    session.check(full=True)
    assert session.fabric_error is None and not session.fabric_stale
    assert calls == [0, 1]
    assert session.findings == full(session)


def test_a_failed_job_that_predates_an_edit_is_only_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(analysis: object) -> list[object]:
        raise RuntimeError("facts replaced")

    _break_net003(monkeypatch, broken)
    session = Session(load(EXAMPLE), check=False)
    job = session.fabric_job()
    job.run()
    assert job.error_text == "NET003: RuntimeError: facts replaced"
    session.do(RemoveLink("a01-n01:ib2"), fabric=False)
    assert not session.accept_fabric(job)
    assert session.fabric_error is None and session.fabric_stale


def test_history_drops_what_was_undone_when_a_new_command_comes() -> None:
    layout = load_path(EXAMPLE)
    history = History(layout)
    history.do(RemoveLink("a01-n01:ib1"))
    history.do(RemoveLink("a01-n01:ib2"))
    assert history.undo_label == "Disconnect a01-n01:ib2"
    history.undo()
    assert history.can_redo and history.redo_label == "Disconnect a01-n01:ib2"
    history.do(RemoveLink("a01-n01:ib3"))
    assert not history.can_redo
    assert [c.label for c in history.done] == ["Disconnect a01-n01:ib1", "Disconnect a01-n01:ib3"]
    assert history.undo() is not None and history.undo() is not None and history.undo() is None
    assert layout == load_path(EXAMPLE)


def test_a_new_device_borrows_its_racks_line_until_a_save_gives_it_its_own(
    tmp_path: Path,
) -> None:
    path = tmp_path / "two-racks.toml"
    path.write_text(TEXT, encoding="utf-8")
    session = Session(load(path))
    session.do(PlaceDevice("a01", "qm9700", 40, id="a01-leaf9"))  # an IB switch off-centre
    subject = Ref("device", "a01-leaf9")
    found = [d for d in session.findings if d.subject == subject]
    rack_line = session.document.line(Ref("rack", "a01"))
    assert found and rack_line and all(d.line == rack_line for d in found)
    session.save()
    own = session.document.line(subject)
    assert own and own > rack_line
    assert all(d.line == own for d in session.findings if d.subject == subject)
    assert not session.dirty
    assert session.findings == sorted(
        check(session.layout, file=str(path), source_map=session.document.source_map)[1],
        key=finding_order,
    )
    session.undo()
    assert session.dirty and not any(d.subject == subject for d in session.findings)


def test_a_session_checked_from_scratch_after_a_change_behind_its_back(session: Session) -> None:
    # A caller that changed the layout behind the session's back checks it from scratch.
    session.layout.racks[0].devices[0].label = "changed by hand"
    session.check(full=True)
    assert len(session.analysis.links) == len(session.layout.links)
    session.do(RemoveLink("a01-n01:ib1"))
    assert session.findings == full(session)


def test_a_layout_given_with_the_path_of_its_file_is_saved_as_safely(tmp_path: Path) -> None:
    from rackdesigner.layout_io.document import FileChangedError

    path = tmp_path / "two-racks.toml"
    path.write_text(TEXT, encoding="utf-8")
    session = Session(load_path(path), path=path)
    session.do(RemoveLink("a01-n01:ib1"))
    path.write_text(TEXT + "\n# changed by someone else\n", encoding="utf-8")
    with pytest.raises(FileChangedError):
        session.save()
    session.save(force=True)
    assert "a01-n01:ib1" not in path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "edits",
    [
        # the near id it suggested leaves, from a rack none of the link's ends is in
        [MoveDevice("k02-n02", "k01", position=29), RemoveDevice("k02-n02")],
        # a nearer id comes, in such a rack
        [PlaceDevice("k01", "lc-h100", id="k02-n04", position=29)],
    ],
    ids=["remove", "place"],
)
def test_a_link_to_an_unknown_device_suggests_the_near_id_that_exists_now(
    edits: list[object],
) -> None:
    # "unknown device k02-n03 (did you mean k02-n02?)": the hint depends on every device
    # id, not only on the racks of the link's ends (found by test_edit_stateful).
    path = ROOT / "layouts" / "problems" / "cabling.toml"
    session = Session(load(path))

    def current() -> list[Diagnostic]:
        layout, source_map = session.layout, session.document.source_map
        return sorted(check(layout, file=str(path), source_map=source_map)[1], key=finding_order)

    before = [d.message for d in session.findings if "k02-n03" in d.message]
    assert before == ["end a (k02-n03:ib1): unknown device k02-n03 (did you mean k02-n02?)"]
    for edit in edits:
        session.do(edit)  # type: ignore[arg-type]
        if session.fabric_stale:
            session.check()
        assert session.findings == current()
    after = [d.message for d in session.findings if "k02-n03" in d.message]
    assert after != before


def test_a_cdu_renamed_in_another_rack_than_the_one_naming_it_is_found_by_that_rack() -> None:
    # The rack's cdu follows the rename in the same edit; the rack's facts were made
    # before the other rack's devices were indexed, so COOL003 said "cdu = "k02-cdux" names
    # no device" where validate finds it (found by the thorough stateful edit test).
    path = ROOT / "layouts" / "problems" / "cabling.toml"
    session = Session(load(path))
    session.do(AddRack("x02"))
    session.do(MoveDevice("k02-cdu", "x02", position=19))
    session.do(RenameEntity("device", "k02-cdu", "k02-cdux"))
    if session.fabric_stale:
        session.check()
    layout, source_map = session.layout, session.document.source_map
    want = sorted(check(layout, file=str(path), source_map=source_map)[1], key=finding_order)
    assert session.findings == want
    assert not [d for d in session.findings if d.code == "COOL003" and "k02-cdux" in d.message]
