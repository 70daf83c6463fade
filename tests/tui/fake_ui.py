"""A stand-in for the main screen, for testing controllers without Textual.

:class:`FakeUI` is a :class:`~rackdesigner.tui.ui.DesignerUI`: it records what a controller
asked for (the notices, the status line, where the cursor jumped, what got the focus, the
shading, the views' content), edits through the real workspace as the screen does, runs
thread jobs at once and hands their result messages to ``handle``, and answers dialogs
from ``answers`` in order. ``test_controllers.py`` holds it to the protocol: every member
the controllers may use is here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import replace
from typing import Any

from rackdesigner.tui.ui import CursorAt
from rackdesigner.tui.workspace import Outcome, Workspace


class FakeUI:
    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.view_name = "racks"
        self.busy: str | None = None
        self.at = CursorAt()  # the racks view's cursor (tests set it; jump_to moves it)
        self.floor_rack: str | None = None  # the floor view's cursor
        self.drop_at: tuple[str, int] | None = None  # where a lifted device is over
        self.lifted: str | None = None
        self.finding: Any = None  # the problems panel's highlighted finding
        self.group: Any = None  # the findings of a highlighted group line
        self.answers: list[Any] = []  # what the dialogs answer, in order
        self.asked: list[Any] = []  # the dialogs (screens, questions) shown
        self.notices: list[tuple[str, str]] = []  # (severity, "title: text")
        self.status = ""
        self.checking = False
        self.jumps: list[tuple[str, str | None]] = []
        self.focused: str | None = None  # "racks", "inspector", "problems", "catalog search"
        self.redrawn: list[set[str] | None] = []
        self.shading: tuple[dict[str, str], dict[str, str], str] = ({}, {}, "")
        self.topology_marks: Any = None
        self.pinned: tuple[str, list[Any]] = ("", [])
        self.catalog: Any = None
        self.views: dict[str, tuple[Any, ...]] = {}
        self.view_notes: dict[str, str] = {}
        self.selected_in_view: list[tuple[str, str]] = []
        self.inspected: list[Any] = []
        self.routes: list[Any] = []  # the cable routes drawn on the floor (None: cleared)
        self.refreshed = 0  # refresh_all calls (a change shown)
        self.fabric_checks = 0  # start_fabric_check calls
        self.threads: list[str] = []  # the group of each thread job started
        self.results: list[Any] = []  # messages the jobs posted back
        self.handle: Callable[[Any], None] = self.results.append
        self.timers: list[tuple[float, Callable[[], Any]]] = []

    # -- the cursor and the racks view ------------------------------------------------------

    def cursor(self) -> CursorAt:
        return self.at

    def rack_in_view(self) -> str | None:
        return (self.floor_rack if self.view_name == "floor" else None) or self.at.rack

    def jump_to(self, rack: str, device: str | None = None, *, announce: bool = False) -> None:
        self.jumps.append((rack, device))
        self.at = replace(self.at, rack=rack, device=device)

    def redraw_racks(self, racks: set[str] | None = None) -> None:
        self.redrawn.append(racks)

    def start_move(self) -> str | None:
        self.lifted = self.at.device
        return self.lifted

    def end_move(self) -> tuple[str, int] | None:
        lifted, self.lifted = self.lifted, None
        return self.drop_at if lifted is not None else None

    def shade(self, shade: dict[str, str], where: dict[str, str], figures: str) -> None:
        self.shading = (shade, where, figures)

    def mark_topology(self, marks: Any) -> None:
        self.topology_marks = marks

    def focus_racks(self) -> None:
        self.focused = "racks"

    # -- the panels -------------------------------------------------------------------------

    def set_status(self, text: str) -> None:
        self.status = text

    def set_checking(self) -> None:
        self.checking = True

    def focus_inspector(self) -> bool:
        self.focused = "inspector"
        return self.workspace.inspected is not None

    def selected_finding(self) -> Any:
        return self.finding

    def selected_group(self) -> Any:
        return self.group

    def focus_problems(self) -> None:
        self.focused = "problems"

    def pin_findings(self, title: str, groups: list[Any]) -> None:
        self.pinned = (title, groups)

    def show_catalog(self, catalog: Any) -> None:
        self.catalog = catalog

    def focus_catalog_search(self) -> None:
        self.focused = "catalog search"

    def fill_view(self, name: str, *content: Any) -> None:
        self.views[name] = content

    def note_view(self, name: str, note: str) -> None:
        self.view_notes[name] = note

    # -- telling and asking -----------------------------------------------------------------

    def notify(
        self, message: str, *, title: str = "", severity: str = "information", **_: Any
    ) -> None:
        self.notices.append((severity, f"{title}: {message}" if title else message))

    def bell(self) -> None:
        self.notices.append(("bell", ""))

    async def wait_for(self, screen: Any) -> Any:
        self.asked.append(screen)
        return self.answers.pop(0) if self.answers else None

    async def ask(self, question: Any) -> str | None:
        answer: str | None = await self.wait_for(question)
        return answer

    def dialog(self, flow: Coroutine[Any, Any, Any], *, exclusive: bool = False) -> None:
        asyncio.run(flow)  # the answers are ready: it runs to its end now

    def post_message(self, message: Any) -> bool:
        self.handle(message)
        return True

    def post_result(self, message: Any) -> None:
        self.handle(message)

    # -- editing and showing ----------------------------------------------------------------

    def _shown(self, outcome: Outcome) -> str | None:
        if not outcome.applied:
            return outcome.refusal
        self.say(outcome.said)
        self.refresh_all(racks=outcome.touched)
        self.start_fabric_check()
        return None

    def do(self, command: Any, *, quiet: bool = False) -> str | None:
        outcome = self.workspace.do(command)
        if not outcome.applied and not quiet:
            self.notify(str(outcome.error), title="Refused", severity="error")
        return self._shown(outcome)

    def after_change(self, command: Any) -> None:
        self._shown(self.workspace.changed(command))

    def after_edit(self, command: Any, before: tuple[Any, ...]) -> None:
        self._shown(self.workspace.edited(command, before))

    def say(self, said: Any) -> None:
        if said is not None:
            self.notify(said.message, title=said.title, severity=said.severity)

    def use_session(self, session: Any, path: str | None) -> None:
        self.workspace.use(session, path)
        self.refresh_all(full=True)

    def refresh_all(self, *, full: bool = False, racks: set[str] | None = None) -> None:
        self.refreshed += 1

    def update_header(self) -> None:
        pass

    def update_inspector(self, ref: Any = None, *, rebuild: bool = False) -> None:
        at = self.at
        if ref is None:
            ref = ("device", at.device) if at.device else ("rack", at.rack) if at.rack else None
        self.workspace.inspected = ref
        self.inspected.append(ref)

    def show_view(self, name: str) -> None:
        self.view_name = name

    def show_route(self, route: Any) -> None:
        self.routes.append(route)

    def select_in_view(self, name: str, key: str) -> None:
        self.selected_in_view.append((name, key))

    def run_long_edit(self, title: str, detail: str, job: Callable[[], Any], done: Any) -> None:
        from rackdesigner.edit import EditError

        try:
            result = job()
        except EditError as error:
            done(None, error)
        else:
            done(result, None)

    def start_fabric_check(self) -> None:
        self.fabric_checks += 1

    def settle_unsaved(self, what: str) -> Awaitable[bool]:
        async def settled() -> bool:
            return bool(self.answers.pop(0)) if self.answers else True

        return settled()

    def confirm_remove_rack(self, rack: str) -> None:
        self.asked.append(("remove rack", rack))

    def run_thread(self, job: Callable[[], None], *, group: str, exclusive: bool) -> None:
        self.threads.append(group)
        job()

    def run_views_worker(self, job: Callable[[], None]) -> None:
        self.run_thread(job, group="views", exclusive=False)

    def cancel_group(self, group: str) -> None:
        pass

    def exit(self) -> None:
        self.notices.append(("exit", ""))

    def open_path(self, path: str | None) -> None:
        self.asked.append(("open", path))

    def start_empty(self, path: str | None) -> None:
        self.asked.append(("start empty", path))

    def running(self, group: str) -> bool:
        return False

    def show_screen(self, screen: Any) -> None:
        self.asked.append(screen)

    def after_refresh(self, callback: Callable[[], None]) -> None:
        callback()  # nothing to draw first

    def set_timer(self, delay: float, callback: Callable[[], Any]) -> Any:
        self.timers.append((delay, callback))
        return _Timer()


class _Timer:
    def stop(self) -> None:
        pass
