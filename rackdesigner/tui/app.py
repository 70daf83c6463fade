"""The designer app: open a layout, see it, fix it, save it.

The app holds a ``Session`` (the edit layer: layout, history, index, findings) and calls the
same core as the command line; widgets only show what the session knows and turn keys into
commands. Loading and the fabric check run in worker threads, so keys are never blocked.
"""

from __future__ import annotations

import gc
import os
import time
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import ContentSwitcher
from textual.worker import Worker, WorkerState, get_current_worker

from rackdesigner.design.facts_text import facts_lines, layout_lines
from rackdesigner.design.placing import nearest_fit
from rackdesigner.layout_io.saving import same_file
from rackdesigner.tui import actions
from rackdesigner.tui import autosave as sidecar
from rackdesigner.tui.controllers.build import BuildActions
from rackdesigner.tui.controllers.checking import in_background, warm_up
from rackdesigner.tui.controllers.guide import GuideActions
from rackdesigner.tui.controllers.long_edit import LongEditActions, is_long
from rackdesigner.tui.controllers.views_ahead import ViewsAhead
from rackdesigner.tui.controllers.wiring import WiringActions
from rackdesigner.tui.findings import Locator, Ref, marks_for, subject_of
from rackdesigner.tui.screens.confirm import ConfirmScreen
from rackdesigner.tui.screens.export import ExportScreen
from rackdesigner.tui.screens.help import HelpScreen
from rackdesigner.tui.screens.load_error import LoadErrorScreen
from rackdesigner.tui.screens.loading import LoadingScreen
from rackdesigner.tui.screens.prompt import PromptScreen
from rackdesigner.tui.widgets.catalog_panel import CatalogPanel
from rackdesigner.tui.widgets.floor_view import FloorView
from rackdesigner.tui.widgets.footer import DesignerFooter
from rackdesigner.tui.widgets.header import DesignerHeader
from rackdesigner.tui.widgets.inspector import Inspector
from rackdesigner.tui.widgets.problems import ProblemsPanel
from rackdesigner.tui.widgets.racks_mouse import BuildingRacksView
from rackdesigner.tui.widgets.racks_view import RacksView
from rackdesigner.tui.widgets.summary_view import SummaryView
from rackdesigner.tui.widgets.topology_view import TopologyView
from rackdesigner.tui.widgets.view_bar import ViewBar

if TYPE_CHECKING:
    from rackdesigner.edit import FabricJob, Session
    from rackdesigner.model.diagnostics import Diagnostic

# A file that takes longer than this to open gets the progress screen.
LOADING_SCREEN_AFTER_S = 0.4

# The floor view's inspector follows the cursor once it rests this long.
FLOOR_INSPECT_AFTER_S = 0.12

# The views, in the order of their keys (1-4) and of the view bar.
VIEWS = ("racks", "floor", "topology", "summary")
VIEW_TITLES = {
    "racks": "1 Racks",
    "floor": "2 Floor",
    "topology": "3 Topology",
    "summary": "4 Summary",
}


def keymap_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "rackdesigner" / "keymap.toml"


