"""Edits too large for the UI thread: a generated fabric of 300,000 cables takes the core
seconds to apply, re-check and undo. A mixin of :class:`~rackdesigner.tui.app.DesignerApp`:
the edit runs in a thread worker behind :class:`BusyScreen`, every action waits for it
(``check_action``), and the views are updated on the UI thread once it is done.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import work

from rackdesigner.tui.screens.busy import BusyScreen

if TYPE_CHECKING:
    from rackdesigner.edit import Command, EditError
    from rackdesigner.tui.app import DesignerApp

# Entities one step changes (cables, devices, racks: Command.size) from which an edit runs
# off the UI thread. The core applies and re-checks about 10,000 cables a second: at this
# size a step takes about a tenth of a second, as long as a key may.
LONG_EDIT_COMMANDS = 1_000

Done = Callable[[Any, "EditError | None"], None]


def long_enough(size: int) -> bool:
    """Whether a step that changes this many entities runs off the UI thread."""
    return size >= LONG_EDIT_COMMANDS


def is_long(command: Command) -> bool:
    """Whether ``command`` changes many entities (a generated fabric, a large template)."""
    return long_enough(command.size)


class LongEditActions:
    """``run_long_edit``: one edit in a worker, the app's keys held until it ends."""

    busy: str | None = None  # what a long edit is doing, while it runs

    def run_long_edit(
        self: DesignerApp,  # type: ignore[misc]
        title: str,
        detail: str,
        job: Callable[[], Any],
        done: Done,
    ) -> None:
        """Run ``job`` (it changes the session) in a thread behind a busy screen, then
        ``done(result, refusal)`` on the UI thread."""
        self.busy = detail
        screen = BusyScreen(title, detail)
        self.push_screen(screen)
        self._long_edit_worker(job, done, screen, time.perf_counter())

    @work(thread=True, exclusive=True, group="edit")
    def _long_edit_worker(
        self: DesignerApp,  # type: ignore[misc]
        job: Callable[[], Any],
        done: Done,
        screen: BusyScreen,
        began: float,
    ) -> None:
        from rackdesigner.edit import EditError

        result: Any = None
        refusal: EditError | None = None
        try:
            result = job()
        except EditError as error:  # refused: the command changed nothing
            refusal = error
        self.call_from_thread(self._long_edit_done, screen, done, result, refusal, began)

    def _long_edit_done(
        self: DesignerApp,  # type: ignore[misc]
        screen: BusyScreen,
        done: Done,
        result: Any,
        refusal: EditError | None,
        began: float,
    ) -> None:
        self.busy = None
        if screen.is_attached:
            screen.dismiss()
        done(result, refusal)
        # A fabric result that came while the edit ran was dropped: check again if due (and
        # not already started by ``done``).
        if not any(w.group == "fabric" and w.is_running for w in self.workers):
            self.start_fabric_check()
        self.timings["long_edit"] = time.perf_counter() - began
