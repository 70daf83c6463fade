"""The designer's controllers without the app: each is a plain class given the workspace
and a :class:`~rackdesigner.tui.ui.DesignerUI`; here that is a stand-in that runs thread
jobs at once and hands their result messages straight back. (What the keys reach is the
Pilot journeys'.)"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rackdesigner.edit import RemoveDevice
from rackdesigner.tui import autosave
from rackdesigner.tui.controllers.files import FileController
from rackdesigner.tui.messages import AutosaveText
from tests.tui.pilot import copy
from tests.tui.test_workspace import opened


class StubUI:
    """Just what the controllers under test ask of the screen."""

    def __init__(self) -> None:
        self.busy: str | None = None
        self.notices: list[tuple[str, str]] = []
        self.threads: list[str] = []  # the group of each thread job started
        self.results: list[Any] = []  # messages the jobs posted back
        self.handle: Callable[[Any], None] = self.results.append

    def notify(
        self, message: str, *, title: str = "", severity: str = "information", **_: Any
    ) -> None:
        self.notices.append((severity, f"{title}: {message}" if title else message))

    def run_thread(self, job: Callable[[], None], *, group: str, exclusive: bool) -> None:
        self.threads.append(group)
        job()

    def post_result(self, message: Any) -> None:
        self.handle(message)


def test_the_autosave_tick_writes_the_sidecar_and_nothing_while_a_long_edit_runs(
    tmp_path: Path,
) -> None:
    # (Was the first app of the Pilot journey test_recovery_from_an_autosave: delete, the
    # autosave tick, gone without saving. Reopening and recovering is the files journey.)
    path = copy("finetune-8gpu.toml", tmp_path)
    original = path.read_bytes()
    workspace = opened(path)
    ui = StubUI()
    files = FileController(workspace, ui)  # type: ignore[arg-type]
    ui.handle = lambda message: (
        files.autosave_text(message) if isinstance(message, AutosaveText) else None
    )
    files.autosave_now()  # nothing unsaved: nothing to write
    assert ui.threads == [] and not autosave.sidecar(path).exists()
    session = workspace.session
    assert session is not None
    deleted = session.layout.racks[0].devices[0].id
    assert workspace.do(RemoveDevice(deleted)).applied
    # A long edit is half way: the tick writes nothing of the layout being changed.
    ui.busy = "changing the layout"
    files.autosave_now()
    assert ui.threads == [] and not autosave.sidecar(path).exists()
    ui.busy = None
    files.autosave_now()  # what the 30 s timer and every 20th edit do
    assert ui.threads == ["autosave"]
    side = autosave.sidecar(path)
    assert side.exists() and f'"{deleted}"' not in side.read_text(encoding="utf-8")
    assert path.read_bytes() == original and ui.notices == []


class StubProblems:
    current: Any = None
    current_group: Any = None  # a finding's line, not a group's


class EditingUI(StubUI):
    """A stand-in that edits through the workspace, as the screen's ``do`` does."""

    def __init__(self, workspace: Any) -> None:
        super().__init__()
        self.workspace = workspace
        self.problems = StubProblems()

    def do(self, command: Any, *, quiet: bool = False) -> str | None:
        return self.workspace.do(command).refusal


def test_apply_fix_applies_the_highlighted_findings_fix_as_one_step_or_says_why_not(
    tmp_path: Path,
) -> None:
    # (The keys, x and the palette's Apply fix, and the footer's "fix": the guide journey.)
    import shutil

    from rackdesigner.edit import PlaceDevice
    from rackdesigner.tui.controllers.guide import GuideController
    from tests.conftest import ROOT

    path = tmp_path / "dgx-air.toml"
    shutil.copy(ROOT / "tests" / "data" / "guide" / "dgx-air.toml", path)
    workspace = opened(path)
    session = workspace.session
    assert session is not None
    ui = EditingUI(workspace)
    guide = GuideController(workspace, ui)  # type: ignore[arg-type]
    guide.apply_fix()  # nothing highlighted
    assert ui.notices[-1][0] == "warning" and "No problem is selected" in ui.notices[-1][1]
    assert workspace.do(PlaceDevice("a01", "dgx-h100", 12)).applied
    job = session.fabric_job()
    job.run()
    workspace.fabric_done(session, job)
    hot = next(d for d in session.findings if d.code == "COOL001")
    ui.problems.current = hot
    assert workspace.has_fix(hot)
    revision = session.revision
    guide.apply_fix()
    assert ui.notices[-1][0] == "information"
    assert (
        ui.notices[-1][1].startswith("Fixed COOL001 rack a01: ") and "ctrl+z" in ui.notices[-1][1]
    )
    assert session.revision != revision and session.history.can_undo
    rack = session.index.rack("a01")
    assert rack is not None and rack.cooling == "rear-door" and rack.door == "a01-door"
    assert not [d for d in session.findings if d.code in ("COOL001", "COOL002")]
    assert workspace.history_step("undo") is not None  # one step takes it back
    assert session.index.device("a01-door") is None
    # A finding without a mechanical fix (NET007, a figure): said, nothing changed.
    figure = next(d for d in session.findings if d.code == "NET007")
    ui.problems.current = figure
    assert not workspace.has_fix(figure)
    revision = session.revision
    guide.apply_fix()
    assert session.revision == revision
    severity, text = ui.notices[-1]
    assert severity == "warning" and "NET007" in text and "has no mechanical fix" in text


def test_the_export_runner_is_the_cli_exporter_and_refuses_the_input_layout(
    tmp_path: Path,
) -> None:
    # (The dialog's kinds, settings and progress: the export journey.)
    import pytest

    from rackdesigner.export.registry import KINDS, ExportError
    from rackdesigner.tui.controllers.exporting import ExportRunner
    from rackdesigner.tui.screens.export import ExportRequest

    path = copy("inference-32-b200.toml", tmp_path)
    workspace = opened(path)
    assert workspace.session is not None
    runner = ExportRunner(workspace.session, str(path))
    floorplan = next(k for k in KINDS if k.option == "--floorplan")
    before = path.read_bytes()
    with pytest.raises(ExportError, match="it is the input layout"):
        runner(ExportRequest(floorplan, str(path), "light"))
    assert path.read_bytes() == before
    target = tmp_path / "out" / "floor.svg"
    said = runner(ExportRequest(floorplan, str(target), "light"))()
    assert said.startswith("Wrote ") and str(target) in said
    assert b"<svg" in target.read_bytes()[:400]
