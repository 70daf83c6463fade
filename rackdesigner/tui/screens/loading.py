"""A large file loads behind this screen: what is happening and how far it is."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import ProgressBar, Static


class LoadingScreen(ModalScreen[None]):
    def __init__(self, path: str) -> None:
        super().__init__(classes="dialog-screen")
        self.path = path

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(f"Opening {self.path}", classes="dialog-title")
            yield ProgressBar(total=100, show_eta=False, id="loading-progress")
            yield Static("reading…", id="loading-step", classes="dialog-message")

    def step(self, percent: float, text: str) -> None:
        self.query_one(ProgressBar).update(progress=percent)
        self.query_one("#loading-step", Static).update(text)
