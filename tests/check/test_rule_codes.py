"""E001, a rule code in a layout that names no rule: one place (check/rule_codes.py) that
asks the registry once per layout, however many ignore keys it holds."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from rackdesigner.check import engine, rule_codes
from rackdesigner.cli.main import cli
from rackdesigner.layout_io.document import Document, loads
from rackdesigner.rules import registry
from tests.builders import HEADER

NODES = "".join(
    f'\n[[racks.devices]]\nid = "a01-n{i}"\nmodel = "dgx-h100"\nposition = {1 + 10 * i}\n'
    f'ignore = ["{code}"]\n'
    for i, code in enumerate(["PWR", "COOL001", "PLC006", "pwr001 "])
)
LAYOUT = (
    HEADER
    + '[rules]\nselect = ["PWR", "COOL", "PLC", "CAB"]\nignore = ["CAB001"]\n\n'
    + '[[racks]]\nid = "a01"\nignore = ["PLC"]\n'
    + NODES
    + '\n[[links]]\na = "a01-n0:ib1"\nb = "a01-n1:ib1"\nignore = ["CAB004"]\n'
)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """How often the check runs, asks the registry and asks the document for a line."""
    calls = {"check": 0, "registry": 0, "lines": 0}

    def count(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def counting(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return function(*args, **kwargs)

        return counting

    checking = count("check", rule_codes.rule_code_errors)
    monkeypatch.setattr(rule_codes, "rule_code_errors", checking)
    monkeypatch.setattr(engine, "rule_code_errors", checking)  # check_document's
    monkeypatch.setattr(
        rule_codes, "unknown_patterns", count("registry", registry.unknown_patterns)
    )
    monkeypatch.setattr(Document, "key_line", count("lines", Document.key_line))
    return calls


def test_generate_checks_the_codes_once_asking_the_registry_once(
    tmp_path: Path, counted: dict[str, int]
) -> None:
    """Eight lists of codes (select, ignore, a rack's, four devices', a link's), all known:
    one check, one question to the registry, no line looked up."""
    path = tmp_path / "in.toml"
    path.write_text(LAYOUT)
    args = ["generate", str(path), "--fabric", "leaf-spine", "--replace", "-o", str(tmp_path / "o")]
    result = CliRunner().invoke(cli, args)
    assert "E001" not in result.output and "wrote" in result.output, result.output
    assert counted == {"check": 1, "registry": 1, "lines": 0}


def test_validate_checks_the_codes_once(tmp_path: Path, counted: dict[str, int]) -> None:
    path = tmp_path / "in.toml"
    path.write_text(LAYOUT)
    result = CliRunner().invoke(cli, ["validate", str(path)])
    assert "E001" not in result.output, result.output
    assert counted == {"check": 1, "registry": 1, "lines": 0}


def test_every_unknown_code_is_one_error_at_its_key(counted: dict[str, int]) -> None:
    """Each list with an unknown code gives one E001 at its key's line, naming the codes as
    the registry reads them (upper case), in the file's order; lines only for those."""
    text = (
        LAYOUT.replace('select = ["PWR", "COOL"', 'select = ["PWX", "COOL"')
        .replace('ignore = ["PLC"]', 'ignore = ["PLC", "plx9", "PLX9"]')
        .replace('ignore = ["CAB004"]', 'ignore = ["CAX"]')
    )
    document = loads(text, file="t.toml")
    errors = rule_codes.rule_code_errors(document, "t.toml")
    lines = text.split("\n")
    assert [(d.code, d.entity, d.line, d.file) for d in errors] == [
        ("E001", "[rules]", lines.index('select = ["PWX", "COOL", "PLC", "CAB"]') + 1, "t.toml"),
        ("E001", "rack a01", lines.index('ignore = ["PLC", "plx9", "PLX9"]') + 1, "t.toml"),
        ("E001", "link a01-n0:ib1 -> a01-n1:ib1", lines.index('ignore = ["CAX"]') + 1, "t.toml"),
    ]
    assert errors[0].message == "select: no rule matches 'PWX' (`rackdesigner rules` lists them)"
    assert errors[1].message == (
        "ignore must name rules: no rule matches 'PLX9', 'PLX9' "
        "(codes or prefixes; `rackdesigner rules` lists them)"
    )
    assert counted == {"check": 1, "registry": 1, "lines": 3}


def test_a_layout_without_codes_asks_nothing(counted: dict[str, int]) -> None:
    document = loads(HEADER + '[[racks]]\nid = "a01"\n')
    assert rule_codes.rule_code_errors(document) == []
    assert counted["registry"] == 0
