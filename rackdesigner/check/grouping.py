"""Findings grouped by code: one home for the idea that ``validate --group-by code`` prints
and the designer's problems panel shows (a count per code, its worst entity, the list).

A group is one code at one severity (a rule whose severity was changed for some findings
makes two groups). Groups come errors first, then in the order the rules are listed
(the loader's codes before every rule), or in the order they were given; inside a group
the findings keep the order they were given in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rackdesigner.model.diagnostics import LOAD_CODES, SEVERITY_RANK, Diagnostic

# How many entities a one-line group names before "…".
GROUP_SHOWN = 3


@dataclass(frozen=True, slots=True)
class Group:
    """The findings of one code at one severity, in the order they were given."""

    code: str
    severity: str
    findings: tuple[Diagnostic, ...]

    @property
    def count(self) -> int:
        return len(self.findings)

    @property
    def worst(self) -> Diagnostic:
        """The finding about the entity named most often in the group (the first such
        entity in order on a tie): where the code hurts most."""
        tally: dict[str, int] = {}
        for finding in self.findings:
            tally[finding.entity] = tally.get(finding.entity, 0) + 1
        most = max(tally.values())
        return next(f for f in self.findings if tally[f.entity] == most)

    def names(self, shown: int = GROUP_SHOWN) -> list[str]:
        """The first ``shown`` findings' entities (the file where a finding has none)."""
        return [d.entity or d.file for d in self.findings[:shown]]


def code_order(code: str) -> tuple[int, int]:
    """Where a code sorts among the rules: the loader's codes first, then the registry's
    order; a code no rule family knows goes last."""
    from rackdesigner.rules.registry import _code_key

    if code in LOAD_CODES:
        return (-1, 0)
    try:
        return _code_key(code)
    except ValueError:  # not FAMILY + number
        return (1 << 30, 0)


def by_code(diagnostics: Iterable[Diagnostic], *, keep_order: bool = False) -> list[Group]:
    """The findings grouped by (code, severity): errors first, then in rule order; with
    ``keep_order``, in the order of each group's first finding (findings already sorted
    the caller's way: the designer's panel sorts by severity, code and entity)."""
    groups: dict[tuple[str, str], list[Diagnostic]] = {}
    for d in diagnostics:
        groups.setdefault((d.code, d.severity), []).append(d)
    if keep_order:
        return [Group(code, severity, tuple(found)) for (code, severity), found in groups.items()]

    def order(key: tuple[str, str]) -> tuple[int, tuple[int, int], str]:
        code, severity = key
        return (SEVERITY_RANK[severity], code_order(code), code)

    return [
        Group(code, severity, tuple(groups[(code, severity)]))
        for code, severity in sorted(groups, key=order)
    ]
