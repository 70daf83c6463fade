"""``?``: every key and what it does, built from the action registry."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from rackdesigner.tui import actions, safe

SCOPES = (
    ("views", "In every view"),
    ("racks", "In the racks view"),
    ("floor", "In the floor view"),
    ("problems", "In the problems panel"),
    ("app", "Everywhere"),
)


def help_table(keymap: dict[str, str] | None = None) -> Table:
    keymap = keymap or {}
    table = Table(box=None, pad_edge=False, show_header=False, expand=True)
    table.add_column("key", style="bold", no_wrap=True, min_width=12)
    table.add_column("palette", style="italic", no_wrap=True)
    table.add_column("does", ratio=1)
    for scope, title in SCOPES:
        table.add_row(f"[u]{title}[/u]", "", "")
        for action in actions.ACTIONS:
            if action.scope != scope:
                continue
            keys = keymap.get(action.id, action.keys)
            table.add_row(safe.text(actions.key_text(keys) or "–"), action.name, action.help)
        if scope == "racks":
            table.add_row("escape", "", "cancel a move; in a field: undo the typing")
            table.add_row("", "", "")
    table.add_row("", "", "")
    table.add_row("[u]Elsewhere[/u]", "", "")
    table.add_row("ctrl+p", "", "command palette: every action by name")
    table.add_row("tab", "", "next panel: racks, inspector, problems")
    table.add_row("enter", "", "in the topology view: open a group, or jump to a switch or node")
    table.add_row(
        "enter", "", "in the problems panel: open a code's group, or go to the finding's entity"
    )
    table.add_row("→ / ←", "", "in the problems panel: open / close a code's group")
    table.add_row("enter", "", "in the summary view: open the rack in the racks view")
    table.add_row("enter", "", "in a field: check and apply the value")
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "close", "close", id="help-close"),
    ]

    def __init__(self, keymap: dict[str, str] | None = None) -> None:
        super().__init__()
        self.keymap = keymap or {}  # the user's remapped keys (binding id -> keys)

    def compose(self) -> ComposeResult:
        keymap = self.keymap
        with VerticalScroll(classes="dialog help"):
            yield Static("rackdesigner · keys", classes="dialog-title")
            yield Static(help_table(keymap))
            yield Static("escape closes", classes="dialog-message")

    def action_close(self) -> None:
        self.dismiss(None)
