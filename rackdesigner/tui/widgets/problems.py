"""The problems panel: the findings grouped by code, worst first; choosing one moves the
racks' cursor.

A code with several findings is one row (its count and worst entity) until enter opens it
into its findings (:mod:`rackdesigner.check.grouping`, the grouping ``validate --group-by
code`` prints): 32 identical CAB004 warnings no longer hide the one error. The racks view's
marks stay per entity. A scan's differences (Verify against scan) can be pinned above the
findings: one heading line per kind, then its differences, each one a line; so can a
what-if's scenario (its lines as headings, wrapped to the panel's width) and new findings.

Drawn with the Line API like the racks view: a layout with thousands of findings costs only
the rows on screen, and a new set of findings is a list swap, not thousands of widgets.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
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

from rackdesigner.check.grouping import Group, by_code
from rackdesigner.export.render import palette
from rackdesigner.model.diagnostics import SEVERITY_RANK, Diagnostic
from rackdesigner.model.wording import plural
from rackdesigner.tui import actions, safe

_FIX = actions.BY_ID["apply-fix"]

CODE_W = 8
ENTITY_W = 24


def _order(diagnostic: Diagnostic) -> tuple[int, str, str, int]:
    return (SEVERITY_RANK[diagnostic.severity], diagnostic.code, diagnostic.entity, diagnostic.line)


GroupKey = tuple[str, str]  # (code, severity)
# What the cursor is on: group, (code, entity, message) of its finding, an open group's finding.
Held = tuple[GroupKey, tuple[str, str, str], bool]


def _wrapped(heading: str, width: int) -> list[str]:
    """A pinned heading in lines of ``width`` columns, each further line indented two
    more than the first (a width not known yet: one line)."""
    if width < 20 or len(heading) <= width:
        return [heading]
    indent = " " * (len(heading) - len(heading.lstrip()) + 2)
    return textwrap.wrap(heading, width, subsequent_indent=indent, drop_whitespace=True) or [
        heading
    ]


@dataclass(frozen=True, slots=True)
class Row:
    """A line of the panel: a group's own line (``finding`` None, a code with several
    findings), or a finding (a code's only one, or one of an open group's)."""

    group: Group
    finding: Diagnostic | None

    @property
    def key(self) -> GroupKey:
        return (self.group.code, self.group.severity)

    @property
    def diagnostic(self) -> Diagnostic:
        """The finding this line stands for: a group's line stands for its worst."""
        return self.finding if self.finding is not None else self.group.worst


