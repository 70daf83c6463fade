"""Incremental checking (editing.md): after an edit, only what it can have changed re-runs.

Every rule has a scope: ``rack`` rules re-run on the racks whose facts an edit
recomputed, ``link`` rules on the cables whose facts it recomputed, ``device`` rules
(which look at device types: cheap) and ``site`` rules on the whole layout unless the edit
only moved things inside a rack, and ``fabric`` rules when the compute fabric changed (a
cable, a switch or a GPU node added, removed, renamed or re-modelled, or moved to another
rack). A site rule split in parts (``Rule.parts``: COOL003, COOL009) re-runs, whatever
the edit, on the racks whose facts it recomputed and on the CDU groups it regrouped only:
on 100,000 GPUs the whole-hall pass of those two was most of a rack-cooling edit. Findings
are kept per rack, per cable, per scope and per part, so that re-running a rule on one rack
replaces exactly that rack's findings. The result equals a full check from scratch; the
stateful tests in ``tests/edit/test_stateful.py`` and ``tests/edit/test_site_parts.py``
hold it to that.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rackdesigner.edit.base import Effect
from rackdesigner.edit.index import LayoutIndex
from rackdesigner.layout_io.sourcemap import SourceMap
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.layout import Layout

# The analysis, the check engine and the rules are imported by the first check, not with
# the session: a layout is opened, and its racks drawn, before any rule is needed (the
# designer's first paint, bench/tui.py).
if TYPE_CHECKING:
    from rackdesigner.analysis.facts import CduLoad
    from rackdesigner.check.engine import Locate
    from rackdesigner.edit.live import LiveAnalysis, Refreshed
    from rackdesigner.rules.registry import Finding, Rule


def finding_order(diagnostic: Diagnostic) -> tuple[object, ...]:
    """A total order of findings: the engine's, then the message (equal keys stay put)."""
    return (*diagnostic.sort_key(), diagnostic.message)


class _View:
    """The analysis as a rule sees it, narrowed to some racks, some links or some CDU
    groups: everything else reads through to the whole analysis."""

    __slots__ = ("_base", "cdu_loads", "devices", "links", "racks")

    def __init__(
        self,
        base: LiveAnalysis,
        racks: list[Any] | None,
        links: list[Any] | None,
        loads: list[CduLoad] | None = None,
    ):
        self._base = base
        self.racks = racks if racks is not None else base.racks
        self.devices = (
            [dev for rack in racks for dev in rack.devices] if racks is not None else base.devices
        )
        self.links = links if links is not None else base.links
        if loads is not None:  # else the slot stays empty and reads through (on demand)
            self.cdu_loads = loads

    def __getattr__(self, name: str) -> Any:
        return getattr(self._base, name)


@dataclass(slots=True)
class _Parts:
    """A site rule's findings kept per rack and per CDU group (``Rule.parts``)."""

    racks: dict[int, list[Diagnostic]] = field(default_factory=dict)  # id(rack) ->
    # id(load) -> the group and its findings; holding the group keeps its id unique
    loads: dict[int, tuple[CduLoad, list[Diagnostic]]] = field(default_factory=dict)

    def all(self) -> Iterator[Diagnostic]:
        for found in self.racks.values():
            yield from found
        for _, found in self.loads.values():
            yield from found


class ChildFailed(Exception):
    """A fabric check in a child process failed: its text is what to say (a rule's error,
    ``"NET003: ZeroDivisionError: …"``, or how the process ended)."""


@dataclass(slots=True, eq=False)
class FabricJob:
    """The fabric rules over one revision's analysis; ``run`` reads only its own snapshot,
    so it may run in a worker thread while edits go on.

    A job for a child process (``edit/remote_check.py``) carries the layout's ``text``
    instead of a snapshot (``analysis`` None); its findings come back without lines, and
    ``views`` holds what the child also built from its analysis."""

    revision: int
    analysis: LiveAnalysis | None
    rules: list[Rule]
    file: str
    source_map: SourceMap | None = None
    findings: list[Diagnostic] = field(default_factory=list)
    error: BaseException | None = None
    failed_rule: str | None = None  # the code of the rule that raised ``error``, if one did
    done: bool = False
    text: str | None = None  # the layout as TOML, for a child process
    views: dict[str, object] = field(default_factory=dict)
    pid: int = 0  # the process that ran the rules (0: this one)
    peak_mb: float = 0.0  # that process's peak memory (0: this one's)

    @property
    def remote(self) -> bool:
        return self.analysis is None

    def release(self) -> None:
        """Let go of the snapshot's fabric graph a piece at a time (see
        :meth:`LiveAnalysis.release_graph`)."""
        if self.analysis is not None:
            self.analysis.release_graph()

    def run(self) -> FabricJob:
        """Run the rules; an exception ends the job with ``error`` (and ``failed_rule``)
        set rather than escaping the worker. A stale job may see facts replaced under it
        (the session drops it); a current one's error is a bug the session reports."""
        from rackdesigner.check.engine import locator
        from rackdesigner.rules.registry import to_diagnostics

        rule: Rule | None = None
        assert self.analysis is not None, "a job for a child process runs in remote_check"
        try:
            found: list[Diagnostic] = []
            locate = locator(self.source_map, self.analysis)
            for rule in self.rules:
                found.extend(to_diagnostics(rule, rule.check(self.analysis), self.file, locate))
            self.findings = found
        except Exception as error:
            self.error = error
            self.failed_rule = rule.code if rule is not None else None
        self.done = True
        return self

    @property
    def error_text(self) -> str | None:
        """The error for people: ``"NET003: ZeroDivisionError: division by zero"``."""
        if self.error is None:
            return None
        if isinstance(self.error, ChildFailed):
            return str(self.error)
        text = f"{type(self.error).__name__}: {self.error}"
        return f"{self.failed_rule}: {text}" if self.failed_rule else text


