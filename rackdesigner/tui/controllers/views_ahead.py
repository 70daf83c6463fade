"""The other views' data, kept ready: switching to a view shows it at once.

The floor is drawn from the analysis on the app's thread (cheap: a cell per rack). The
summary (report figures) and the topology outline (the fabric graph, aggregated) read the
whole layout: on 100,000 GPUs each takes about a second, so they are built in a worker,
and built *ahead*: once a check has settled, both are made for the layout as it is, so a
key that switches to them finds them ready. A view whose data is not ready for the layout
as it is now keeps showing what it showed before (marked "updating…"), or its
placeholder the first time, while the worker catches up; the key is never what waits.

A plain class given the workspace and the screen (:class:`~rackdesigner.tui.ui.DesignerUI`):
it reads the session and the view on screen, and hands that view its data
(``fill_view``). The check pipeline (``checking.CheckPipeline``) drives it. Its worker
posts one :class:`~rackdesigner.tui.messages.ViewBuilt` per view it built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rackdesigner.tui.controllers.checking import (
    CHILD_VIEWS,
    background_work,
    build_view,
    stamp_of,
)
from rackdesigner.tui.findings import marks_for
from rackdesigner.tui.messages import ViewBuilt

if TYPE_CHECKING:
    from rackdesigner.edit import Session
    from rackdesigner.tui.ui import DesignerUI
    from rackdesigner.tui.workspace import Workspace

# Built in the worker, in this order after the shown one (the same views a fabric check's
# child process builds, for a large layout).
BUILT = CHILD_VIEWS

# After an edit, wait this long for the next one before building ahead: an edit made
# while a build runs makes it wasted work (and the worker shares the app's GIL).
AHEAD_AFTER_S = 0.4


class ViewsAhead:
    """Show a view's data when switched to; build the summary and topology ahead."""

    def __init__(self, workspace: Workspace, ui: DesignerUI, *, enabled: bool = True) -> None:
        self.workspace = workspace
        self.ui = ui
        # Off in tests that do not test it: the views are then built only when shown.
        self.enabled = enabled
        self.revision: dict[str, object] = {}  # what each view last showed
        self.data: dict[str, tuple[object, object]] = {}  # name -> (stamp, data)
        self.building: set[tuple[object, str]] = set()  # (stamp, name) a worker builds
        self.shown: dict[str, object] = {}  # name -> the data object its widget shows now
        self.timer: Any = None

    def view_data(self, name: str) -> tuple[object, object] | None:
        """The last data built for view ``name`` and the stamp it was built for."""
        return self.data.get(name)

    def refresh_view(self) -> None:
        """Bring the view on screen up to date; the others are built ahead once the checks
        settle, or catch up when shown."""
        session = self.workspace.session
        if session is None:
            return
        self.schedule_ahead()
        ui = self.ui
        name = ui.view_name
        stamp = stamp_of(session)
        if name == "racks" or self.revision.get(name) == stamp:
            return
        if name == "floor":
            self.revision[name] = stamp
            marks = marks_for(session.layout, session.findings, session.index)
            ui.fill_view("floor", session.layout, session.analysis, marks)
            return
        if session.analysis is None:
            ui.fill_view(name, None, "Checking racks, power and cooling…")
            return
        found = self.view_data(name)
        if found is not None and found[0] == stamp:
            self.revision[name] = stamp
            self._show_data(name, found[1])
            ui.note_view(name, "")
            return
        if found is not None:
            # The last figures show at once, marked, until the worker has the new ones.
            if self.shown.get(name) is not found[1]:
                self._show_data(name, found[1])
            ui.note_view(name, "updating…")
        self._build(session, (name,), stamp)

    def _show_data(self, name: str, data: Any) -> None:
        self.shown[name] = data
        self.ui.fill_view(name, data)

    def schedule_ahead(self) -> None:
        if not self.enabled:
            return
        if self.timer is not None:
            self.timer.stop()
        self.timer = self.ui.set_timer(AHEAD_AFTER_S, self.build_ahead)

    def build_ahead(self) -> None:
        """Once the checks have settled: the views whose data is not for this revision."""
        self.timer = None
        session = self.workspace.session
        if session is None or session.analysis is None or session.fabric_stale:
            return  # the fabric worker's refresh comes back here when it is done
        if self.ui.busy is not None:
            return  # a long edit is changing the layout: its end refreshes and comes back
        stamp = stamp_of(session)
        names = [n for n in BUILT if (found := self.view_data(n)) is None or found[0] != stamp]
        if names:
            self._build(session, tuple(names), stamp)

    def _build(self, session: Session, names: tuple[str, ...], stamp: object) -> None:
        wanted = tuple(n for n in names if (stamp, n) not in self.building)
        if not wanted:
            return
        self.building.update((stamp, n) for n in wanted)
        self.ui.run_views_worker(lambda: self._work(session, wanted, stamp))

    def _work(self, session: Session, names: tuple[str, ...], stamp: object) -> None:
        """Build each view's data for one revision; an edit meanwhile makes it stale
        (its stamp no longer matches) and the next refresh builds again."""
        with background_work():
            analysis = session.analysis
            for name in names:
                try:
                    data: object = build_view(name, analysis)
                except Exception:  # an edit changed the layout under it: the next one retries
                    data = None
                self.ui.post_message(ViewBuilt(session, name, stamp, data))

    def adopt(self, session: Session, views: dict[str, object]) -> None:
        """The views' data a fabric check's child built, for the session as it is now (its
        fabric findings just accepted): kept as if built ahead, so no worker builds the
        fabric graph again on this side."""
        stamp = stamp_of(session)
        for name in CHILD_VIEWS:
            if name in views:
                self.data[name] = (stamp, views[name])

    def built(self, event: ViewBuilt) -> None:
        session, name, stamp, data = event.session, event.name, event.stamp, event.data
        self.building.discard((stamp, name))
        if session is not self.workspace.session:
            return
        if data is None:
            if stamp == stamp_of(session):
                self.schedule_ahead()
            return
        found = self.view_data(name)
        if found is None or found[0] != stamp_of(session) or stamp == stamp_of(session):
            self.data[name] = (stamp, data)
        if name == self.ui.view_name and stamp == stamp_of(session):
            self.revision[name] = stamp
            self._show_data(name, data)
            self.ui.note_view(name, "")
