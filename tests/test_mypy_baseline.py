"""The CI type check's baseline comparison (.ci/mypy-baseline), fed made-up mypy output.

The script is loaded in-process (it has no .py suffix: it is run as a command), so these
tests start no process and never run mypy itself.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / ".ci" / "mypy-baseline"

BASELINE = """\
# a comment line
rackdesigner/a.py  [union-attr]  Item "None" of "Rack | None" has no attribute "id"
rackdesigner/a.py  [union-attr]  Item "None" of "Rack | None" has no attribute "id"
rackdesigner/b.py  [no-redef]  Name "x" already defined on line N
"""

# The baseline's three errors, as mypy prints them today.
TODAY = """\
rackdesigner/a.py:10: error: Item "None" of "Rack | None" has no attribute "id"  [union-attr]
rackdesigner/a.py:12: error: Item "None" of "Rack | None" has no attribute "id"  [union-attr]
rackdesigner/a.py:12: note: You can use "if x is not None" to guard against a None value
rackdesigner/b.py:40: error: Name "x" already defined on line 31  [no-redef]
"""


def _load() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("mypy_baseline", str(SCRIPT))
    spec = importlib.util.spec_from_loader("mypy_baseline", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script() -> ModuleType:
    return _load()


def _run(script: ModuleType, tmp_path: Path, output: str, *args: str) -> int:
    baseline = tmp_path / "baseline.txt"
    if not baseline.exists():
        baseline.write_text(BASELINE, encoding="utf-8")
    (tmp_path / "mypy.out").write_text(output, encoding="utf-8")
    argv = ["--mypy-output", str(tmp_path / "mypy.out"), "--baseline", str(baseline), *args]
    return int(script.main(argv))


def test_known_errors_pass(script: ModuleType, tmp_path: Path) -> None:
    assert _run(script, tmp_path, TODAY) == 0


def test_moved_lines_are_the_same_errors(
    script: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ten lines inserted above every error (and above the line a message names)."""
    moved = TODAY.replace(":10:", ":20:").replace(":12:", ":22:").replace(":40:", ":50:")
    moved = moved.replace("line 31", "line 41")
    assert _run(script, tmp_path, moved) == 0
    assert "mypy: no new errors (3 in the baseline)" in capsys.readouterr().err


def test_a_new_error_fails(
    script: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = 'rackdesigner/c.py:5: error: Argument 1 to "f" has incompatible type "int"  [arg-type]\n'
    assert _run(script, tmp_path, TODAY + new) == 1
    err = capsys.readouterr().err
    assert "1 new mypy errors" in err
    assert "rackdesigner/c.py:5:" in err  # with its line, to be found


def test_a_third_occurrence_of_a_known_error_is_new(
    script: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The baseline lists the a.py error twice: a third one is counted as new."""
    third = TODAY.splitlines()[0].replace(":10:", ":30:") + "\n"
    assert _run(script, tmp_path, TODAY + third) == 1
    assert "1 more than the baseline's 2" in capsys.readouterr().err


def test_a_fixed_error_is_reported_and_fails(
    script: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixed = "\n".join(line for line in TODAY.splitlines() if "b.py" not in line) + "\n"
    assert _run(script, tmp_path, fixed) == 1
    err = capsys.readouterr().err
    assert "no longer occur; remove these lines" in err
    assert 'rackdesigner/b.py  [no-redef]  Name "x" already defined on line N' in err


def test_update_drops_fixed_lines_and_adds_none(script: ModuleType, tmp_path: Path) -> None:
    """One of the two a.py errors fixed, and a new c.py error: --update removes one a.py
    line, keeps the other lines, does not record c.py, and still fails on it."""
    lines = TODAY.splitlines()
    output = "\n".join([lines[0], lines[3]]) + "\n"
    output += "rackdesigner/c.py:5: error: Bad  [misc]\n"
    assert _run(script, tmp_path, output, "--update") == 1
    kept = (tmp_path / "baseline.txt").read_text(encoding="utf-8")
    assert kept.count("rackdesigner/a.py") == 1
    assert "rackdesigner/b.py" in kept
    assert "c.py" not in kept
    assert _run(script, tmp_path, output.splitlines()[0] + "\n" + lines[3] + "\n") == 0


def test_rewrite_records_every_error(script: ModuleType, tmp_path: Path) -> None:
    output = TODAY + "rackdesigner/c.py:5:7: error: Bad  [misc]\n"
    assert _run(script, tmp_path, output, "--rewrite") == 0
    written = (tmp_path / "baseline.txt").read_text(encoding="utf-8").splitlines()
    assert [line for line in written if not line.startswith("#")] == [
        'rackdesigner/a.py  [union-attr]  Item "None" of "Rack | None" has no attribute "id"',
        'rackdesigner/a.py  [union-attr]  Item "None" of "Rack | None" has no attribute "id"',
        'rackdesigner/b.py  [no-redef]  Name "x" already defined on line N',
        "rackdesigner/c.py  [misc]  Bad",
    ]
    assert _run(script, tmp_path, output) == 0


def test_mypy_failing_without_errors_is_not_a_pass(
    script: ModuleType, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A crash or a configuration error prints no error lines but exits 2."""
    baseline = tmp_path / "baseline.txt"
    baseline.write_text(BASELINE, encoding="utf-8")
    output = "pyproject.toml: [mypy]: Unrecognized option: foo = 1\n"
    assert script.compare(output, 2, baseline, "check") == 2
    assert "mypy could not check the package (exit 2)" in capsys.readouterr().err
