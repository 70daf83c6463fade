"""A question with a few answers; Enter takes the default, Escape cancels."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from rackdesigner.tui import safe


class ConfirmScreen(ModalScreen[str]):
    """Dismisses with the chosen answer's key, or ``cancel`` on Escape."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="dialog-cancel")
    ]

    def __init__(
        self, title: str, message: str, answers: list[tuple[str, str]], default: str
    ) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.message = message
        self.answers = answers  # (key, button label)
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(safe.content(self.title_text), classes="dialog-title")
            yield Static(safe.content(self.message), classes="dialog-message")
            with Horizontal(classes="dialog-buttons"):
                for key, label in self.answers:
                    variant = "primary" if key == self.default else "default"
                    yield Button(safe.content(label), id=f"answer-{key}", variant=variant)

    def on_mount(self) -> None:
        self.query_one(f"#answer-{self.default}", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((event.button.id or "answer-cancel").removeprefix("answer-"))

    def action_cancel(self) -> None:
        self.dismiss("cancel")
