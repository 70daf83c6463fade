"""The problems panel: every finding, worst first; choosing one moves the racks' cursor."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable

from .. import palette
from ..diagnostics import SEVERITY_RANK, Diagnostic


def _order(diagnostic: Diagnostic) -> tuple[int, str, str, int]:
    return (SEVERITY_RANK[diagnostic.severity], diagnostic.code, diagnostic.entity, diagnostic.line)


class ProblemsPanel(DataTable[Text | str]):
    """A row per finding: severity symbol, code, entity, message."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "app.racks_view", "racks", show=True, id="problems-back"),
    ]

    class Chosen(Message):
        """A finding was highlighted (``focus`` False) or selected with enter (True)."""

        def __init__(self, diagnostic: Diagnostic, focus: bool) -> None:
            self.diagnostic = diagnostic
            self.focus = focus
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False)
        self.findings: list[Diagnostic] = []
        self._quiet = False

    def on_mount(self) -> None:
        self.add_column("", key="severity", width=2)
        self.add_column("code", key="code", width=7)
        self.add_column("entity", key="entity", width=22)
        self.add_column("message", key="message")
        self.border_title = "Problems"

    def show(self, diagnostics: list[Diagnostic]) -> None:
        """Replace the rows; the highlighted finding stays highlighted if it still exists."""
        keep = None
        if self.findings and 0 <= self.cursor_row < len(self.findings):
            old = self.findings[self.cursor_row]
            keep = (old.code, old.entity, old.message)
        self.findings = sorted(diagnostics, key=_order)
        theme = "dark" if self.app.current_theme.dark else "light"
        colours = palette.SEVERITY_COLOURS[theme]
        self._quiet = True
        self.clear()
        for diagnostic in self.findings:
            severity = diagnostic.severity
            self.add_row(
                Text(palette.SEVERITY_SYMBOLS[severity], style=f"bold {colours[severity]}"),
                Text(diagnostic.code, style=colours[severity]),
                diagnostic.entity,
                diagnostic.message,
            )
        counts = {s: 0 for s in SEVERITY_RANK}
        for diagnostic in self.findings:
            counts[diagnostic.severity] += 1
        self.border_title = (
            f"Problems · {counts['error']} errors · {counts['warning']} warnings · "
            f"{counts['info']} info"
            if self.findings
            else "Problems · none"
        )
        if keep is not None:
            for row, diagnostic in enumerate(self.findings):
                if (diagnostic.code, diagnostic.entity, diagnostic.message) == keep:
                    self.move_cursor(row=row, animate=False)
                    break
        self.call_after_refresh(self._unquiet)

    def _unquiet(self) -> None:
        self._quiet = False

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if self._quiet or not self.has_focus:
            return
        if 0 <= event.cursor_row < len(self.findings):
            self.post_message(self.Chosen(self.findings[event.cursor_row], focus=False))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if 0 <= event.cursor_row < len(self.findings):
            self.post_message(self.Chosen(self.findings[event.cursor_row], focus=True))