def read_keymap(path: Path) -> tuple[dict[str, str], str | None]:
    """``binding-id = "keys"`` pairs; a broken file is reported, never fatal."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        return {}, f"{path}: {error}"
    keymap = {k: v for k, v in data.items() if isinstance(v, str)}
    unknown = sorted(set(keymap) - set(actions.BY_ID))
    problem = f"{path}: unknown binding ids {', '.join(unknown)}" if unknown else None
    return {k: v for k, v in keymap.items() if k in actions.BY_ID}, problem


class Loaded:
    """What the load worker hands back: a session, or the errors that stopped it."""

    def __init__(
        self,
        path: str | None,
        session: Session | None = None,
        errors: list[Diagnostic] | None = None,
        recovered: bool = False,
    ) -> None:
        self.path = path
        self.session = session
        self.errors = errors or []
        self.recovered = recovered


class DesignerApp(
    BuildActions,
    GuideActions,
    WiringActions,
    LongEditActions,
    ViewsAhead,
    App[None],
    inherit_bindings=False,
):
    CSS_PATH = "app.tcss"
    TITLE = "rackdesigner"
    BINDINGS: ClassVar[list[BindingType]] = [
        *actions.bindings("app"),
        *actions.bindings("views"),
        Binding("ctrl+c", "help_quit", show=False, system=True),
    ]

    def __init__(self, path: str | None = None, *, keymap_file: Path | None = None) -> None:
        super().__init__()
        self.path: str | None = str(path) if path is not None else None
        self.session: Session | None = None
        self.keymap_file = keymap_file if keymap_file is not None else keymap_path()
        self.keymap_overrides: dict[str, str] = {}
        self.edits_since_autosave = 0
        self.autosaved_revision: int | None = None
        self.moving: str | None = None  # the device id being moved with ``m``
        self.inspected: Ref | None = None
        self.timings: dict[str, float] = {}
        self.recovered = False  # the layout came from an autosave: unsaved until saved
        self.notices: list[tuple[str, str]] = []  # (severity, text) of every notification
        self._loading_screen: LoadingScreen | None = None
        self._loading_step = (0.0, "reading…")
        self._check_revision = -1
        self.view_name = "racks"
        self._view_revision: dict[str, object] = {}  # what each view last showed
        self._floor_timer: Timer | None = None
        # The theme is chosen before the first style pass: set in on_mount, it parsed and
        # applied every style sheet a second time on each start (about 0.1 s).
        from rackdesigner.tui.themes import DARK, themes

        for theme in themes():
            self.register_theme(theme)
        self.theme = DARK

    # -- screen ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield DesignerHeader(id="header")
        with Horizontal(id="main"):
            with Vertical(id="view-column"):
                yield ViewBar(VIEW_TITLES, "racks", id="view-bar")
                with ContentSwitcher(id="views", initial="racks"):
                    yield BuildingRacksView(id="racks")
                    yield FloorView(id="floor")
                    yield TopologyView(id="topology")
                    yield SummaryView(id="summary")
            with Vertical(id="side"):
                yield Inspector(id="inspector")
                yield CatalogPanel(id="catalog")
        yield ProblemsPanel(id="problems")
        yield DesignerFooter(id="footer")

    @property
    def racks(self) -> RacksView:
        return self.query_one("#racks", RacksView)

    @property
    def floor(self) -> FloorView:
        return self.query_one("#floor", FloorView)

    @property
    def topology(self) -> TopologyView:
        return self.query_one("#topology", TopologyView)

    @property
    def summary(self) -> SummaryView:
        return self.query_one("#summary", SummaryView)

    @property
    def inspector(self) -> Inspector:
        return self.query_one("#inspector", Inspector)

    @property
    def problems(self) -> ProblemsPanel:
        return self.query_one("#problems", ProblemsPanel)

    @property
    def header(self) -> DesignerHeader:
        return self.query_one("#header", DesignerHeader)

    def on_mount(self) -> None:
        # The header's symbols take the theme's severity colours: repaint it on a switch.
        self.theme_changed_signal.subscribe(self, lambda _theme: self.update_header())
        self.keymap_overrides, problem = read_keymap(self.keymap_file)
        if self.keymap_overrides:
            self.set_keymap(self.keymap_overrides)
        if problem:
            self.notify(problem, title="Keymap", severity="warning")
        self.racks.focus()
        self.set_interval(sidecar.INTERVAL_S, self.autosave_now)
        self.open_path(self.path)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Notifications are kept (``notices``) as well as shown: tests and the help read them.
        Markup is off: messages quote user text such as ids and values."""
        self.notices.append((str(severity), f"{title}: {message}" if title else str(message)))
        del self.notices[:-200]
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        for action in actions.palette():
            yield SystemCommand(action.name, action.help, self._palette_callback(action.action))
        # Textual's own (Theme, Keys, Screenshot, Quit); Quit runs action_quit, which asks.
        yield from super().get_system_commands(screen)

    def _palette_callback(self, action: str) -> Any:
        def run() -> None:
            self.call_later(self.run_action, action)

        return run

    # -- loading ---------------------------------------------------------------------------

    def open_path(self, path: str | None) -> None:
        """Open ``path`` (None: an untitled layout) in a worker, behind a progress screen
        when it takes a while; a path that does not exist opens an empty layout."""
        self.path = path
        self.header.set_state(
            title=Path(path).stem if path else "untitled",
            file=path or "",
            status=f"opening {path}…" if path else "",
        )
        self.timings["open_started"] = time.perf_counter()
        if path is not None and Path(path).exists():
            self.set_timer(LOADING_SCREEN_AFTER_S, self._maybe_show_loading)
        self.load_worker(path)

    def _maybe_show_loading(self) -> None:
        worker = next((w for w in self.workers if w.name == "load_worker"), None)
        if worker is not None and worker.state in (WorkerState.PENDING, WorkerState.RUNNING):
            self._loading_screen = LoadingScreen(self.path or "")
            self._loading_screen.step(*self._loading_step)
            self.push_screen(self._loading_screen)

    def _progress(self, percent: float, text: str) -> None:
        self._loading_step = (percent, text)
        if self._loading_screen is not None and self._loading_screen.is_attached:
            self._loading_screen.step(percent, text)

    @work(thread=True, exclusive=True, group="load")
    @in_background
    def load_worker(self, path: str | None) -> Loaded:
        """Read, convert and check the file off the main thread (the screen keeps painting)."""
        from rackdesigner.edit import Session
        from rackdesigner.layout_io.catalog import for_layout
        from rackdesigner.layout_io.document import load
        from rackdesigner.model.diagnostics import LayoutError
        from rackdesigner.model.layout import Layout

        step = self.call_from_thread
        if path is None:
            return Loaded(None, Session(Layout(name="untitled")))
        if not Path(path).exists():
            return Loaded(path, Session(Layout(name=Path(path).stem)))
        step(self._progress, 5, "reading and converting…")
        try:
            document = load(path)
        except LayoutError as error:
            return Loaded(path, errors=error.diagnostics)
        step(self._progress, 80, "reading the catalog…")
        for_layout(document.layout)  # the built-in catalog, built here rather than on screen
        step(self._progress, 90, "drawing…")
        # Checked after the racks are drawn (first_check), so the screen comes first.
        return Loaded(path, Session(document, check=False))

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker.name == "load_worker" and worker.state == WorkerState.SUCCESS:
            # One update for the progress screen closing and the layout drawn behind it.
            with self.batch_update():
                self._close_loading()
                self._loaded(worker.result)
        elif worker.name == "load_worker" and worker.state == WorkerState.ERROR:
            self._close_loading()
            error = worker.error
            self.header.set_state(status="")
            self.notify(f"Cannot open {self.path}: {error}", severity="error", timeout=15)
            self._start_empty(self.path)

    def _close_loading(self) -> None:
        if self._loading_screen is not None and self._loading_screen.is_attached:
            self._loading_screen.dismiss()
        self._loading_screen = None

    def _loaded(self, loaded: Loaded) -> None:
        if loaded.errors:
            self.header.set_state(status="could not open the file")
            self.push_screen(
                LoadErrorScreen(loaded.path or "", loaded.errors), self._after_load_error
            )
            return
        assert loaded.session is not None
        self.use_session(loaded.session, loaded.path)
        self.timings["open_done"] = time.perf_counter()
        if loaded.path and loaded.session is not None:
            newer = sidecar.newer(loaded.path) if Path(loaded.path).exists() else None
            if newer is not None:
                self.offer_recovery(loaded.path, newer)

    def _after_load_error(self, answer: str | None) -> None:
        if answer == "open":
            self.prompt_open()
        elif answer == "quit":
            self.exit()
        else:
            self._start_empty(None)

    def _start_empty(self, path: str | None) -> None:
        from rackdesigner.edit import Session
        from rackdesigner.model.layout import Layout

        name = Path(path).stem if path and not Path(path).exists() else "untitled"
        keep = path if path and not Path(path).exists() else None
        self.use_session(Session(Layout(name=name)), keep)

    @property
    def dirty(self) -> bool:
        return self.session is not None and (self.session.dirty or self.recovered)

    def use_session(self, session: Session, path: str | None) -> None:
        self.session = session
        self.recovered = False
        self.path = path
        self.moving = None
        self.inspected = None
        self.edits_since_autosave = 0
        self.autosaved_revision = None
        self.racks.ghost = None
        self.racks.selection.clear()
        self.racks.row = 0
        self.header.set_state(title=session.layout.name, file=path or "", status="")
        self.show_catalog()
        self.refresh_all(full=True)
        self.racks.focus()
        if session.analysis is None:
            self.header.set_state(checking=True)
            # After the racks are on screen: the check's worker would hold the interpreter
            # in turns with the first layout passes and slow the screen a key lands on.
            self.call_after_refresh(self._start_first_check, session)
        else:
            self.start_fabric_check()

    def _start_first_check(self, session: Session) -> None:
        if session is self.session and session.analysis is None:
            self.first_check(session)

    @work(thread=True, exclusive=True, group="check")
    @in_background
    def first_check(self, session: Session) -> None:
        """Racks, power and cooling of a layout just opened; the fabric rules follow in
        their own worker. An edit made meanwhile waits for the session's lock."""
        session.check_fast()
        warm_up(session)
        self.call_from_thread(self._first_check_done, session)

    def _first_check_done(self, session: Session) -> None:
        # A large layout and its analysis are millions of long-lived objects; every full
        # garbage collection would walk them all (tens of ms per key on 100,000 GPUs). Move
        # what exists now out of the collector's sight: new objects are still collected.
        gc.freeze()
        if session is self.session:
            self.header.set_state(status="")
            self.refresh_all(racks=set())
            self.start_fabric_check()

    # -- showing the session ----------------------------------------------------------------

    def refresh_all(self, *, full: bool = False, racks: set[str] | None = None) -> None:
        """Bring every panel up to date with the session (after a load or an edit)."""
        session = self.session
        if session is None:
            return
        from rackdesigner.layout_io.catalog import for_layout

        began = time.perf_counter()
        layout = session.layout
        diagnostics = session.findings
        marks = marks_for(layout, diagnostics, session.index)
        if full or racks is None:
            self.racks.show(layout, for_layout(layout), marks)
        else:
            self.racks.catalog = for_layout(layout)
            self.racks.update_racks(racks)
            self.racks.set_marks(marks)
        self.problems.show(diagnostics)
        self.update_header()
        if self.view_name != "floor":
            self.update_inspector(None if full else self.inspected)
        self.refresh_view()
        self.timings["refresh"] = time.perf_counter() - began

    def update_header(self) -> None:
        from rackdesigner.tui.totals import totals

        session = self.session
        if session is None:
            return
        if session.analysis is None:  # opened, not checked yet
            self.header.set_state(
                title=session.layout.name,
                file=self.path or "",
                dirty=self.dirty,
                status="checking racks, power and cooling…",
            )
            return
        self.header.set_state(
            title=session.layout.name,
            file=self.path or "",
            dirty=self.dirty,
            totals=totals(session.analysis, session.findings),
            checking=session.fabric_stale,
        )

    def update_inspector(self, ref: Ref | None = None, *, rebuild: bool = False) -> None:
        """Show ``ref`` (or what is under the cursor) with its facts and findings."""
        session = self.session
        if session is None or self.busy is not None:
            # A long edit is changing the layout and its findings (a timer, such as the
            # floor view's, may still come): its end refreshes every panel.
            return
        entity = self._entity(ref) if ref else None
        if entity is None:  # what is under the cursor (also when the entity just went away)
            device = self.racks.current_device_id()
            rack = self.racks.current_rack_id()
            ref = ("device", device) if device else ("rack", rack) if rack else None
            entity = self._entity(ref) if ref else None
            if entity is None:
                ref = None
        self.inspected = ref
        facts = facts_lines(session, ref) if ref else layout_lines(session.layout)
        findings = self._findings_of(ref) if ref else []
        self.inspector.show(ref, entity, facts, findings, rebuild=rebuild)

    def _entity(self, ref: Ref) -> Any:
        assert self.session is not None
        index = self.session.index
        kind, ident = ref
        if kind == "rack":
            return index.rack(ident)
        if kind == "device":
            return index.device(ident)
        if kind == "feed":
            return index.feed(ident)
        if kind == "link":
            return index.link(ident)
        return None

    def _findings_of(self, ref: Ref) -> list[Diagnostic]:
        assert self.session is not None
        return [d for d in self.session.findings if subject_of(d) == ref]

    # -- racks view events -----------------------------------------------------------------

    @on(RacksView.CursorMoved)
    def _cursor_moved(self, event: RacksView.CursorMoved) -> None:
        # While a field is being typed in, the inspector keeps its entity.
        if self.moving is None and not self.inspector.editor.has_focus:
            self.update_inspector()

    @on(ProblemsPanel.Chosen)
    def _finding_chosen(self, event: ProblemsPanel.Chosen) -> None:
        self.go_to_finding(event.diagnostic, focus=event.focus)

    def go_to_finding(self, diagnostic: Diagnostic, *, focus: bool) -> None:
        session = self.session
        if session is None:
            return
        ref = subject_of(diagnostic)
        where = Locator(session.layout)(ref) if ref else None
        if where is None:
            if focus:
                self.notify(f"{diagnostic.entity or 'the layout'}: not drawn in the racks view")
            return
        self.racks.jump(where.rack, where.device, announce=False)
        shown = ref if ref and ref[0] in ("rack", "device", "feed", "link") else None
        self.update_inspector(shown or (("device", where.device) if where.device else None))
        if focus:
            self.racks.focus()

    @on(Inspector.Commit)
    def _field_commit(self, event: Inspector.Commit) -> None:
        from rackdesigner.edit import SetField

        kind = event.ref[0]
        error = self.do(SetField(event.ref, event.key, event.text), quiet=True)
        if error is not None:
            self.inspector.refused(event.key, error)
            return
        self.inspector.accepted(event.key)
        if event.key == "id":
            new = (kind, event.text.strip())
            self.update_inspector(new, rebuild=True)
            if kind in ("rack", "device"):
                rack = new[1] if kind == "rack" else None
                if rack is None and self.session is not None:
                    owner = self.session.index.rack_of(new[1])
                    rack = owner.id if owner else None
                if rack:
                    self.racks.jump(rack, new[1] if kind == "device" else None, announce=False)

    # -- editing -------------------------------------------------------------------------

    def do(self, command: Any, *, quiet: bool = False) -> str | None:
        """Run a command through the session; a refusal is shown and changes nothing.

        Returns the refusal's message (None when the command was applied)."""
        from rackdesigner.edit import EditError

        session = self.session
        if session is None:
            return "no layout is open"
        began = time.perf_counter()
        before = self.guide_before()
        try:
            session.do(command, fabric=False)
        except EditError as error:
            message = getattr(error, "message", None) or str(error)
            if not quiet:
                self.notify(str(error), title="Refused", severity="error", timeout=8)
            return message
        self.guide_edit(before)
        self.after_change(command)
        self.timings["edit"] = time.perf_counter() - began
        return None

    def after_change(self, command: Any) -> None:
        effect = getattr(command, "effect", None)
        touched = None
        if effect is not None and not getattr(effect, "everything", False):
            touched = {rack.id for rack in effect.racks.values()}
        self.refresh_all(racks=touched)
        self.edits_since_autosave += 1
        if self.edits_since_autosave >= sidecar.EVERY_EDITS:
            self.autosave_now()
        self.start_fabric_check()

    def start_fabric_check(self) -> None:
        session = self.session
        if session is None or not session.fabric_stale:
            return
        self.header.set_state(checking=True)
        self.fabric_worker(session)

    @work(thread=True, exclusive=True, group="fabric")
    @in_background
    def fabric_worker(self, session: Session) -> None:
        """The fabric rules read the whole cable graph: run them off the main thread. The
        job's copy of the analysis (150,000 cables' table on 100,000 GPUs) is taken here
        too, under the session's lock (an edit waits for it, a key does not)."""
        job = session.fabric_job()
        job.run()
        if not get_current_worker().is_cancelled:
            self.call_from_thread(self._fabric_done, session, job)
        job.analysis.release_graph()

    def _fabric_done(self, session: Session, job: FabricJob) -> None:
        if session is not self.session:
            return
        if self.busy is not None:
            # A long edit holds the session (taking its lock here would freeze the app) and
            # changes the layout: the check starts again once it is done.
            return
        if session.accept_fabric(job):
            self.guide_fabric(session)
            self.refresh_all(racks=set())
        elif session.fabric_stale:
            self.start_fabric_check()  # the layout changed while it ran: check it again
        else:
            self.update_header()

    def _need_device(self) -> str | None:
        device = self.racks.current_device_id()
        if device is None:
            self.notify("Put the cursor on a device first.", severity="warning")
        return device

    def action_cursor(self, racks: int, units: int, rails: bool = False) -> None:
        self.racks.move_cursor(racks, units, rails=rails)

    def action_cursor_end(self, direction: int) -> None:
        self.racks.cursor_end(direction)

    def action_row(self, step: int) -> None:
        if not self.racks.switch_row(step):
            self.bell()

    def action_toggle_face(self) -> None:
        self.racks.face = "rear" if self.racks.face == "front" else "front"
        self.notify(f"Showing the {self.racks.face}", timeout=2)

    def action_racks_view(self) -> None:
        self.action_view("racks")

    # -- the other views -------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # A long edit is changing the layout in a worker: nothing reads or edits it until
        # it is done (the busy screen says what it is doing).
        if self.busy is not None:
            return False
        # The view digits are priority bindings (they must not wait for the focus to move):
        # they act only while a view has the focus (designer.md), never in a panel, a field
        # or a dialog.
        if action == "view":
            if len(self.screen_stack) > 1:
                return False
            focused = self.focused
            return focused is None or focused.id in VIEWS
        return True

    def action_view(self, name: str) -> None:
        """Show one of the views (keys 1-4, the view bar, the palette) and focus it."""
        switcher = self.query_one("#views", ContentSwitcher)
        if switcher.current != name:
            switcher.current = name
        self.query_one("#view-bar", ViewBar).active = name
        self._view_shown(name)

    @on(ViewBar.Chosen)
    def _view_chosen(self, event: ViewBar.Chosen) -> None:
        self.action_view(event.name)

    def _view_shown(self, name: str) -> None:
        if name == "racks" and self.moving is None and self.view_name != "racks":
            self.update_inspector()
        self.view_name = name
        # Summary and topology want the whole width; racks and floor keep the inspector.
        self.query_one("#side").display = name in ("racks", "floor")
        self.refresh_view()
        widget = {
            "racks": self.racks,
            "floor": self.floor,
            "topology": self.topology,
            "summary": self.summary,
        }[name]
        # At once, not after the refresh (``focus()``): the next key goes to the new view.
        self.screen.set_focus(widget)
        if name == "floor":
            rack = self.racks.current_rack_id()
            if rack is not None:
                self.floor.select(rack, announce=False)
            current = self.floor.current_rack_id()
            if current is not None:
                self.update_inspector(("rack", current))

    def action_floor_cursor(self, dx: int, dy: int) -> None:
        self.floor.move(dx, dy)

    def action_floor_open(self) -> None:
        rack = self.floor.current_rack_id()
        if rack is None:
            self.bell()
            return
        self.action_view("racks")
        # After the racks view is laid out again: it scrolls to the cursor by its own size.
        self.call_after_refresh(self._open_rack, rack)

    def _open_rack(self, rack: str) -> None:
        self.racks.jump(rack, announce=False)
        self.update_inspector(("rack", rack))

    @on(FloorView.CursorMoved)
    def _floor_moved(self, event: FloorView.CursorMoved) -> None:
        # The inspector rebuilds its fields per rack (a layout pass): it follows once the
        # cursor rests, so holding an arrow key moves across a hall at key-repeat speed.
        if self._floor_timer is not None:
            self._floor_timer.stop()
        self._floor_timer = self.set_timer(FLOOR_INSPECT_AFTER_S, self._floor_inspect)

    def _floor_inspect(self) -> None:
        self._floor_timer = None
        rack = self.floor.current_rack_id()
        if rack is not None and self.view_name == "floor":
            self.update_inspector(("rack", rack))

    @on(TopologyView.Chosen)
    def _topology_chosen(self, event: TopologyView.Chosen) -> None:
        self.action_view("racks")
        self.call_after_refresh(self.go_to, event.device)

    # -- export ----------------------------------------------------------------------------

    @work(group="dialog", exclusive=True)
    async def action_export(self) -> None:
        from rackdesigner.tui.controllers.exporting import ExportRunner

        session = self.session
        if session is None:
            return
        theme = "dark" if self.current_theme.dark else "light"
        # The dialog runs the export itself, with progress; it closes with what it wrote.
        done = await self.push_screen_wait(
            ExportScreen(
                self.path, session.layout.name, theme, runner=ExportRunner(session, self.path)
            )
        )
        if isinstance(done, tuple):
            message, severity = done
            self.notify(message, title="Export", severity=severity, timeout=6)

    def action_focus_problems(self) -> None:
        self.problems.focus()

    def action_inspect(self) -> None:
        if self.moving is not None:
            self.finish_move()
            return
        if self.inspected is None:
            self.update_inspector()
        if not self.inspector.focus_first():
            self.notify("Nothing to edit here.", severity="warning")

    def action_toggle_select(self) -> None:
        device = self._need_device()
        if device is None:
            return
        selection = self.racks.selection
        selection.symmetric_difference_update({device})
        rack = self.racks.current_rack_id()
        if rack:
            self.racks.versions[rack] = self.racks.versions.get(rack, 0) + 1
        self.racks.refresh()
        self.notify(f"{len(selection)} selected", timeout=2)

    def action_move(self) -> None:
        if self.session is None:
            return
        if self.moving is not None:
            self.finish_move()
            return
        device = self.racks.start_move()
        if device is None:
            self.notify("Put the cursor on a mounted device to move it.", severity="warning")
            return
        self.moving = device
        self.header.set_state(status=f"moving {device}: arrows, enter to place, escape to cancel")

    def finish_move(self) -> None:
        from rackdesigner.edit import MoveDevice

        ghost, device = self.racks.ghost, self.moving
        self.racks.end_move()
        self.moving = None
        self.header.set_state(status="")
        if ghost is None or device is None or self.session is None:
            return
        plans = self.racks.plans()
        rack = plans[ghost.rack].rack.id
        current = self.session.index.device(device)
        owner = self.session.index.rack_of(device)
        if (
            current is not None
            and owner is not None
            and owner.id == rack
            and current.position == ghost.unit
        ):
            self.racks.jump(rack, device, announce=False)
            self.update_inspector()
            return
        error = self.do(MoveDevice(device, rack_id=rack, position=ghost.unit))
        if error is None:
            self.notify(f"Moved {device} to {rack} U{ghost.unit}", timeout=3)
        if owner is not None:
            self.racks.jump(rack if error is None else owner.id, device, announce=False)
        self.update_inspector()

    def action_cancel(self) -> None:
        if self.disarm():
            return
        if self.moving is not None:
            device = self.moving
            self.racks.end_move()
            self.moving = None
            self.header.set_state(status="")
            owner = self.session.index.rack_of(device) if self.session else None
            if owner is not None:
                self.racks.jump(owner.id, device)
            self.notify("Move cancelled", timeout=2)
        elif self.racks.selection:
            self.racks.selection.clear()
            self.racks.show(self.racks.plan_layout, self.racks.catalog, self.racks.marks)  # type: ignore[arg-type]

    def action_delete(self) -> None:
        from rackdesigner.edit import Batch, RemoveDevice

        if self.session is None or self.moving:
            return
        chosen = sorted(self.racks.selection)
        if not chosen:
            device = self.racks.current_device_id()
            if device is None:
                rack = self.racks.current_rack_id()
                if rack is not None:
                    self.confirm_remove_rack(rack)
                return
            chosen = [device]
        commands = [RemoveDevice(d) for d in chosen]
        command = (
            commands[0]
            if len(commands) == 1
            else Batch(commands, f"Delete {len(commands)} devices")
        )
        if self.do(command) is None:
            self.racks.selection.clear()
            self.notify(f"Deleted {', '.join(chosen)} (ctrl+z undoes)", timeout=4)

    @work(group="dialog")
    async def confirm_remove_rack(self, rack: str) -> None:
        from rackdesigner.edit import RemoveRack

        answer = await self.push_screen_wait(
            ConfirmScreen(
                "Delete rack",
                f"Delete rack {rack} with its feeds, devices and their cables? (ctrl+z undoes)",
                [("delete", "Delete rack"), ("cancel", "Cancel")],
                "cancel",
            )
        )
        if answer == "delete" and self.do(RemoveRack(rack)) is None:
            self.notify(f"Deleted rack {rack} (ctrl+z undoes)", timeout=4)

    def action_duplicate(self) -> None:
        from rackdesigner.edit import PlaceDevice

        session = self.session
        device_id = self._need_device()
        if session is None or device_id is None:
            return
        device = session.index.device(device_id)
        rack = session.index.rack_of(device_id)
        if device is None or rack is None:
            return
        units = session.index.units_of(device)
        height = len(units)
        if height == 0 or device.position is None:
            command = PlaceDevice(rack.id, device.model, None, side=device.side)
        else:
            position = self._free_run(rack.id, device, height)
            if position is None:
                self.notify(
                    f"No {height} free units in rack {rack.id} for a copy of {device_id}.",
                    title="Refused",
                    severity="error",
                )
                return
            command = PlaceDevice(rack.id, device.model, position, face=device.face)
        if self.do(command) is None:
            new = getattr(command, "device_id", None) or getattr(command, "_device", None)
            new_id = new if isinstance(new, str) else getattr(new, "id", "")
            self.racks.jump(rack.id, new_id or None, announce=False)
            self.update_inspector()
            where = f" at U{command.position}" if command.position else ""
            self.notify(f"Duplicated {device_id} as {new_id}{where}", timeout=4)

    def _free_run(self, rack_id: str, device: Any, height: int) -> int | None:
        """The next free units above the device (else the highest below) that fit a copy."""
        assert self.session is not None
        index = self.session.index
        rack = index.rack(rack_id)
        assert rack is not None
        taken: set[int] = set()
        for face in index.faces_of(device):
            taken.update(index.occupied(rack_id, face))
        near = device.position + height
        return nearest_fit(taken, int(rack.height_u), height, near, upward=True)

    @work(group="dialog")
    async def action_rename(self) -> None:
        from rackdesigner.edit import RenameEntity

        ref = self.inspected
        if ref is None or ref[0] not in ("rack", "device", "feed"):
            self.notify("Put the cursor on a rack or a device to rename it.", severity="warning")
            return
        kind, old = ref
        new = await self.push_screen_wait(
            PromptScreen(
                f"Rename {kind} {old}",
                old,
                hint="every reference follows: cables, cdu, door, PDU feeds",
            )
        )
        if not new or new == old:
            return
        if self.do(RenameEntity(kind, old, new)) is None:
            if kind == "device" and self.session is not None:
                owner = self.session.index.rack_of(new)
                if owner is not None:
                    self.racks.jump(owner.id, new, announce=False)
            elif kind == "rack":
                self.racks.jump(new, announce=False)
            self.update_inspector((kind, new), rebuild=True)
            self.notify(f"Renamed {kind} {old} to {new}", timeout=3)

    def follow(self, command: Any) -> None:
        """Put the cursor on what an undone or redone command changed, as editors do."""
        session = self.session
        if session is None:
            return
        locate = Locator(session.layout)
        for ref in getattr(command, "refs", None) or ():
            where = locate(tuple(ref)) if ref and ref[0] in ("device", "rack", "feed") else None
            if where is not None:
                self.racks.jump(where.rack, where.device, announce=False)
                self.update_inspector(tuple(ref) if ref[0] != "rack" else None)
                return

    def action_undo(self) -> None:
        self._history("undo")

    def action_redo(self) -> None:
        self._history("redo")

    def _history(self, which: str) -> None:
        from rackdesigner.edit import EditError

        session = self.session
        if session is None or self.moving is not None:
            return
        began = time.perf_counter()

        def step() -> Any:
            return session.undo(fabric=False) if which == "undo" else session.redo(fabric=False)

        history = session.history
        upcoming = history.next_undo if which == "undo" else history.next_redo
        # A generated fabric's 300,000 cables take seconds to take away: in a worker.
        if upcoming is not None and is_long(upcoming):
            self.run_long_edit(
                "Undo" if which == "undo" else "Redo",
                f"{'Undoing' if which == 'undo' else 'Redoing'}: {upcoming.label}…",
                step,
                lambda command, error: self._history_done(which, command, error, began),
            )
            return
        try:
            command = step()
        except EditError as error:  # a redo the layout no longer allows
            self._history_done(which, None, error, began)
            return
        self._history_done(which, command, None, began)

    def _history_done(
        self, which: str, command: Any, error: Exception | None, began: float
    ) -> None:
        if error is not None:
            self.notify(str(error), title="Refused", severity="error")
            return
        if command is None:
            self.notify(f"Nothing to {which}", timeout=2)
            return
        self.after_change(command)
        self.follow(command)
        self.timings["edit"] = time.perf_counter() - began
        label = getattr(command, "label", "") or type(command).__name__
        self.notify(f"{'Undone' if which == 'undo' else 'Redone'}: {label}", timeout=3)

    @work(group="dialog")
    async def action_goto(self) -> None:
        session = self.session
        if session is None:
            return
        index = session.index
        ids = [*index.rack_ids(), *index.device_ids()]
        target = await self.push_screen_wait(
            PromptScreen("Go to", hint="a rack, device, feed or link id", suggestions=ids)
        )
        if not target:
            return
        self.go_to(target)

    def go_to(self, target: str) -> bool:
        """Jump to an entity by id: rack, device, feed, or a link by its a end."""
        session = self.session
        if session is None:
            return False
        index = session.index
        ref: Ref | None = None
        if index.rack(target) is not None:
            ref = ("rack", target)
        elif index.device(target) is not None:
            ref = ("device", target)
        elif index.feed(target) is not None:
            ref = ("feed", target)
        elif index.link(target) is not None:
            ref = ("link", target)
        if ref is None:
            from rackdesigner.edit.base import nearest

            known = [*index.rack_ids(), *index.device_ids()]
            self.notify(
                f"No rack, device, feed or link {target!r}{nearest(target, known)}",
                title="Go to",
                severity="error",
            )
            return False
        where = Locator(session.layout)(ref)
        if where is not None:
            self.racks.jump(where.rack, where.device, announce=False)
        self.update_inspector(ref)
        self.racks.focus()
        return True

    # -- files ---------------------------------------------------------------------------

    @work(group="dialog", exclusive=True)
    async def action_save(self) -> None:
        await self.save(None)

    @work(group="dialog", exclusive=True)
    async def action_save_as(self) -> None:
        session = self.session
        if session is None:
            return
        default = self.path or f"{session.layout.name}.toml"
        path = await self.push_screen_wait(PromptScreen("Save as", default, hint="a .toml path"))
        if path:
            await self.save(path)

    async def save(self, path: str | None) -> bool:
        """Save through the core (atomic; it refuses a file changed on disk or comments a
        canonical rewrite would drop); each refusal is asked about. True when written."""
        from rackdesigner.layout_io import CommentsLostError, FileChangedError, SaveError

        session = self.session
        if session is None:
            return False
        if path is None and self.path is None:
            default = f"{session.layout.name}.toml"
            path = await self.push_screen_wait(
                PromptScreen("Save as", default, hint="the layout has no file yet")
            )
            if not path:
                return False
        target = path or self.path
        assert target is not None
        other_file = self.path is None or not same_file(target, self.path)
        if other_file and Path(target).exists():
            answer = await self.push_screen_wait(
                ConfirmScreen(
                    "Overwrite?",
                    f"{target} exists. Replace it with this layout?",
                    [("overwrite", "Overwrite"), ("cancel", "Cancel")],
                    "cancel",
                )
            )
            if answer != "overwrite":
                return False
        force = False
        while True:
            try:
                session.save(target, force=force)
                break
            except FileChangedError:
                answer = await self.push_screen_wait(
                    ConfirmScreen(
                        "Changed on disk",
                        f"{target} changed on disk since it was opened. Overwrite it with "
                        "this layout (its changes are lost), or cancel?",
                        [("overwrite", "Overwrite"), ("cancel", "Cancel")],
                        "cancel",
                    )
                )
                if answer != "overwrite" or not await self._comments_ok(target):
                    return False
                force = True
            except CommentsLostError:
                if not await self._comments_ok(target):
                    return False
                force = True
            except (SaveError, OSError) as error:
                reason = getattr(error, "strerror", None) or error
                self.notify(f"Cannot save {target}: {reason}", severity="error")
                return False
        self.recovered = False
        if self.path and not same_file(target, self.path):
            sidecar.remove(self.path)
        self.path = target
        sidecar.remove(target)
        self.autosaved_revision = None
        self.update_header()
        self.notify(f"Saved {target}", timeout=3)
        return True

    async def _comments_ok(self, target: str) -> bool:
        """Ask before a save drops comments the canonical form cannot keep."""
        assert self.session is not None
        dropped = list(self.session.document.dropped_comments)
        if not dropped:
            return True
        lines = ", ".join(str(n) for n in dropped[:8]) + (" …" if len(dropped) > 8 else "")
        answer = await self.push_screen_wait(
            ConfirmScreen(
                "Comments would be lost",
                f"Saving rewrites {target} canonically and drops {len(dropped)} comment "
                f"line(s) it cannot place (lines {lines}). Save anyway?",
                [("save", "Save anyway"), ("cancel", "Cancel")],
                "cancel",
            )
        )
        return answer == "save"

    @work(group="dialog", exclusive=True)
    async def action_open(self) -> None:
        if not await self.settle_unsaved("Open another layout"):
            return
        self.prompt_open()

    @work(group="dialog")
    async def prompt_open(self) -> None:
        path = await self.push_screen_wait(
            PromptScreen("Open", self.path or "", hint="a layout .toml path")
        )
        if path:
            self.open_path(path)
        elif self.session is None:
            self._start_empty(None)

    async def settle_unsaved(self, what: str) -> bool:
        """Ask save / discard / cancel when there are unsaved changes; True to go on."""
        session = self.session
        if session is None or not self.dirty:
            return True
        answer = await self.push_screen_wait(
            ConfirmScreen(
                what,
                f"{session.layout.name} has unsaved changes.",
                [("save", "Save"), ("discard", "Discard"), ("cancel", "Cancel")],
                "save",
            )
        )
        if answer == "save":
            return await self.save(None)
        if answer == "discard":
            self.workers.cancel_group(self, "autosave")
            self.recovered = False
            if self.path:
                sidecar.remove(self.path)
            self.autosaved_revision = session.revision
            return True
        return False

    @work(group="dialog", exclusive=True)
    async def action_quit(self) -> None:
        if await self.settle_unsaved("Quit"):
            self.exit()

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    # -- never losing work ----------------------------------------------------------------

    def autosave_now(self) -> None:
        """Write the unsaved layout to its sidecar; the text is made in a worker (a large
        layout takes seconds to write out) and kept only if no edit came in meanwhile."""
        session = self.session
        if session is None or not self.dirty or self.path is None or self.busy is not None:
            return  # (during a long edit the layout is half changed: the next tick saves it)
        if self.autosaved_revision == session.revision:
            return
        self.autosave_worker(session, self.path, session.revision)

    @work(thread=True, exclusive=True, group="autosave")
    def autosave_worker(self, session: Session, path: str, revision: int) -> None:
        from rackdesigner.layout_io import dumps

        try:
            text = dumps(session.layout)
        except Exception:  # the layout changed under the writer: the next tick tries again
            return
        self.call_from_thread(self._autosave_write, session, path, revision, text)

    def _autosave_write(self, session: Session, path: str, revision: int, text: str) -> None:
        # On the app's thread, between edits: an edit during the dump changed the revision
        # (a long edit changes it only when it ends: while it runs, nothing is written).
        if session is not self.session or session.revision != revision or self.path != path:
            return
        if self.busy is not None:
            return
        if not self.dirty:
            return
        try:
            sidecar.write(path, text)
        except OSError as error:
            self.notify(f"Autosave failed: {error.strerror or error}", severity="warning")
            return
        self.autosaved_revision = revision
        self.edits_since_autosave = 0

    @work(group="dialog")
    async def offer_recovery(self, path: str, side: Path) -> None:
        stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(side.stat().st_mtime))
        answer = await self.push_screen_wait(
            ConfirmScreen(
                "Recover unsaved changes?",
                f"{side.name} (autosaved {stamp}) is newer than {path}: it holds changes "
                "that were never saved. Recover them (the file stays as it is until you save), "
                "or discard the autosave?",
                [("recover", "Recover"), ("discard", "Discard autosave"), ("later", "Not now")],
                "recover",
            )
        )
        if answer == "recover":
            self.recover(path, side)
        elif answer == "discard":
            sidecar.remove(path)

    def recover(self, path: str, side: Path) -> None:
        """Open the autosave's text as the layout of ``path``: unsaved, and guarded against
        the file changing on disk (or losing comments) like the file itself."""
        from rackdesigner.edit import Session
        from rackdesigner.layout_io import load_path
        from rackdesigner.model.diagnostics import LayoutError

        try:
            layout = load_path(side)
        except (LayoutError, OSError) as error:
            self.notify(f"Cannot recover {side.name}: {error}", severity="error")
            return
        # A session on a layout and a path describes that file (its hash, its comments).
        session = Session(layout, path, check=False)
        self.use_session(session, path)
        self.recovered = True
        self.update_header()
        self.notify(f"Recovered the changes from {side.name}; save to keep them", timeout=6)

    # -- a bug must not cost the user's work ----------------------------------------------------

    def _handle_exception(self, error: Exception) -> None:
        """An unexpected error ends the app (Textual's way); first the unsaved layout goes to
        its autosave sidecar, and the terminal gets one line with where the details are."""
        saved = ""
        try:
            if self.session is not None and self.dirty and self.path is not None:
                from rackdesigner.layout_io import dumps

                kept = sidecar.write(self.path, dumps(self.session.layout))
                saved = f"; unsaved changes kept in {kept}"
        except Exception:  # the layout itself may be what broke
            saved = ""
        log = crash_log(error)
        super()._handle_exception(error)
        if not os.environ.get("RACKDESIGNER_DEBUG"):
            self._exit_renderables[:] = [
                f"rackdesigner: internal error: {type(error).__name__}: {error}{saved}; "
                f"details in {log} (please report it)"
            ]


def crash_log(error: BaseException) -> str:
    """Write the traceback where a bug report can pick it up; the path, or "-"."""
    import tempfile
    import traceback

    try:
        handle, name = tempfile.mkstemp(prefix="rackdesigner-crash-", suffix=".txt")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write("".join(traceback.format_exception(error)))
        return name
    except OSError:
        return "-"


def run(path: str | None) -> None:
    DesignerApp(path).run()
