"""The validation engine: rule selection, and the forked path for large layouts."""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

from rackdesigner.engine import check, rules_for
from rackdesigner.layout_io import load_text

from .conftest import ROOT


def _generator():  # bench/ is not a package: load the generator by path
    spec = importlib.util.spec_from_file_location("generate", ROOT / "bench" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["generate"] = module  # dataclasses look their module up while defining
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated():
    text = _generator().generate_layout_text(1024)
    return text


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_fabric_rules_give_the_same_findings(generated: str) -> None:
    _, sequential = check(load_text(generated), parallel=False)
    _, forked = check(load_text(generated), parallel=True)
    assert [(d.code, d.entity, d.line, d.message) for d in forked] == [
        (d.code, d.entity, d.line, d.message) for d in sequential
    ]
    assert any(d.code.startswith("NET") for d in forked)


def test_generated_benchmark_layout_has_no_errors(generated: str) -> None:
    _, diagnostics = check(load_text(generated))
    assert [d for d in diagnostics if d.severity == "error"] == []


def test_select_replaces_and_ignore_adds_to_the_file_rules() -> None:
    layout = load_text(
        'format = 1\nname = "x"\n[rules]\nselect = ["PWR", "COOL"]\nignore = ["PWR008"]\n'
    )
    codes = [r.code for r in rules_for(layout)]
    assert "PWR001" in codes and "COOL001" in codes and "PWR008" not in codes
    assert "CAB001" not in codes
    codes = [r.code for r in rules_for(layout, select=["CAB"], ignore=["CAB005"])]
    assert "CAB001" in codes and "CAB005" not in codes and "PWR001" not in codes
