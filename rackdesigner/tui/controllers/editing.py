"""Editing at the cursor: inspect, move (``m``), select, delete, duplicate, rename, undo and
redo, go to. A plain class given the workspace and the screen; every change is one command
through ``ui.do``, so it is undoable and re-checked.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rackdesigner.tui.controllers.long_edit import is_long
from rackdesigner.tui.findings import Locator, Ref
from rackdesigner.tui.screens.confirm import ConfirmScreen
from rackdesigner.tui.screens.prompt import PromptScreen

if TYPE_CHECKING:
    from rackdesigner.design.dependants import Dependants
    from rackdesigner.tui.ui import DesignerUI
    from rackdesigner.tui.workspace import Workspace


class EditController:
    def __init__(self, workspace: Workspace, ui: DesignerUI) -> None:
        self.workspace = workspace
        self.ui = ui

    def _need_device(self) -> str | None:
        device = self.ui.racks.current_device_id()
        if device is None:
            self.ui.notify("Put the cursor on a device first.", severity="warning")
        return device

    # -- the inspector and the selection ----------------------------------------------------

    def inspect(self) -> None:
        if self.workspace.moving is not None:
            self.finish_move()
            return
        if self.workspace.inspected is None:
            self.ui.update_inspector()
        if not self.ui.inspector.focus_first():
            self.ui.notify("Nothing to edit here.", severity="warning")

    def toggle_select(self) -> None:
        device = self._need_device()
        if device is None:
            return
        selection = self.workspace.selection
        selection.symmetric_difference_update({device})
        rack = self.ui.racks.current_rack_id()
        self.ui.racks.redraw({rack} if rack else set())
        self.ui.notify(f"{len(selection)} selected", timeout=2)

    def clear_selection_of_racks(self) -> None:
        """Forget the selection and redraw the racks that showed it."""
        session = self.workspace.session
        index = session.index if session is not None else None
        racks = {
            owner.id
            for device in self.workspace.selection
            if index is not None and (owner := index.rack_of(device)) is not None
        }
        self.workspace.selection.clear()
        self.ui.racks.redraw(racks)

    # -- moving -----------------------------------------------------------------------------

    def move(self) -> None:
        if self.workspace.session is None:
            return
        if self.workspace.moving is not None:
            self.finish_move()
            return
        device = self.ui.racks.start_move()
        if device is None:
            self.ui.notify("Put the cursor on a mounted device to move it.", severity="warning")
            return
        self.moving(device)

    def moving(self, device: str) -> None:
        """``device`` is being moved (``m``, or dragged with the mouse)."""
        self.workspace.moving = device
        self.ui.header.set_state(
            status=f"moving {device}: arrows, enter to place, escape to cancel"
        )

    def finish_move(self) -> None:
        from rackdesigner.design.panels import move_through_panels

        racks = self.ui.racks
        ghost, device = racks.ghost, self.workspace.moving
        racks.end_move()
        self.workspace.moving = None
        self.ui.header.set_state(status="")
        session = self.workspace.session
        if ghost is None or device is None or session is None:
            return
        rack = racks.plans()[ghost.rack].rack.id
        current = session.index.device(device)
        owner = session.index.rack_of(device)
        if (
            current is not None
            and owner is not None
            and owner.id == rack
            and current.position == ghost.unit
        ):
            racks.jump(rack, device, announce=False)
            self.ui.update_inspector()
            return
        # Over listed blanking panels: they make way, and the units left get panels (one step).
        command = move_through_panels(session.index, device, rack, ghost.unit)
        error = self.ui.do(command)
        if error is None:
            over = command.label.partition(" (")[2]
            self.ui.notify(
                f"Moved {device} to {rack} U{ghost.unit}" + (f" ({over}" if over else ""),
                timeout=3,
            )
        if owner is not None:
            racks.jump(rack if error is None else owner.id, device, announce=False)
        self.ui.update_inspector()

    def cancel(self) -> None:
        racks = self.ui.racks
        if self.workspace.moving is not None:
            device = self.workspace.moving
            racks.end_move()
            self.workspace.moving = None
            self.ui.header.set_state(status="")
            session = self.workspace.session
            owner = session.index.rack_of(device) if session else None
            if owner is not None:
                racks.jump(owner.id, device)
            self.ui.notify("Move cancelled", timeout=2)
        elif self.workspace.selection:
            self.workspace.selection.clear()
            racks.redraw_all()

    # -- delete, duplicate, rename ----------------------------------------------------------

    def delete(self) -> None:
        from rackdesigner.edit import Batch, RemoveDevice

        if self.workspace.session is None or self.workspace.moving:
            return
        chosen = sorted(self.workspace.selection)
        if not chosen:
            device = self.ui.racks.current_device_id()
            if device is None:
                rack = self.ui.racks.current_rack_id()
                if rack is not None:
                    self.ui.confirm_remove_rack(rack)
                return
            chosen = [device]
        commands = [RemoveDevice(d) for d in chosen]
        command = (
            commands[0]
            if len(commands) == 1
            else Batch(commands, f"Delete {len(commands)} devices")
        )
        found = self.workspace.delete_dependants(chosen)
        if found is not None:  # cables go too, or something breaks: ask once, naming it
            self.ui.dialog(self.confirm_delete(command, found))
            return
        self._delete(command, ", ".join(chosen))

    def _delete(self, command: Any, what: str) -> None:
        if self.ui.do(command) is None:
            self.workspace.selection.clear()
            self.ui.notify(f"Deleted {what} (ctrl+z undoes)", timeout=4)

    async def confirm_delete(self, command: Any, found: Dependants) -> None:
        """Delete with dependants: "a01-leaf1 and its 32 cables; 4 nodes lose their compute
        fabric" — delete, or cancel; "don't ask again" holds for the rest of the session."""
        screen = ConfirmScreen(
            "Delete",
            f"Delete {found.text()}? (ctrl+z undoes)",
            [("delete", "Delete"), ("cancel", "Cancel")],
            "delete",
            remember="don't ask again this session",
        )
        answer = await self.ui.wait_for(screen)
        if answer != "delete":
            return
        if screen.remembered:
            self.workspace.ask_before_delete = False
        self._delete(command, found.text())

    async def confirm_remove_rack(self, rack: str) -> None:
        from rackdesigner.edit import RemoveRack

        answer = await self.ui.wait_for(
            ConfirmScreen(
                "Delete rack",
                f"Delete rack {rack} with its feeds, devices and their cables? (ctrl+z undoes)",
                [("delete", "Delete rack"), ("cancel", "Cancel")],
                "cancel",
            )
        )
        if answer == "delete" and self.ui.do(RemoveRack(rack)) is None:
            self.ui.notify(f"Deleted rack {rack} (ctrl+z undoes)", timeout=4)

    def duplicate(self) -> None:
        device_id = self._need_device()
        session = self.workspace.session
        if session is None or device_id is None:
            return
        command = self.workspace.duplicate(device_id)
        if command is None:
            return
        if isinstance(command, str):
            self.ui.notify(command, title="Refused", severity="error")
            return
        rack = session.index.rack_of(device_id)
        assert rack is not None
        if self.ui.do(command) is None:
            new = getattr(command, "device_id", None) or getattr(command, "_device", None)
            new_id = new if isinstance(new, str) else getattr(new, "id", "")
            self.ui.racks.jump(rack.id, new_id or None, announce=False)
            self.ui.update_inspector()
            position = getattr(command, "position", None)
            where = f" at U{position}" if position else ""
            self.ui.notify(f"Duplicated {device_id} as {new_id}{where}", timeout=4)

    async def rename(self) -> None:
        from rackdesigner.edit import RenameEntity

        ref = self.workspace.inspected
        if ref is None or ref[0] not in ("rack", "device", "feed"):
            self.ui.notify("Put the cursor on a rack or a device to rename it.", severity="warning")
            return
        kind, old = ref
        new = await self.ui.wait_for(
            PromptScreen(
                f"Rename {kind} {old}",
                old,
                hint="every reference follows: cables, cdu, door, PDU feeds",
            )
        )
        if not new or new == old:
            return
        if self.ui.do(RenameEntity(kind, old, new)) is None:
            session = self.workspace.session
            if kind == "device" and session is not None:
                owner = session.index.rack_of(new)
                if owner is not None:
                    self.ui.racks.jump(owner.id, new, announce=False)
            elif kind == "rack":
                self.ui.racks.jump(new, announce=False)
            self.ui.update_inspector((kind, new), rebuild=True)
            self.ui.notify(f"Renamed {kind} {old} to {new}", timeout=3)

    # -- undo, redo -------------------------------------------------------------------------

    def follow(self, command: Any) -> None:
        """Put the cursor on what an undone or redone command changed, as editors do."""
        session = self.workspace.session
        if session is None:
            return
        locate = Locator(session.layout)
        for ref in getattr(command, "refs", None) or ():
            where = locate(tuple(ref)) if ref and ref[0] in ("device", "rack", "feed") else None
            if where is not None:
                self.ui.racks.jump(where.rack, where.device, announce=False)
                self.ui.update_inspector(tuple(ref) if ref[0] != "rack" else None)
                return

    def history(self, which: str) -> None:
        from rackdesigner.edit import EditError

        workspace = self.workspace
        if workspace.session is None or workspace.moving is not None:
            return
        began = time.perf_counter()
        upcoming = workspace.upcoming(which)
        # A generated fabric's 300,000 cables take seconds to take away: in a worker.
        if upcoming is not None and is_long(upcoming):
            self.ui.run_long_edit(
                "Undo" if which == "undo" else "Redo",
                f"{'Undoing' if which == 'undo' else 'Redoing'}: {upcoming.label}…",
                lambda: workspace.history_step(which),
                lambda command, error: self._history_done(which, command, error, began),
            )
            return
        try:
            command = workspace.history_step(which)
        except EditError as error:  # a redo the layout no longer allows
            self._history_done(which, None, error, began)
            return
        self._history_done(which, command, None, began)

    def _history_done(
        self, which: str, command: Any, error: Exception | None, began: float
    ) -> None:
        if error is not None:
            self.ui.notify(str(error), title="Refused", severity="error")
            return
        if command is None:
            self.ui.notify(f"Nothing to {which}", timeout=2)
            return
        self.ui.after_change(command)
        self.follow(command)
        self.workspace.timings["edit"] = time.perf_counter() - began
        label = getattr(command, "label", "") or type(command).__name__
        self.ui.notify(f"{'Undone' if which == 'undo' else 'Redone'}: {label}", timeout=3)

    # -- go to ------------------------------------------------------------------------------

    async def goto(self) -> None:
        session = self.workspace.session
        if session is None:
            return
        index = session.index
        ids = [*index.rack_ids(), *index.device_ids()]
        target = await self.ui.wait_for(
            PromptScreen("Go to", hint="a rack, device, feed or link id", suggestions=ids)
        )
        if target:
            self.go_to(target)

    def go_to(self, target: str) -> bool:
        """Jump to an entity by id: rack, device, feed, or a link by its a end."""
        session = self.workspace.session
        if session is None:
            return False
        ref: Ref | str = self.workspace.ref_for(target)
        if isinstance(ref, str):
            self.ui.notify(ref, title="Go to", severity="error")
            return False
        where = Locator(session.layout)(ref)
        if where is not None:
            self.ui.racks.jump(where.rack, where.device, announce=False)
        self.ui.update_inspector(ref)
        self.ui.racks.focus()
        return True
