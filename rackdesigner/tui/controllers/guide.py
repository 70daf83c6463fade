"""Guidance in the designer: Apply fix, and whether the problems panel's ``x`` applies.

Which problems an edit brought and how they are worded is the workspace's (it keeps what
the last fabric check found); the wording and the fixes are the core's
(:mod:`rackdesigner.design.guidance`, :mod:`rackdesigner.design.fixes`). Only an edit
announces: an undo or redo goes back to a state the person has seen, and says so itself
("Undone: ..."). The first fabric result of a layout just opened is not news either:
those problems were in the file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rackdesigner.model.diagnostics import Diagnostic
    from rackdesigner.tui.ui import DesignerUI
    from rackdesigner.tui.workspace import Workspace


class GuideController:
    """Apply the highlighted finding's mechanical fix, as one undoable step."""

    def __init__(self, workspace: Workspace, ui: DesignerUI) -> None:
        self.workspace = workspace
        self.ui = ui

    def apply_fix(self) -> None:
        """Apply the fix of the problem highlighted in the problems panel, as one step; on
        a group's line (``▸8×``), offer to fix the whole group as one step."""
        finding = self.ui.selected_finding()
        if finding is None:
            self.ui.notify(
                "No problem is selected (ctrl+o: the problems panel).", severity="warning"
            )
            return
        shaded = self.workspace.shaded
        if shaded is not None and self.workspace.of_what_if(finding):
            self.ui.notify(
                f"{finding.code} {finding.entity} is what the layout would have if "
                f"{shaded.part} failed, not a problem of the layout: nothing to fix "
                "(esc clears the what-if)",
                title="Apply fix",
                timeout=8,
            )
            return
        from rackdesigner.design.fixes import has_fixer  # not before the first frame

        group = self.ui.selected_group()
        if group is not None and has_fixer(finding.code):
            self.ui.dialog(self._fix_group(group), exclusive=True)
            return
        self._fix_one(finding)

    async def _fix_group(self, findings: list[Diagnostic]) -> None:
        answer = await self.ui.ask(self.workspace.group_fix_question(findings))
        if answer == "one":
            self._fix_one(findings[0])
        if answer != "all":
            return
        fix, fixed = self.workspace.fix_group(findings)
        if fix is None:
            self._fix_one(findings[0])  # says why nothing changed
            return
        if self.ui.do(fix) is None:
            left = len(findings) - fixed
            rest = f"; {left} had no mechanical fix" if left else ""
            self.ui.notify(
                f"{fix.label}{rest} (one ctrl+z undoes them)",
                title=f"Fixed {fixed} of {len(findings)}",
                timeout=6,
            )

    def _fix_one(self, finding: Diagnostic) -> None:
        where = f"{finding.code} {finding.entity}".strip()
        fix = self.workspace.fix_of(finding)
        if fix is None:
            self.ui.notify(
                self.workspace.no_fix_text(finding),
                title="Apply fix",
                severity="warning",
                timeout=8,
            )
            return
        if self.ui.do(fix) is None:
            self.ui.notify(f"{fix.label} (ctrl+z undoes)", title=f"Fixed {where}", timeout=6)
