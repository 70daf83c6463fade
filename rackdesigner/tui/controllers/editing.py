"""Editing at the cursor: inspect, move (``m``), select, delete, duplicate, rename, undo and
redo, go to. A plain class given the workspace and the screen; every change is one command
through ``ui.do``, so it is undoable and re-checked.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rackdesigner.tui.controllers.long_edit import is_long
from rackdesigner.tui.findings import Locator, Ref

# The dialogs are imported when first opened: the first frame does not wait for them.
if TYPE_CHECKING:
    from rackdesigner.design.dependants import Dependants
    from rackdesigner.tui.ui import DesignerUI
    from rackdesigner.tui.workspace import Workspace


class EditController:
    def __init__(self, workspace: Workspace, ui: DesignerUI) -> None:
        self.workspace = workspace
        self.ui = ui

    def _need_device(self) -> str | None:
        device = self.ui.cursor().device
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
        if not self.ui.focus_inspector():
            self.ui.notify("Nothing to edit here.", severity="warning")

    def toggle_select(self) -> None:
        device = self._need_device()
        if device is None:
            return
        selection = self.workspace.selection
        selection.symmetric_difference_update({device})
        rack = self.ui.cursor().rack
        self.ui.redraw_racks({rack} if rack else set())
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
        self.ui.redraw_racks(racks)

    # -- moving -----------------------------------------------------------------------------

    def move(self) -> None:
        if self.workspace.session is None:
            return
        if self.workspace.moving is not None:
            self.finish_move()
            return
        device = self.ui.start_move()
        if device is None:
            self.ui.notify("Put the cursor on a mounted device to move it.", severity="warning")
            return
        self.moving(device)

    def moving(self, device: str) -> None:
        """``device`` is being moved (``m``, or dragged with the mouse)."""
        self.workspace.moving = device
        self.ui.set_status(f"moving {device}: arrows, enter to place, escape to cancel")

    def finish_move(self) -> None:
        from rackdesigner.design.moving import moved_id
        from rackdesigner.design.panels import move_through_panels

        device = self.workspace.moving
        ghost = self.ui.end_move()
        self.workspace.moving = None
        self.ui.set_status("")
        session = self.workspace.session
        if ghost is None or device is None or session is None:
            return
        rack, unit = ghost
        current = session.index.device(device)
        owner = session.index.rack_of(device)
        if (
            current is not None
            and owner is not None
            and owner.id == rack
            and current.position == unit
        ):
            self.ui.jump_to(rack, device)
            self.ui.update_inspector()
            return
        # Over listed blanking panels: they make way, and the units left get panels (one step).
        command = move_through_panels(session.index, device, rack, unit)
        renamed = moved_id(device, owner.id, rack, session.index) if owner is not None else None
        if renamed is not None and _can(command, session.index):
            # Its id names its old rack: offer the new rack's, in the move's undo step.
            where = (rack, unit)
            self.ui.dialog(
                self._move_across(command, device, where, renamed, owner.id if owner else "")
            )
            return
        error = self.ui.do(command)
        if error is None:
            over = command.label.partition(" (")[2]
            self.ui.notify(
                f"Moved {device} to {rack} U{unit}" + (f" ({over}" if over else ""),
                timeout=3,
            )
        if owner is not None:
            self.ui.jump_to(rack if error is None else owner.id, device)
        self.ui.update_inspector()

    async def _move_across(
        self, move: Any, device: str, target: tuple[str, int], renamed: str, old_rack: str
    ) -> None:
        """Ask whether a device moved to another rack takes that rack's id; the move and
        the rename are one step (one undo). Escape leaves it where it was."""
        from rackdesigner.edit import Batch, RenameEntity
        from rackdesigner.tui.workspace import Question

        rack, unit = target
        answer = await self.ui.ask(
            Question(
                f"Move {device} to {rack} U{unit}",
                f"{device} is named after rack {old_rack}, which the cable schedule and the "
                f"elevations will print. Rename it {renamed}? (cables, PDU feeds, cdu and "
                "door references follow)",
                (("rename", f"Move, rename to {renamed}"), ("keep", f"Move, keep {device}")),
                "rename",
            )
        )
        if answer not in ("rename", "keep"):  # escape: nothing moves
            self.ui.notify("Move cancelled", timeout=2)
            self.ui.jump_to(old_rack, device)
            return
        where = f"{rack} U{unit}"
        if answer == "rename":
            label = f"Move {device} to {where} as {renamed}"
            command: Any = Batch([move, RenameEntity("device", device, renamed)], label)
        else:
            command = move
        error = self.ui.do(command)
        now = renamed if error is None and answer == "rename" else device
        if error is None:
            named = f" as {renamed}" if answer == "rename" else ""
            self.ui.notify(f"Moved {device} to {where}{named}", timeout=3)
        self.ui.jump_to(rack if error is None else old_rack, now)
        self.ui.update_inspector()

    def cancel(self) -> None:
        if self.workspace.moving is not None:
            device = self.workspace.moving
            self.ui.end_move()
            self.workspace.moving = None
            self.ui.set_status("")
            session = self.workspace.session
            owner = session.index.rack_of(device) if session else None
            if owner is not None:
                self.ui.jump_to(owner.id, device, announce=True)
            self.ui.notify("Move cancelled", timeout=2)
        elif self.workspace.selection:
            self.workspace.selection.clear()
            self.ui.redraw_racks()

    # -- delete, duplicate, rename ----------------------------------------------------------

    def delete(self) -> None:
        from rackdesigner.edit import Batch, RemoveDevice

        if self.workspace.session is None or self.workspace.moving:
            return
        chosen = sorted(self.workspace.selection)
        if not chosen:
            at = self.ui.cursor()
            device = at.device
            if device is None:
                rack = at.rack
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
        from rackdesigner.tui.screens.confirm import ConfirmScreen

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
        from rackdesigner.tui.screens.confirm import ConfirmScreen

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
            self.ui.jump_to(rack.id, new_id or None)
            self.ui.update_inspector()
            position = getattr(command, "position", None)
            where = f" at U{position}" if position else ""
            self.ui.notify(f"Duplicated {device_id} as {new_id}{where}", timeout=4)

    async def rename(self) -> None:
        from rackdesigner.edit import RenameEntity
        from rackdesigner.tui.screens.prompt import PromptScreen

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
                    self.ui.jump_to(owner.id, new)
            elif kind == "rack":
                self.ui.jump_to(new)
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
                self.ui.jump_to(where.rack, where.device)
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
        from rackdesigner.tui.screens.prompt import PromptScreen

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
            self.ui.jump_to(where.rack, where.device)
        self.ui.update_inspector(ref)
        self.ui.focus_racks()
        return True


def _can(command: Any, index: Any) -> bool:
    """Whether a move can be made where it is asked (its refusal is shown when it is done).
    A move over blanking panels (a batch that takes them out first) can."""
    from rackdesigner.edit import EditError

    check = getattr(command, "check", None)
    if check is None:
        return True
    try:
        check(index)
    except EditError:
        return False
    return True
