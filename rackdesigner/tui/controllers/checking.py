"""The check pipeline of the open layout, and how its workers share the interpreter.

:class:`CheckPipeline` owns the checks that run after a layout is opened or edited: the
first check (racks, power and cooling, once the racks are drawn), the fabric job (here or
in a child process, :class:`FabricChecks`), the hold on a child's results that come before
the first check is done, and the other views' data (``views_ahead``). Every result the
screen should show comes to it as one
:class:`~rackdesigner.tui.messages.FindingsChanged`; the screen shows it and runs no
check itself.

Keys stay answered while a load or a check runs in a worker thread.

The checks are pure Python and hold the GIL; the app's thread gets it in turns. Two things
made a key wait far longer than its own work (measured on 100,000 GPUs):

- The garbage collector. A load and a check create millions of long-lived objects, so the
  collector keeps starting full collections, each one C call that walks every object and
  holds the GIL for 0.2–0.5 s. Load and check make almost no cyclic garbage (a few hundred
  objects on 100,000 GPUs), so automatic collection is off while they run. When the last
  one ends after making a great many objects (a large layout's facts, its fabric graph),
  they are frozen (``gc.freeze``) before collection resumes: otherwise the first collection
  walks them all at once, the same pause again. Small work is left to the collector.
- The switch interval. The app's thread gives the GIL up at every ``select`` and every
  write to the terminal, and then waits for the worker to be told to drop it: up to
  ``sys.getswitchinterval()`` (5 ms) each time, a few dozen times per key. While a worker
  runs, the interval is 0.5 ms.

Both are process-wide, so they are counted: the first worker in sets them, the last out
restores them. The collector's pause is the commands' own
(:func:`rackdesigner.model.collector.collection_paused`); its freezes and the collection
after view switches go through that module too.

The fabric rules of a large layout do not share the interpreter at all: :class:`FabricChecks`
runs them in a child process (:mod:`rackdesigner.edit.remote_check`), which also builds the
summary's and the topology outline's data from its analysis (:func:`views_of`), so that
the app never builds the fabric graph. Even with the collector off and a short switch
interval, the rules in a thread made a key wait 0.2–1.6 s on 100,000 GPUs
(bench/README.md). The child of a file just opened starts with the first check, from the text as
read (:meth:`FabricChecks.early_job`), and its findings wait for that check's end
(:meth:`FabricChecks.hold`); its findings come before its views' data, which the app's own
worker does not build meanwhile (:meth:`FabricChecks.mark_views`). Small layouts keep the
thread: a child costs a process start and the layout written out and read again, more
than their whole fabric check (see ``REMOTE_FROM_LINKS``).
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from rackdesigner.model.collector import collect, collection_paused, freeze

# Nothing of Textual at the top: the check's child process imports this module (views_of).
if TYPE_CHECKING:
    from rackdesigner.edit import FabricJob, Session
    from rackdesigner.edit.remote_check import CheckProcess
    from rackdesigner.tui.messages import FabricDone, FabricViews, FirstCheckDone, ViewBuilt
    from rackdesigner.tui.ui import DesignerUI, ViewsData
    from rackdesigner.tui.workspace import Workspace

P = ParamSpec("P")
R = TypeVar("R")

# Layouts with at least this many cables check their fabric in a child process. Below it
# the thread is faster: on 8,192 GPUs (16,384 cables) the whole fabric check takes 0.2 s,
# less than writing the layout out and reading it again in a child; on 100,000 GPUs
# (150,000 cables) it takes 5 s and kept keys waiting (measured, bench/README.md).
REMOTE_FROM_LINKS = 20_000

# A file this large may well reach REMOTE_FROM_LINKS (20,000 cables are about 1.8 MB of
# TOML): its load starts the child processes' server first (FabricChecks.warm_up).
WARM_UP_FROM_BYTES = 1_000_000

# The views a child builds with the fabric findings (views_ahead's, built ahead).
CHILD_VIEWS = ("summary", "topology")

# Imported once by the forkserver, so that a child starts with them: what views_of needs.
VIEWS_PRELOAD = (
    "rackdesigner.tui.controllers.checking",
    "rackdesigner.report.summary",
    "rackdesigner.export.render.topology_outline",
)

# How long the app's thread waits for the GIL while a worker holds it.
FAIR_SWITCH_S = 0.0005

_lock = threading.Lock()
_depth = 0
_interval = 0.005  # the switch interval before the first worker came in


@contextmanager
def background_work() -> Iterator[None]:
    """Run a load or check under this: no automatic collections (and a great many objects
    made frozen at the end: :func:`~rackdesigner.model.collector.collection_paused`, the
    one pause of the commands and the designer), a short switch interval."""
    global _depth, _interval
    with _lock:
        if _depth == 0:
            _interval = sys.getswitchinterval()
            sys.setswitchinterval(FAIR_SWITCH_S)
        _depth += 1
    try:
        with collection_paused():
            yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                sys.setswitchinterval(_interval)


def busy() -> bool:
    """Whether a worker is inside :func:`background_work` now."""
    return _depth > 0


def in_background(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` (a thread worker's body) run under :func:`background_work`."""

    @functools.wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with background_work():
            return function(*args, **kwargs)

    return run


