"""Edits too large for the UI thread: a generated fabric of 300,000 cables takes the core
seconds to apply, re-check and undo. The edit runs in a thread worker behind
:class:`BusyScreen`, every action waits for it (the screen's ``check_action`` while
``busy``), and the views are updated on the UI thread once its message is back.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rackdesigner.tui.messages import LongEditDone

if TYPE_CHECKING:
    from rackdesigner.edit import Command, EditError
    from rackdesigner.tui.screens.busy import BusyScreen
    from rackdesigner.tui.ui import DesignerUI, Done
    from rackdesigner.tui.workspace import Workspace

# Entities one step changes (cables, devices, racks: Command.size) from which an edit runs
# off the UI thread. The core applies and re-checks about 10,000 cables a second: at this
# size a step takes about a tenth of a second, as long as a key may.
LONG_EDIT_COMMANDS = 1_000


def long_enough(size: int) -> bool:
    """Whether a step that changes this many entities runs off the UI thread."""
    return size >= LONG_EDIT_COMMANDS


def is_long(command: Command) -> bool:
    """Whether ``command`` changes many entities (a generated fabric, a large template)."""
    return long_enough(command.size)


class _Running:
    """One long edit in flight: what to call when it is done, and its busy screen."""

    def __init__(self, done: Done, screen: BusyScreen, began: float) -> None:
        self.done = done
        self.screen = screen
        self.began = began


class LongEdits:
    """``run``: one edit in a worker, the screen's keys held until it ends."""

    def __init__(self, workspace: Workspace, ui: DesignerUI) -> None:
        self.workspace = workspace
        self.ui = ui
        self.running: _Running | None = None

    def run(self, title: str, detail: str, job: Callable[[], Any], done: Done) -> None:
        """Run ``job`` (it changes the session) in a thread behind a busy screen, then
        ``done(result, refusal)`` on the UI thread."""
        from rackdesigner.tui.screens.busy import BusyScreen

        self.ui.busy = detail
        screen = BusyScreen(title, detail)
        self.ui.show_screen(screen)
        token = _Running(done, screen, time.perf_counter())
        self.running = token
        self.ui.run_thread(lambda: self._work(token, job), group="edit", exclusive=True)

    def _work(self, token: _Running, job: Callable[[], Any]) -> None:
        from rackdesigner.edit import EditError

        result: Any = None
        refusal: EditError | None = None
        try:
            result = job()
        except EditError as error:  # refused: the command changed nothing
            refusal = error
        finally:
            self.ui.post_result(LongEditDone(token, result, refusal))

    def done(self, event: LongEditDone) -> None:
        token = event.token
        assert isinstance(token, _Running)
        self.running = None
        self.ui.busy = None
        if token.screen.is_attached:
            token.screen.dismiss()
        token.done(event.result, event.refusal)
        # A fabric result that came while the edit ran was dropped: check again if due (and
        # not already started by ``done``).
        if not self.ui.running("fabric"):
            self.ui.start_fabric_check()
        self.workspace.timings["long_edit"] = time.perf_counter() - token.began
