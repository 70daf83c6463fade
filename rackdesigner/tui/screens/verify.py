"""Verify against scan: the dialog that asks for the scan, and the worker's message.

Enter accepts from any field; the form is taken from the path (a folder or a ``.json`` file
is ``lldpctl -f json``, anything else ``ibnetdiscover`` output) unless chosen; Escape
cancels.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from rackdesigner.tui import safe
from rackdesigner.tui.overlays import FORMS, VerifyRequest, form_of
from rackdesigner.tui.screens.choice import Choice, Tick


class VerifyScreen(ModalScreen[VerifyRequest | None]):
    """The scan's path, its form, a node-name map, and whether to compare the rate."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="verify-cancel"),
        # Enter on the form's list or the checkbox accepts too (a field submits itself).
        Binding("enter", "accept", "verify", show=False, id="verify-accept"),
    ]

    def __init__(self, default: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="verify-dialog"):
            yield Static("Verify against scan", classes="dialog-title")
            yield Static("Scan file (ibnetdiscover output, or lldpctl -f json: file or folder)")
            yield Input(safe.plain(self.default), id="verify-scan")
            yield Choice(
                [(text, key) for key, text in FORMS],
                value="auto",
                allow_blank=False,
                id="verify-form",
            )
            yield Static('Node-name map (optional: 0x<guid> "name" per line)')
            yield Input("", id="verify-names")
            yield Tick("compare link width only, not the rate (ibsim)", id="verify-width")
            yield Static(
                "enter verifies · the layout is not changed · escape cancels",
                id="verify-hint",
                classes="dialog-message",
            )

    def on_mount(self) -> None:
        self.query_one("#verify-scan", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_accept()

    def action_accept(self) -> None:
        scan = safe.typed(self.query_one("#verify-scan", Input).value, self.default).strip()
        if not scan:
            self.show_error("give the scan's path")
            return
        if not Path(scan).exists():
            self.show_error(f"{scan}: no such file or folder")
            return
        names = self.query_one("#verify-names", Input).value.strip()
        if names and not Path(names).is_file():
            self.show_error(f"{names}: no such file")
            return
        chosen = str(self.query_one("#verify-form", Choice).value)
        speed = not self.query_one("#verify-width", Tick).value
        self.dismiss(VerifyRequest(scan, form_of(scan, chosen), names, speed))

    def show_error(self, message: str) -> None:
        hint = self.query_one("#verify-hint", Static)
        hint.update(safe.content(f"✖ {message}"))
        hint.add_class("-error")

    def action_cancel(self) -> None:
        self.dismiss(None)
