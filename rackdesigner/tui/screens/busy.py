"""A long edit runs behind this screen: what it is doing. Keys wait until it is done (the
layout is changing under the views)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import ProgressBar, Static

from rackdesigner.tui import safe


class BusyScreen(ModalScreen[None]):
    def __init__(self, title: str, detail: str) -> None:
        super().__init__(classes="dialog-screen")
        self.title_text, self.detail = title, detail

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(safe.content(self.title_text), classes="dialog-title")
            # No total: how long a batch of 300,000 cables takes is not known ahead.
            yield ProgressBar(total=None, show_eta=False, show_percentage=False, id="busy-bar")
            yield Static(safe.content(self.detail), id="busy-detail", classes="dialog-message")
