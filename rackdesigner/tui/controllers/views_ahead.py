"""The other views' data, kept ready: switching to a view shows it at once.

The floor is drawn from the analysis on the app's thread (cheap: a cell per rack). The
summary (report figures) and the topology outline (the fabric graph, aggregated) read the
whole layout: on 100,000 GPUs each takes about a second, so they are built in a worker,
and built *ahead*: once a check has settled, both are made for the layout as it is, so a
key that switches to them finds them ready. A view whose data is not ready for the layout
as it is now keeps showing what it showed before (marked "updating…"), or its
placeholder the first time, while the worker catches up; the key is never what waits.

A mixin of :class:`~rackdesigner.tui.app.DesignerApp`: it reads ``session``,
``view_name`` and the view widgets, and nothing else of the app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work
from textual.timer import Timer

from rackdesigner.tui.controllers.checking import in_background
from rackdesigner.tui.findings import marks_for

if TYPE_CHECKING:
    from rackdesigner.edit import Session
    from rackdesigner.tui.app import DesignerApp

# Built in the worker, in this order after the shown one.
BUILT = ("summary", "topology")

# After an edit, wait this long for the next one before building ahead: an edit made
# while a build runs makes it wasted work (and the worker shares the app's GIL).
AHEAD_AFTER_S = 0.4


def stamp_of(session: Session) -> tuple[object, ...]:
    """What a view's content depends on: the session, its revision and its checks."""
    return (id(session), session.revision, session.analysis is None, session.fabric_stale)


def build_view(name: str, analysis: Any) -> object:
    """A view's data, off the app's thread: the summary or the fabric outline."""
    if name == "summary":
        from rackdesigner.report.summary import summarise

        return summarise(analysis)
    from rackdesigner.export.render.topology_outline import outline

    return outline(analysis)


class ViewsAhead:
    """Show a view's data when switched to; build the summary and topology ahead."""

    _view_revision: dict[str, object]

    def _ahead_state(self: DesignerApp) -> dict[str, Any]:
        state = self.__dict__.get("_views_ahead")
        if state is None:
            # data: name -> (stamp, data); building: names a worker is building, by stamp
            # shown: name -> the data object its widget shows now
            state = {"data": {}, "building": set(), "timer": None, "shown": {}}
            self.__dict__["_views_ahead"] = state
        return state

    def view_data(self: DesignerApp, name: str) -> tuple[object, object] | None:
        """The last data built for view ``name`` and the stamp it was built for."""
        found: tuple[object, object] | None = self._ahead_state()["data"].get(name)
        return found

    def refresh_view(self: DesignerApp) -> None:
        """Bring the view on screen up to date; the others are built ahead once the checks
        settle, or catch up when shown."""
        session = self.session
        if session is None:
            return
        self._schedule_ahead()
        name = self.view_name
        stamp = stamp_of(session)
        if name == "racks" or self._view_revision.get(name) == stamp:
            return
        if name == "floor":
            self._view_revision[name] = stamp
            marks = marks_for(session.layout, session.findings, session.index)
            self.floor.show(session.layout, session.analysis, marks)
            return
        widget = self.summary if name == "summary" else self.topology
        if session.analysis is None:
            waiting = "Checking racks, power and cooling…"
            if name == "summary":
                self.summary.show(None, waiting)
            else:
                self.topology.show(None, waiting)
            return
        found = self.view_data(name)
        if found is not None and found[0] == stamp:
            self._view_revision[name] = stamp
            self._show_data(name, found[1])
            widget.border_subtitle = ""
            return
        if found is not None:
            # The last figures show at once, marked, until the worker has the new ones.
            if self._ahead_state()["shown"].get(name) is not found[1]:
                self._show_data(name, found[1])
            widget.border_subtitle = "updating…"
        self._build(session, (name,), stamp)

    def _show_data(self: DesignerApp, name: str, data: Any) -> None:
        self._ahead_state()["shown"][name] = data
        if name == "summary":
            self.summary.show(data)
        else:
            self.topology.show(data)

    def _schedule_ahead(self: DesignerApp) -> None:
        state = self._ahead_state()
        timer: Timer | None = state["timer"]
        if timer is not None:
            timer.stop()
        state["timer"] = self.set_timer(AHEAD_AFTER_S, self._build_ahead)

    def _build_ahead(self: DesignerApp) -> None:
        """Once the checks have settled: the views whose data is not for this revision."""
        state = self._ahead_state()
        state["timer"] = None
        session = self.session
        if session is None or session.analysis is None or session.fabric_stale:
            return  # the fabric worker's refresh comes back here when it is done
        if self.busy is not None:
            return  # a long edit is changing the layout: its end refreshes and comes back
        stamp = stamp_of(session)
        names = [n for n in BUILT if (found := self.view_data(n)) is None or found[0] != stamp]
        if names:
            self._build(session, tuple(names), stamp)

    def _build(self: DesignerApp, session: Session, names: tuple[str, ...], stamp: object) -> None:
        building: set[tuple[object, str]] = self._ahead_state()["building"]
        wanted = tuple(n for n in names if (stamp, n) not in building)
        if not wanted:
            return
        building.update((stamp, n) for n in wanted)
        self.views_worker(session, wanted, stamp)

    @work(thread=True, group="views")
    @in_background
    def views_worker(
        self: DesignerApp, session: Session, names: tuple[str, ...], stamp: object
    ) -> None:
        """Build each view's data for one revision; an edit meanwhile makes it stale
        (its stamp no longer matches) and the next refresh builds again."""
        analysis = session.analysis
        for name in names:
            try:
                data: object = build_view(name, analysis)
            except Exception:  # an edit changed the layout under it: the next one retries
                data = None
            self.call_from_thread(self._view_built, session, name, stamp, data)

    def _view_built(
        self: DesignerApp, session: Session, name: str, stamp: object, data: object
    ) -> None:
        state = self._ahead_state()
        state["building"].discard((stamp, name))
        if session is not self.session:
            return
        if data is None:
            if stamp == stamp_of(session):
                self._schedule_ahead()
            return
        found = self.view_data(name)
        if found is None or found[0] != stamp_of(session) or stamp == stamp_of(session):
            state["data"][name] = (stamp, data)
        if name == self.view_name and stamp == stamp_of(session):
            self._view_revision[name] = stamp
            self._show_data(name, data)
            widget = self.summary if name == "summary" else self.topology
            widget.border_subtitle = ""
