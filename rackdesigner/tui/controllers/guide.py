"""Guidance in the designer: the problems an edit brings, named with their fix; Apply fix.

A mixin of :class:`~rackdesigner.tui.app.DesignerApp`. The app calls :meth:`guide_before`
before an edit and :meth:`guide_edit` after it, and :meth:`guide_fabric` when the fabric
worker's findings arrive; the wording and the fixes are the core's
(:mod:`rackdesigner.design.guidance`, :mod:`rackdesigner.design.fixes`).

Only ``do`` announces: an undo or redo goes back to a state the person has seen, and says
so itself ("Undone: ..."). The first fabric result of a layout just opened is not news
either: those problems were in the file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rackdesigner.design.fixes import fix_for, has_fixer
from rackdesigner.design.guidance import advise, announce, key_of, new_problems

if TYPE_CHECKING:
    from rackdesigner.edit import Batch, Session
    from rackdesigner.model.diagnostics import Diagnostic
    from rackdesigner.tui.widgets.problems import ProblemsPanel


class GuideActions:
    """Announce new problems after an edit; apply the selected finding's mechanical fix."""

    # Set on first use: the mixin has no __init__ of its own (DesignerApp's runs).
    _guide_edited: Session | None = None  # the session an edit was made in
    _guide_fabric_seen: Session | None = None  # the session whose fabric was checked once
    _guide_fabric_keys: frozenset[object] | set[object] = frozenset()  # its last findings
    _guide_fixable: tuple[object, bool] | None = None  # (state key, has a fix)

    if TYPE_CHECKING:
        session: Session | None
        problems: ProblemsPanel

        # DesignerApp's own methods, which this mixin calls.
        notify: Callable[..., None]
        do: Callable[..., str | None]

    # -- after an edit ------------------------------------------------------------------

    def guide_before(self) -> tuple[Diagnostic, ...]:
        """The findings as they stand before an edit (a copy: the list is kept in place)."""
        session = self.session
        return tuple(session.findings) if session is not None else ()

    def guide_edit(self, before: tuple[Diagnostic, ...]) -> None:
        """Name the problems the edit just made brought (call before the panels refresh:
        the session's record of what re-ran is read once, before ``findings``)."""
        session = self.session
        if session is None:
            return
        self._guide_edited = session
        changes = session.finding_changes()
        # None: checked from scratch, so compare the whole lists.
        self._guide_say(
            new_problems(*changes) if changes else new_problems(before, session.findings)
        )

    def guide_fabric(self, session: Session) -> None:
        """The fabric worker's findings were just accepted: name those the last fabric
        check did not have, when an edit brought them. The fabric findings are replaced
        as one group, so what was added is the whole new list; the last one is kept as
        keys (a check from scratch empties the group without a record of what it held)."""
        changes = session.finding_changes()
        added = changes[1] if changes is not None else list(session.findings)
        known = self._guide_fabric_keys if self._guide_fabric_seen is session else None
        self._guide_fabric_seen = session
        self._guide_fabric_keys = {key_of(d) for d in added}
        if known is None or self._guide_edited is not session:
            return  # the file's own fabric problems, or nothing edited: not news
        self._guide_say([d for d in new_problems((), added) if key_of(d) not in known])

    def _guide_say(self, new: list[Diagnostic]) -> None:
        session = self.session
        if session is None or not new:
            return
        said = announce(session.layout, new, session.index, fixable=self.has_fix)
        if said is not None:
            self.notify(said.message, title=said.title, severity=said.severity, timeout=10)

    # -- fixes ----------------------------------------------------------------------------

    def fix_of(self, finding: Diagnostic) -> Batch | None:
        """A fresh Batch for the finding's fix (commands keep state: never reuse one)."""
        session = self.session
        if session is None or not has_fixer(finding.code):
            return None
        try:
            return fix_for(session.layout, finding, session.index)
        except Exception:  # a fix is an offer: a layout it cannot read gets none, no crash
            return None

    def has_fix(self, finding: Diagnostic) -> bool:
        """Whether the finding has a mechanical fix now; asked by the footer and the
        problems panel on every repaint, so kept for the layout's revision."""
        session = self.session
        if session is None or not has_fixer(finding.code):
            return False
        state = (id(session), session.revision, key_of(finding), finding.message)
        cached = self._guide_fixable
        if cached is not None and cached[0] == state:
            return cached[1]
        found = self.fix_of(finding) is not None
        self._guide_fixable = (state, found)
        return found

    def finding_hint(self, finding: Diagnostic) -> str:
        """The problems panel's line under the list: the selected finding's fix."""
        session = self.session
        if session is None:
            return ""
        try:
            advice = advise(session.layout, finding, session.index)
        except Exception:  # wording a hint must never take the app down: the rule's own
            return f"fix: {finding.hint}" if finding.hint else ""
        if not advice.fix:
            return ""
        # Info findings are advice, not problems: their line is a hint, not a fix.
        label = "hint" if finding.severity == "info" else "fix"
        return f"{label}: {advice.fix}" + (" · x applies it" if self.has_fix(finding) else "")

    def action_apply_fix(self) -> None:
        """Apply the fix of the problem highlighted in the problems panel, as one step."""
        finding = self.problems.current
        if finding is None:
            self.notify("No problem is selected (ctrl+o: the problems panel).", severity="warning")
            return
        session = self.session
        assert session is not None
        where = f"{finding.code} {finding.entity}".strip()
        fix = self.fix_of(finding)
        if fix is None:
            advice = advise(session.layout, finding, session.index)
            todo = f": {advice.fix}" if advice.fix else ""
            self.notify(
                f"{where} has no mechanical fix; nothing changed{todo}",
                title="Apply fix",
                severity="warning",
                timeout=8,
            )
            return
        if self.do(fix) is None:
            self.notify(f"{fix.label} (ctrl+z undoes)", title=f"Fixed {where}", timeout=6)

    def guide_check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The problems panel's ``x`` shows in the footer only when the highlighted finding
        has a mechanical fix (otherwise the same key explains why nothing happens)."""
        finding = self.problems.current
        has = finding is not None and self.has_fix(finding)
        if action == "apply_fix":
            return has
        return not has  # "no_fix": the fallback of the same key