class ProblemsPanel(ScrollView, can_focus=True):
    """A row per finding: severity symbol, code, entity, message; a cursor row."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "", show=False, id="problems-up"),
        Binding("down", "cursor(1)", "", show=False, id="problems-down"),
        Binding("pageup", "cursor(-10)", "", show=False, id="problems-page-up"),
        Binding("pagedown", "cursor(10)", "", show=False, id="problems-page-down"),
        Binding("home", "cursor(-1000000)", "", show=False, id="problems-first"),
        Binding("end", "cursor(1000000)", "", show=False, id="problems-last"),
        Binding("enter", "choose", "open / go to", id="problems-go"),
        Binding("right", "expand(True)", "", show=False, id="problems-expand"),
        Binding("left", "expand(False)", "", show=False, id="problems-collapse"),
        # Back to the racks, or first, while a what-if is pinned, clear it (the screen's).
        Binding("escape", "screen.leave_problems", "racks", id="problems-back"),
        # While a scan's differences are pinned above the findings: write the work order.
        Binding("w", "work_order", "work order", id="problems-work-order"),
        # One key, two bindings: "fix" in the footer when the highlighted finding has a
        # mechanical fix; else the same key says why nothing changes (controllers/guide.py).
        Binding(_FIX.keys, "apply_fix", _FIX.footer, id=_FIX.id, tooltip=_FIX.help),
        Binding(_FIX.keys, "no_fix", _FIX.footer, show=False, id=_FIX.id),
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

    class Toggled(Message):
        """A group was opened or closed (enter, left, right, a click on its line)."""

        def __init__(self, code: str, severity: str, expanded: bool) -> None:
            self.code = code
            self.severity = severity
            self.expanded = expanded
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
        self.groups: list[Group] = []
        self.expanded: set[GroupKey] = set()  # the open groups: kept across new findings
        # Groups pinned above the findings (a scan's differences, one group per kind): a
        # heading line (str), then its findings; the title says what they are.
        self.pinned: list[Diagnostic | str] = []
        self.pinned_title = ""
        self.work_order = False  # a scan's differences are pinned: ``w`` writes them
        self.rows: list[Row | str] = []  # a str: a pinned group's heading (not a cursor stop)
        self.cursor_row = 0
        self.border_title = "Problems"
        self._cache: LRUCache[tuple[object, ...], Strip] = LRUCache(maxsize=1024)
        self._generation = 0

    def show(self, diagnostics: list[Diagnostic], *, fabric_error: str | None = None) -> None:
        """Replace the findings; the highlighted one stays highlighted if it still exists.
        ``fabric_error``: the fabric check failed (its findings are missing), said in the
        title."""
        self.fabric_error = fabric_error
        keep = self._held()
        self.findings = sorted(diagnostics, key=_order)
        self.groups = by_code(self.findings, keep_order=True)
        present = {(g.code, g.severity) for g in self.groups}
        self.expanded &= present
        self._generation += 1
        self._build_rows()
        self.cursor_row = self._find(keep)
        self._off_heading(1)
        counts = dict.fromkeys(SEVERITY_RANK, 0)
        for diagnostic in self.findings:
            counts[diagnostic.severity] += 1
        title = (
            f"Problems · {plural(counts['error'], 'error')} · "
            f"{plural(counts['warning'], 'warning')} · {counts['info']} info"
            if self.findings
            else "Problems · none"
        )
        if fabric_error is not None:
            title += f" · fabric check failed: {fabric_error}"
        if self.pinned_title:
            title = f"{self.pinned_title} · {title}"
        self.border_title = safe.content(title)
        self.virtual_size = Size(self.size.width, len(self.rows) + 1)
        self._scroll_to_cursor()
        self._show_hint()
        self.refresh()

    def _build_rows(self) -> None:
        rows: list[Row | str] = []
        width = self.scrollable_content_region.width - 1
        for item in self.pinned:  # each pinned difference a line of its own
            if isinstance(item, str):
                rows.extend(_wrapped(item, width))
            else:
                rows.append(Row(Group(item.code, item.severity, (item,)), item))
        for group in self.groups:
            if group.count == 1:
                rows.append(Row(group, group.findings[0]))
                continue
            rows.append(Row(group, None))
            if (group.code, group.severity) in self.expanded:
                rows.extend(Row(group, finding) for finding in group.findings)
        self.rows = rows

    def _held(self) -> Held | None:
        """What the cursor is on: its group, the finding it stands for, and whether the line
        is an open group's finding."""
        row = self.current_row
        if row is None:
            return None
        d = row.diagnostic
        return (
            row.key,
            (d.code, d.entity, d.message),
            row.finding is not None and row.group.count > 1,
        )

    def _find(self, held: Held | None) -> int:
        """The row of what the cursor was on. The same finding (or a group line standing
        for the same worst finding) keeps it; an open group's finding that went leaves the
        cursor on its group's line; else the first line, the worst finding."""
        if held is None:
            return 0
        key, same, child = held
        line = None
        for number, row in enumerate(self.rows):
            if isinstance(row, str) or row.key != key:
                continue
            if line is None and row.finding is None:
                line = number
            d = row.diagnostic
            if (d.code, d.entity, d.message) == same and (not child or row.finding is not None):
                return number
        return line if child and line is not None else 0

    @property
    def current_row(self) -> Row | None:
        if 0 <= self.cursor_row < len(self.rows):
            row = self.rows[self.cursor_row]
            return None if isinstance(row, str) else row
        return None

    def pin(
        self, title: str, groups: list[tuple[str, list[Diagnostic]]], *, work_order: bool = False
    ) -> None:
        """Show ``groups`` (heading, findings) above the findings, ``title`` before the
        panel's own; no groups and no title unpin them. ``work_order``: they include a
        scan's differences, which ``w`` writes out."""
        self.pinned = []
        for heading, items in groups:
            self.pinned += [heading, *items]
        self.pinned_title = title
        self.work_order = work_order
        self.show(self.findings, fabric_error=self.fabric_error)
        if self.pinned:  # from the top: the first heading, the cursor on the first line
            self.cursor_row = 0
            self._off_heading(1)
            self.scroll_to(y=0, animate=False, immediate=True)
            self._scroll_to_cursor()
            self._show_hint()

    def _off_heading(self, step: int) -> None:
        """The cursor off a heading line: the next finding that way, else the other way."""
        for direction in (step, -step):
            row = self.cursor_row
            while 0 <= row < len(self.rows) and isinstance(self.rows[row], str):
                row += direction
            if 0 <= row < len(self.rows):
                self.cursor_row = row
                return

    @property
    def current(self) -> Diagnostic | None:
        """The highlighted finding (on a group's line: the group's worst)."""
        row = self.current_row
        return row.diagnostic if row is not None else None

    @property
    def current_group(self) -> list[Diagnostic] | None:
        """The findings of the group whose own line is highlighted (``▸8×``), worst
        first; None on a finding's line."""
        row = self.current_row
        if row is None or row.finding is not None or row.group.count < 2:
            return None
        group = row.group.findings
        return [row.group.worst, *(f for f in group if f is not row.group.worst)]

    def is_expanded(self, code: str, severity: str = "") -> bool:
        """Whether the group of ``code`` (any severity when none is named) is open."""
        return any(c == code and (not severity or s == severity) for c, s in self.expanded)

    def action_expand(self, open_it: bool) -> None:
        """Open (right) or close (left) the highlighted group; closing from one of its
        findings goes back to the group's line."""
        row = self.current_row
        if row is None or row.group.count == 1:
            return
        if (row.key in self.expanded) == open_it:
            if not open_it and row.finding is not None:
                self._move_to(self._find((row.key, ("", "", ""), True)))
            return
        self._toggle(row)

    def _toggle(self, row: Row) -> None:
        opening = row.key not in self.expanded
        if opening:
            self.expanded.add(row.key)
        else:
            self.expanded.discard(row.key)
        self._generation += 1
        self._build_rows()
        self.cursor_row = self._find((row.key, ("", "", ""), True))
        self.virtual_size = Size(self.size.width, len(self.rows) + 1)
        self._scroll_to_cursor()
        self.refresh()
        self.post_message(self.Toggled(row.group.code, row.group.severity, opening))

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
            return self.work_order
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
        if any(isinstance(item, str) for item in self.pinned):  # headings wrap to the width
            keep = self._held()
            self._generation += 1
            self._build_rows()
            self.cursor_row = self._find(keep)
            self._off_heading(1)
        self.virtual_size = Size(self.size.width, len(self.rows) + 1)
        self._cache.clear()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    # -- cursor -------------------------------------------------------------------------

    def action_cursor(self, step: int) -> None:
        if not self.rows:
            return
        target = min(max(self.cursor_row + step, 0), len(self.rows) - 1)
        direction = 1 if step > 0 else -1
        while 0 <= target < len(self.rows) and isinstance(self.rows[target], str):
            target += direction  # past a heading, the way the cursor goes
        if not 0 <= target < len(self.rows):
            target = self.cursor_row
        if target == self.cursor_row and step < 0:  # at the first line: the headings above
            self.scroll_to(y=0, animate=False, immediate=True)
        self._move_to(target)

    def _move_to(self, row: int) -> None:
        line = self.rows[row]
        if row != self.cursor_row and not isinstance(line, str):
            self.cursor_row = row
            self._scroll_to_cursor()
            self._show_hint()
            self.refresh()
            self.post_message(self.Chosen(line.diagnostic, focus=False))

    def action_choose(self) -> None:
        """Enter: a group's line opens (or closes) the group; a finding goes to its entity."""
        row = self.current_row
        if row is None:
            return
        if row.finding is None:
            self._toggle(row)
        else:
            self.post_message(self.Chosen(row.finding, focus=True))

    def on_click(self, event: events.Click) -> None:
        number = event.y - self.gutter.top + self.scroll_offset.y - 1
        if 0 <= number < len(self.rows) and not isinstance(self.rows[number], str):
            self.cursor_row = number
            self._show_hint()
            self.refresh()
            row = self.rows[number]
            assert not isinstance(row, str)
            if row.finding is None and event.chain > 1:
                self._toggle(row)
                return
            self.post_message(self.Chosen(row.diagnostic, focus=event.chain > 1))

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
        if row >= len(self.rows):
            return Strip.blank(width, base)
        line = self.rows[row]
        if isinstance(line, str):  # a pinned group's heading
            header = self.get_component_rich_style("problems--header")
            return Strip([Segment(f" {safe.plain(line)}"[:width].ljust(width), header)])
        here = row == self.cursor_row
        key = (self._generation, row, here, width, self.app.current_theme.name)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._row(line, here, width, base)
            self._cache[key] = strip
        return strip

    def _row(self, line: Row, here: bool, width: int, base: Style) -> Strip:
        diagnostic = line.diagnostic
        theme = "dark" if self.app.current_theme.dark else "light"
        colour = palette.SEVERITY_COLOURS[theme][diagnostic.severity]
        style = base + self.get_component_rich_style("problems--cursor") if here else base
        if line.finding is None:  # a group's line: its count and worst finding
            marker = "▾" if line.key in self.expanded else "▸"
            entity = f"{marker}{line.group.count}× {safe.plain(diagnostic.entity)}"
            if len(entity) >= ENTITY_W:
                entity = entity[: ENTITY_W - 2] + "…"
            return Strip(
                [
                    Segment(
                        f" {palette.SEVERITY_SYMBOLS[diagnostic.severity]} ",
                        style + Style(color=colour, bold=True),
                    ),
                    Segment(f"{diagnostic.code:<{CODE_W}}", style + Style(color=colour)),
                    Segment(f"{entity:<{ENTITY_W}}", style + Style(bold=True)),
                    Segment(safe.plain(diagnostic.message), style),
                ]
            ).adjust_cell_length(width, style)
        indent = "  " if line.group.count > 1 else ""
        entity = indent + safe.plain(diagnostic.entity)
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
