"""The designer's screen: the views, the inspector, the problems, and the workflow.

The screen owns the workflow: it opens a file in a worker, runs edits through the
:class:`~rackdesigner.tui.workspace.Workspace` and shows what they did. The checks that
follow are the :class:`~rackdesigner.tui.controllers.checking.CheckPipeline`'s, which
posts one ``FindingsChanged`` per result for the screen to show. The widgets only show
what they are handed and post messages; the controllers (building, cabling, files,
guidance, views ahead, long edits) are plain classes given the workspace and this screen
as their :class:`~rackdesigner.tui.ui.DesignerUI`, which speaks in intents (jump to, set
the status, focus the catalog's search), not widgets. Workers post one message each
(:mod:`rackdesigner.tui.messages`); nothing calls back from a thread.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import ContentSwitcher
from textual.worker import Worker, WorkerState

from rackdesigner.tui import messages
from rackdesigner.tui.controllers.build import BuildController
from rackdesigner.tui.controllers.cable_route import CableRoutes
from rackdesigner.tui.controllers.checking import (
    CheckPipeline,
    CollectAfterSwitches,
    background_work,
)
from rackdesigner.tui.controllers.editing import EditController
from rackdesigner.tui.controllers.files import FileController
from rackdesigner.tui.controllers.guide import GuideController
from rackdesigner.tui.controllers.long_edit import LongEdits
from rackdesigner.tui.controllers.verify import VerifyController
from rackdesigner.tui.controllers.views_ahead import ViewsAhead
from rackdesigner.tui.controllers.whatif import WhatIfController
from rackdesigner.tui.controllers.wiring import WiringController
from rackdesigner.tui.findings import Locator, Ref, marks_for, subject_of
from rackdesigner.tui.notices import NoticeBoard
from rackdesigner.tui.ui import CursorAt, Done
from rackdesigner.tui.views import BY_NAME, FIRST, NAMES, VIEWS
from rackdesigner.tui.widgets.catalog_panel import CatalogPanel
from rackdesigner.tui.widgets.footer import DesignerFooter
from rackdesigner.tui.widgets.header import DesignerHeader
from rackdesigner.tui.widgets.inspector import Inspector
from rackdesigner.tui.widgets.problems import ProblemsPanel
from rackdesigner.tui.widgets.racks_mouse import BuildingRacksView
from rackdesigner.tui.widgets.racks_view import EMPTY_HINT, RacksView
from rackdesigner.tui.widgets.view_bar import ViewBar
from rackdesigner.tui.workspace import (
    Loaded,
    Question,
    Workspace,
    count_racks,
    empty_session,
    load_layout,
    loading_text,
)

if TYPE_CHECKING:
    from textual.message import Message
    from textual.notifications import SeverityLevel

    from rackdesigner.design.guidance import Announcement
    from rackdesigner.edit import Session
    from rackdesigner.layout_io.catalog import Catalog
    from rackdesigner.model.diagnostics import Diagnostic
    from rackdesigner.tui.screens.loading import LoadingScreen
    from rackdesigner.tui.widgets.floor_view import FloorView
    from rackdesigner.tui.widgets.power_view import PowerView
    from rackdesigner.tui.widgets.summary_view import SummaryView
    from rackdesigner.tui.widgets.topology_view import TopologyView

# A file that takes longer than this to open gets the progress screen.
LOADING_SCREEN_AFTER_S = 0.4
# A file this small loads in well under that (the bundled layouts: 5-50 ms), so it is read
# from the start, beside Textual's own (style sheets, the first layout); see _EarlyLoad.
EARLY_LOAD_BYTES = 1_000_000


class _EarlyLoad:
    """A small file read in a thread from the moment the screen is made, before Textual
    runs: the racks are drawn about 0.1 s sooner (bench/tui.py, first paint). The open's
    worker takes its result; a large file loads there instead, with its progress shown."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.done = threading.Event()
        self.loaded: Loaded | None = None
        self.error: Exception | None = None
        self.step: tuple[float, str] | None = None  # its last progress, relayed by the worker

    @classmethod
    def start(cls, path: str | None) -> _EarlyLoad | None:
        try:
            if path is None or Path(path).stat().st_size > EARLY_LOAD_BYTES:
                return None
        except OSError:  # missing or unreadable: the open's worker says so, as before
            return None
        early = cls(path)
        threading.Thread(target=early._run, name="rackdesigner-early-load", daemon=True).start()
        return early

    def _run(self) -> None:
        try:
            with background_work():
                self.loaded = load_layout(self.path, self._progress)
        except Exception as error:  # reported by the open's worker, as its own would be
            self.error = error
        finally:
            self.done.set()

    def _progress(self, percent: float, text: str) -> None:
        self.step = (percent, text)


# The floor view's inspector follows the cursor once it rests this long.
FLOOR_INSPECT_AFTER_S = 0.12

# The workers whose results the idle signal waits for.
BACKGROUND = ("load", "check", "fabric", "autosave", "edit", "views", "verify", "whatif")


