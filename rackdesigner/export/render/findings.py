"""Findings by what they are about, for marking drawings.

A diagnostic names its subject; :func:`subject` is the one place that reads it, so that
drawings follow when diagnostics gain a structured ``subject`` (kind, id) beside today's
``entity`` text ("device a01-n01", "rack a01").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from rackdesigner.export.render.palette import SEVERITY_SYMBOLS
from rackdesigner.model.diagnostics import SEVERITY_RANK, Diagnostic
from rackdesigner.model.refs import KindId


def subject(diagnostic: Diagnostic) -> KindId | None:
    """``(kind, id)`` of what a finding is about ("device", "a01-n01"), or None."""
    if diagnostic.subject is not None:
        return diagnostic.subject.kind_id
    kind, _, ident = diagnostic.entity.partition(" ")
    if kind and ident:
        return (kind, ident)
    return None


@dataclass(slots=True)
class Marks:
    """The findings of one device or rack: the worst severity and each code once."""

    severity: str = "info"
    codes: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # "✖ PWR001 load 41 kW exceeds ..."

    def add(self, diagnostic: Diagnostic) -> None:
        if not self.codes or SEVERITY_RANK[diagnostic.severity] < SEVERITY_RANK[self.severity]:
            self.severity = diagnostic.severity
        if diagnostic.code not in self.codes:
            self.codes.append(diagnostic.code)
        symbol = SEVERITY_SYMBOLS.get(diagnostic.severity, "")
        self.lines.append(f"{symbol} {diagnostic.code} {diagnostic.message}")


def by_subject(diagnostics: Iterable[Diagnostic], kind: str) -> dict[str, Marks]:
    """Marks per id for findings whose subject is of ``kind`` ("device", "rack")."""
    found: dict[str, Marks] = {}
    for diagnostic in diagnostics:
        about = subject(diagnostic)
        if about is None or about[0] != kind:
            continue
        marks = found.get(about[1])
        if marks is None:
            marks = found[about[1]] = Marks()
        marks.add(diagnostic)
    return found