def warm_up(session: Session) -> None:
    """Compute, in the worker, what the app's thread reads first once a check is done:
    the findings in order and the header's site figures (each a pass over the layout)."""
    from rackdesigner.tui.totals import site_figures

    session.findings  # noqa: B018 - sorts and publishes them
    if session.analysis is not None:
        site_figures(session.analysis)


# -- the fabric check, here or in a child process --------------------------------------------


def build_view(name: str, analysis: Any) -> object:
    """A view's data, off the app's thread: the summary, the power chain or the fabric
    outline."""
    if name == "summary":
        from rackdesigner.report.summary import summarise

        return summarise(analysis)
    if name == "power":
        from rackdesigner.tui.power_rows import chain_view

        return chain_view(analysis)
    from rackdesigner.export.render.topology_outline import outline

    return outline(analysis)


def views_of(analysis: Any) -> dict[str, object]:
    """In the check's child: the views' data from its analysis (plain data, pickled back)."""
    return {name: build_view(name, analysis) for name in CHILD_VIEWS}


class FabricChecks:
    """Where the fabric rules run: in the worker's thread, or for a large layout in a
    child process kept by this object (started on first use, killed by :meth:`close`)."""

    def __init__(self, remote_from: int | None = None) -> None:
        self.remote_from = REMOTE_FROM_LINKS if remote_from is None else remote_from
        self.process: CheckProcess | None = None
        self.child_peak_mb = 0.0  # the largest peak memory of a child so far (the bench)
        # The early job (started from the file's text as the first check starts): the
        # session it is for while it runs, and its result (a FabricDone) when it came
        # back before the first check was done, for the app to take when that is.
        self.early_for: Session | None = None
        self.parked: list[Any] = []
        # The (stamp, view) pairs marked as being built while a child builds them (its
        # findings came first): the app's own worker does not build them meanwhile.
        self.views_marked: set[tuple[object, str]] = set()

    def warm_up(self, path: str) -> None:
        """Before a large file is read (in the load worker): start the child processes'
        server while this process is still small (see ``CheckProcess.warm_up``)."""
        try:
            large = os.path.getsize(path) >= WARM_UP_FROM_BYTES
        except OSError:
            return
        if large:
            self._process().warm_up()

    def _process(self) -> CheckProcess:
        from rackdesigner.edit.remote_check import CheckProcess

        if self.process is None:
            self.process = CheckProcess(preload=VIEWS_PRELOAD)
        return self.process

    def remote(self, session: Session) -> bool:
        return len(session.layout.links) >= self.remote_from

    def early_job(self, session: Session) -> FabricJob | None:
        """The fabric job to start with the first check (before it, not after): a large
        layout's, from the text as read, which a child parses and checks while the app's
        worker checks racks, power and cooling. None for a small layout (its thread needs
        the first check's analysis) or a layout not as read (a recovered autosave)."""
        if not self.remote(session):
            return None
        return session.source_fabric_job()

    def run(
        self,
        session: Session,
        job: FabricJob | None = None,
        findings: Callable[[FabricJob], None] | None = None,
    ) -> FabricJob | None:
        """The fabric job of the session's layout as it is now (or ``job``, an
        :meth:`early_job`), run (in a worker thread): None when a newer job superseded it
        or the app is quitting. In a child, ``findings(job)`` is called as soon as the
        findings are back, before the views' data (see ``remote_check.fabric_outcome``)."""
        from rackdesigner.edit.remote_check import run_remote

        if job is None:
            if not self.remote(session):
                return session.fabric_job().run()
            job = session.fabric_job(remote=True)
        if not run_remote(self._process(), job, views_of, findings):
            return None
        self.child_peak_mb = max(self.child_peak_mb, job.peak_mb)
        return job

    def start_early(self, session: Session) -> None:
        """The session's early job starts: its results wait for the first check."""
        self.early_for, self.parked = session, []

    def hold(self, event: Any) -> bool:
        """Keep a FabricDone or FabricViews that came back before its session's first
        check was done (the findings need that check's analysis): True when it is kept."""
        if self.early_for is None or event.session is not self.early_for:
            return False
        self.parked.append(event)
        return True

    def after_first_check(self, session: Session) -> list[Any] | None:
        """What the app does once the session's first check is done: the early job's
        results to take (FabricDone, FabricViews), in order (none yet while it runs), or
        None: no early job, or it was cancelled, so the fabric check starts now."""
        early, parked = self.early_for is session, self.parked
        self.early_for, self.parked = None, []
        if not early or (parked and parked[0].job is None):
            return None
        return parked

    def mark_views(self, building: set[tuple[object, str]], stamp: object) -> None:
        """The child builds the views for ``stamp``: mark them in the views' ``building``
        set, so that the app's worker does not build them too meanwhile."""
        self.unmark_views(building)
        self.views_marked = {(stamp, name) for name in CHILD_VIEWS}
        building.update(self.views_marked)

    def unmark_views(self, building: set[tuple[object, str]]) -> None:
        building.difference_update(self.views_marked)
        self.views_marked = set()

    def supersede(self) -> None:
        """A newer edit: the running child's answer is not wanted (it is killed)."""
        self.early_for, self.parked = None, []
        if self.process is not None:
            self.process.supersede()

    def close(self) -> None:
        if self.process is not None:
            self.process.close()