class MainScreen(Screen[None]):
    """The layout on screen, and every action of the designer's keys and palette."""

    # Escape in any view (the racks view's own escape comes to ``cancel``) leaves a
    # what-if's shading; it is off while nothing is shaded.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear_what_if", "", show=False, id="what-if-clear")
    ]

    def __init__(
        self, workspace: Workspace, *, autosave: bool = True, views_ahead: bool = True
    ) -> None:
        super().__init__()
        self.workspace = workspace
        self.autosave = autosave
        self.view_name = "racks"
        self.busy: str | None = None  # what a long edit is doing, while it runs
        # The views made so far (the racks view with the screen, the others when shown),
        # and the topology's marks for when it is made.
        self._views_made: dict[str, Any] = {}
        self._topology_marks: Callable[[str], str | None] | None = None
        self.keymap: dict[str, str] = {}  # the user's remapped keys, for the help screen
        self._loading_screen: LoadingScreen | None = None
        self.notice_board = NoticeBoard(self)  # the one compact notice on screen
        self._loading_step = (0.0, "reading…")
        self._loading = False
        self._floor_timer: Timer | None = None
        # One full collection once view switching pauses (its timer is the screen's).
        self.collection = CollectAfterSwitches(self.set_timer)
        # The idle signal: results posted by workers and not handled yet, a first check
        # waiting for the racks to be drawn, and an event set while nothing is pending.
        self._lock = threading.Lock()
        self._outstanding = 0
        self._early = _EarlyLoad.start(workspace.path)
        self._idle = asyncio.Event()
        self._idle.set()
        self.build = BuildController(workspace, self)
        self.wiring = WiringController(workspace, self)
        self.files = FileController(workspace, self)
        self.guide = GuideController(workspace, self)
        # The first check, the fabric job and the views' data built ahead.
        self.checks = CheckPipeline(
            workspace, self, ViewsAhead(workspace, self, enabled=views_ahead)
        )
        self.views = self.checks.views
        self.long_edits = LongEdits(workspace, self)
        self.editing = EditController(workspace, self)
        self.verify = VerifyController(workspace, self)
        self.what_if = WhatIfController(workspace, self)
        self.routes = CableRoutes(workspace, self)

    # -- the widgets ------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield DesignerHeader(id="header")
        with Horizontal(id="main"):
            with Vertical(id="view-column"):
                yield ViewBar({v.name: v.title for v in VIEWS}, FIRST.name, id="view-bar")
                # The other views are made when first shown (views.py).
                with ContentSwitcher(id="views", initial=FIRST.name):
                    yield BuildingRacksView(id=FIRST.name, selection=self.workspace.selection)
            with Vertical(id="side"):
                yield Inspector(id="inspector")
                yield CatalogPanel(id="catalog")
        yield ProblemsPanel(
            id="problems", hint=self.workspace.finding_hint, fixable=self.workspace.has_fix
        )
        yield DesignerFooter(id="footer")

    @property
    def racks(self) -> RacksView:
        return self.query_one("#racks", RacksView)

    @property
    def floor(self) -> FloorView:
        floor: FloorView = self._view_widget("floor")
        return floor

    @property
    def topology(self) -> TopologyView:
        topology: TopologyView = self._view_widget("topology")
        return topology

    @property
    def summary(self) -> SummaryView:
        summary: SummaryView = self._view_widget("summary")
        return summary

    @property
    def inspector(self) -> Inspector:
        return self.query_one("#inspector", Inspector)

    @property
    def problems(self) -> ProblemsPanel:
        return self.query_one("#problems", ProblemsPanel)

    @property
    def header(self) -> DesignerHeader:
        return self.query_one("#header", DesignerHeader)

    @property
    def catalog_panel(self) -> CatalogPanel:
        return self.query_one("#catalog", CatalogPanel)

    @property
    def session(self) -> Session | None:
        return self.workspace.session

    def on_unmount(self) -> None:
        self.checks.close()  # quitting: a fabric check's child process goes now

    def on_mount(self) -> None:
        # The header's symbols take the theme's severity colours: repaint it on a switch.
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.update_header())
        self.racks.focus()
        if self.autosave:
            self.set_interval(self.files.interval, self.files.autosave_now)
        self.open_path(self.workspace.path)

    # -- the idle signal --------------------------------------------------------------------

    def _busy_now(self) -> bool:
        if self._outstanding or self.checks.waiting:
            return True
        waiting = (WorkerState.PENDING, WorkerState.RUNNING)
        return any(w.group in BACKGROUND and w.state in waiting for w in self.app.workers)

    def post_result(self, message: Message) -> None:
        """Post a worker's result (from its thread); counted until it is handled."""
        with self._lock:
            self._outstanding += 1
        self.post_message(message)

    def _handled(self) -> None:
        with self._lock:
            self._outstanding = max(0, self._outstanding - 1)
        self._settle()

    def _settle(self) -> None:
        if self._busy_now():
            self._idle.clear()
        elif not self._idle.is_set():
            self._idle.set()
            self.app.post_message(messages.Idle())

    @on(Worker.StateChanged)
    def _worker_state(self, event: Worker.StateChanged) -> None:
        """Only for the idle signal: results come as messages of their own."""
        self._settle()

    @property
    def idle(self) -> bool:
        """Whether every load, check, fabric check, autosave and long edit started has
        come back, the views built too (dialogs waiting for keys are not background jobs)."""
        return not self._busy_now()

    async def wait_idle(self) -> None:
        """Until :attr:`idle` (tests wait on this, not on a clock)."""
        while True:
            await self._idle.wait()
            if not self._busy_now():
                return
            self._idle.clear()

    # -- the UI the controllers use ---------------------------------------------------------

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """The app's notifications (kept for the help and the tests); markup off, as
        messages quote user text such as ids and values."""
        self.app.notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def bell(self) -> None:
        self.app.bell()

    def clear_notice(self) -> None:
        """An edit was applied: the notice of the one before goes."""
        self.notice_board.clear()

    def on_screen_suspend(self) -> None:
        self.notice_board.hide()  # a dialog opens: no notice over it

    def on_screen_resume(self) -> None:
        self.notice_board.show_held()  # a dialog closed: a notice given meanwhile shows

    async def wait_for(self, screen: Screen[Any]) -> Any:
        return await self.app.push_screen_wait(screen)

    async def ask(self, question: Question) -> str | None:
        from rackdesigner.tui.screens.confirm import ConfirmScreen
        from rackdesigner.tui.screens.prompt import PromptScreen

        if question.prompt:
            screen: Screen[Any] = PromptScreen(question.title, question.default, hint=question.hint)
        else:
            screen = ConfirmScreen(
                question.title, question.text, list(question.choices), question.default
            )
        answer: str | None = await self.app.push_screen_wait(screen)
        return answer

    def dialog(self, flow: Coroutine[Any, Any, Any], *, exclusive: bool = False) -> None:
        """Run an asking flow (it waits for dialogs) in the dialog group's worker."""
        self.run_worker(flow, group="dialog", exclusive=exclusive)

    def run_thread(self, job: Callable[[], None], *, group: str, exclusive: bool) -> None:
        self._idle.clear()
        self.run_worker(job, thread=True, group=group, exclusive=exclusive)

    def run_views_worker(self, job: Callable[[], None]) -> None:
        self.run_worker(job, thread=True, group="views")

    def cancel_group(self, group: str) -> None:
        self.app.workers.cancel_group(self, group)

    def exit(self) -> None:
        self.app.exit()

    def start_empty(self, path: str | None) -> None:
        self._start_empty(path)

    def show_view(self, name: str) -> None:
        self.action_view(name)

    def show_route(self, route: Any) -> None:
        floor = self._views_made.get("floor")  # not made before it is first shown
        if floor is not None:
            floor.show_route(route)

    def running(self, group: str) -> bool:
        """Whether a worker of ``group`` runs now."""
        return any(w.group == group and w.is_running for w in self.app.workers)

    def show_screen(self, screen: Screen[Any]) -> None:
        self.app.push_screen(screen)

    def after_refresh(self, callback: Callable[[], None]) -> None:
        self._idle.clear()

        def call() -> None:
            callback()
            self._settle()

        self.call_after_refresh(call)

    def run_long_edit(self, title: str, detail: str, job: Callable[[], Any], done: Done) -> None:
        self.long_edits.run(title, detail, job, done)

    # -- the intents the controllers use (DesignerUI): they never touch a widget ------------

    def cursor(self) -> CursorAt:
        racks = self.racks
        at = racks.cursor
        return CursorAt(
            racks.current_rack_id(),
            racks.current_device_id(),
            at.unit,
            at.rail,
            racks.face,
            racks.row_name(),
        )

    def rack_in_view(self) -> str | None:
        rack = self.floor.current_rack_id() if self.view_name == "floor" else None
        return rack or self.racks.current_rack_id()

    def jump_to(self, rack: str, device: str | None = None, *, announce: bool = False) -> None:
        self.racks.jump(rack, device, announce=announce)

    def redraw_racks(self, racks: set[str] | None = None) -> None:
        if racks is None:
            self.racks.redraw_all()
        else:
            self.racks.redraw(racks)

    def start_move(self) -> str | None:
        return self.racks.start_move()

    def end_move(self) -> tuple[str, int] | None:
        racks = self.racks
        ghost = racks.ghost
        racks.end_move()
        if ghost is None:
            return None
        return racks.plans()[ghost.rack].rack.id, ghost.unit

    def shade(self, shade: dict[str, str], where: dict[str, str], figures: str) -> None:
        self.racks.set_shade(shade, where)
        self.header.set_state(figures=figures)

    def mark_topology(self, marks: Callable[[str], str | None] | None) -> None:
        self._topology_marks = marks  # for the topology view when it is made
        if "topology" in self._views_made:
            self.topology.set_marks(marks)

    def focus_racks(self) -> None:
        self.racks.focus()

    def set_status(self, text: str) -> None:
        self.header.set_state(status=text)

    def set_checking(self) -> None:
        self.header.set_state(checking=True)

    def focus_inspector(self) -> bool:
        return self.inspector.focus_first()

    def selected_finding(self) -> Diagnostic | None:
        return self.problems.current

    def selected_group(self) -> list[Diagnostic] | None:
        return self.problems.current_group

    def focus_problems(self) -> None:
        self.problems.focus()

    def pin_findings(self, title: str, groups: list[tuple[str, list[Diagnostic]]]) -> None:
        self.problems.pin(title, groups, work_order=self.workspace.verified is not None)

    def show_catalog(self, catalog: Catalog) -> None:
        self.catalog_panel.show(catalog)

    def focus_catalog_search(self) -> None:
        panel = self.catalog_panel
        if not panel.display:
            self.action_view("racks")
        panel.query_one("#catalog-search").focus()

    def fill_view(self, name: str, *content: Any) -> None:
        self._view_widget(name).show(*content)

    def note_view(self, name: str, note: str) -> None:
        widget = self._view_widget(name)
        own = getattr(widget, "note", None)  # a view that keeps a line of its own there
        if callable(own):
            own(note)
        else:
            widget.border_subtitle = note

    def select_in_view(self, name: str, key: str) -> None:
        self._view_widget(name).select(key)

    def _view_widget(self, name: str) -> Any:
        """The view's widget, made (and its module imported) when first asked for."""
        if name == FIRST.name:
            return self.racks
        widget = self._views_made.get(name)
        if widget is None:
            made: Any = BY_NAME[name].make()
            made.display = False  # the content switcher shows it when it is current
            self.query_one("#views", ContentSwitcher).mount(made)
            if name == "topology":
                made.set_marks(self._topology_marks)
            widget = self._views_made[name] = made
        return widget

    # -- loading ----------------------------------------------------------------------------

    def open_path(self, path: str | None) -> None:
        """Open ``path`` (None: an untitled layout) in a worker, behind a progress screen
        when it takes a while; a path that does not exist opens an empty layout."""
        self.workspace.path = path
        self.header.set_state(
            title=Path(path).stem if path else "untitled",
            file=path or "",
            status=f"opening {path}…" if path else "",
        )
        self.workspace.timings["open_started"] = time.perf_counter()
        self._loading = True
        # While it loads the racks view says so, never the empty layout's hint.
        self._loading_title = loading_text(None)
        self.racks.empty_hint = self._loading_title if path is not None else EMPTY_HINT
        self.racks.refresh()
        if path is not None and Path(path).exists():
            self.set_timer(LOADING_SCREEN_AFTER_S, self._maybe_show_loading)
        early, self._early = self._early, None
        if early is not None and early.path != path:
            early = None  # another file was asked for: its own load
        self.run_thread(lambda: self._load_worker(path, early), group="load", exclusive=True)

    def _load_worker(self, path: str | None, early: _EarlyLoad | None = None) -> None:
        """Read, convert and prepare the file off the main thread (the screen keeps
        painting); checked after the racks are drawn (first check). ``early``: the
        file's load started with the screen, whose result is taken."""
        loaded: Loaded | None = None
        failed: BaseException | None = None
        if early is not None:
            # What the racks view says while it loads, as below: never the empty hint.
            self.post_message(messages.LoadProgress(0, loading_text(count_racks(path))))
            shown = None
            while not early.done.wait(0.05):
                if early.step is not None and early.step != shown:
                    shown = early.step
                    self.post_message(messages.LoadProgress(*shown))
            self.post_result(messages.LoadDone(path, early.loaded, early.error))
            return
        try:
            with background_work():
                if path is not None and Path(path).exists():
                    self.checks.fabric.warm_up(path)  # while this process is small
                    title = loading_text(count_racks(path))
                    self.post_message(messages.LoadProgress(0, title))
                loaded = load_layout(
                    path, lambda p, text: self.post_message(messages.LoadProgress(p, text))
                )
        except Exception as error:
            failed = error
        self.post_result(messages.LoadDone(path, loaded, failed))

    def _maybe_show_loading(self) -> None:
        if self._loading:
            from rackdesigner.tui.screens.loading import LoadingScreen

            self._loading_screen = LoadingScreen(self.workspace.path or "")
            self._loading_screen.step(*self._loading_step)
            self.app.push_screen(self._loading_screen)

    @on(messages.LoadProgress)
    def _progress(self, event: messages.LoadProgress) -> None:
        if not self._loading:
            return
        if event.text.startswith("Loading"):  # the worker's first word: how many racks
            self._loading_title = event.text
            text = event.text
        else:
            text = f"{self._loading_title} {event.text}"
        self._loading_step = (event.percent, text)
        self.racks.empty_hint = f"{self._loading_title} {event.percent:.0f} %"
        self.racks.refresh()
        if self._loading_screen is not None and self._loading_screen.is_attached:
            self._loading_screen.step(event.percent, text)

    @on(messages.LoadDone)
    def _load_done(self, event: messages.LoadDone) -> None:
        self._loading = False
        self.racks.empty_hint = EMPTY_HINT  # the layout is here: empty means empty now
        try:
            if event.loaded is not None:
                # One update for the progress screen closing and the layout drawn behind it.
                with self.app.batch_update():
                    self._close_loading()
                    self._loaded(event.loaded)
            else:
                self._close_loading()
                self.header.set_state(status="")
                self.notify(
                    f"Cannot open {self.workspace.path}: {event.error}",
                    severity="error",
                    timeout=15,
                )
                self._start_empty(self.workspace.path)
        finally:
            self._handled()

    def _close_loading(self) -> None:
        if self._loading_screen is not None and self._loading_screen.is_attached:
            self._loading_screen.dismiss()
        self._loading_screen = None

    def _loaded(self, loaded: Loaded) -> None:
        if loaded.errors:
            self.header.set_state(status="could not open the file")
            from rackdesigner.tui.screens.load_error import LoadErrorScreen

            self.app.push_screen(
                LoadErrorScreen(loaded.path or "", loaded.errors), self._after_load_error
            )
            return
        assert loaded.session is not None
        self.use_session(loaded.session, loaded.path)
        self.workspace.timings["open_done"] = time.perf_counter()
        newer = self.workspace.newer_autosave(loaded)
        if newer is not None and loaded.path:
            self.files.offer_recovery(loaded.path, newer)

    def _after_load_error(self, answer: str | None) -> None:
        if answer == "open":
            self.files.prompt_open()
        elif answer == "quit":
            self.app.exit()
        else:
            self._start_empty(None)

    def _start_empty(self, path: str | None) -> None:
        session, keep = empty_session(path)
        self.use_session(session, keep)

    def use_session(self, session: Session, path: str | None) -> None:
        self.workspace.use(session, path)
        # A scan's differences and a what-if were about the layout before.
        self.problems.pin("", [])
        self.racks.set_shade({}, {})
        self.header.set_state(figures="")
        self.mark_topology(None)
        self.racks.ghost = None
        self.racks.row = 0
        self.header.set_state(title=session.layout.name, file=path or "", status="")
        self.build.show_catalog()
        self.refresh_all(full=True)
        self.racks.focus()
        # The first check starts after the racks are on screen: its worker would hold the
        # interpreter in turns with the first layout passes and slow the screen a key
        # lands on.
        if self.checks.opened(session):
            self.header.set_state(checking=True)

    # -- the check pipeline's messages: it runs the checks, the screen shows them -----------

    @on(messages.FirstCheckDone)
    def _first_check_done(self, event: messages.FirstCheckDone) -> None:
        try:
            self.checks.first_check_done(event)
        finally:
            self._handled()

    @on(messages.FabricDone)
    def _fabric_done(self, event: messages.FabricDone) -> None:
        try:
            self.checks.fabric_done(event)
        finally:
            if event.job is not None:
                event.job.release()
            self._handled()

    @on(messages.FabricViews)
    def _fabric_views(self, event: messages.FabricViews) -> None:
        try:
            self.checks.fabric_views(event)
        finally:
            self._handled()

    @on(messages.ViewBuilt)
    def _view_built(self, event: messages.ViewBuilt) -> None:
        self.checks.view_built(event)

    @on(messages.FindingsChanged)
    def _findings_changed(self, event: messages.FindingsChanged) -> None:
        """Show what a check brought: every panel, or the fabric check's failure."""
        try:
            session = event.session
            if session is not self.session:
                return
            if event.failed is not None:
                self.notify(f"Fabric check failed: {event.failed}", severity="error", timeout=10)
                self.problems.show(session.findings, fabric_error=event.failed)
                self.update_header()
                return
            if event.first:
                self.header.set_state(status="")
            self.say(event.said)
            self.refresh_all(racks=set())
        finally:
            self._handled()

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
        marks = marks_for(layout, diagnostics, session.index, self.workspace.overlay_marks())
        if full or racks is None:
            self.racks.show(layout, for_layout(layout), marks)
        else:
            self.racks.catalog = for_layout(layout)
            self.racks.update_racks(racks)
            self.racks.set_marks(marks)
        self.problems.show(diagnostics, fabric_error=self.workspace.fabric_error)
        self.update_header()
        if self.view_name != "floor":
            self.update_inspector(None if full else self.workspace.inspected)
        self.views.refresh_view()
        self.workspace.timings["refresh"] = time.perf_counter() - began

    def update_header(self) -> None:
        from rackdesigner.tui.totals import totals

        session = self.session
        if session is None:
            return
        if session.analysis is None:  # opened, not checked yet
            self.header.set_state(
                title=session.layout.name,
                file=self.workspace.path or "",
                dirty=self.workspace.dirty,
                status="checking racks, power and cooling…",
                autosave_failed=self.workspace.autosave_failed,
            )
            return
        self.header.set_state(
            title=session.layout.name,
            file=self.workspace.path or "",
            dirty=self.workspace.dirty,
            totals=totals(session.analysis, session.findings),
            checking=session.fabric_stale and self.workspace.fabric_error is None,
            autosave_failed=self.workspace.autosave_failed,
        )

    def update_inspector(self, ref: Ref | None = None, *, rebuild: bool = False) -> None:
        """Show ``ref`` (or what is under the cursor) with its facts and findings."""
        workspace = self.workspace
        if workspace.session is None or self.busy is not None:
            # A long edit is changing the layout and its findings (a timer, such as the
            # floor view's, may still come): its end refreshes every panel.
            return
        entity = workspace.entity(ref) if ref else None
        if entity is None:  # what is under the cursor (also when the entity just went away)
            device = self.racks.current_device_id()
            rack = self.racks.current_rack_id()
            ref = ("device", device) if device else ("rack", rack) if rack else None
            entity = workspace.entity(ref) if ref else None
            if entity is None:
                ref = None
        workspace.inspected = ref
        self.routes.follow(ref)  # a cable shown: its route on the floor view
        self.inspector.show(
            ref,
            entity,
            workspace.facts(ref),
            workspace.findings_of(ref),
            rebuild=rebuild,
            page=workspace.page(ref),
        )

    # -- editing ----------------------------------------------------------------------------

    def do(self, command: Any, *, quiet: bool = False) -> str | None:
        """Run a command through the workspace; a refusal is shown and changes nothing.

        Returns the refusal's message (None when the command was applied)."""
        began = time.perf_counter()
        outcome = self.workspace.do(command)
        if not outcome.applied:
            if not quiet and self.session is not None:
                self.notify(str(outcome.error), title="Refused", severity="error", timeout=8)
            return outcome.refusal
        self.clear_notice()
        self.say(outcome.said)
        self._show_change(outcome.touched, outcome.autosave_due)
        self.workspace.timings["edit"] = time.perf_counter() - began
        return None

    def after_change(self, command: Any) -> None:
        """Show a change made outside :meth:`do` (an undo, a long edit)."""
        outcome = self.workspace.changed(command)
        self.clear_notice()
        self._show_change(outcome.touched, outcome.autosave_due)

    def after_edit(self, command: Any, before: tuple[Diagnostic, ...]) -> None:
        """Show an edit a long edit's worker applied, with the problems it brought."""
        outcome = self.workspace.edited(command, before)
        self.clear_notice()
        self.say(outcome.said)
        self._show_change(outcome.touched, outcome.autosave_due)

    def _show_change(self, touched: set[str] | None, autosave_due: bool) -> None:
        self.what_if.clear()  # its shading was of the layout before the change
        self.refresh_all(racks=touched)
        if autosave_due:
            self.files.autosave_now()
        self.start_fabric_check()

    def say(self, said: Announcement | None) -> None:
        if said is not None:
            self.notify(said.message, title=said.title, severity=said.severity, timeout=10)

    def start_fabric_check(self) -> None:
        self.checks.start_fabric()

    # -- events -----------------------------------------------------------------------------

    @on(RacksView.CursorMoved)
    def _cursor_moved(self, event: RacksView.CursorMoved) -> None:
        # While a field is being typed in, the inspector keeps its entity.
        if self.workspace.moving is None and not self.inspector.editor.has_focus:
            self.update_inspector()

    @on(ProblemsPanel.Chosen)
    def _finding_chosen(self, event: ProblemsPanel.Chosen) -> None:
        self.go_to_finding(event.diagnostic, focus=event.focus)

    @on(ProblemsPanel.ApplyFix)
    def _apply_fix(self, event: ProblemsPanel.ApplyFix) -> None:
        self.guide.apply_fix()

    def go_to_finding(self, diagnostic: Any, *, focus: bool) -> None:
        session = self.session
        if session is None:
            return
        ref = subject_of(diagnostic)
        if ref is not None and ref[0] in ("site", "workload", "rules"):
            self.update_inspector(("layout", ""))  # the settings page has its keys
            return
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
            self._show_refusal(event.key)
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

    def _show_refusal(self, key: str) -> None:
        """The refusal under a field, wrapped over several lines, all in view (the field
        too): below the inspector's fold it was cut after its first line."""
        lines = self.inspector.lines_view
        row = lines.rows.get(key)
        if row is None or self.inspector.note(key) is None:
            return
        after = min((r for r in lines.rows.values() if r > row), default=len(lines.lines()))
        lines.scroll_to_line(after - 1)  # the note's last line (the next field's is after)
        lines.scroll_to_line(row)  # a note taller than the panel: the field stays
        self.inspector.place_editor()

    @on(BuildingRacksView.MoveStarted)
    def _drag_started(self, event: BuildingRacksView.MoveStarted) -> None:
        self.editing.moving(event.device)

    @on(BuildingRacksView.Dropped)
    def _dropped(self, event: BuildingRacksView.Dropped) -> None:
        self.editing.finish_move()

    @on(CatalogPanel.Chosen)
    def _catalog_chosen(self, event: CatalogPanel.Chosen) -> None:
        self.build.catalog_chosen(event.model, event.by_mouse)

    @on(CatalogPanel.DragStarted)
    def _catalog_dragged(self, event: CatalogPanel.DragStarted) -> None:
        self.header.set_state(status=f"drop {event.model} on a unit to place it")

    @on(CatalogPanel.Dragging)
    def _catalog_dragging(self, event: CatalogPanel.Dragging) -> None:
        racks = self.query_one("#racks", BuildingRacksView)
        cell = racks.cell_at_screen(event.screen_x, event.screen_y)
        self.header.set_state(status=racks.preview_entry(event.model, cell))

    @on(CatalogPanel.Dropped)
    def _catalog_dropped(self, event: CatalogPanel.Dropped) -> None:
        racks = self.query_one("#racks", BuildingRacksView)
        racks.clear_preview()
        cell = racks.cell_at_screen(event.screen_x, event.screen_y)
        plans = racks.plans()
        where = (plans[cell.rack].rack.id, cell.unit, cell.rail) if cell is not None else None
        self.build.catalog_dropped(event.model, where)

    @on(BuildingRacksView.UnitClicked)
    def _unit_clicked(self, event: BuildingRacksView.UnitClicked) -> None:
        self.build.unit_clicked(event.rack, event.unit, event.rail)

    @on(messages.LongEditDone)
    def _long_edit_done(self, event: messages.LongEditDone) -> None:
        try:
            self.long_edits.done(event)
        finally:
            self._handled()

    @on(messages.AutosaveText)
    def _autosave_text(self, event: messages.AutosaveText) -> None:
        try:
            self.files.autosave_text(event)
        finally:
            self._handled()

    @on(messages.VerifyDone)
    def _verify_done(self, event: messages.VerifyDone) -> None:
        try:
            self.verify.done(event)
        finally:
            self._handled()

    @on(messages.WhatIfDone)
    def _what_if_done(self, event: messages.WhatIfDone) -> None:
        try:
            self.what_if.done(event)
        finally:
            self._handled()

    @on(ProblemsPanel.WorkOrder)
    def _work_order(self, event: ProblemsPanel.WorkOrder) -> None:
        self.action_export_work_order()

    # -- keys: the racks view ---------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # A long edit is changing the layout in a worker: nothing reads or edits it until
        # it is done (the busy screen says what it is doing).
        if self.busy is not None:
            return False
        # The view digits are priority bindings (they must not wait for the focus to move):
        # they act only while a view has the focus (designer.md), never in a panel, a field
        # or a dialog.
        if action == "view":
            if len(self.app.screen_stack) > 1:
                return False
            focused = self.app.focused
            return focused is None or focused.id in NAMES
        if action == "clear_what_if":
            return self.what_if.active
        return True

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

    def action_zoom(self, level: int | None = None) -> None:
        """``z`` cycles the racks view's zoom; the palette names each level."""
        from rackdesigner.tui.widgets.racks_view import ZOOMS

        racks = self.racks
        if level is None:
            level = ZOOMS[(ZOOMS.index(racks.zoom) + 1) % len(ZOOMS)]
        if self.view_name != "racks":
            self.action_view("racks")
        racks.set_zoom(level)
        self.notify(f"Zoom: {racks.zoom_name()}", timeout=2)

    def action_racks_view(self) -> None:
        self.action_view("racks")

    def action_leave_problems(self) -> None:
        """Escape in the problems panel: a what-if shown goes first (the header says "esc
        clears"), else back to the racks."""
        if not self.what_if.clear():
            self.action_racks_view()

    def action_inspect(self) -> None:
        self.editing.inspect()

    def action_move(self) -> None:
        self.editing.move()

    def action_toggle_select(self) -> None:
        self.editing.toggle_select()

    def action_cancel(self) -> None:
        if self.what_if.clear():
            return
        if self.build.disarm():
            return
        self.editing.cancel()

    def action_delete(self) -> None:
        self.editing.delete()

    def action_duplicate(self) -> None:
        self.editing.duplicate()

    def action_rename(self) -> None:
        self.dialog(self.editing.rename())

    def confirm_remove_rack(self, rack: str) -> None:
        self.dialog(self.editing.confirm_remove_rack(rack))

    def action_undo(self) -> None:
        self.editing.history("undo")

    def action_redo(self) -> None:
        self.editing.history("redo")

    def action_goto(self) -> None:
        self.dialog(self.editing.goto())

    def go_to(self, target: str) -> bool:
        return self.editing.go_to(target)

    # -- keys: the views --------------------------------------------------------------------

    def action_view(self, name: str) -> None:
        """Show one of the views (keys 1-4, the view bar, the palette) and focus it."""
        if name != FIRST.name:
            self._view_widget(name)  # made the first time it is shown
        switcher = self.query_one("#views", ContentSwitcher)
        if switcher.current != name:
            switcher.current = name
        self.query_one("#view-bar", ViewBar).active = name
        self._view_shown(name)

    @on(ViewBar.Chosen)
    def _view_chosen(self, event: ViewBar.Chosen) -> None:
        self.action_view(event.name)

    def _view_shown(self, name: str) -> None:
        if name == "racks" and self.workspace.moving is None and self.view_name != "racks":
            self.update_inspector()
        self.collection.switched()
        self.view_name = name
        # Summary and topology want the whole width; racks and floor keep the inspector.
        self.query_one("#side").display = BY_NAME[name].side
        self.views.refresh_view()
        widget = self._view_widget(name)
        # At once, not after the refresh (``focus()``): the next key goes to the new view.
        self.set_focus(widget)
        if name == "floor" and self._keep_cable():
            return
        if name == "floor":
            rack = self.racks.current_rack_id()
            if rack is not None:
                self.floor.select(rack, announce=False)
            current = self.floor.current_rack_id()
            if current is not None:
                self.update_inspector(("rack", current))

    def _keep_cable(self) -> bool:
        """The floor view shown while the inspector shows a cable: the cable stays, drawn
        on the floor, the cursor on its first rack."""
        inspected = self.workspace.inspected
        if inspected is None or inspected[0] != "link":
            return False
        rack = self.routes.first_rack(inspected[1])
        if rack is not None:
            self.floor.select(rack, announce=False)
        self.routes.follow(inspected, force=True)
        return True

    def action_trace_cable(self) -> None:
        self.dialog(self.routes.trace(), exclusive=True)

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

    # The views made when first shown post these; their handlers go by Textual's names
    # (on_<widget>_<message>), so this module needs no view's class until it is shown.
    def on_floor_view_opened(self, event: FloorView.Opened) -> None:
        self.action_floor_open()

    def on_summary_view_opened(self, event: SummaryView.Opened) -> None:
        """Enter on a summary line: that rack in the racks view, in the inspector too."""
        self.action_view("racks")
        self.call_after_refresh(self._open_rack, event.rack)

    def on_power_view_opened(self, event: PowerView.Opened) -> None:
        """Enter on an element: the first rack it feeds, in the racks view and the
        inspector (its path up the chain)."""
        self.action_view("racks")
        self.call_after_refresh(self._open_rack, event.rack)

    def _open_rack(self, rack: str) -> None:
        self.racks.jump(rack, announce=False)
        self.update_inspector(("rack", rack))

    def on_floor_view_cursor_moved(self, event: FloorView.CursorMoved) -> None:
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

    def on_topology_view_chosen(self, event: TopologyView.Chosen) -> None:
        self.action_view("racks")
        self.call_after_refresh(self.go_to, event.device)

    def action_focus_problems(self) -> None:
        self.focus_problems()

    # -- keys: building, cabling, fixes -----------------------------------------------------

    def action_add_rack(self) -> None:
        self.dialog(self.build.add_rack())

    def action_duplicate_rack(self) -> None:
        self.build.duplicate_rack()

    def action_remove_rack(self) -> None:
        self.build.remove_rack()

    def action_add_feed(self) -> None:
        self.dialog(self.build.add_feed())

    def action_remove_feed(self) -> None:
        self.dialog(self.build.remove_feed())

    def action_set_cooling(self) -> None:
        self.dialog(self.build.set_cooling())

    def action_place_device(self) -> None:
        self.dialog(self.build.place_device())

    def action_focus_catalog(self) -> None:
        self.build.focus_catalog()

    def action_focus_racks(self) -> None:
        self.racks.focus()

    def action_connect(self) -> None:
        self.dialog(self.wiring.connect_dialog(), exclusive=True)

    def action_generate_fabric(self) -> None:
        self.dialog(self.wiring.generate_dialog(), exclusive=True)

    def action_new_from_template(self) -> None:
        self.dialog(self.wiring.template_dialog(), exclusive=True)

    def action_apply_fix(self) -> None:
        self.guide.apply_fix()

    # -- keys: the as-built check and failures; neither edits the layout ----------------

    def action_verify_scan(self) -> None:
        self.dialog(self.verify.verify(), exclusive=True)

    def action_export_work_order(self) -> None:
        self.dialog(self.verify.export_work_order(), exclusive=True)

    def action_clear_scan(self) -> None:
        self.verify.clear()

    def action_what_if(self) -> None:
        self.dialog(self.what_if.what_if(), exclusive=True)

    def action_clear_what_if(self) -> None:
        self.what_if.clear()

    def action_layout_settings(self) -> None:
        """The layout's name, workload, site, rules and thresholds in the inspector."""
        if self.session is None:
            return
        if self.view_name not in ("racks", "floor"):
            self.action_view("racks")
        self.update_inspector(("layout", ""), rebuild=True)
        self.inspector.focus_first()

    # -- keys: files ------------------------------------------------------------------------

    def action_save(self) -> None:
        self.dialog(self.files.save(None), exclusive=True)

    def action_save_as(self) -> None:
        self.dialog(self.files.save_as(), exclusive=True)

    def action_open(self) -> None:
        self.dialog(self.files.open(), exclusive=True)

    def action_quit(self) -> None:
        self.dialog(self.files.quit(), exclusive=True)

    async def settle_unsaved(self, what: str) -> bool:
        return await self.files.settle_unsaved(what)

    def action_help(self) -> None:
        from rackdesigner.tui.screens.help import HelpScreen

        if not isinstance(self.app.screen, HelpScreen):
            self.app.push_screen(HelpScreen(self.keymap))

    def action_export(self) -> None:
        self.dialog(self._export(), exclusive=True)

    async def _export(self) -> None:
        from rackdesigner.tui.controllers.exporting import ExportRunner

        session = self.session
        if session is None:
            return
        path = self.workspace.path
        # The dialog runs the export itself, with progress; it closes with what it wrote.
        # (Imported here: its exporters' registry is not needed for the first frame.)
        from rackdesigner.tui.screens.export import ExportScreen

        done = await self.wait_for(
            ExportScreen(
                path,
                session.layout.name,
                runner=ExportRunner(session, path),  # drawings light, as the command line's
                unsaved=self.workspace.dirty,
            )
        )
        if isinstance(done, tuple):
            message, severity = done
            self.notify(message, title="Export", severity=severity, timeout=6)
