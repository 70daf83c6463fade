"""A list to choose from with a line to type in above it (What if…'s parts): typing filters
the list or enters an entry the list does not hold; Enter takes what the user typed or
chose, never an entry the user did not see highlighted while typing something else.

What Enter takes is decided by :func:`resolve` (no Textual, tested on its own)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from rackdesigner.tui import safe
from rackdesigner.tui.screens.catalog_picker import ListInput, move_highlight


def filtered(choices: list[tuple[str, str]], typed: str) -> list[tuple[str, str]]:
    """The entries whose key holds every blank-separated word typed (any case), in the
    list's order (the text beside a key explains it: matching its words would keep
    entries the user did not name)."""
    words = typed.lower().split()
    return [(key, text) for key, text in choices if all(word in key.lower() for word in words)]


def resolve(
    typed: str,
    shown: list[str],
    highlighted: str | None,
    *,
    chose: bool,
    complete: Callable[[str], bool],
) -> str | None:
    """What Enter takes: the highlighted entry when nothing is typed or the arrows chose it
    after the last keystroke; else the typed text when it is ``complete`` (a whole answer
    the list need not hold) or an entry's key; else the first entry the filter leaves;
    else the typed text (its owner says what is wrong with it). None: nothing at all."""
    text = typed.strip()
    if highlighted is not None and (chose or not text):
        return highlighted
    if not text:
        return None
    exact = next((key for key in shown if key.lower() == text.lower()), None)
    if exact is not None:
        return exact
    if complete(text) or not shown:
        return text
    return shown[0]


class TypedChoiceScreen(ModalScreen[str | None]):
    """Dismisses with the chosen entry's key or the typed text (stripped), or None on
    Escape. ``complete`` says whether a typed text is an answer as it stands."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="typed-choice-cancel"),
    ]

    def __init__(
        self,
        title: str,
        choices: list[tuple[str, str]],
        complete: Callable[[str], bool],
        *,
        placeholder: str = "",
        hint: str = "",
    ) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text = title
        self.choices = choices  # (key, text)
        self.complete = complete
        self.placeholder = placeholder
        self.hint = hint
        self.chose = False  # the arrows moved the highlight since the last keystroke

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="typed-choice-dialog"):
            yield Static(safe.content(self.title_text), classes="dialog-title")
            yield ListInput(placeholder=self.placeholder, id="typed-choice-input")
            yield OptionList(id="typed-choice-list")
            yield Static(
                safe.content(self.hint or "type or ↑↓ choose · enter accepts · escape cancels"),
                classes="dialog-message",
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._fill()

    def _fill(self) -> None:
        options = self.query_one("#typed-choice-list", OptionList)
        shown = filtered(self.choices, self.typed())
        options.set_options(Option(safe.text(text), id=key) for key, text in shown)
        options.highlighted = 0 if shown else None

    def typed(self) -> str:
        return self.query_one("#typed-choice-input", Input).value

    def shown(self) -> list[str]:
        """The keys listed now, top to bottom."""
        options = self.query_one("#typed-choice-list", OptionList)
        ids = (options.get_option_at_index(i).id for i in range(options.option_count))
        return [key for key in ids if key is not None]

    def highlighted(self) -> str | None:
        option = self.query_one("#typed-choice-list", OptionList).highlighted_option
        return option.id if option is not None else None

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.chose = False
        self._fill()

    def action_cursor(self, step: int) -> None:
        if move_highlight(self.query_one("#typed-choice-list", OptionList), step):
            self.chose = True

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.accept()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()  # a click on an entry takes it
        self.dismiss(event.option.id)

    def accept(self) -> None:
        answer = resolve(
            self.typed(),
            self.shown(),
            self.highlighted(),
            chose=self.chose,
            complete=self.complete,
        )
        if answer is None:
            self.app.bell()
            return
        self.dismiss(answer)

    def action_cancel(self) -> None:
        self.dismiss(None)
