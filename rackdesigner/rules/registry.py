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
from ..refs import Ref
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
    """What a rule reports; the engine adds the code, severity, file and line.

    ``subject`` names the entity the finding is about and ``related`` the others it
    mentions (the other device of an overlap). Findings never carry lines: the output
    looks the subject up in the document's source map, so a finding stays right after
    an edit moves every line below it.
    """

    entity: str  # the subject as people read it: "device a01-n01", "link a -> b"
    subject: Ref
    message: str
    hint: str | None = None
    values: dict[str, float] = field(default_factory=dict)
    severity: str | None = None  # overrides the rule's default (rules with two severities)
    related: tuple[Ref, ...] = ()


RuleFunction = Callable[["Analysis"], Iterable[Finding]]

# What a rule looks at, for incremental checking (editing.md): rack, device and link rules
# re-run on the entities an edit touched, site rules on the site totals, fabric rules when
# the fabric's cabling or switches changed.
SCOPES = ("rack", "device", "link", "site", "fabric")


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    severity: str  # default; "error" for rules that may also warn
    title: str
    thresholds: tuple[str, ...]
    check: RuleFunction
    doc: str
    severities: tuple[str, ...]
    scope: str  # one of SCOPES

    @property
    def fabric(self) -> bool:
        """Reads the fabric graph (analysis.fabrics)."""
        return self.scope == "fabric"

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
    scope: str,
) -> Callable[[RuleFunction], RuleFunction]:
    """Register a rule. The docstring's first line is its title.

    ``scope`` says what the rule looks at (:data:`SCOPES`): ``fabric`` rules read
    ``analysis.fabrics``, the most expensive fact; the others never build it.
    """
    if scope not in SCOPES:
        raise ValueError(f"{code}: scope must be one of {', '.join(SCOPES)}, not {scope!r}")
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
            scope,
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
