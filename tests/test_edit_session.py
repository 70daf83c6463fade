"""Session: edits re-checked, undo and redo, dirty and revision, fabric rules apart."""

from __future__ import annotations

import copy
import threading

import pytest

from rackdesigner.diagnostics import Diagnostic
from rackdesigner.edit import (
    Batch,
    EditError,
    History,
    MoveDevice,
    PlaceDevice,
    RemoveDevice,
    RemoveLink,
    Session,
)
from rackdesigner.edit.checker import finding_order
from rackdesigner.engine import check
from rackdesigner.layout_io import dumps, load_path
from rackdesigner.model import Layout

from .conftest import ROOT

EXAMPLE = ROOT / "layouts" / "training-128.toml"


def full(layout: Layout) -> list[Diagnostic]:
    return sorted(check(layout, file=str(EXAMPLE))[1], key=finding_order)


@pytest.fixture
def session() -> Session:
    return Session(load_path(EXAMPLE), path=str(EXAMPLE))


def test_open_gives_the_findings_of_a_full_check(session: Session) -> None:
    assert session.findings == full(session.layout)
    assert not session.dirty and not session.can_undo and not session.can_redo
    assert session.revision == 0


def test_do_undo_redo_keep_findings_and_state(session: Session) -> None:
    before = copy.deepcopy(session.layout)
    session.do(
        Batch([RemoveDevice("a02-blank2"), MoveDevice("a01-leaf2", "a02", position=38)], "move")
    )
    assert session.dirty and session.can_undo and session.revision == 1
    assert session.findings == full(session.layout)
    assert session.undo() is not None
    assert session.layout == before and not session.dirty and session.can_redo
    assert session.findings == full(session.layout)
    session.redo()
    assert session.revision == 3 and session.dirty
    assert session.findings == full(session.layout)


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
    assert session.findings == full(session.layout)


def test_a_fabric_job_that_predates_an_edit_is_refused(session: Session) -> None:
    session.do(RemoveLink("a01-n01:ib1"), fabric=False)
    job = session.fabric_job()
    session.do(RemoveLink("a01-n01:ib2"), fabric=False)
    job.run()
    assert not session.accept_fabric(job)
    assert session.fabric_stale
    session.check_fabric()
    assert session.findings == full(session.layout)


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
