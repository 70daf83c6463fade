"""ctrl+e: every export kind of ``rackdesigner export`` (exporters.KINDS), with a path.

The dialog only asks; the app runs the same exporter as the command line in a worker and
refuses an output that is the input layout, as the command line does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Select, Static
from textual.widgets.option_list import Option

from ...exporters import KINDS, ExportKind


@dataclass(frozen=True, slots=True)
class ExportRequest:
    kind: ExportKind
    path: str
    theme: str


def default_path(kind: ExportKind, layout_path: str | None, name: str) -> str:
    """``<layout stem>-<kind>.<suffix>`` next to the layout (a folder for directory kinds)."""
    folder = Path(layout_path).parent if layout_path else Path()
    stem = Path(layout_path).stem if layout_path else name
    suffix = "" if kind.directory else Path(kind.metavar).suffix
    return str(folder / f"{stem}-{kind.dest.replace('_', '-')}{suffix}")


class ExportScreen(ModalScreen[ExportRequest | None]):
    """Pick a kind (its path follows until edited), a path and a theme; enter exports."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="export-cancel")
    ]

    def __init__(self, layout_path: str | None, name: str, theme: str = "light") -> None:
        super().__init__(classes="dialog-screen")
        self.layout_path = layout_path
        self.layout_name = name
        self.theme_default = theme
        self.kind = KINDS[0]
        self.edited = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="export-dialog"):
            yield Static("Export", classes="dialog-title")
            # One line per kind (80x24 must fit the whole dialog): the help is cut to fit.
            options = [
                Option(
                    Text(f"{k.option[2:]:<11} {k.help}", no_wrap=True, overflow="ellipsis"),
                    id=k.option,
                )
                for k in KINDS
            ]
            yield OptionList(*options, id="export-kinds")
            yield Input(
                default_path(self.kind, self.layout_path, self.layout_name), id="export-path"
            )
            with Horizontal(classes="dialog-buttons"):
                yield Select(
                    [("light theme", "light"), ("dark theme", "dark")],
                    value=self.theme_default,
                    allow_blank=False,
                    id="export-theme",
                )
                yield Button("Export", variant="primary", id="export-go")
                yield Button("Cancel", id="export-cancel")
            yield Static(
                "↑↓ kind · tab to the path · enter exports · escape cancels",
                id="export-hint",
                classes="dialog-message",
            )

    def on_mount(self) -> None:
        kinds = self.query_one("#export-kinds", OptionList)
        kinds.highlighted = 0
        kinds.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.kind = next(k for k in KINDS if k.option == event.option.id)
        if not self.edited:
            field = self.query_one("#export-path", Input)
            field.value = default_path(self.kind, self.layout_path, self.layout_name)
            self.edited = False

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._accept()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.value != default_path(self.kind, self.layout_path, self.layout_name):
            self.edited = True

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._accept()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "export-go":
            self._accept()
        else:
            self.dismiss(None)

    def _accept(self) -> None:
        path = self.query_one("#export-path", Input).value.strip()
        if not path:
            self.show_error("give a path to write")
            return
        theme = self.query_one("#export-theme", Select).value
        self.dismiss(ExportRequest(self.kind, path, str(theme)))

    def show_error(self, message: str) -> None:
        hint = self.query_one("#export-hint", Static)
        hint.update(f"✖ {message}")
        hint.add_class("-error")

    def action_cancel(self) -> None:
        self.dismiss(None)