class Checker:
    """The findings of one layout, kept current after each edit."""

    def __init__(
        self,
        layout: Layout,
        index: LayoutIndex,
        file: str = "",
        source_map: SourceMap | None = None,
    ):
        self.layout = layout
        self.index = index
        self.file = file
        self.source_map = source_map
        self._locate: Locate | None = None
        self.analysis: LiveAnalysis | None = None
        self._rack: dict[int, list[Diagnostic]] = {}  # id(rack) -> its rack rules' findings
        self._link: dict[str, list[Diagnostic]] = {}  # link entity -> its link rules' findings
        self._device: list[Diagnostic] = []
        self._site: dict[str, list[Diagnostic]] = {}  # rule code -> its findings
        self._parts: dict[str, _Parts] = {}  # the same, of the site rules split in parts
        self._fabric: list[Diagnostic] = []
        self._rules: dict[str, list[Rule]] = {}
        self._pending = Effect(everything=True, fabric=True)
        # The findings in order, kept sorted as groups of them are replaced: re-sorting
        # 150,000 findings after each edit would cost more than the edit.
        self._published: list[Diagnostic] | None = None
        self._gone: list[Diagnostic] = []
        self._new: list[Diagnostic] = []
        self._borrowed: dict[int, Diagnostic] = {}  # findings whose line is an enclosing one's
        self.fabric_stale = True
        # The last fabric check's error (``FabricJob.error_text``), None after one that
        # succeeded. A failed check is not due again before the next edit: a rule that
        # raises would otherwise be re-run for ever.
        self.fabric_error: str | None = None

    # -- what changed -----------------------------------------------------------------------

    def reset(self) -> None:
        self._pending = Effect(everything=True, fabric=True)
        self.fabric_stale = True

    def changed(self, effect: Effect) -> None:
        self._pending.merge(effect)
        if self.fabric_error is not None:  # the failed check is due again, from scratch
            self._pending.fabric = True
        if effect.fabric or effect.everything or self.fabric_error is not None:
            self.fabric_stale = True

    @property
    def findings(self) -> list[Diagnostic]:
        moved = self._relocate_borrowed()
        published = self._published
        if published is None or len(self._new) > len(published) // 4 + 64:
            published = sorted(self._all(), key=finding_order)
        elif self._gone or self._new or moved:
            # Findings added and dropped again since the last look never show.
            gone = {id(d) for d in self._gone}
            new = [d for d in self._new if id(d) not in gone]
            gone.update(id(d) for d in moved)
            if gone:
                published = [d for d in published if id(d) not in gone]
            for diagnostic in (*new, *moved):
                insort(published, diagnostic, key=finding_order)
        self._published = published
        self._gone, self._new = [], []
        return published

    def unpublished(self) -> tuple[list[Diagnostic], list[Diagnostic]] | None:
        """The findings dropped and added since ``findings`` was last read: the groups
        (a rack's, a cable's, a scope's) that re-ran, old and new, so a problem re-found is
        in both. None after a check from scratch, which keeps no such record."""
        if self._published is None:
            return None
        return list(self._gone), list(self._new)

    def _swap(self, old: list[Diagnostic], new: list[Diagnostic]) -> list[Diagnostic]:
        """Record that ``new`` replaces ``old`` (one group: a rack's, a cable's, a scope's)."""
        self._gone.extend(old)
        self._new.extend(new)
        borrowed = self._borrowed
        for diagnostic in old:
            borrowed.pop(id(diagnostic), None)
        own = self.source_map.line if self.source_map is not None else None
        if own is not None:
            for diagnostic in new:
                if diagnostic.subject is not None and own(diagnostic.subject) is None:
                    borrowed[id(diagnostic)] = diagnostic
        return new

    def _republish(self) -> None:
        self._published = None
        self._gone, self._new = [], []
        self._borrowed = {}
        own = self.source_map.line if self.source_map is not None else None
        if own is not None:
            for diagnostic in self._all():
                if diagnostic.subject is not None and own(diagnostic.subject) is None:
                    self._borrowed[id(diagnostic)] = diagnostic

    def _relocate_borrowed(self) -> list[Diagnostic]:
        """A finding whose subject has no line of its own (added since the file was read)
        borrows its enclosing entity's, and that can change without the finding's rules
        running again (its rack renamed): look those up again, the others stand."""
        locate = self._locate
        if locate is None or not self._borrowed:
            return []
        fresh = {id(d) for d in self._new}
        moved: list[Diagnostic] = []
        for diagnostic in self._borrowed.values():
            assert diagnostic.subject is not None  # _republish borrows only these
            line = locate(diagnostic.subject)
            if line != diagnostic.line:
                diagnostic.line = line
                if id(diagnostic) not in fresh:  # already listed: out, and in at its new place
                    moved.append(diagnostic)
        return moved

    def _all(self) -> Iterator[Diagnostic]:
        for found in self._rack.values():
            yield from found
        for found in self._link.values():
            yield from found
        yield from self._device
        for found in self._site.values():
            yield from found
        for parts in self._parts.values():
            yield from parts.all()
        yield from self._fabric

    # -- checking ---------------------------------------------------------------------------

    def _run(self, rules: Iterable[Rule], view: Any) -> list[Diagnostic]:
        found: list[Diagnostic] = []
        for rule in rules:
            found.extend(self._diagnostics(rule, rule.check(view)))
        return found

    def _diagnostics(self, rule: Rule, findings: Iterable[Finding]) -> list[Diagnostic]:
        from rackdesigner.rules.registry import to_diagnostics

        return to_diagnostics(rule, findings, self.file, self._locate)

    def relocate(self, source_map: SourceMap | None, file: str | None = None) -> None:
        """Lines from a new source map (after a save), without running a rule again."""
        self.source_map = source_map
        if file is not None:
            self.file = file
        if self.analysis is None:
            return
        from rackdesigner.check.engine import locator

        self._locate = locate = locator(source_map, self.analysis)
        for diagnostic in self._all():
            diagnostic.line = locate(diagnostic.subject) if locate and diagnostic.subject else 0
            diagnostic.file = self.file
        self._republish()

    def _full(self) -> None:
        """Everything from scratch: facts, and every rule but the fabric's."""
        from rackdesigner.check.engine import locator, rules_for
        from rackdesigner.edit.live import LiveAnalysis

        layout = self.layout
        live = self.analysis = LiveAnalysis(layout, self.index, file=self.file)
        self._locate = locator(self.source_map, live)
        self._rules = {}
        for rule in rules_for(layout):
            self._rules.setdefault(rule.scope, []).append(rule)
        rack_rules = self._rules.get("rack", [])
        self._rack = {
            id(facts.rack): self._run(rack_rules, _View(live, [facts], None))
            for facts in live.racks
        }
        self._link = {}
        for diagnostic in self._run(self._rules.get("link", []), live):
            self._link.setdefault(diagnostic.entity, []).append(diagnostic)
        self._device = self._run(self._rules.get("device", []), live)
        site = self._rules.get("site", [])
        self._site = {r.code: self._run([r], live) for r in site if not r.parts}
        self._parts = {}
        for rule in site:
            if rule.parts:
                parts = self._parts[rule.code] = _Parts()
                self._rerun_parts(rule, parts, live.racks, (), live)
        self._fabric = []
        self._republish()

    def _rerun_parts(
        self, rule: Rule, parts: _Parts, racks: Iterable[Any], removed: Iterable[int], live: Any
    ) -> None:
        """Run a site rule split in parts on these racks' facts (and drop the ``removed``
        racks' findings), and on the CDU groups that are new since it last ran: a group an
        edit recomputed is a new object (``cdu_loads_after``), one it left alone is the
        same object, with the same findings."""
        swap = self._swap
        if "racks" in rule.parts:
            for key in removed:
                swap(parts.racks.pop(key, []), [])
            for facts in racks:
                found = self._run([rule], _View(live, [facts], None, []))
                parts.racks[id(facts.rack)] = swap(parts.racks.get(id(facts.rack), []), found)
        if "cdu_loads" in rule.parts:
            loads = live.cdu_loads
            now = {id(load) for load in loads}
            for key in [key for key in parts.loads if key not in now]:
                swap(parts.loads.pop(key)[1], [])
            for load in loads:
                if id(load) not in parts.loads:
                    found = self._run([rule], _View(live, [], None, [load]))
                    parts.loads[id(load)] = (load, swap([], found))

    def check_fast(self) -> None:
        """Bring every finding but the fabric rules' up to date."""
        pending, self._pending = self._pending, Effect(site=False)
        if self.analysis is None or pending.everything or self._large(pending):
            self._full()
            self.fabric_stale = True
            return
        if not (pending.racks or pending.links or pending.site or pending.fabric):
            return
        live = self.analysis
        done = live.refresh(pending.racks.values(), pending.links.values(), self.index)
        self._recheck_racks(done, live)
        if done.entities:
            self._recheck_links(done, live)
        if done.racks or done.removed_racks or pending.site:
            swap = self._swap
            self._device = swap(self._device, self._run(self._rules.get("device", []), live))
        self._recheck_site(pending, done, live)
        if pending.fabric or done.fabric:
            live.invalidate_fabric()
            self.fabric_stale = True

    def _recheck_racks(self, done: Refreshed, live: LiveAnalysis) -> None:
        """The rack rules on each rack whose facts the refresh recomputed; a removed
        rack's findings go."""
        swap = self._swap
        for key in done.removed_racks:
            swap(self._rack.pop(key, []), [])
        rack_rules = self._rules.get("rack", [])
        for key, facts in done.racks.items():
            new = self._run(rack_rules, _View(live, [facts], None))
            self._rack[key] = swap(self._rack.get(key, []), new)

    def _recheck_links(self, done: Refreshed, live: LiveAnalysis) -> None:
        """The link rules on the cables of every entity the refresh touched, in file order;
        identical cables share an entity and re-run together."""
        swap = self._swap
        for entity in done.entities:
            swap(self._link.pop(entity, []), [])
        listed = [lf for lf in done.links.values() if lf.entity in done.entities]
        for entity in done.entities:
            for lf in self._links_named(entity):
                if lf not in listed:
                    listed.append(lf)
        listed.sort(key=lambda lf: lf.index)
        found = self._run(self._rules.get("link", []), _View(live, None, listed))
        for diagnostic in swap([], found):
            self._link.setdefault(diagnostic.entity, []).append(diagnostic)

    def _recheck_site(self, pending: Effect, done: Refreshed, live: LiveAnalysis) -> None:
        """Site rules split in parts re-run on what the refresh recomputed, whatever the
        edit; the others re-run whole when the edit's site keys are among those they read
        (or either is unknown)."""
        for rule in self._rules.get("site", []):
            if rule.parts:
                racks = done.racks.values()
                self._rerun_parts(rule, self._parts[rule.code], racks, done.removed_racks, live)
        if not pending.site:
            return
        keys = pending.site_keys
        for rule in self._rules.get("site", []):
            if rule.parts:
                continue
            if keys is None or rule.reads is None or rule.reads & keys:
                self._site[rule.code] = self._swap(
                    self._site.get(rule.code, []), self._run([rule], live)
                )

    def _large(self, pending: Effect) -> bool:
        """An edit that touched a good part of the layout (a generated fabric, a template)
        is checked from scratch: one pass over everything beats one look per entity."""
        layout = self.layout
        return len(pending.links) > max(2_000, len(layout.links) // 4) or len(pending.racks) > max(
            50, len(layout.racks) // 4
        )

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
            self._fabric = self._swap(self._fabric, self._run(rules, self.analysis))
            self.fabric_stale = False
            self.fabric_error = None

    def fabric_job(self, revision: int, *, remote: bool = False) -> FabricJob:
        """A job for the fabric rules: with a snapshot of the analysis, or (``remote``)
        for a child process, which is given the layout's text by the session."""
        self.check_fast()
        assert self.analysis is not None
        return FabricJob(
            revision,
            None if remote else self.analysis.snapshot(),
            list(self._rules.get("fabric", [])),
            self.file,
            self.source_map,
        )

    def accept_fabric(self, job: FabricJob) -> bool:
        """Take a finished job of the current revision (the session checks that): its
        findings, or its error, which ends the check until the next edit (False then)."""
        if not job.done or self.analysis is None:
            return False
        if job.error is not None:
            self.fabric_error = job.error_text
            self.fabric_stale = False
            return False
        if job.remote:
            # Lines from this side's source map: the child read the layout written out.
            locate = self._locate
            for diagnostic in job.findings:
                diagnostic.file = self.file
                if locate is not None and diagnostic.subject is not None:
                    diagnostic.line = locate(diagnostic.subject)
        self._fabric = self._swap(self._fabric, job.findings)
        if job.analysis is not None:
            self.analysis.adopt_fabrics(job.analysis.fabrics)
        self.fabric_stale = False
        self.fabric_error = None
        return True
