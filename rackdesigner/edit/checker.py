"""Incremental checking (editing.md): after an edit, only what it can have changed re-runs.

Every rule has a scope: ``rack`` rules re-run on the racks whose facts an edit
recomputed, ``link`` rules on the cables whose facts it recomputed, ``device`` rules
(which look at device types: cheap) and ``site`` rules on the whole layout unless the edit
only moved things inside a rack, and ``fabric`` rules when the compute fabric changed (a
cable, a switch or a GPU node added, removed, renamed or re-modelled, or moved to another
rack). Findings are kept per rack, per cable and per scope, so that re-running a rule on
one rack replaces exactly that rack's findings. The result equals a full check from
scratch; the stateful test in ``tests/test_edit_stateful.py`` holds it to that.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Diagnostic
from ..engine import rules_for
from ..model import Layout
from ..rules.registry import Finding, Rule, to_diagnostics
from .base import Effect
from .index import LayoutIndex
from .live import LiveAnalysis

# The scope of each rule, for rules registered before scopes were part of the registry; a
# rule's own ``scope`` wins. Unknown rules count as ``site`` (re-run on every edit).
SCOPES: dict[str, str] = {
    **dict.fromkeys(("CAB001", "CAB002", "CAB003", "CAB004", "CAB005"), "link"),
    **dict.fromkeys(
        ("CMP001", "CMP003", "CMP004", "CMP005", "CMP006", "PWR005", "PWR006", "PWR009"),
        "device",
    ),
    "STO001": "device",
    **dict.fromkeys(
        ("CMP007", "COOL003", "COOL004", "COOL006", "PLC005", "PWR003", "PWR007"), "site"
    ),
    **dict.fromkeys(
        ("CMP002", "NET001", "NET002", "NET003", "NET004", "NET005", "NET006", "NET007"),
        "fabric",
    ),
    **dict.fromkeys(
        (
            "COOL001",
            "COOL002",
            "COOL005",
            "COOL007",
            "PLC001",
            "PLC002",
            "PLC003",
            "PLC004",
            "PLC006",
            "PLC007",
            "PWR001",
            "PWR002",
            "PWR004",
            "PWR008",
            "PWR010",
        ),
        "rack",
    ),
}


def scope_of(rule: Rule) -> str:
    """The rule's scope: its registry ``scope`` where it has one, else this module's table."""
    scope = getattr(rule, "scope", None)
    if isinstance(scope, str):
        return scope
    if rule.fabric:
        return "fabric"
    return SCOPES.get(rule.code, "site")


def finding_order(diagnostic: Diagnostic) -> tuple[object, ...]:
    """A total order of findings: the engine's, then the message (equal keys stay put)."""
    return (*diagnostic.sort_key(), diagnostic.message)


class _View:
    """The analysis as a rule sees it, narrowed to some racks or some links: everything
    else reads through to the whole analysis."""

    __slots__ = ("_base", "devices", "links", "racks")

    def __init__(self, base: LiveAnalysis, racks: list[Any] | None, links: list[Any] | None):
        self._base = base
        self.racks = racks if racks is not None else base.racks
        self.devices = (
            [dev for rack in racks for dev in rack.devices] if racks is not None else base.devices
        )
        self.links = links if links is not None else base.links

    def __getattr__(self, name: str) -> Any:
        return getattr(self._base, name)


@dataclass(slots=True, eq=False)
class FabricJob:
    """The fabric rules over one revision's analysis; ``run`` reads only its own snapshot,
    so it may run in a worker thread while edits go on."""

    revision: int
    analysis: LiveAnalysis
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
        except Exception as error:  # a stale job may see facts replaced under it
            self.error = error
        self.done = True
        return self


