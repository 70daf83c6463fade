"""ctrl+e: every export kind of ``rackdesigner export`` (registry.KINDS), each with its
path, and the command line's settings for them (registry.SETTINGS: theme, paper, date,
scope, aggregate), run in a worker with a progress bar fed by the exporters' loops.

Several kinds go in one export, as ``rackdesigner export`` writes several in one run: space
ticks a kind, ``p`` (or the Print pack button) ticks the print pack (the PDF, the SVG
elevations and the cable schedule); enter exports the ticked kinds, or the highlighted one
when none is ticked. Each kind's line shows the file it writes, suffix and all; the path
field edits the highlighted kind's. Drawings are light by default, as on the command line
(``--theme light``), whatever the app's own theme. When done the dialog closes and says
what it wrote and in which folder.

The dialog asks and shows progress; what an export does (the same exporter as the command
line, the refusal of an output that is the input layout) is the runner's, which the app
hands in (:class:`rackdesigner.tui.controllers.exporting.ExportRunner`). Escape cancels: before the
export starts nothing is written; while it runs it stops at the exporter's next step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

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

from rackdesigner.export.registry import (
    KINDS,
    SETTINGS,
    ExportError,
    ExportKind,
    ExportSetting,
    Output,
)
from rackdesigner.model.progress import reporting
from rackdesigner.model.wording import plural
from rackdesigner.tui import safe

# What the dialog shows for each choice of a setting (the command line's values).
CHOICE_LABELS = {
    ("theme", "light"): "light theme",
    ("theme", "dark"): "dark theme",
    ("paper", "a4"): "A4 paper",
    ("paper", "letter"): "Letter paper",
}
# The print pack: what goes to the printer and the installers at once.
PRINT_PACK = ("--pdf", "--elevations", "--cables")
# A default file's suffix for the kinds whose option names none (``--graph FILE``): the
# format the file is read as (GraphML, topology.conf's), so the name says what it holds.
SUFFIXES = {"--graph": ".graphml", "--slurm-topology": ".conf"}
# The kinds' column: the widest option name; the files' column, at most this wide.
NAME_W = max(len(k.option) - 2 for k in KINDS)
FILE_W = 32


@dataclass(frozen=True, slots=True)
class ExportRequest:
    kind: ExportKind
    path: str
    theme: str
    # Every registry.SETTINGS value by its ``dest``, as the command line passes them.
    settings: dict[str, Any] = field(default_factory=dict)


# On the app's thread a request becomes a job (or ExportError: refused); in the worker each
# job renders its kind's files, and the runner then writes every kind's as one, as
# ``rackdesigner export`` does (all or none).
Job = Callable[[], list[Output]]


class Runner(Protocol):
    def __call__(self, request: ExportRequest) -> Job: ...
    def write(self, outputs: list[Output]) -> list[Path]: ...


class Cancelled(Exception):
    """The dialog was closed while the export ran."""


def default_path(kind: ExportKind, layout_path: str | None, name: str) -> str:
    """``<layout stem>-<kind>.<suffix>`` next to the layout (a folder for directory kinds);
    ``<layout stem>.<suffix>`` where the kind is named by its suffix (``lab.pdf``, not
    ``lab-pdf.pdf``)."""
    folder = Path(layout_path).parent if layout_path else Path()
    stem = Path(layout_path).stem if layout_path else name
    suffix = "" if kind.directory else Path(kind.metavar).suffix or SUFFIXES.get(kind.option, "")
    what = kind.dest.replace("_", "-")
    return str(folder / (f"{stem}{suffix}" if suffix == f".{what}" else f"{stem}-{what}{suffix}"))


def shown_name(kind: ExportKind, path: str) -> str:
    """The file a kind writes as its line shows it: the name with its suffix, a folder
    with a slash."""
    name = Path(path).name or path
    return f"{name}/" if kind.directory else name


def written_text(done: list[tuple[ExportRequest, list[Path]]]) -> str:
    """What an export wrote, and where: ``Wrote 3 files in /work/out: a.pdf, a.svg,
    a.csv``; a folder kind as ``svg/ (7 files)``; files in several folders by full path."""
    parts: list[tuple[Path, str]] = []  # (where it is, how it is named)
    for request, paths in done:
        if request.kind.directory:
            folder = Path(request.path).absolute()
            parts.append((folder.parent, f"{folder.name}/ ({plural(len(paths), 'file')})"))
        else:
            parts.extend((p.absolute().parent, p.name) for p in paths)
    if not parts:
        return "Nothing was written."
    folders = {where for where, _ in parts}
    if len(folders) == 1:
        count = sum(len(paths) for _, paths in done)
        names = ", ".join(name for _, name in parts)
        lead = f"Wrote {names}" if len(parts) == 1 else f"Wrote {plural(count, 'file')}"
        where = f" in {folders.pop()}"
        return lead + where + ("" if len(parts) == 1 else f": {names}")
    return "Wrote " + ", ".join(str(where / name) for where, name in parts)


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

    def __init__(self, what: str, done: int, total: int, kind: str = "") -> None:
        self.what = what
        self.done = done
        self.total = total
        self.kind = kind  # the kind being written (several go in one export)
        super().__init__()


class ExportEnded(Message):
    """The export worker is done: what it wrote, or why it could not."""

    def __init__(self, text: str, *, failed: bool) -> None:
        self.text = text
        self.failed = failed
        super().__init__()


class ExportScreen(ModalScreen[tuple[str, str] | list[ExportRequest] | None]):
    """Tick kinds (space; ``p`` the print pack), each with its path (the highlighted one's
    in the path field) and the settings they read; enter exports, with progress, and the
    dialog closes with what was written and where."""

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
        """``theme``: the drawings' default (light, as ``export --theme``'s). ``unsaved``:
        the layout has changes not saved yet; the export writes the layout as edited, not
        the file on disk, and the dialog says so."""
        super().__init__(classes="dialog-screen")
        self.unsaved = unsaved
        self.layout_path = layout_path
        self.layout_name = name
        self.theme_default = theme
        self.runner = runner
        self.kind = KINDS[0]
        # Each kind's path: its default beside the layout until the user edits it.
        self.paths = {k.option: default_path(k, layout_path, name) for k in KINDS}
        self.ticked: set[str] = set()  # the kinds to export (options); none: the highlighted
        self.running = False
        self.steps: list[tuple[str, int, int]] = []  # every progress report, for tests

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="export-dialog"):
            yield Static(self.title_text(), classes="dialog-title", id="export-title")
            # One line per kind (80x24 must fit the whole dialog): the help is cut to fit.
            options = [Option(self._line(k), id=k.option) for k in KINDS]
            yield OptionList(*options, id="export-kinds")
            yield Input(self.paths[self.kind.option], id="export-path")
            with Horizontal(id="export-settings"):
                for setting in SETTINGS:
                    yield setting_widget(setting, self.theme_default)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Print pack", id="export-pack")
                yield Button("Export", variant="primary", id="export-go")
                yield Button("Cancel", id="export-cancel")
            with Horizontal(id="export-progress"):
                yield Label("", id="export-step")
                yield ProgressBar(id="export-bar", show_eta=False)
            yield Static(HINT, id="export-hint", classes="dialog-message")

    def _line(self, kind: ExportKind) -> Text:
        """A kind's line: ticked or not, its name, the file it writes, what it is."""
        tick = "[x]" if kind.option in self.ticked else "[ ]"
        file = shown_name(kind, self.paths[kind.option])
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"{tick} {kind.option[2:]:<{NAME_W}} ")
        width = min(max(len(shown_name(k, self.paths[k.option])) for k in KINDS), FILE_W)
        text.append(safe.plain(file).ljust(width), style="bold")
        text.append(f"  {kind.help}", style="dim")
        return text

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

    def chosen(self) -> list[ExportKind]:
        """The kinds an export now writes: the ticked ones (in ``export --help``'s order),
        else the highlighted one."""
        ticked = [k for k in KINDS if k.option in self.ticked]
        return ticked or [self.kind]

    def _show_settings(self) -> None:
        """Only the settings the chosen kinds read, as ``export --help`` says."""
        chosen = self.chosen()
        for setting in SETTINGS:
            widget = self.query_one(f"#export-{setting.dest.replace('_', '-')}")
            widget.display = any(setting.applies_to(kind) for kind in chosen)

    def settings(self, kind: ExportKind | None = None) -> dict[str, Any]:
        """Every setting's value for ``kind`` (the command line's ``settings``; by default
        the highlighted kind's), None where unset."""
        kind = kind or self.kind
        out: dict[str, Any] = {}
        for setting in SETTINGS:
            widget = self.query_one(f"#export-{setting.dest.replace('_', '-')}")
            if not setting.applies_to(kind):
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
        field = self.query_one("#export-path", Input)
        with field.prevent(Input.Changed):
            field.value = self.paths[self.kind.option]

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._accept()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "export-path":
            self.paths[self.kind.option] = event.value
            self._redraw(self.kind)

    def _redraw(self, kind: ExportKind) -> None:
        kinds = self.query_one("#export-kinds", OptionList)
        kinds.replace_option_prompt(kind.option, self._line(kind))

    def on_key(self, event: Any) -> None:
        """Space ticks the highlighted kind, ``p`` the print pack (on the list only:
        typed in a field they are text)."""
        if self.running or not isinstance(self.focused, OptionList):
            return
        if event.key == "space":
            event.stop()
            event.prevent_default()
            self.tick([self.kind.option])
        elif event.key == "p":
            event.stop()
            event.prevent_default()
            self.tick(list(PRINT_PACK), on=True)

    def tick(self, options: list[str], *, on: bool | None = None) -> None:
        """Tick (or untick) kinds; ``on`` None toggles each."""
        for option in options:
            state = (option not in self.ticked) if on is None else on
            if state:
                self.ticked.add(option)
            else:
                self.ticked.discard(option)
            self._redraw(next(k for k in KINDS if k.option == option))
        self._show_settings()
        self._say_chosen()

    def _say_chosen(self) -> None:
        hint = self.query_one("#export-hint", Static)
        hint.remove_class("-error")
        chosen = self.chosen()
        if len(chosen) > 1:
            names = ", ".join(k.option[2:] for k in chosen)
            hint.update(safe.content(f"enter exports {len(chosen)} kinds: {names}"))
        else:
            hint.update(HINT)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._accept()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "export-go":
            self._accept()
        elif event.button.id == "export-pack":
            self.tick(list(PRINT_PACK), on=True)
        else:
            self.action_cancel()

    def requests(self) -> list[ExportRequest] | None:
        """A request per chosen kind; None (with the reason shown) when a path is empty."""
        out = []
        for kind in self.chosen():
            path = self.paths[kind.option].strip()
            if not path:
                self.show_error(f"give a path for {kind.option[2:]}")
                return None
            settings = self.settings(kind)
            theme = str(settings.get("theme") or self.theme_default)
            out.append(ExportRequest(kind, path, theme, settings))
        return out

    def _accept(self) -> None:
        if self.running:
            return
        requests = self.requests()
        if requests is None:
            return
        if self.runner is None:
            self.dismiss(requests)
            return
        jobs = []
        for request in requests:
            try:
                jobs.append((request, self.runner(request)))
            except ExportError as error:
                named = f"{request.kind.option[2:]}: " if len(requests) > 1 else ""
                self.refused(f"{named}{error}")
                return
        self._started(requests)
        self.export_worker(jobs)

    def _started(self, requests: list[ExportRequest]) -> None:
        self.running = True
        for widget in self.query(
            "#export-kinds, #export-path, .export-setting, #export-go, #export-pack"
        ):
            widget.disabled = True
        self.query_one("#export-progress").display = True
        self.query_one("#export-hint").display = False
        self.query_one("#export-step", Label).update(f"{requests[0].kind.option[2:]}: starting…")
        self.query_one("#export-bar", ProgressBar).update(total=None, progress=0)
        self.query_one("#export-cancel", Button).focus()

    @work(thread=True, exclusive=True, group="export")
    def export_worker(self, jobs: list[tuple[ExportRequest, Job]]) -> None:
        """The exporters in a thread, one kind after the other, then every file written
        as one; each progress report moves the bar."""
        worker = get_current_worker()
        assert self.runner is not None
        name = ""

        def sink(what: str, count: int, total: int) -> None:
            if worker.is_cancelled:
                raise Cancelled
            self.post_message(ExportStep(what, count, total, name))

        rendered: list[tuple[ExportRequest, list[Output]]] = []
        try:
            with reporting(sink):
                for request, job in jobs:
                    name = request.kind.option[2:]
                    rendered.append((request, job()))
                name = ""
                self.runner.write([o for _, outputs in rendered for o in outputs])
        except Cancelled:
            return
        except (ExportError, OSError) as error:
            reason = getattr(error, "strerror", None) or error
            where = f" {name}" if name and len(jobs) > 1 else ""
            self.post_message(ExportEnded(f"Cannot export{where}: {reason}", failed=True))
            return
        except Exception as error:  # a bug in an exporter: say so, lose nothing
            where = f" ({name})" if name and len(jobs) > 1 else ""
            text = f"Export failed{where}: {type(error).__name__}: {error}"
            self.post_message(ExportEnded(text, failed=True))
            return
        if not worker.is_cancelled:
            done = [(request, [o.path for o in outputs]) for request, outputs in rendered]
            self.post_message(ExportEnded(written_text(done), failed=False))

    @on(ExportStep)
    def _step(self, event: ExportStep) -> None:
        self.step(event.what, event.done, event.total, event.kind)

    @on(ExportEnded)
    def _ended(self, event: ExportEnded) -> None:
        if event.failed:
            self.failed(event.text)
        else:
            self.finished(event.text)

    def step(self, what: str, done: int, total: int, kind: str = "") -> None:
        """One progress report: ``total`` 0 is a step of unknown length (the bar pulses)."""
        self.steps.append((what, done, total))
        if not self.is_attached:
            return
        bar = self.query_one("#export-bar", ProgressBar)
        lead = f"{kind}: " if kind else ""
        if total:
            bar.update(total=total, progress=done)
            label = f"{lead}{what} {done:,} of {total:,}"
        else:
            bar.update(total=None)
            label = f"{lead}{what}…"
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
        for widget in self.query(
            "#export-kinds, #export-path, .export-setting, #export-go, #export-pack"
        ):
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


HINT = "↑↓ kind · space ticks · p print pack · tab the path · enter exports"
