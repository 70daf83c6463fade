"""What the controllers may ask of the screen: a narrow interface, not the app.

The main screen implements it; a controller is a plain class given the workspace and an
object of this shape, so it never imports the screen or the app. The interface speaks in
intents (jump to a device, set the status line, focus the catalog's search, shade these
devices), never in widgets: a controller is tested against a small stand-in
(``tests/tui/fake_ui.py``) that records what it was asked, and the screen is free to
draw it as it likes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.message import Message
    from textual.screen import Screen

    from rackdesigner.design.guidance import Announcement
    from rackdesigner.edit import EditError, Session
    from rackdesigner.layout_io.catalog import Catalog
    from rackdesigner.model.diagnostics import Diagnostic
    from rackdesigner.tui.messages import ViewBuilt
    from rackdesigner.tui.workspace import Question, Workspace

Done = Callable[[Any, "EditError | None"], None]


@dataclass(frozen=True)
class CursorAt:
    """Where the racks view's cursor is: the rack and device under it (None: none), the
    unit, the 0U rail it is on (None: the units), the face shown and the row's name."""

    rack: str | None = None
    device: str | None = None
    unit: int = 1
    rail: str | None = None
    face: str = "front"
    row: str = ""


class DesignerUI(Protocol):
    workspace: Workspace
    view_name: str
    busy: str | None  # what a long edit is doing, while it runs

    # -- the cursor and the racks view ------------------------------------------------------
    def cursor(self) -> CursorAt: ...
    def rack_in_view(self) -> str | None:
        """The rack under the cursor of the view on screen (the floor has its own)."""
        ...

    def jump_to(self, rack: str, device: str | None = None, *, announce: bool = False) -> None:
        """Put the racks view's cursor on ``rack`` (and ``device``), scrolled into view."""
        ...

    def redraw_racks(self, racks: set[str] | None = None) -> None:
        """Draw these racks again (None: every rack): the selection changed."""
        ...

    def start_move(self) -> str | None:
        """Lift the device under the cursor (``m``): its id, or None (no mounted device)."""
        ...

    def end_move(self) -> tuple[str, int] | None:
        """Put the lifted device down: the rack and unit it was over, or None."""
        ...

    def shade(self, shade: dict[str, str], where: dict[str, str], figures: str) -> None:
        """A what-if's shading (device -> shade, device -> rack) and its header figures;
        empty: cleared."""
        ...

    def mark_topology(self, marks: Callable[[str], str | None] | None) -> None:
        """Marks on the topology view's entries (None: none), shown when it is."""
        ...

    def focus_racks(self) -> None: ...

    # -- the panels -------------------------------------------------------------------------
    def set_status(self, text: str) -> None:
        """The header's status line ("" clears it)."""
        ...

    def set_checking(self) -> None:
        """The header says a check runs (its end refreshes the header)."""
        ...

    def focus_inspector(self) -> bool:
        """Focus the inspector's first field: False when there is none."""
        ...

    def selected_finding(self) -> Diagnostic | None:
        """The finding highlighted in the problems panel."""
        ...

    def selected_group(self) -> list[Diagnostic] | None:
        """The findings of the group whose line (``▸8×``) is highlighted; None on a
        finding's own line."""
        ...

    def focus_problems(self) -> None: ...
    def pin_findings(self, title: str, groups: list[tuple[str, list[Diagnostic]]]) -> None:
        """Findings of another source (a what-if's scenario and new findings, a scan's
        differences) pinned above the layout's in the problems panel; an empty title
        unpins them."""
        ...

    def show_catalog(self, catalog: Catalog) -> None: ...
    def focus_catalog_search(self) -> None:
        """Focus the catalog's search field (showing the racks view if it is hidden)."""
        ...

    def fill_view(self, name: str, *content: Any) -> None:
        """Hand the view ``name`` (floor, topology, summary) what it shows."""
        ...

    def note_view(self, name: str, note: str) -> None:
        """A short note on the view's border ("updating…"; "" clears it)."""
        ...

    def select_in_view(self, name: str, key: str) -> None:
        """Highlight ``key`` in the view ``name`` (the power view's element), now or once
        its data comes."""
        ...

    # -- telling and asking -----------------------------------------------------------------
    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None: ...
    def bell(self) -> None: ...
    def wait_for(self, screen: Screen[Any]) -> Awaitable[Any]: ...
    def ask(self, question: Question) -> Awaitable[str | None]: ...
    def dialog(self, flow: Coroutine[Any, Any, Any], *, exclusive: bool = False) -> None: ...
    def post_message(self, message: Message) -> bool: ...
    def post_result(self, message: Message) -> None: ...

    # -- editing and showing ----------------------------------------------------------------
    def do(self, command: Any, *, quiet: bool = False) -> str | None: ...
    def after_change(self, command: Any) -> None: ...
    def after_edit(self, command: Any, before: tuple[Diagnostic, ...]) -> None: ...
    def say(self, said: Announcement | None) -> None: ...
    def use_session(self, session: Session, path: str | None) -> None: ...
    def refresh_all(self, *, full: bool = False, racks: set[str] | None = None) -> None: ...
    def update_header(self) -> None: ...
    def update_inspector(self, ref: Any = None, *, rebuild: bool = False) -> None: ...
    def show_view(self, name: str) -> None: ...
    def show_route(self, route: Any) -> None:
        """Draw a cable's route (design.cable_route.FloorRoute) on the floor view; None
        clears it."""

    def run_long_edit(
        self, title: str, detail: str, job: Callable[[], Any], done: Done
    ) -> None: ...
    def start_fabric_check(self) -> None: ...
    def settle_unsaved(self, what: str) -> Awaitable[bool]: ...
    def confirm_remove_rack(self, rack: str) -> None: ...
    def run_thread(self, job: Callable[[], None], *, group: str, exclusive: bool) -> None: ...
    def run_views_worker(self, job: Callable[[], None]) -> None: ...
    def cancel_group(self, group: str) -> None: ...
    def exit(self) -> None: ...
    def open_path(self, path: str | None) -> None: ...
    def start_empty(self, path: str | None) -> None: ...
    def running(self, group: str) -> bool: ...
    def show_screen(self, screen: Screen[Any]) -> None: ...
    def set_timer(self, delay: float, callback: Callable[[], Any]) -> Any: ...
    def after_refresh(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` once the screen has been drawn with what is pending."""
        ...


class ViewsData(Protocol):
    """The views' data built ahead (``views_ahead.ViewsAhead``), as the check pipeline
    (``checking.CheckPipeline``) drives it."""

    building: set[tuple[object, str]]  # (stamp, view) being built by a worker

    def view_data(self, name: str) -> tuple[object, object] | None: ...
    def adopt(self, session: Session, views: dict[str, object]) -> None: ...
    def built(self, event: ViewBuilt) -> None: ...
    def refresh_view(self) -> None: ...
