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

    def notify(self, message: str, *, severity: str = "information", **_: Any) -> None:
        self.notices.append((severity, message))

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
