"""validate's output formats: one registry (check/formats.FORMATS) that the command
line's --format is built from, each format's module loaded only when it is used."""

from __future__ import annotations

import subprocess
import sys

import pytest

from rackdesigner.check.formats import FORMATS, Options, named, renderer
from rackdesigner.cli.main import cli
from rackdesigner.cli.validate import exit_code
from rackdesigner.model.diagnostics import Diagnostic


def test_every_format_renders_and_the_command_line_offers_exactly_these() -> None:
    option = next(p for p in cli.commands["validate"].params if p.name == "fmt_")
    assert list(option.type.choices) == [f.name for f in FORMATS]  # type: ignore[attr-defined]
    assert option.default == "text"
    for format_ in FORMATS:
        assert format_.help in (option.help or "")
        assert callable(format_.load()) and renderer(format_.name) is format_.load()
    assert [f.name for f in FORMATS if f.for_people] == ["text"]
    with pytest.raises(ValueError, match="unknown format yaml"):
        named("yaml")
    for format_ in FORMATS:  # each renders a run of no files
        assert isinstance(format_.load()([], Options()), str)


def test_the_registry_loads_no_format_and_no_checking_machinery() -> None:
    """Listing the formats (validate --help) imports none of them, nor the engine."""
    probe = (
        "import sys; import rackdesigner.check.formats as f; "
        "print(sorted(m for m in sys.modules if m.startswith('rackdesigner.check')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip() == str(
        ["rackdesigner.check", "rackdesigner.check.formats", "rackdesigner.check.formats.options"]
    ), done.stderr


def test_exit_code() -> None:
    """2 when a file did not load; 1 with an unsuppressed error (warnings too, strict)."""
    error = Diagnostic("PWR001", "error", "m")
    warning = Diagnostic("COOL002", "warning", "m")
    known = Diagnostic("PWR002", "error", "m", suppressed="baseline")
    assert exit_code([], strict=True) == 0
    assert exit_code([warning, known], strict=False) == 0
    assert exit_code([warning], strict=True) == 1
    assert exit_code([error], strict=False) == 1
    assert exit_code([error, Diagnostic("E000", "error", "m")], strict=False) == 2