class Checker:
    """The findings of one layout, kept current after each edit."""

    def __init__(self, layout: Layout, index: LayoutIndex, file: str = ""):
        self.layout = layout
        self.index = index
        self.file = file
        self.analysis: LiveAnalysis | None = None
        self._rack: dict[int, list[Diagnostic]] = {}  # id(rack) -> its rack rules' findings
        self._link: dict[str, list[Diagnostic]] = {}  # link entity -> its link rules' findings
        self._device: list[Diagnostic] = []
        self._site: list[Diagnostic] = []
        self._fabric: list[Diagnostic] = []
        self._rules: dict[str, list[Rule]] = {}
        self._pending = Effect(everything=True, fabric=True)
        self._published: list[Diagnostic] | None = None
        self.fabric_stale = True

    # -- what changed -----------------------------------------------------------------------

    def reset(self) -> None:
        self._pending = Effect(everything=True, fabric=True)
        self.fabric_stale = True

    def changed(self, effect: Effect) -> None:
        self._pending.merge(effect)
        if effect.fabric or effect.everything:
            self.fabric_stale = True

    @property
    def findings(self) -> list[Diagnostic]:
        if self._published is None:
            self._published = sorted(self._all(), key=finding_order)
        return self._published

    def _all(self) -> Iterator[Diagnostic]:
        for found in self._rack.values():
            yield from found
        for found in self._link.values():
            yield from found
        yield from self._device
        yield from self._site
        yield from self._fabric

    # -- checking ---------------------------------------------------------------------------

    def _run(self, rules: Iterable[Rule], view: Any) -> list[Diagnostic]:
        found: list[Diagnostic] = []
        for rule in rules:
            found.extend(self._diagnostics(rule, rule.check(view)))
        return found

    def _diagnostics(self, rule: Rule, findings: Iterable[Finding]) -> list[Diagnostic]:
        return to_diagnostics(rule, findings, self.file)

    def _full(self) -> None:
        """Everything from scratch: facts, and every rule but the fabric's."""
        layout = self.layout
        live = self.analysis = LiveAnalysis(layout, file=self.file)
        self._rules = {}
        for rule in rules_for(layout):
            self._rules.setdefault(scope_of(rule), []).append(rule)
        rack_rules = self._rules.get("rack", [])
        self._rack = {
            id(facts.rack): self._run(rack_rules, _View(live, [facts], None))
            for facts in live.racks
        }
        self._link = {}
        for diagnostic in self._run(self._rules.get("link", []), live):
            self._link.setdefault(diagnostic.entity, []).append(diagnostic)
        self._device = self._run(self._rules.get("device", []), live)
        self._site = self._run(self._rules.get("site", []), live)
        self._fabric_dirty = True

    def check_fast(self) -> None:
        """Bring every finding but the fabric rules' up to date."""
        pending, self._pending = self._pending, Effect(site=False)
        self._published = None
        if self.analysis is None or pending.everything:
            self._full()
            self.fabric_stale = True
            return
        if not (pending.racks or pending.links or pending.site or pending.fabric):
            return
        live = self.analysis
        done = live.refresh(pending.racks.values(), pending.links.values(), self.index)
        for key in done.removed_racks:
            self._rack.pop(key, None)
        rack_rules = self._rules.get("rack", [])
        for key, facts in done.racks.items():
            self._rack[key] = self._run(rack_rules, _View(live, [facts], None))
        if done.entities:
            link_rules = self._rules.get("link", [])
            for entity in done.entities:
                self._link.pop(entity, None)
            listed = [lf for lf in done.links.values() if lf.entity in done.entities]
            for entity in done.entities:
                # Identical cables share an entity: re-run them all together.
                for lf in self._links_named(entity):
                    if lf not in listed:
                        listed.append(lf)
            listed.sort(key=lambda lf: lf.index)
            for diagnostic in self._run(link_rules, _View(live, None, listed)):
                self._link.setdefault(diagnostic.entity, []).append(diagnostic)
        if done.racks or done.removed_racks or done.links or pending.site:
            self._device = self._run(self._rules.get("device", []), live)
        if pending.site:
            self._site = self._run(self._rules.get("site", []), live)
        if pending.fabric or done.fabric:
            live.invalidate_fabric()
            self.fabric_stale = True

    def _links_named(self, entity: str) -> list[Any]:
        a, _, b = entity.removeprefix("link ").partition(" -> ")
        assert self.analysis is not None
        facts = self.analysis.link_facts
        return [
            facts[id(link)]
            for link in self.index.links_on_port(a)
            if link.a == a and link.b == b and id(link) in facts
        ]

    def check(self) -> None:
        """Bring every finding up to date, the fabric rules' included."""
        self.check_fast()
        if self.fabric_stale:
            assert self.analysis is not None
            rules = self._rules.get("fabric", [])
            self._fabric = self._run(rules, self.analysis)
            self.fabric_stale = False
            self._published = None

    def fabric_job(self, revision: int) -> FabricJob:
        self.check_fast()
        assert self.analysis is not None
        return FabricJob(
            revision, self.analysis.snapshot(), list(self._rules.get("fabric", [])), self.file
        )

    def accept_fabric(self, job: FabricJob) -> bool:
        if not job.done or job.error is not None or self.analysis is None:
            return False
        self._fabric = job.findings
        self.analysis.adopt_fabrics(job.analysis.fabrics)
        self.fabric_stale = False
        self._published = None
        return True
