"""A large file loads behind this screen: what is happening and how far it is."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import ProgressBar, Static

from rackdesigner.tui import safe


class LoadingScreen(ModalScreen[None]):
    def __init__(self, path: str) -> None:
        super().__init__(classes="dialog-screen")
        self.path = path

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(safe.content(f"Opening {self.path}"), classes="dialog-title")
            yield ProgressBar(total=100, show_eta=False, id="loading-progress")
            yield Static("reading…", id="loading-step", classes="dialog-message")

    def step(self, percent: float, text: str) -> None:
        """Show how far loading is; a step that comes before the screen is drawn waits."""
        self.percent, self.text = percent, text
        if self.is_mounted:
            self._show()

    percent = 0.0
    text = "reading…"

    def on_mount(self) -> None:
        self._show()

    def _show(self) -> None:
        for bar in self.query(ProgressBar).results(ProgressBar):
            bar.update(progress=self.percent)
        for line in self.query("#loading-step").results(Static):
            line.update(safe.content(self.text))
