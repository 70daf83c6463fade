"""The problems panel: every finding, worst first; choosing one moves the racks' cursor.

Drawn with the Line API like the racks view: a layout with thousands of findings costs only
the rows on screen, and a new set of findings is a list swap, not thousands of widgets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import Reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from rackdesigner.export.render import palette
from rackdesigner.model.diagnostics import SEVERITY_RANK, Diagnostic
from rackdesigner.tui import actions, safe

_FIX = actions.BY_ID["apply-fix"]

CODE_W = 8
ENTITY_W = 24


def _order(diagnostic: Diagnostic) -> tuple[int, str, str, int]:
    return (SEVERITY_RANK[diagnostic.severity], diagnostic.code, diagnostic.entity, diagnostic.line)


class ProblemsPanel(ScrollView, can_focus=True):
    """A row per finding: severity symbol, code, entity, message; a cursor row."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "", show=False, id="problems-up"),
        Binding("down", "cursor(1)", "", show=False, id="problems-down"),
        Binding("pageup", "cursor(-10)", "", show=False, id="problems-page-up"),
        Binding("pagedown", "cursor(10)", "", show=False, id="problems-page-down"),
        Binding("home", "cursor(-1000000)", "", show=False, id="problems-first"),
        Binding("end", "cursor(1000000)", "", show=False, id="problems-last"),
        Binding("enter", "choose", "go to", id="problems-go"),
        Binding("escape", "screen.racks_view", "racks", id="problems-back"),
        # One key, two bindings: "fix" in the footer when the highlighted finding has a
        # mechanical fix; else the same key says why nothing changes (controllers/guide.py).
        Binding(_FIX.keys, "apply_fix", _FIX.footer, id=_FIX.id, tooltip=_FIX.help),
        Binding(_FIX.keys, "no_fix", _FIX.footer, show=False, id=_FIX.id),
        # While a scan's differences are pinned above the findings: write the work order.
        Binding("w", "work_order", "work order", id="problems-work-order"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {"problems--header", "problems--cursor"}

    # The virtual size is the number of findings. A new count changes only the scroll bar.
    # Textual would lay out the whole screen for it, and that pass landed on the key
    # pressed as a check ended (about 100 ms on 100,000 GPUs). The scroll bar is updated
    # here; its coming or going still lays the screen out, as it must.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def watch_virtual_size(self, size: Size) -> None:
        if self.is_mounted:
            self._scroll_update(size)
            self.refresh()

    class Chosen(Message):
        """A finding was highlighted (``focus`` False) or chosen with enter (True)."""

        def __init__(self, diagnostic: Diagnostic, focus: bool) -> None:
            self.diagnostic = diagnostic
            self.focus = focus
            super().__init__()

    class ApplyFix(Message):
        """``x``: apply the highlighted finding's fix (or say why there is none)."""

    class WorkOrder(Message):
        """``w``: write the pinned scan differences as the work order (CSV)."""

    def __init__(
        self,
        *,
        id: str | None = None,
        hint: Callable[[Diagnostic], str] | None = None,
        fixable: Callable[[Diagnostic], bool] | None = None,
    ) -> None:
        super().__init__(id=id)
        # The highlighted finding's line under the list, and whether ``x`` applies a fix:
        # handed in by the screen (the workspace words them).
        self.hint = hint
        self.fixable = fixable
        self.fabric_error: str | None = None  # the last fabric check failed: its error
        self.findings: list[Diagnostic] = []
        # Groups pinned above the findings (a scan's differences, one group per kind): a
        # heading row (str), then its findings; the title says what they are.
        self.pinned: list[Diagnostic | str] = []
        self.pinned_title = ""
        self.cursor_row = 0
        self.border_title = "Problems"
        self._cache: LRUCache[tuple[object, ...], Strip] = LRUCache(maxsize=1024)
        self._generation = 0

    def show(self, diagnostics: list[Diagnostic], *, fabric_error: str | None = None) -> None:
        """Replace the findings; the highlighted one stays highlighted if it still exists.
        ``fabric_error``: the fabric check failed (its findings are missing), said in the
        title."""
        self.fabric_error = fabric_error
        keep = None
        old = self.current
        if old is not None:
            keep = (old.code, old.entity, old.message)
        self.findings = sorted(diagnostics, key=_order)
        self._generation += 1
        self.cursor_row = 0
        if keep is not None:
            for row in range(self._count()):
                diagnostic = self._at(row)
                if isinstance(diagnostic, Diagnostic) and (
                    (diagnostic.code, diagnostic.entity, diagnostic.message) == keep
                ):
                    self.cursor_row = row
                    break
        self._off_heading(1)
        counts = dict.fromkeys(SEVERITY_RANK, 0)
        for diagnostic in self.findings:
            counts[diagnostic.severity] += 1
        title = (
            f"Problems · {counts['error']} errors · {counts['warning']} warnings · "
            f"{counts['info']} info"
            if self.findings
            else "Problems · none"
        )
        if fabric_error is not None:
            title += f" · fabric check failed: {fabric_error}"
        if self.pinned_title:
            title = f"{self.pinned_title} · {title}"
        self.border_title = safe.content(title)
        self.virtual_size = Size(self.size.width, self._count() + 1)
        self._scroll_to_cursor()
        self._show_hint()
        self.refresh()

    @property
    def current(self) -> Diagnostic | None:
        """The highlighted finding."""
        row = self._at(self.cursor_row)
        return row if isinstance(row, Diagnostic) else None

    def pin(self, title: str, groups: list[tuple[str, list[Diagnostic]]]) -> None:
        """Show ``groups`` (heading, findings) above the findings, ``title`` before the
        panel's own; no groups and no title unpin them."""
        self.pinned = [row for heading, items in groups for row in (heading, *items)]
        self.pinned_title = title
        self.cursor_row = 0
        self.show(self.findings, fabric_error=self.fabric_error)

    def _count(self) -> int:
        return len(self.pinned) + len(self.findings)

    def _at(self, row: int) -> Diagnostic | str | None:
        """Row ``row``: a pinned heading or finding, or one of the findings."""
        if row < 0:
            return None
        if row < len(self.pinned):
            return self.pinned[row]
        row -= len(self.pinned)
        return self.findings[row] if row < len(self.findings) else None

    def _off_heading(self, step: int) -> None:
        """The cursor off a heading row: the next finding that way, else the other way."""
        for direction in (step, -step):
            row = self.cursor_row
            while isinstance(self._at(row), str):
                row += direction
            if self._at(row) is not None:
                self.cursor_row = row
                return

    def _show_hint(self) -> None:
        """The highlighted finding's fix under the list (the workspace words it)."""
        current = self.current
        hint = self.hint
        said = hint(current) if hint is not None and current is not None else ""
        self.border_subtitle = safe.content(said)
        if self.has_focus:  # the footer's "fix" follows the highlighted finding
            self.app.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``x`` shows in the footer as "fix" only when the highlighted finding has a
        mechanical fix (otherwise the same key explains why nothing happens)."""
        if action == "work_order":
            return bool(self.pinned)
        if action not in ("apply_fix", "no_fix"):
            return True
        finding = self.current
        has = finding is not None and self.fixable is not None and self.fixable(finding)
        return has if action == "apply_fix" else not has

    def action_apply_fix(self) -> None:
        self.post_message(self.ApplyFix())

    def action_no_fix(self) -> None:
        self.action_apply_fix()  # the screen says why there is nothing to apply

    def action_work_order(self) -> None:
        self.post_message(self.WorkOrder())

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, self._count() + 1)
        self._cache.clear()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    # -- cursor -------------------------------------------------------------------------

    def action_cursor(self, step: int) -> None:
        if not self._count():
            return
        before = self.cursor_row
        self.cursor_row = min(max(self.cursor_row + step, 0), self._count() - 1)
        self._off_heading(1 if step > 0 else -1)
        current = self.current
        if self.cursor_row != before and current is not None:
            self._scroll_to_cursor()
            self._show_hint()
            self.refresh()
            self.post_message(self.Chosen(current, focus=False))

    def action_choose(self) -> None:
        current = self.current
        if current is not None:
            self.post_message(self.Chosen(current, focus=True))

    def on_click(self, event: events.Click) -> None:
        row = event.y - self.gutter.top + self.scroll_offset.y - 1
        diagnostic = self._at(row)
        if isinstance(diagnostic, Diagnostic):
            self.cursor_row = row
            self._show_hint()
            self.refresh()
            self.post_message(self.Chosen(diagnostic, focus=event.chain > 1))

    def _scroll_to_cursor(self) -> None:
        height = max(self.scrollable_content_region.height - 1, 1)
        y = self.scroll_offset.y
        if self.cursor_row < y:
            y = self.cursor_row
        elif self.cursor_row >= y + height:
            y = self.cursor_row - height + 1
        self.scroll_to(y=y, animate=False, immediate=True)

    # -- drawing ------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:  # the column names stay put
            header = self.get_component_rich_style("problems--header")
            text = f"   {'code':<{CODE_W}}{'entity':<{ENTITY_W}}message"
            return Strip([Segment(text[:width].ljust(width), header)])
        row = y - 1 + self.scroll_offset.y
        item = self._at(row)
        if item is None:
            return Strip.blank(width, base)
        if isinstance(item, str):  # a pinned group's heading
            header = self.get_component_rich_style("problems--header")
            return Strip([Segment(f" {safe.plain(item)}"[:width].ljust(width), header)])
        here = row == self.cursor_row
        key = (self._generation, row, here, width, self.app.current_theme.name)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._row(item, here, width, base)
            self._cache[key] = strip
        return strip

    def _row(self, diagnostic: Diagnostic, here: bool, width: int, base: Style) -> Strip:
        theme = "dark" if self.app.current_theme.dark else "light"
        colour = palette.SEVERITY_COLOURS[theme][diagnostic.severity]
        style = base + self.get_component_rich_style("problems--cursor") if here else base
        entity = safe.plain(diagnostic.entity)
        if len(entity) >= ENTITY_W:
            entity = entity[: ENTITY_W - 2] + "…"
        segments = [
            Segment(
                f" {palette.SEVERITY_SYMBOLS[diagnostic.severity]} ",
                style + Style(color=colour, bold=True),
            ),
            Segment(f"{diagnostic.code:<{CODE_W}}", style + Style(color=colour)),
            Segment(f"{entity:<{ENTITY_W}}", style),
            Segment(safe.plain(diagnostic.message), style),
        ]
        return Strip(segments).adjust_cell_length(width, style)
