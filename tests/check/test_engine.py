"""The validation engine: rule selection, thread safety, and no fork in the library."""

from __future__ import annotations

import importlib.util
import os
import sys
import threading

import pytest

from rackdesigner.check.engine import check, rules_for
from rackdesigner.layout_io import load_text
from rackdesigner.layout_io.document import loads
from tests.conftest import ROOT


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


def _summary(diagnostics) -> list[tuple]:
    return [(d.code, d.entity, d.line, d.message, d.subject) for d in diagnostics]


def test_check_is_safe_from_threads_and_never_forks(generated: str, monkeypatch) -> None:
    document = loads(generated)
    _, expected = check(document.layout, source_map=document.source_map)

    def no_fork() -> int:
        raise AssertionError("the library must never fork")

    monkeypatch.setattr(os, "fork", no_fork)
    results: list[list[tuple]] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            _, found = check(document.layout, source_map=document.source_map)
            results.append(_summary(found))
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert results == [_summary(expected)] * 3
    assert any(d.code.startswith("NET") for d in expected)


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


def test_every_rule_has_a_scope() -> None:
    from rackdesigner.rules.registry import SCOPES, all_rules

    rules = all_rules().values()
    assert {rule.scope for rule in rules} <= set(SCOPES)
    assert all(rule.fabric == (rule.scope == "fabric") for rule in rules)
    assert {r.code for r in rules if r.scope == "fabric"} >= {"NET002", "NET005", "CMP002"}


def test_the_spread_benchmark_variant_is_valid_and_puts_spines_in_rows_of_their_own() -> None:
    generator = _generator()
    plan = generator.build_spread_plan(2048)
    assert (plan.leaves, plan.spines, len(plan.links)) == (32, 16, 4096)
    spine_rows = {r.row for r in plan.racks for s in r.switches if "-spine" in s[0]}
    leaf_rows = {r.row for r in plan.racks for s in r.switches if "-leaf" in s[0]}
    assert spine_rows and not spine_rows & leaf_rows
    _, diagnostics = check(load_text(generator.render(plan)))
    assert [d for d in diagnostics if d.severity == "error"] == []