# -- the pipeline: first check, fabric job, its hold, the views' data ----------------------


def stamp_of(session: Session) -> tuple[object, ...]:
    """What a view's content depends on: the session, its revision and its checks."""
    return (id(session), session.revision, session.analysis is None, session.fabric_stale)


def _cancelled() -> bool:
    """Whether the worker running this was cancelled (False outside a Textual worker)."""
    from textual.worker import NoActiveWorker, get_current_worker

    try:
        return get_current_worker().is_cancelled
    except NoActiveWorker:
        return False


class CheckPipeline:
    """The checks of the open layout, in order, off the app's thread: the first check once
    the racks are drawn, then the fabric job (a large layout's starts with the first check
    in a child process, and what it sends back first is held until that check is done),
    then the views' data. The screen hands it the workers' messages and shows what it
    posts: one :class:`~rackdesigner.tui.messages.FindingsChanged` per result to show."""

    def __init__(
        self,
        workspace: Workspace,
        ui: DesignerUI,
        views: ViewsData,
        fabric: FabricChecks | None = None,
    ) -> None:
        self.workspace = workspace
        self.ui = ui
        self.views = views
        self.fabric = fabric if fabric is not None else FabricChecks()
        # Checks that wait for the screen to be drawn first: a layout just opened waits for
        # its racks before its first check, and the first findings are on screen before
        # the fabric rules start (the worker would share the interpreter with the paint).
        self.waiting = 0
        self._views_frozen: Session | None = None  # the session whose views were frozen

    # -- the first check --------------------------------------------------------------------

    def opened(self, session: Session) -> bool:
        """``session`` is on screen now: True when its first check is due (it starts once
        the racks are drawn), else its fabric check starts."""
        if session.analysis is None:
            self._after_paint(lambda: self.start_first_check(session))
            return True
        self.start_fabric()
        return False

    def _after_paint(self, start: Callable[[], None]) -> None:
        self.waiting += 1

        def now() -> None:
            self.waiting -= 1
            start()

        self.ui.after_refresh(now)

    def start_first_check(self, session: Session) -> None:
        """Racks, power and cooling in the check worker; a large layout's fabric job starts
        beside it in a child process, from the file's text."""
        if session is not self.workspace.session or session.analysis is not None:
            return
        early = self.fabric.early_job(session)
        if early is not None:  # the child parses and checks while this check runs
            self.fabric.start_early(session)
            self.ui.run_thread(
                lambda: self._fabric_worker(session, early), group="fabric", exclusive=True
            )
        self.ui.run_thread(lambda: self._first_check(session), group="check", exclusive=True)

    def _first_check(self, session: Session) -> None:
        """Racks, power and cooling of a layout just opened; the fabric rules follow in
        their own worker. An edit made meanwhile waits for the session's lock."""
        from rackdesigner.tui.messages import FirstCheckDone

        try:
            with background_work():
                session.check_fast()
                warm_up(session)
        finally:
            self.ui.post_result(FirstCheckDone(session))

    def first_check_done(self, event: FirstCheckDone) -> None:
        # A large layout and its analysis are millions of long-lived objects; every full
        # garbage collection would walk them all (tens of ms per key on 100,000 GPUs). Move
        # what exists now out of the collector's sight: new objects are still collected.
        freeze()
        session = event.session
        if session is not self.workspace.session:
            return
        self._changed(session, first=True)
        early = self.fabric.after_first_check(session)
        if early is None:
            self._after_paint(self.start_fabric)  # the findings first on screen
        from rackdesigner.tui.messages import FabricViews

        for result in early or ():  # the early job's, which came back first
            if isinstance(result, FabricViews):
                self.fabric_views(result)
            else:
                self.fabric_done(result)

    # -- the fabric job ---------------------------------------------------------------------

    def start_fabric(self) -> None:
        """The fabric rules of the layout as it is, when they are due (in a worker)."""
        session = self.workspace.session
        if session is None or not self.workspace.fabric_due():
            return
        self.ui.set_checking()
        self.fabric.supersede()  # a child still checking an older layout is killed
        self.ui.run_thread(lambda: self._fabric_worker(session), group="fabric", exclusive=True)

    def _fabric_worker(self, session: Session, early: FabricJob | None = None) -> None:
        """The fabric rules read the whole cable graph: run them off the main thread. The
        job's copy of the analysis (150,000 cables' table on 100,000 GPUs) is taken here
        too, under the session's lock (an edit waits for it, a key does not). A child's
        findings are posted as they come, its views' data after them."""
        from rackdesigner.tui.messages import FabricDone, FabricViews

        job = None
        ahead = False

        def findings(found: FabricJob) -> None:
            nonlocal ahead
            ahead = True
            self.ui.post_result(FabricDone(session, found, views_follow=True))

        try:
            with background_work():
                job = self.fabric.run(session, early, findings)
        finally:
            cancelled = job is None or _cancelled()
            if cancelled and job is not None:
                job.release()
            done = None if cancelled else job
            if ahead:
                self.ui.post_result(FabricViews(session, done))
            else:
                self.ui.post_result(FabricDone(session, done))

    def fabric_done(self, event: FabricDone) -> None:
        """The fabric findings back: taken if they are of the layout as it is."""
        if self.fabric.hold(event):
            return  # the early job's, before the first check: taken when that is done
        session, job = event.session, event.job
        if job is None or session is not self.workspace.session:
            return
        if self.ui.busy is not None:
            # A long edit holds the session (taking its lock here would freeze the app) and
            # changes the layout: the check starts again once it is done.
            return
        result = self.workspace.fabric_done(session, job)
        if result.accepted:
            if event.views_follow:  # the child builds them still: not here meanwhile
                self.fabric.mark_views(self.views.building, stamp_of(session))
            self.views.adopt(session, job.views)  # a child's summary and outline
            self.freeze_views(session)
            self._changed(session, said=result.said)
        elif result.failed is not None:
            self._changed(session, failed=result.failed)
        elif result.again:
            self.start_fabric()  # the layout changed while it ran: check it again
        else:
            self._changed(session)  # refused: the header's "checking…" goes

    def fabric_views(self, event: FabricViews) -> None:
        """The child's views after its findings: kept if they are of the layout as it is
        (else, or without them, the views' worker builds them as for a small layout)."""
        if self.fabric.hold(event):
            return
        self.fabric.unmark_views(self.views.building)
        session, job = event.session, event.job
        if session is not self.workspace.session:
            return
        current = job is not None and job.revision == session.revision and job.views
        if job is not None and current and not session.fabric_stale and not session.fabric_error:
            self.views.adopt(session, job.views)
            self.freeze_views(session)  # they come after the findings now
        self.views.refresh_view()

    # -- the views' data --------------------------------------------------------------------

    def view_built(self, event: ViewBuilt) -> None:
        self.views.built(event)
        self.freeze_views(event.session)

    def freeze_views(self, session: Session) -> None:
        """Once per file, as after the first check: the summary and topology, built ahead
        here or by the fabric check's child, are long-lived too. A full collection that
        walked them took 35 ms of a view switch on 100,000 GPUs; one over what a child's
        results left unfrozen (networkx's modules among them) 10–20 ms."""
        if session is self.workspace.session and session is not self._views_frozen:
            stamp = stamp_of(session)
            views = self.views
            if all((found := views.view_data(n)) and found[0] == stamp for n in CHILD_VIEWS):
                self._views_frozen = session
                freeze()

    def close(self) -> None:
        """Quitting: a fabric check's child process goes now, not when it finishes."""
        self.fabric.close()

    def _changed(self, session: Session, **news: Any) -> None:
        from rackdesigner.tui.messages import FindingsChanged

        self.ui.post_result(FindingsChanged(session, **news))


# -- collecting after view switches --------------------------------------------------------

# Views switched, and no switch since for this long: collect the garbage of their repaints
# then. Textual's strips keep themselves in their own caches (cycles only a collection
# frees); left to the collector's own timing, a full collection over them fell inside a
# switch (10-30 ms at 100,000 GPUs).
COLLECT_AFTER_SWITCH_S = 0.8


class CollectAfterSwitches:
    """One full collection once view switching has paused, not one inside a switch.
    ``set_timer(delay, callback)`` makes a one-shot timer (the screen's); ``collect`` is
    the collection (both given so that a test drives them, with no clock)."""

    def __init__(
        self,
        set_timer: Callable[[float, Callable[[], None]], Any],
        collect: Callable[[], object] = collect,
    ) -> None:
        self.set_timer = set_timer
        self.collect = collect
        self.timer: Any = None

    def switched(self) -> None:
        """A view was switched: the collection waits for the next pause."""
        if self.timer is not None:
            self.timer.stop()
        self.timer = self.set_timer(COLLECT_AFTER_SWITCH_S, self._paused)

    def _paused(self) -> None:
        self.timer = None
        self.collect()
