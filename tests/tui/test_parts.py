"""The designer's parts that need no running app: findings to entities, marks, rows, the
autosave sidecar, the keymap and the action registry behind bindings, palette and help."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

from click.testing import CliRunner
from rich.console import Console

from rackdesigner.cli.main import cli
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.layout import Device, Feed, Layout, Link, Rack
from rackdesigner.tui import actions, autosave
from rackdesigner.tui.app import read_keymap
from rackdesigner.tui.findings import Locator, marks_for, subject_of
from rackdesigner.tui.rows import rows_of
from rackdesigner.tui.screens.help import help_table


def small_layout() -> Layout:
    a01 = Rack(
        "a01",
        row="A",
        slot=2,
        feeds=[Feed("a01-A")],
        devices=[Device("a01-n01", "dgx-h100", 3), Device("a01-pdu", "pdu-3ph-415v-32a")],
    )
    a02 = Rack("a02", row="A", slot=1, devices=[Device("a02-leaf1", "qm9700", 20)])
    b01 = Rack("b01", row="B")
    links = [Link("a01-n01:ib1", "a02-leaf1:p1")]
    return Layout("t", racks=[a01, a02, b01], links=links)


def finding(entity: str, severity: str = "warning", code: str = "PWR008") -> Diagnostic:
    return Diagnostic(code, severity, "message", entity=entity)


def test_a_finding_names_its_entity_by_subject_or_by_its_words() -> None:
    assert subject_of(finding("device a01-n01")) == ("device", "a01-n01")
    assert subject_of(finding("rack a03")) == ("rack", "a03")
    assert subject_of(finding("rack p02 feed p02-L")) == ("feed", "p02-L")
    assert subject_of(finding("link a01-n01:ib1 -> a02-leaf1:p1")) == (
        "link",
        "a01-n01:ib1 -> a02-leaf1:p1",
    )
    assert subject_of(finding("catalog entry dgx-h100")) == ("catalog", "dgx-h100")
    assert subject_of(finding("site")) == ("site", "")
    assert subject_of(finding("")) is None
    # The reshaped core's findings carry ``subject``; it wins over the words.
    with_subject = SimpleNamespace(entity="device a01-n01", subject=("device", "a01-n02"))
    assert subject_of(with_subject) == ("device", "a01-n02")  # type: ignore[arg-type]


def test_findings_are_located_and_marked_per_rack_and_device() -> None:
    layout = small_layout()
    locate = Locator(layout)
    assert locate(("feed", "a01-A")).rack == "a01"
    where = locate(("link", "a01-n01:ib1 -> a02-leaf1:p1"))
    assert (where.rack, where.device) == ("a01", "a01-n01")
    assert locate(("fabric", "a02-leaf1")).device == "a02-leaf1"
    assert locate(("site", "")) is None
    assert locate(("device", "nope")) is None
    marks = marks_for(
        layout,
        [
            finding("device a01-n01", "warning"),
            finding("device a01-n01", "error", "PLC001"),
            finding("rack a02", "info", "NET007"),
            finding("site", "error", "PWR007"),
        ],
    )
    assert marks.racks == {"a01": {"warning": 1, "error": 1}, "a02": {"info": 1}}
    assert marks.devices == {"a01-n01": "error"}
    assert marks.rack_worst("a01") == "error"


def test_rows_in_order_of_appearance_and_racks_by_slot() -> None:
    rows = rows_of(small_layout())
    assert [(name, [r.id for r in racks]) for name, racks in rows] == [
        ("A", ["a02", "a01"]),
        ("B", ["b01"]),
    ]


def test_the_autosave_sidecar_sits_beside_the_layout_and_counts_when_newer(
    tmp_path: Path,
) -> None:
    layout = tmp_path / "hall.toml"
    layout.write_text("x", encoding="utf-8")
    assert autosave.sidecar(layout) == tmp_path / ".hall.toml.autosave"
    assert autosave.newer(layout) is None
    side = autosave.write(layout, "y")
    assert side.read_text(encoding="utf-8") == "y"
    past = layout.stat().st_mtime_ns - 10**9
    os.utime(layout, ns=(past, past))
    assert autosave.newer(layout) == side
    future = side.stat().st_mtime_ns + 10**9
    os.utime(layout, ns=(future, future))
    assert autosave.newer(layout) is None
    autosave.remove(layout)
    assert not side.exists()


def test_every_palette_name_of_this_part_and_unique_binding_ids() -> None:
    names = {action.name for action in actions.palette()}
    delivered = {
        "Move device",
        "Delete",
        "Duplicate",
        "Rename",
        "Go to",
        "Undo",
        "Redo",
        "Open",
        "Save",
        "Save as",
        "Racks view",
        "Toggle face",
        "Help",
    }
    assert delivered <= names
    ids = [action.id for action in actions.ACTIONS]
    assert len(ids) == len(set(ids))
    for scope in ("app", "racks"):
        for binding in actions.bindings(scope):
            assert binding.id in actions.BY_ID
            assert binding.priority == (scope == "app" and actions.BY_ID[binding.id].priority)
    # Printable keys only where typing cannot reach them; ctrl keys everywhere.
    for action in actions.ACTIONS:
        if action.scope == "app" and action.priority:
            assert all(k.startswith("ctrl+") for k in action.keys.split(",") if k), action.id


def test_help_lists_every_action_with_its_keys_and_a_remapped_key(tmp_path: Path) -> None:
    console = Console(width=140, record=True)
    console.print(help_table({"move": "M"}))
    text = console.export_text()
    for action in actions.ACTIONS:
        assert action.help in text
        if action.name:
            assert action.name in text
    assert "M  " in text and "Move device" in text


def test_a_keymap_file_remaps_by_binding_id_and_reports_what_it_cannot(tmp_path: Path) -> None:
    path = tmp_path / "keymap.toml"
    assert read_keymap(path) == ({}, None)
    path.write_text('move = "M"\nnope = "x"\n', encoding="utf-8")
    keymap, problem = read_keymap(path)
    assert keymap == {"move": "M"}
    assert problem is not None and "nope" in problem
    path.write_text("move = \n", encoding="utf-8")
    keymap, problem = read_keymap(path)
    assert keymap == {} and problem is not None


def test_the_edit_command_is_registered_and_documented() -> None:
    result = CliRunner().invoke(cli, ["edit", "--help"])
    assert result.exit_code == 0
    assert "Open the designer on LAYOUT" in result.output
    assert "edit" in CliRunner().invoke(cli, ["--help"]).output
