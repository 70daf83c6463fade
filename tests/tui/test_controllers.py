"""The designer's controllers without the app: each is a plain class given the workspace
and a :class:`~rackdesigner.tui.ui.DesignerUI`; here that is ``FakeUI``, which records the
intents a controller asked for, runs thread jobs at once and hands their result messages
straight back. (What the keys reach is the Pilot journeys'.)"""

from __future__ import annotations

from pathlib import Path

from rackdesigner.edit import RemoveDevice
from rackdesigner.tui import autosave
from rackdesigner.tui.controllers.files import FileController
from rackdesigner.tui.messages import AutosaveText
from rackdesigner.tui.ui import CursorAt, DesignerUI
from rackdesigner.tui.workspace import Workspace
from tests.tui.fake_ui import FakeUI
from tests.tui.pilot import copy
from tests.tui.test_workspace import opened


def test_the_fake_is_what_the_controllers_are_given(tmp_path: Path) -> None:
    """Every member of DesignerUI is on the fake (as on the main screen), and the protocol
    names intents, not widgets: a controller tested against the fake is tested against
    all it may ask."""
    members = {n for n in vars(DesignerUI) if not n.startswith("_")}
    members |= set(DesignerUI.__annotations__)
    fake = FakeUI(opened(copy("finetune-8gpu.toml", tmp_path)))
    assert {n for n in members if not hasattr(fake, n)} == set()
    widgets = ("racks", "floor", "topology", "summary", "inspector", "problems", "header")
    assert not members & {*widgets, "catalog_panel"}


def test_the_autosave_tick_writes_the_sidecar_and_nothing_while_a_long_edit_runs(
    tmp_path: Path,
) -> None:
    # (Was the first app of the Pilot journey test_recovery_from_an_autosave: delete, the
    # autosave tick, gone without saving. Reopening and recovering is the files journey.)
    path = copy("finetune-8gpu.toml", tmp_path)
    original = path.read_bytes()
    workspace = opened(path)
    ui = FakeUI(workspace)
    files = FileController(workspace, ui)
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
    ui = FakeUI(workspace)
    guide = GuideController(workspace, ui)
    guide.apply_fix()  # nothing highlighted
    assert ui.notices[-1][0] == "warning" and "No problem is selected" in ui.notices[-1][1]
    assert workspace.do(PlaceDevice("a01", "dgx-h100", 12)).applied
    job = session.fabric_job()
    job.run()
    workspace.fabric_done(session, job)
    hot = next(d for d in session.findings if d.code == "COOL001")
    ui.finding = hot
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
    ui.finding = figure
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
    # The job renders (nothing written yet); the runner writes what the jobs rendered.
    outputs = runner(ExportRequest(floorplan, str(target), "light"))()
    assert [o.path for o in outputs] == [target] and not target.exists()
    assert runner.write(outputs) == [target]
    assert b"<svg" in target.read_bytes()[:400]


def _free_units(workspace: Workspace, rack: str, count: int = 1) -> list[int]:
    """At least ``count`` units of ``rack`` free on both faces, lowest first; the bundled
    layout fills every unit with blanking panels, so the topmost ones are taken out."""
    session = workspace.session
    assert session is not None
    index = session.index
    found = index.rack(rack)
    assert found is not None
    taken = {*index.occupied(rack, "front"), *index.occupied(rack, "rear")}
    free = [u for u in range(1, int(found.height_u) + 1) if u not in taken]
    if len(free) >= count:
        return free
    blanks = [d for d in found.devices if d.model.startswith("blank") and d.position]
    top = max(blanks, key=lambda d: d.position or 0)
    assert workspace.do(RemoveDevice(top.id)).applied
    return _free_units(workspace, rack, count)


def test_a_move_goes_where_the_device_is_dropped_through_the_intents(tmp_path: Path) -> None:
    """m lifts the device under the cursor (the status line says how to place it), enter
    puts it where it was dropped: one MoveDevice, the cursor on it there, the status line
    cleared. A drop on a server's units is refused: nothing moves and the cursor goes back
    to the device where it is; escape puts a lifted device back."""
    from rackdesigner.tui.controllers.editing import EditController

    workspace = opened(copy("finetune-8gpu.toml", tmp_path))
    session = workspace.session
    assert session is not None
    ui = FakeUI(workspace)
    editing = EditController(workspace, ui)
    ui.at = CursorAt(rack="a01", device="a01-blank5", unit=9)
    editing.move()
    assert workspace.moving == "a01-blank5"
    assert ui.status == "moving a01-blank5: arrows, enter to place, escape to cancel"
    free = _free_units(workspace, "a01")[-1]
    ui.drop_at = ("a01", free)
    editing.inspect()  # enter, while a device is lifted: put it down
    moved = session.index.device("a01-blank5")
    assert moved is not None and moved.position == free
    assert workspace.moving is None and ui.status == ""
    assert ui.jumps[-1] == ("a01", "a01-blank5")
    assert ui.notices[-1] == ("information", f"Moved a01-blank5 to a01 U{free}")
    assert session.history.undo_label == f"Move a01-blank5 to a01 U{free}"
    # Onto a server's units: refused, said, and the cursor back on the device.
    server = session.index.device("a01-n01")
    assert server is not None and server.position is not None
    editing.move()
    ui.drop_at = ("a01", server.position)
    editing.finish_move()
    assert moved.position == free and ui.notices[-1][0] == "error"
    assert ui.jumps[-1] == ("a01", "a01-blank5")
    # Escape: put back where it was, said.
    editing.move()
    editing.cancel()
    assert workspace.moving is None and ui.status == "" and moved.position == free
    assert ui.notices[-1] == ("information", "Move cancelled")


def test_placing_from_the_catalog_goes_to_the_cursor_through_the_intents(
    tmp_path: Path,
) -> None:
    """The catalog's search is focused with the open layout's catalog in it; enter on an
    entry places it at the racks view's cursor (designer.md: the device's lowest unit at
    the cursor when free; a half-depth one asks for the face) and the cursor follows it.
    Clicking an entry arms it (the status line says so) and a click on a unit places it
    there."""
    from rackdesigner.tui.controllers.build import BuildController

    workspace = opened(copy("finetune-8gpu.toml", tmp_path))
    session = workspace.session
    assert session is not None
    ui = FakeUI(workspace)
    build = BuildController(workspace, ui)
    build.focus_catalog()
    assert ui.focused == "catalog search" and "blank-1u" in ui.catalog.devices
    *_, below, free = _free_units(workspace, "a01", 2)
    ui.at = CursorAt(rack="a01", unit=free)
    ui.answers = ["front"]  # a blanking panel is half depth: which face is asked
    build.catalog_chosen("blank-1u", by_mouse=False)
    assert "half-depth" in ui.asked[-1].title_text and ui.answers == []
    rack, placed = ui.jumps[-1]
    device = session.index.device(placed or "")
    assert rack == "a01" and device is not None and device.position == free
    assert device.model == "blank-1u" and ui.focused == "racks"
    assert placed is not None and ui.notices[-1][0] == "information"
    assert placed in ui.notices[-1][1]
    # By mouse: armed until a unit is clicked.
    build.catalog_chosen("blank-1u", by_mouse=True)
    assert (
        build.armed == "blank-1u" and ui.status == "click a unit to place blank-1u · escape cancels"
    )
    build.unit_clicked("a01", below, None)
    assert build.armed is None and ui.status == ""
    rack, clicked = ui.jumps[-1]
    device = session.index.device(clicked or "")
    assert device is not None and device.position == below and clicked != placed
    assert session.history.can_undo
