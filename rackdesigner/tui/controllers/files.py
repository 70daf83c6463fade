"""Files in the designer: save, save as, open, quit with unsaved changes, the autosave
sidecar and recovering from it. The workspace decides what to ask and what happens; this
controller only asks (dialogs) and tells (notifications).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rackdesigner.tui import autosave as sidecar
from rackdesigner.tui.messages import AutosaveText

if TYPE_CHECKING:
    from rackdesigner.edit import Session
    from rackdesigner.tui.ui import DesignerUI
    from rackdesigner.tui.workspace import Workspace


class FileController:
    interval = sidecar.INTERVAL_S  # seconds between autosave ticks

    def __init__(self, workspace: Workspace, ui: DesignerUI) -> None:
        self.workspace = workspace
        self.ui = ui

    # -- saving -----------------------------------------------------------------------------

    async def save(self, path: str | None) -> bool:
        """Save through the core; each refusal is asked about. True when written."""
        flow = self.workspace.save_flow(path)
        try:
            question = next(flow)
            while True:
                question = flow.send(await self.ui.ask(question))
        except StopIteration as stop:
            outcome = stop.value
        if outcome.error is not None:
            self.ui.notify(outcome.error, severity="error")
        if not outcome.saved:
            return False
        self.ui.update_header()
        self.ui.notify(f"Saved {outcome.target}", timeout=3)
        return True

    async def save_as(self) -> None:
        question = self.workspace.save_as_question()
        if question is None:
            return
        path = await self.ui.ask(question)
        if path:
            await self.save(path)

    async def settle_unsaved(self, what: str) -> bool:
        """Ask save / discard / cancel when there are unsaved changes; True to go on."""
        question = self.workspace.unsaved_question(what)
        if question is None:
            return True
        answer = await self.ui.ask(question)
        if answer == "save":
            return await self.save(None)
        if answer == "discard":
            self.ui.cancel_group("autosave")
            self.workspace.discard_unsaved()
            return True
        return False

    async def quit(self) -> None:
        if await self.settle_unsaved("Quit"):
            self.ui.exit()

    # -- opening ----------------------------------------------------------------------------

    async def open(self) -> None:
        if not await self.settle_unsaved("Open another layout"):
            return
        self.prompt_open()

    def prompt_open(self) -> None:
        self.ui.dialog(self._prompt_open())

    async def _prompt_open(self) -> None:
        from rackdesigner.tui.screens.prompt import PromptScreen  # not in the first frame

        path = await self.ui.wait_for(
            PromptScreen("Open", self.workspace.path or "", hint="a layout .toml path")
        )
        if path:
            self.ui.open_path(path)
        elif self.workspace.session is None:
            self.ui.start_empty(None)

    # -- never losing work ------------------------------------------------------------------

    def autosave_now(self) -> None:
        """Write the unsaved layout to its sidecar; the text is made in a worker (a large
        layout takes seconds to write out) and kept only if no edit came in meanwhile."""
        job = self.workspace.autosave_job(busy=self.ui.busy is not None)
        if job is not None:
            session, path, revision = job
            self.ui.run_thread(
                lambda: self._dump(session, path, revision), group="autosave", exclusive=True
            )

    def _dump(self, session: Session, path: str, revision: int) -> None:
        from rackdesigner.layout_io import dumps

        text: str | None = None
        try:
            text = dumps(session.layout)
        except Exception:  # the layout changed under the writer: the next tick tries again
            text = None
        finally:
            self.ui.post_result(AutosaveText(session, path, revision, text))

    def autosave_text(self, event: AutosaveText) -> None:
        # On the app's thread, between edits: an edit during the dump changed the revision
        # (a long edit changes it only when it ends: while it runs, nothing is written).
        if event.text is None:
            return
        failed_before = self.workspace.autosave_failed
        warning = self.workspace.autosave_write(
            event.session, event.path, event.revision, event.text, busy=self.ui.busy is not None
        )
        if warning is not None:
            # Once per failure, kept on screen: a crash now would lose the changes.
            self.ui.notify(warning, title="Autosave", severity="error", timeout=30)
        if self.workspace.autosave_failed != failed_before:
            self.ui.update_header()  # "autosave failed: <reason>", or no longer

    def offer_recovery(self, path: str, side: Path) -> None:
        self.ui.dialog(self._offer_recovery(path, side))

    async def _offer_recovery(self, path: str, side: Path) -> None:
        answer = await self.ui.ask(self.workspace.recovery_question(path, side))
        if answer == "recover":
            self.recover(path, side)
        elif answer == "discard":
            sidecar.remove(path)

    def recover(self, path: str, side: Path) -> None:
        error = self.workspace.recover(path, side)
        if error is not None:
            self.ui.notify(error, severity="error")
            return
        session = self.workspace.session
        assert session is not None
        self.ui.use_session(session, path)
        self.workspace.recovered = True
        self.ui.update_header()
        self.ui.notify(f"Recovered the changes from {side.name}; save to keep them", timeout=6)
