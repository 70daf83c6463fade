"""Keeping a session's findings current after edits."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analysis import Analysis
from ..diagnostics import Diagnostic
from ..engine import rules_for
from ..model import Layout
from ..rules.registry import Rule, to_diagnostics
from .base import Effect


def finding_order(diagnostic: Diagnostic) -> tuple[object, ...]:
    """A total order of findings: the engine's, then the message (equal keys stay put)."""
    return (*diagnostic.sort_key(), diagnostic.message)


@dataclass(slots=True, eq=False)
class FabricJob:
    """The fabric rules over one revision's analysis; ``run`` reads nothing else."""

    revision: int
    analysis: Analysis
    rules: list[Rule]
    file: str
    findings: list[Diagnostic] = field(default_factory=list)
    error: BaseException | None = None
    done: bool = False

    def run(self) -> FabricJob:
        try:
            found: list[Diagnostic] = []
            for rule in self.rules:
                found.extend(to_diagnostics(rule, rule.check(self.analysis), self.file))
            self.findings = found
        except Exception as error:  # a stale job may see a layout changing under it
            self.error = error
        self.done = True
        return self


class Checker:
    """The findings of one layout, re-checked after each change."""

    def __init__(self, layout: Layout, file: str = ""):
        self.layout = layout
        self.file = file
        self.analysis: Analysis | None = None
        self.findings: list[Diagnostic] = []
        self._fabric_findings: list[Diagnostic] = []
        self._other_findings: list[Diagnostic] = []
        self._pending = Effect(everything=True, fabric=True)
        self.fabric_stale = True

    def reset(self) -> None:
        self._pending = Effect(everything=True, fabric=True)
        self.fabric_stale = True

    def changed(self, effect: Effect) -> None:
        self._pending.merge(effect)
        if effect.fabric or effect.everything:
            self.fabric_stale = True

    def _rules(self) -> list[Rule]:
        return rules_for(self.layout)

    def check_fast(self) -> None:
        if self._pending.racks or self._pending.links or self._pending.everything:
            self.analysis = Analysis(self.layout, file=self.file)
            self._other_findings = [
                d
                for rule in self._rules()
                if not rule.fabric
                for d in to_diagnostics(rule, rule.check(self.analysis), self.file)
            ]
        self._pending = Effect()
        self._publish()

    def check(self) -> None:
        self.check_fast()
        if self.fabric_stale:
            job = self.fabric_job(-1).run()
            self.accept_fabric(job)

    def fabric_job(self, revision: int) -> FabricJob:
        if self.analysis is None or self._pending.racks or self._pending.everything:
            self.check_fast()
        assert self.analysis is not None
        self.analysis.links  # noqa: B018  (resolved here, from the layout, not in the worker)
        return FabricJob(revision, self.analysis, [r for r in self._rules() if r.fabric], self.file)

    def accept_fabric(self, job: FabricJob) -> bool:
        if not job.done or job.error is not None or job.analysis is not self.analysis:
            return False
        self._fabric_findings = job.findings
        self.fabric_stale = False
        self._publish()
        return True

    def _publish(self) -> None:
        self.findings = sorted([*self._other_findings, *self._fabric_findings], key=finding_order)
