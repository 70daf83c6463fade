"""One line of input: a path, a new id, an entity to go to. Enter accepts, Escape cancels."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Input, Static

from rackdesigner.tui import safe


class PromptScreen(ModalScreen[str | None]):
    """Dismisses with the typed text (stripped), or None on Escape or when left empty."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="prompt-cancel")
    ]

    def __init__(
        self,
        title: str,
        default: str = "",
        *,
        hint: str = "",
        suggestions: list[str] | None = None,
    ) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.default = default
        self.hint = hint
        self.suggestions = suggestions
        # Suggestions are shown escaped too; the one accepted is given back as it is.
        self._by_shown = {safe.plain(s): s for s in suggestions or ()}

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(safe.content(self.title_text), classes="dialog-title")
            suggester = (
                SuggestFromList(list(self._by_shown), case_sensitive=False)
                if self.suggestions
                else None
            )
            # Shown escaped; what is typed keeps the default's own characters (safe.typed).
            yield Input(safe.plain(self.default), id="prompt-input", suggester=suggester)
            yield Static(safe.content(self.hint), id="prompt-hint", classes="dialog-message")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = self._by_shown.get(event.value.strip()) or safe.typed(event.value, self.default)
        text = text.strip()
        self.dismiss(text or None)

    def show_error(self, message: str) -> None:
        hint = self.query_one("#prompt-hint", Static)
        hint.update(safe.content(f"✖ {message}"))
        hint.add_class("-error")

    def action_cancel(self) -> None:
        self.dismiss(None)
