"""The fabric check in a child process (edit/remote_check.py): it really runs
apart, a newer job supersedes the running one, close() kills it, a crash is reported."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator

import pytest

from rackdesigner.edit import Session, UpdateRack
from rackdesigner.edit.checker import FabricJob
from rackdesigner.edit.remote_check import CheckProcess, run_remote
from rackdesigner.layout_io.document import load
from tests.conftest import ROOT
from tests.edit import child_jobs
from tests.processes import gone

pytestmark = pytest.mark.slow  # each test starts processes

LAYOUT = ROOT / "layouts" / "training-128.toml"


@pytest.fixture(scope="module")
def process() -> Iterator[CheckProcess]:
    checks = CheckProcess()
    yield checks
    checks.close()


def _opened() -> Session:
    session = Session(load(LAYOUT), check=False)
    session.check_fast()
    return session


def _in_thread(process: CheckProcess, *call: object) -> tuple[threading.Thread, list[object]]:
    got: list[object] = []
    thread = threading.Thread(target=lambda: got.append(process.call(*call)))  # type: ignore[arg-type]
    thread.start()
    end = time.monotonic() + 30
    while not process.running:
        assert time.monotonic() < end, "the child never started"
        time.sleep(0.01)
    return thread, got


def test_the_fabric_rules_run_in_a_child_and_equal_a_check_here(
    process: CheckProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = sorted(
        (d.code, d.entity, d.line, d.file, d.message) for d in Session(load(LAYOUT)).findings
    )
    session = _opened()

    def here(self: FabricJob) -> FabricJob:
        raise AssertionError("the fabric rules ran in the app's process")

    monkeypatch.setattr(FabricJob, "run", here)  # this process only: the child has its own
    job = session.fabric_job(remote=True)
    assert job.text and job.analysis is None
    assert run_remote(process, job, None)
    assert job.pid not in (0, os.getpid())
    assert job.error is None
    assert session.accept_fabric(job)
    found = sorted((d.code, d.entity, d.line, d.file, d.message) for d in session.findings)
    assert found == expected
    assert any(d.code.startswith("NET") and d.line > 0 for d in session.findings)


def test_a_result_for_a_layout_edited_since_is_dropped(process: CheckProcess) -> None:
    session = _opened()
    before = list(session.findings)
    job = session.fabric_job(remote=True)
    rack = session.layout.racks[0]
    session.do(UpdateRack(rack.id, {"notes": "edited while the child checked"}), fabric=False)
    assert run_remote(process, job, None)
    assert not session.accept_fabric(job)
    assert session.fabric_stale
    assert [d for d in session.findings if d.code.startswith("NET")] == [
        d for d in before if d.code.startswith("NET")
    ]


def test_a_newer_job_supersedes_the_running_one(process: CheckProcess) -> None:
    thread, got = _in_thread(process, child_jobs.hang)
    old = process._child.pid
    began = time.monotonic()
    assert process.call(os.getpid) is not None  # the newer job's answer
    thread.join(10)
    assert got == [None]  # the older caller is told it was superseded
    assert time.monotonic() - began < 10  # the hanging child was not waited for
    assert gone(old)


def test_close_kills_the_child_and_refuses_more() -> None:
    process = CheckProcess()
    thread, got = _in_thread(process, child_jobs.hang)
    pid = process._child.pid
    process.close()
    thread.join(10)
    assert got == [None]
    assert gone(pid)
    assert process.call(os.getpid) is None


def test_a_child_that_dies_is_reported(
    process: CheckProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert process.call(child_jobs.crash) == (
        False,
        "the check process ended unexpectedly (exit code 3)",
    )
    assert process.call(signal.raise_signal, signal.SIGKILL) == (
        False,
        "the check process ended unexpectedly (killed by SIGKILL)",
    )
    # Through a fabric job: its error, as a rule's error in a thread would be.
    from rackdesigner.edit import remote_check

    monkeypatch.setattr(remote_check, "fabric_outcome", child_jobs.crash)
    session = _opened()
    job = session.fabric_job(remote=True)
    assert run_remote(process, job, None)
    assert job.error_text == "the check process ended unexpectedly (exit code 3)"
    assert not session.accept_fabric(job)
    assert session.fabric_error == job.error_text


def test_an_exception_in_the_child_comes_back_as_text(process: CheckProcess) -> None:
    assert process.call(int, "not a number") == (
        False,
        "ValueError: invalid literal for int() with base 10: 'not a number'",
    )


# -- multiprocessing failing while a child starts: said as the job's error, never raised ---


def _forkserver_fails() -> None:
    raise OSError(24, "Too many open files")


def test_a_forkserver_that_cannot_start_is_the_jobs_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rackdesigner.edit import remote_check

    monkeypatch.setattr(remote_check, "_start_forkserver", _forkserver_fails)
    process = CheckProcess()
    process.warm_up()  # the load's worker: nothing raised, the first job says it
    assert process.call(os.getpid) == (
        False,
        "cannot start the check process: OSError: [Errno 24] Too many open files",
    )
    session = _opened()
    job = session.fabric_job(remote=True)
    assert run_remote(process, job, None)
    assert job.error_text == (
        "cannot start the check process: OSError: [Errno 24] Too many open files"
    )
    assert not process.running


def test_a_process_that_cannot_be_forked_is_the_jobs_error(
    process: CheckProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    import multiprocessing.process

    def no_fork(self: object) -> None:
        raise OSError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", no_fork)
    said = "BlockingIOError: [Errno 11] Resource temporarily unavailable"
    assert process.call(os.getpid) == (False, f"cannot start the check process: {said}")


def test_a_job_or_answer_that_does_not_pickle_is_the_jobs_error(process: CheckProcess) -> None:
    ok, said = process.call(os.getpid, threading.Lock())  # type: ignore[misc]
    assert not ok and str(said).startswith("the check process was not given its job: TypeError")
    assert not process.running
    ok, said = process.call(child_jobs.unpicklable)  # type: ignore[misc]
    assert not ok and str(said).startswith("the check's answer could not be sent: ")
    assert process.call(os.getpid) is not None  # and the next job runs


def test_nothing_from_the_processes_reaches_the_terminal(process: CheckProcess) -> None:
    """The forkserver, its resource tracker and every child write their standard error to
    the null device, not the app's (the terminal Textual draws on)."""
    from multiprocessing import forkserver, resource_tracker

    assert process.call(child_jobs.stderr_target) == (True, os.devnull)
    server = forkserver._forkserver._forkserver_pid
    tracker = resource_tracker._resource_tracker._pid
    assert server and tracker
    for pid in (server, tracker):
        assert os.readlink(f"/proc/{pid}/fd/2") == os.devnull, pid


def test_the_findings_come_back_before_the_views(process: CheckProcess) -> None:
    """The child sends its findings as soon as the rules are done; ``also``'s data (the
    designer's views, seconds more on a large layout) follows."""
    session = _opened()
    job = session.fabric_job(remote=True)
    seen: list[tuple[bool, int, dict[str, object]]] = []
    findings = lambda found: seen.append((found.done, len(found.findings), dict(found.views)))  # noqa: E731
    assert run_remote(process, job, child_jobs.views, findings)
    assert len(seen) == 1
    done, count, views = seen[0]
    assert done and count > 0 and views == {}  # the findings, without the views yet
    assert job.views == {"racks": len(session.layout.racks)}  # the views, after them
    assert session.accept_fabric(job)
