"""A file that cannot be loaded: its errors with file and line, and what to do next."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.wording import and_more
from rackdesigner.tui import safe

# The errors listed, a line each; the rest are counted.
LISTED = 20


def error_text(path: str, diagnostics: list[Diagnostic]) -> Text:
    out = Text()
    for diagnostic in diagnostics[:LISTED]:
        where = f"{diagnostic.file or path}:{diagnostic.line}" if diagnostic.line else path
        out.append(f"{safe.plain(where)}: ", style="bold")
        out.append(f"{diagnostic.code} ", style="bold red")
        out.append(f"{safe.lines(diagnostic.text())}\n")
    rest = and_more(len(diagnostics) - LISTED)
    if rest:
        out.append(f"… {rest}\n", style="dim")
    return out


class LoadErrorScreen(ModalScreen[str]):
    """Dismisses with ``open`` (another file), ``empty`` (start empty) or ``quit``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "choose('empty')", "start empty", id="load-error-empty")
    ]

    def __init__(self, path: str, diagnostics: list[Diagnostic]) -> None:
        super().__init__(classes="dialog-screen")
        self.path = path
        self.diagnostics = diagnostics

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Static(safe.content(f"Cannot open {self.path}"), classes="dialog-title")
            with VerticalScroll(classes="dialog-body"):
                yield Static(error_text(self.path, self.diagnostics), id="load-errors")
            yield Static(
                "Fix the file and open it again, open another, or start an empty layout.",
                classes="dialog-message",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Open another…", id="answer-open", variant="primary")
                yield Button("Start empty", id="answer-empty")
                yield Button("Quit", id="answer-quit")

    def on_mount(self) -> None:
        self.query_one("#answer-open", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((event.button.id or "answer-empty").removeprefix("answer-"))

    def action_choose(self, answer: str) -> None:
        self.dismiss(answer)
