"""The designer checks a large layout's fabric in a child process: a journey
sees the problems panel fill from it, a crash is said, quitting leaves no process."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from rackdesigner.edit import remote_check
from rackdesigner.edit.checker import FabricJob
from rackdesigner.tui.controllers import checking
from rackdesigner.tui.controllers.views_ahead import stamp_of
from tests.edit import child_jobs
from tests.processes import gone
from tests.tui.pilot import SIZE, app_for, codes, copy, run, settle

pytestmark = pytest.mark.slow  # each test starts processes


@pytest.fixture(autouse=True)
def remote_always(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bundled layout is small: send it to the child anyway, and fail the test if the
    fabric rules run in the app's process."""
    monkeypatch.setattr(checking, "REMOTE_FROM_LINKS", 0)

    def here(self: FabricJob) -> FabricJob:
        raise AssertionError("the fabric rules ran in the app's process")

    monkeypatch.setattr(FabricJob, "run", here)


def test_the_problems_panel_fills_from_the_child(tmp_path: Path) -> None:
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            session = app.workspace.session
            assert session is not None and not session.fabric_stale
            assert app.main.checks.fabric.process is not None, app.notices
            assert not [t for s, t in app.notices if s == "error"]
            assert app.main.checks.fabric.process.started == 1
            assert codes(app, "NET007"), "the child's fabric finding is in the panel"
            assert not app.main.header.checking
            # Its summary and outline came with it: no worker builds them here.
            for name in ("summary", "topology"):
                found = app.main.views.view_data(name)
                assert found is not None and found[0] == stamp_of(session)
            await pilot.press("4")
            await settle(pilot)
            assert app.main.summary.summary is not None
            # An edit that changes the fabric is checked again in a new child.
            await pilot.press("1")
            app.main.racks.focus()
            assert app.main.checks.fabric.process.started == 1

    run(journey)


def test_a_crash_in_the_child_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(remote_check, "fabric_outcome", child_jobs.crash)
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            said = "the check process ended unexpectedly (exit code 3)"
            failed = [t for s, t in app.notices if s == "error" and "Fabric check" in t]
            assert failed == [f"Fabric check failed: {said}"]
            assert str(app.main.problems.border_title).endswith(f"fabric check failed: {said}")
            assert not app.main.header.checking

    run(journey)


def test_quitting_kills_a_child_still_checking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(remote_check, "fabric_outcome", child_jobs.hang)
    path = copy("training-128.toml", tmp_path)
    pids: list[int] = []

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            checks = app.main.checks.fabric
            end = time.monotonic() + 30
            while checks.process is None or not checks.process.running:
                assert time.monotonic() < end, "no child started"
                await pilot.pause(0.02)
            pids.append(checks.process._child.pid)
            assert pids[0] != os.getpid()
            began = time.monotonic()
            await pilot.press("ctrl+q")  # unchanged: quits without asking
            await pilot.pause(0.1)
        # The child sleeps 120 s: a quit that waited for it would take that long. (Not a
        # measure of speed: a loaded machine takes seconds to end the app, a quiet one
        # less than one.)
        assert time.monotonic() - began < 60

    run(journey)
    assert gone(pids[0], within=60.0), "the child outlived the app"


def test_the_child_starts_with_the_first_check_and_waits_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child is given the file's text as the first check starts; its findings, back
    first, are taken when that check is done, and no second child is started."""
    path = copy("training-128.toml", tmp_path)
    seen: list[list[str]] = []
    original = checking.warm_up

    def slow_first_check(session: object) -> None:
        # Hold the first check until the child's answer is back (and kept).
        checks = app.main.checks.fabric
        end = time.monotonic() + 30
        while len(checks.parked) < 2 and time.monotonic() < end:
            time.sleep(0.01)
        seen.append([type(event).__name__ for event in checks.parked])
        assert session.analysis is not None  # type: ignore[attr-defined]
        original(session)  # type: ignore[arg-type]

    monkeypatch.setattr(checking, "warm_up", slow_first_check)
    app = app_for(path, tmp_path)

    async def journey() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            # The child's findings, then its views, came back while the first check ran.
            assert seen == [["FabricDone", "FabricViews"]]
            session = app.workspace.session
            assert session is not None and not session.fabric_stale
            assert app.main.checks.fabric.process is not None
            assert app.main.checks.fabric.process.started == 1
            assert codes(app, "NET007")
            assert app.main.checks.fabric.parked == []
            assert not app.main.header.checking
            for name in ("summary", "topology"):  # the child's, taken after its findings
                found = app.main.views.view_data(name)
                assert found is not None and found[0] == stamp_of(session)
            assert not app.main.views.building

    run(journey)


def test_a_check_process_that_cannot_start_is_said_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fails() -> None:
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(remote_check, "_start_forkserver", fails)
    path = copy("training-128.toml", tmp_path)

    async def journey() -> None:
        app = app_for(path, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            said = "cannot start the check process: OSError: [Errno 24] Too many open files"
            failed = [t for s, t in app.notices if s == "error"]
            assert failed == [f"Fabric check failed: {said}"]
            assert str(app.main.problems.border_title).endswith(f"fabric check failed: {said}")
            assert not app.main.header.checking
            await pilot.press("right")  # the app goes on
            await settle(pilot)
            assert app.is_running
        assert app.return_code in (0, None)

    run(journey)
