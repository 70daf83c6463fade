"""ctrl+e: every export kind of ``rackdesigner export`` (exporters.KINDS), with a path and
the command line's settings for that kind (exporters.SETTINGS: theme, paper, date, scope,
aggregate), run in a worker with a progress bar fed by the exporters' loops.

The dialog asks and shows progress; what an export does (the same exporter as the command
line, the refusal of an output that is the input layout) is the runner's, which the app
hands in (:class:`rackdesigner.tui.controllers.exporting.ExportRunner`). Escape cancels: before the
export starts nothing is written; while it runs it stops at the exporter's next step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import (
    Button,
    Checkbox,
    Input,
    Label,
    OptionList,
    ProgressBar,
    Select,
    Static,
)
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from rackdesigner.export.registry import KINDS, SETTINGS, ExportError, ExportKind, ExportSetting
from rackdesigner.model.progress import reporting
from rackdesigner.tui import safe

# What the dialog shows for each choice of a setting (the command line's values).
CHOICE_LABELS = {
    ("theme", "light"): "light theme",
    ("theme", "dark"): "dark theme",
    ("paper", "a4"): "A4 paper",
    ("paper", "letter"): "Letter paper",
}


@dataclass(frozen=True, slots=True)
class ExportRequest:
    kind: ExportKind
    path: str
    theme: str
    # Every exporters.SETTINGS value by its ``dest``, as the command line passes them.
    settings: dict[str, Any] = field(default_factory=dict)


# The runner: on the app's thread, a request becomes a job (or ExportError: refused);
# the job runs in the worker and says what it wrote.
Job = Callable[[], str]
Runner = Callable[[ExportRequest], Job]


class Cancelled(Exception):
    """The dialog was closed while the export ran."""


def default_path(kind: ExportKind, layout_path: str | None, name: str) -> str:
    """``<layout stem>-<kind>.<suffix>`` next to the layout (a folder for directory kinds)."""
    folder = Path(layout_path).parent if layout_path else Path()
    stem = Path(layout_path).stem if layout_path else name
    suffix = "" if kind.directory else Path(kind.metavar).suffix
    return str(folder / f"{stem}-{kind.dest.replace('_', '-')}{suffix}")


def setting_widget(setting: ExportSetting, theme: str) -> Widget:
    """The field for one setting: a choice, a flag or a value."""
    wid = f"export-{setting.dest.replace('_', '-')}"
    if setting.choices:
        value = theme if setting.dest == "theme" else (setting.default or setting.choices[0])
        return Select(
            [
                (CHOICE_LABELS.get((setting.dest, c), f"{c} {setting.dest}"), c)
                for c in setting.choices
            ],
            value=value,
            allow_blank=False,
            id=wid,
            classes="export-setting",
        )
    if setting.flag:
        return Checkbox(setting.dest, value=bool(setting.default), id=wid, classes="export-setting")
    return Input(
        "" if setting.default is None else str(setting.default),
        placeholder=f"{setting.dest} {setting.metavar or ''}".strip(),
        id=wid,
        classes="export-setting",
    )


class ExportStep(Message):
    """One progress report of the export worker."""

    def __init__(self, what: str, done: int, total: int) -> None:
        self.what = what
        self.done = done
        self.total = total
        super().__init__()


class ExportEnded(Message):
    """The export worker is done: what it wrote, or why it could not."""

    def __init__(self, text: str, *, failed: bool) -> None:
        self.text = text
        self.failed = failed
        super().__init__()


class ExportScreen(ModalScreen[tuple[str, str] | ExportRequest | None]):
    """Pick a kind (its path follows until edited), a path and the kind's settings; enter
    exports, with progress, and the dialog closes with what was written."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="export-cancel")
    ]

    def __init__(
        self,
        layout_path: str | None,
        name: str,
        theme: str = "light",
        runner: Runner | None = None,
        *,
        unsaved: bool = False,
    ) -> None:
        """``unsaved``: the layout has changes not saved yet; the export writes the layout
        as edited, not the file on disk, and the dialog says so."""
        super().__init__(classes="dialog-screen")
        self.unsaved = unsaved
        self.layout_path = layout_path
        self.layout_name = name
        self.theme_default = theme
        self.runner = runner
        self.kind = KINDS[0]
        self.edited = False
        self.running = False
        self.steps: list[tuple[str, int, int]] = []  # every progress report, for tests

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="export-dialog"):
            yield Static(self.title_text(), classes="dialog-title", id="export-title")
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
            with Horizontal(id="export-settings"):
                for setting in SETTINGS:
                    yield setting_widget(setting, self.theme_default)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Export", variant="primary", id="export-go")
                yield Button("Cancel", id="export-cancel")
            with Horizontal(id="export-progress"):
                yield Label("", id="export-step")
                yield ProgressBar(id="export-bar", show_eta=False)
            yield Static(
                "↑↓ kind · tab to the path and settings · enter exports · escape cancels",
                id="export-hint",
                classes="dialog-message",
            )

    def title_text(self) -> str:
        if not self.unsaved:
            return "Export"
        # One line (80x24 must fit the whole dialog): what is exported, and from where.
        return "Export · the layout as edited, with its unsaved changes (not the file)"

    def on_mount(self) -> None:
        kinds = self.query_one("#export-kinds", OptionList)
        kinds.highlighted = 0
        kinds.focus()
        self.query_one("#export-progress").display = False
        self._show_settings()

    def _show_settings(self) -> None:
        """Only the settings the highlighted kind reads, as ``export --help`` says."""
        for setting in SETTINGS:
            widget = self.query_one(f"#export-{setting.dest.replace('_', '-')}")
            widget.display = setting.applies_to(self.kind)

    def settings(self) -> dict[str, Any]:
        """Every setting's value (the command line's ``settings``), None where unset."""
        out: dict[str, Any] = {}
        for setting in SETTINGS:
            widget = self.query_one(f"#export-{setting.dest.replace('_', '-')}")
            if not setting.applies_to(self.kind):
                out[setting.dest] = setting.default if not setting.flag else False
            elif isinstance(widget, Select):
                out[setting.dest] = str(widget.value)
            elif isinstance(widget, Checkbox):
                out[setting.dest] = widget.value
            else:
                assert isinstance(widget, Input)
                out[setting.dest] = widget.value.strip() or None
        return out

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.kind = next(k for k in KINDS if k.option == event.option.id)
        self._show_settings()
        if not self.edited:
            field = self.query_one("#export-path", Input)
            field.value = default_path(self.kind, self.layout_path, self.layout_name)
            self.edited = False

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._accept()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "export-path" and event.value != default_path(
            self.kind, self.layout_path, self.layout_name
        ):
            self.edited = True

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._accept()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "export-go":
            self._accept()
        else:
            self.action_cancel()

    def request(self) -> ExportRequest | None:
        path = self.query_one("#export-path", Input).value.strip()
        if not path:
            self.show_error("give a path to write")
            return None
        settings = self.settings()
        theme = str(settings.get("theme") or self.theme_default)
        return ExportRequest(self.kind, path, theme, settings)

    def _accept(self) -> None:
        if self.running:
            return
        request = self.request()
        if request is None:
            return
        if self.runner is None:
            self.dismiss(request)
            return
        try:
            job = self.runner(request)
        except ExportError as error:
            self.refused(str(error))
            return
        self._started(request)
        self.export_worker(job)

    def _started(self, request: ExportRequest) -> None:
        self.running = True
        for widget in self.query("#export-kinds, #export-path, .export-setting, #export-go"):
            widget.disabled = True
        self.query_one("#export-progress").display = True
        self.query_one("#export-hint").display = False
        self.query_one("#export-step", Label).update(f"{request.kind.option[2:]}: starting…")
        self.query_one("#export-bar", ProgressBar).update(total=None, progress=0)
        self.query_one("#export-cancel", Button).focus()

    @work(thread=True, exclusive=True, group="export")
    def export_worker(self, job: Job) -> None:
        """The exporter in a thread; each of its progress reports moves the bar."""
        worker = get_current_worker()

        def sink(what: str, done: int, total: int) -> None:
            if worker.is_cancelled:
                raise Cancelled
            self.post_message(ExportStep(what, done, total))

        try:
            with reporting(sink):
                message = job()
        except Cancelled:
            return
        except (ExportError, OSError) as error:
            reason = getattr(error, "strerror", None) or error
            self.post_message(ExportEnded(f"Cannot export: {reason}", failed=True))
            return
        except Exception as error:  # a bug in an exporter: say so, lose nothing
            text = f"Export failed: {type(error).__name__}: {error}"
            self.post_message(ExportEnded(text, failed=True))
            return
        if not worker.is_cancelled:
            self.post_message(ExportEnded(message, failed=False))

    @on(ExportStep)
    def _step(self, event: ExportStep) -> None:
        self.step(event.what, event.done, event.total)

    @on(ExportEnded)
    def _ended(self, event: ExportEnded) -> None:
        if event.failed:
            self.failed(event.text)
        else:
            self.finished(event.text)

    def step(self, what: str, done: int, total: int) -> None:
        """One progress report: ``total`` 0 is a step of unknown length (the bar pulses)."""
        self.steps.append((what, done, total))
        if not self.is_attached:
            return
        bar = self.query_one("#export-bar", ProgressBar)
        if total:
            bar.update(total=total, progress=done)
            label = f"{what} {done:,} of {total:,}"
        else:
            bar.update(total=None)
            label = f"{what}…"
        self.query_one("#export-step", Label).update(safe.content(label))

    def finished(self, message: str) -> None:
        self.running = False
        if self.is_attached:
            self.dismiss((message, "information"))

    def failed(self, message: str) -> None:
        """The export could not be made: say why here, keep the dialog for another go."""
        self.running = False
        if not self.is_attached:
            return
        for widget in self.query("#export-kinds, #export-path, .export-setting, #export-go"):
            widget.disabled = False
        self.query_one("#export-progress").display = False
        self.query_one("#export-hint").display = True
        self.refused(message)

    def refused(self, message: str) -> None:
        self.show_error(message)
        self.app.notify(message, title="Export refused", severity="error", timeout=8)
        self.query_one("#export-path", Input).focus()

    def show_error(self, message: str) -> None:
        hint = self.query_one("#export-hint", Static)
        hint.update(safe.content(f"✖ {message}"))
        hint.add_class("-error")

    def action_cancel(self) -> None:
        if self.running:
            self.workers.cancel_group(self, "export")
            self.running = False
            self.dismiss(("Export cancelled.", "warning"))
            return
        self.dismiss(None)
