"""Findings grouped by code: the one grouping ``validate --group-by code`` prints and the
designer's problems panel shows."""

from __future__ import annotations

from rackdesigner.check.formats.text import grouped
from rackdesigner.check.grouping import by_code, code_order
from rackdesigner.model.diagnostics import Diagnostic


def _d(code: str, severity: str, entity: str, file: str = "a.toml") -> Diagnostic:
    return Diagnostic(code, severity, "m", entity=entity, file=file)  # type: ignore[arg-type]


def test_groups_come_errors_first_then_in_rule_order_keeping_the_given_order() -> None:
    findings = [
        _d("CAB004", "warning", "link 1"),
        _d("PWR001", "error", "rack a01"),
        _d("CAB004", "warning", "link 2"),
        _d("E001", "error", ""),
        _d("CAB004", "error", "link 3"),
    ]
    groups = by_code(findings)
    assert [(g.code, g.severity, g.count) for g in groups] == [
        ("E001", "error", 1),
        ("PWR001", "error", 1),
        ("CAB004", "error", 1),
        ("CAB004", "warning", 2),
    ]
    assert [d.entity for d in groups[-1].findings] == ["link 1", "link 2"]
    assert groups[0].names() == ["a.toml"]  # no entity: the file


def test_the_worst_entity_is_the_one_named_most_often() -> None:
    group = by_code(
        [
            _d("CAB004", "warning", "device a"),
            _d("CAB004", "warning", "device b"),
            _d("CAB004", "warning", "device b"),
        ]
    )[0]
    assert group.worst.entity == "device b"
    tie = by_code([_d("NET001", "info", "x"), _d("NET001", "info", "y")])[0]
    assert tie.worst.entity == "x"


def test_a_code_no_rule_family_knows_sorts_last_instead_of_failing() -> None:
    assert code_order("E000") < code_order("PWR001") < code_order("ZZZ")
    assert [g.code for g in by_code([_d("ZZZ", "info", "x"), _d("PWR001", "info", "y")])] == [
        "PWR001",
        "ZZZ",
    ]


def test_the_command_line_prints_the_same_groups() -> None:
    from types import SimpleNamespace

    result = SimpleNamespace(reported=[_d("CAB004", "warning", f"link {n}") for n in range(5)])
    assert grouped([result]) == ["CAB004 warning 5: link 0, link 1, link 2, …"]  # type: ignore[list-item]


def test_keep_order_groups_in_the_order_of_each_first_finding() -> None:
    findings = [_d("NET001", "error", "x"), _d("PWR001", "error", "y"), _d("NET001", "error", "z")]
    groups = by_code(findings, keep_order=True)
    assert [(g.code, [d.entity for d in g.findings]) for g in groups] == [
        ("NET001", ["x", "z"]),
        ("PWR001", ["y"]),
    ]
