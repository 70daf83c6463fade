"""The headless commands never import the TUI: CI machines need no terminal stack."""

from __future__ import annotations

import subprocess
import sys

from .conftest import ROOT

PROBE = """
import sys
from click.testing import CliRunner
from rackdesigner.cli import cli
runner = CliRunner()
for args in (["validate", {path!r}, "--format", "json"], ["rules"], ["rules", "PWR001"],
             ["catalog"], ["catalog", "dgx-h100"], ["schema"],
             ["export", {path!r}, "--toml", "-"], ["report", {path!r}],
             ["report", {path!r}, "--format", "json"]):
    result = runner.invoke(cli, args)
    assert result.exit_code in (0, 1), (args, result.output, result.exception)
leaked = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
print(",".join(leaked))
"""


def test_headless_commands_do_not_import_textual() -> None:
    path = str(ROOT / "tests" / "rules" / "PLC001" / "fires.toml")
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(path=path)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


EDIT_PROBE = """
import sys
from rackdesigner.edit import MoveDevice, Session
from rackdesigner.layout_io import load_path
session = Session(load_path({path!r}))
session.do(MoveDevice("a01-n01"))
session.undo()
leaked = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
print(",".join(leaked))
"""


def test_the_editing_core_does_not_import_textual() -> None:
    path = str(ROOT / "layouts" / "training-128.toml")
    result = subprocess.run(
        [sys.executable, "-c", EDIT_PROBE.format(path=path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""
