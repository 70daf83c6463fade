"""The rule registry: every rule's code, severity, thresholds and documentation in one place.

A rule is a function that reads the shared analysis and yields findings.
Decorating it with :func:`rule` registers it; its docstring is its
documentation, in the shape ruff uses: a title line, then sections
``Why it matters``, ``Example`` and ``Fix``. ``rackdesigner rules CODE``
prints it. Adding a rule is adding one function (and its fixtures).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic
from ..thresholds import THRESHOLDS

if TYPE_CHECKING:
    from ..analysis import Analysis

FAMILIES = {
    "PWR": "Power",
    "COOL": "Cooling",
    "CAB": "Cabling",
    "NET": "Network",
    "CMP": "Compute",
    "PLC": "Placement",
    "STO": "Storage",
}


@dataclass(slots=True)
class Finding:
    """What a rule reports; the engine adds the code, severity and file."""

    entity: str
    line: int
    message: str
    hint: str | None = None
    values: dict[str, float] = field(default_factory=dict)
    severity: str | None = None  # overrides the rule's default (rules with two severities)


RuleFunction = Callable[["Analysis"], Iterable[Finding]]


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    severity: str  # default; "error" for rules that may also warn
    title: str
    thresholds: tuple[str, ...]
    check: RuleFunction
    doc: str
    severities: tuple[str, ...]
    fabric: bool = False  # reads the fabric graph (analysis.fabrics)

    @property
    def family(self) -> str:
        return re.sub(r"\d+$", "", self.code)

    def section(self, name: str) -> str:
        """One section of the docstring (``Why it matters``, ``Example``, ``Fix``)."""
        found = re.search(
            rf"^{re.escape(name)}:?\s*\n(.*?)(?=^\S[^\n]*:?\s*\n\s*\n?|\Z)", self.doc, re.M | re.S
        )
        return inspect.cleandoc(found.group(1)) if found else ""


RULES: dict[str, Rule] = {}


def rule(
    code: str,
    severity: str,
    *,
    thresholds: tuple[str, ...] = (),
    severities: tuple[str, ...] = (),
    fabric: bool = False,
) -> Callable[[RuleFunction], RuleFunction]:
    """Register a rule. The docstring's first line is its title.

    ``fabric`` marks a rule that reads ``analysis.fabrics``: on large layouts those rules
    run beside the others, in a second process.
    """
    for key in thresholds:
        if key not in THRESHOLDS:
            raise ValueError(f"{code}: unknown threshold {key}")

    def register(check: RuleFunction) -> RuleFunction:
        doc = inspect.cleandoc(check.__doc__ or "")
        title, _, body = doc.partition("\n")
        if code in RULES:
            raise ValueError(f"rule {code} registered twice")
        RULES[code] = Rule(
            code,
            severity,
            title.strip().rstrip("."),
            thresholds,
            check,
            body.strip(),
            severities or (severity,),
            fabric,
        )
        return check

    return register


def all_rules() -> dict[str, Rule]:
    """Every rule, with the rule modules imported."""
    from . import (  # noqa: F401  (imported for their registrations)
        cabling,
        compute,
        cooling,
        network,
        placement,
        power,
        storage,
    )

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


def to_diagnostics(rule_: Rule, findings: Iterable[Finding], file: str) -> list[Diagnostic]:
    return [
        Diagnostic(
            rule_.code,
            f.severity or rule_.severity,
            f.message,
            entity=f.entity,
            line=f.line,
            file=file,
            hint=f.hint,
            values=f.values,
        )
        for f in findings
    ]
