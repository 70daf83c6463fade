"""A question with a few answers; Enter takes the default, Escape cancels.

With ``remember`` the dialog also shows a checkbox of that label ("don't ask again this
session"); the caller reads :attr:`ConfirmScreen.remembered` once it is answered."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Static

from rackdesigner.tui import safe


class ConfirmScreen(ModalScreen[str]):
    """Dismisses with the chosen answer's key, or ``cancel`` on Escape."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="dialog-cancel")
    ]

    def __init__(
        self,
        title: str,
        message: str,
        answers: list[tuple[str, str]],
        default: str,
        *,
        remember: str | None = None,
    ) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.message = message
        self.answers = answers  # (key, button label)
        self.default = default
        self.remember = remember  # a checkbox's label, or None for none
        self.remembered = False  # whether it was ticked when the dialog was answered

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(safe.content(self.title_text), classes="dialog-title")
            yield Static(safe.content(self.message), classes="dialog-message")
            if self.remember is not None:
                yield Checkbox(safe.content(self.remember), id="remember", compact=True)
            with Horizontal(classes="dialog-buttons"):
                for key, label in self.answers:
                    variant = "primary" if key == self.default else "default"
                    yield Button(safe.content(label), id=f"answer-{key}", variant=variant)

    def on_mount(self) -> None:
        self.query_one(f"#answer-{self.default}", Button).focus()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        event.stop()
        self.remembered = event.value

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((event.button.id or "answer-cancel").removeprefix("answer-"))

    def action_cancel(self) -> None:
        self.dismiss("cancel")
