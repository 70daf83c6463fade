"""``rackdesigner schema``: a JSON Schema every validator reads.

JSON Schema's ``pattern`` is an ECMA-262 regular expression. Python's own syntax (a named
group ``(?P<name>...)``) made check-jsonschema refuse the whole schema ("is not a
'regex'"), and JavaScript's RegExp too. The unit tests compile every pattern with an
ECMA-262 engine (regress, the one check-jsonschema uses by default); the real test runs
check-jsonschema over the bundled layouts.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import regress
from click.testing import CliRunner

from rackdesigner.cli.main import cli
from rackdesigner.layout_io.json_schema import ecma_pattern, layout_schema
from tests.conftest import ROOT


def patterns(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield value
            else:
                yield from patterns(value)
    elif isinstance(node, list):
        for item in node:
            yield from patterns(item)


def test_every_pattern_is_ecma_262() -> None:
    found = list(patterns(layout_schema()))
    assert len(found) >= 8  # ids, hostnames, link ends, quantities, sides...
    for pattern in found:
        assert "(?P" not in pattern, pattern
        regress.Regex(pattern, "u")  # raises RegressError on syntax ECMA-262 lacks


def test_link_end_pattern_keeps_its_meaning_without_group_names() -> None:
    schema = layout_schema()
    end = schema["properties"]["links"]["items"]["properties"]["a"]["pattern"]
    assert end == r"^([^:\s]+):([^\s:]*?[^\s:0-9])([0-9]+)$"
    ecma = regress.Regex(end, "u")
    assert ecma.find("a01-n01:ib1") is not None and ecma.find("a01-n01:ib") is None
    assert re.match(end, "s1:p64") and not re.match(end, "s1:64")


def test_python_only_syntax_is_refused_when_the_schema_is_made() -> None:
    assert ecma_pattern(r"^(?P<a>x)(?P<b>y)$") == r"^(x)(y)$"
    for python_only in (r"(?<=a)b", r"\Aab\Z", r"(?i)ab", r"(?P<a>x)(?P=a)"):
        with pytest.raises(ValueError, match="Python-only"):
            ecma_pattern(python_only)


@pytest.mark.slow
@pytest.mark.real
def test_check_jsonschema_accepts_the_schema_and_the_bundled_layouts(tmp_path: Path) -> None:
    """check-jsonschema (its default, ECMA-262 regex engine) reads the schema and finds
    every bundled layout valid, the problem layouts included (their problems are rule
    findings, not format errors)."""
    program = shutil.which("check-jsonschema") or str(
        Path(sys.executable).with_name("check-jsonschema")
    )
    if not os.access(program, os.X_OK):
        message = "check-jsonschema is not installed (pip install -e '.[test]')"
        if os.environ.get("RACKDESIGNER_REQUIRE_REAL") == "1":
            pytest.fail(message)
        pytest.skip(message)
    schema = tmp_path / "rackdesigner.schema.json"
    made = CliRunner().invoke(cli, ["schema", "--output", str(schema)])
    assert made.exit_code == 0, made.output
    layouts = sorted((ROOT / "layouts").glob("**/*.toml"))
    assert len(layouts) >= 10
    checked = subprocess.run(
        [program, "--schemafile", str(schema), *map(str, layouts)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "ok -- validation done" in checked.stdout
