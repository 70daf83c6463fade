"""The rule registry: every rule's code, severity, scope, thresholds and documentation.

Importing it imports every rule module (their ``@rule`` decorators fill
:data:`RULES`); :func:`all_rules`, :func:`selected` and :func:`unknown_patterns`
answer which rules exist and which to run, and :func:`to_diagnostics` turns
findings into diagnostics. The pieces a rule module needs live in
:mod:`.base`, re-exported here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.refs import Ref
from rackdesigner.rules import (  # noqa: F401  (imported for their registrations)
    cabling,
    compute,
    cooling,
    network,
    nvlink,
    placement,
    power,
    storage,
)
from rackdesigner.rules.base import FAMILIES, RULES, SCOPES, Finding, Rule, RuleFunction, rule

__all__ = [
    "FAMILIES",
    "RULES",
    "SCOPES",
    "Finding",
    "Rule",
    "RuleFunction",
    "all_rules",
    "matches",
    "rule",
    "selected",
    "to_diagnostics",
    "unknown_patterns",
]


def all_rules() -> dict[str, Rule]:
    """Every rule, in family order then by number."""
    return dict(sorted(RULES.items(), key=lambda item: _code_key(item[0])))


def _code_key(code: str) -> tuple[int, int]:
    family = re.sub(r"\d+$", "", code)
    order = list(FAMILIES)
    return (order.index(family) if family in order else len(order), int(code[len(family) :]))


def matches(code: str, patterns: Iterable[str]) -> bool:
    """A pattern is a code or a prefix of codes, as in ruff: ``PWR``, ``PWR00``, ``PWR001``."""
    return any(code.startswith(p) for p in patterns)


def unknown_patterns(patterns: Iterable[str]) -> list[str]:
    """Codes or prefixes that match no rule (``PWR``, ``PWR001`` match; ``PWX`` does not)."""
    rules = all_rules()
    return [p for p in patterns if not any(matches(code, [p]) for code in rules)]


def selected(select: Iterable[str] | None, ignore: Iterable[str] | None) -> list[Rule]:
    select = [s.strip().upper() for s in select or () if s.strip()]
    ignore = [s.strip().upper() for s in ignore or () if s.strip()]
    return [
        r
        for code, r in all_rules().items()
        if (not select or matches(code, select)) and not matches(code, ignore)
    ]


def to_diagnostics(
    rule_: Rule,
    findings: Iterable[Finding],
    file: str,
    locate: Callable[[Ref], int] | None = None,
) -> list[Diagnostic]:
    """The findings as diagnostics; ``locate`` gives the line of a subject (else 0)."""
    code, severity = rule_.code, rule_.severity
    return [
        Diagnostic(
            code,
            f.severity or severity,
            f.message,
            f.entity,
            locate(f.subject) if locate is not None else 0,
            file,
            f.hint,
            f.values,
            0,
            f.subject,
            f.related,
        )
        for f in findings
    ]
