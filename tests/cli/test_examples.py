"""The bundled layouts: examples load, round-trip byte-identically and have no errors; each
problem layout fires exactly the codes it claims."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from rackdesigner.check.engine import check
from rackdesigner.layout_io import dumps, load_path
from rackdesigner.model.diagnostics import LayoutError
from tests.conftest import ROOT

EXAMPLES = sorted((ROOT / "layouts").glob("*.toml"))
PROBLEMS = sorted((ROOT / "layouts" / "problems").glob("*.toml"))
# Files that show load errors (E000-E002) live with the tests: everything under layouts/ loads.
LOAD_ERRORS = sorted((ROOT / "tests" / "data" / "load-errors").glob("*.toml"))


def _id(path: Path) -> str:
    return path.name


def test_validating_the_layouts_folder_finds_rule_errors_not_load_errors() -> None:
    for path in (ROOT / "layouts").rglob("*.toml"):
        load_path(path)  # raises LayoutError if any does not load


def test_the_bundled_examples_exist() -> None:
    names = {p.name for p in EXAMPLES}
    assert {
        "training-128.toml",
        "inference-32-b200.toml",
        "starter-4x-a6000.toml",
        "finetune-8gpu.toml",
    } <= names
    assert {
        "power.toml",
        "cooling.toml",
        "cabling.toml",
        "network.toml",
        "compute.toml",
        "placement.toml",
        "storage.toml",
    } <= {p.name for p in PROBLEMS}


@pytest.mark.parametrize("path", EXAMPLES, ids=_id)
def test_example_has_a_header_comment_and_no_errors(path: Path) -> None:
    layout = load_path(path)
    assert layout.comment and len(layout.comment.splitlines()) >= 3
    _, diagnostics = check(layout, file=str(path))
    assert [d for d in diagnostics if d.severity == "error"] == []


@pytest.mark.parametrize("path", EXAMPLES + PROBLEMS, ids=_id)
def test_layout_round_trips_byte_identically(path: Path) -> None:
    layout = load_path(path)
    assert dumps(layout) == path.read_text(encoding="utf-8")


def _claims(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    if found := re.search(r"^# claims: (.+)$", text, re.M):
        return {c.strip() for c in found.group(1).split(",")}
    # Read the claim without the loader: a file that shows load errors cannot be loaded.
    return set(tomllib.loads(text)["meta"]["claims"])


@pytest.mark.parametrize("path", PROBLEMS + LOAD_ERRORS, ids=_id)
def test_problem_layout_fires_exactly_what_it_claims(path: Path) -> None:
    claims = _claims(path)
    try:
        layout = load_path(path)
    except LayoutError as error:
        fired = {d.code for d in error.diagnostics}
    else:
        _, diagnostics = check(layout, file=str(path))
        fired = {d.code for d in diagnostics}
    assert fired == claims
