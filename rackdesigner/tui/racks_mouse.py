"""The racks view's mouse (designer.md): a click selects (the view's own handler) and, when a
catalog entry is armed, places it on the unit clicked; dragging a device moves it.

A drag is the keyboard's move (``m``) driven by the pointer: the same ghost while it moves,
and on release the same MoveDevice command with the same refusals (a drop on taken units
is refused with a notification and changes nothing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import events
from textual.message import Message

if TYPE_CHECKING:
    from .racks_view import Cursor


class RacksMouse:
    """Mixed into :class:`~rackdesigner.tui.racks_view.RacksView`."""

    class UnitClicked(Message):
        """A unit (or a rail) of a rack was clicked; the cursor is on it now."""

        def __init__(self, rack: str, unit: int, rail: str | None) -> None:
            self.rack = rack
            self.unit = unit
            self.rail = rail
            super().__init__()

    _press: tuple[Any, str, int] | None = None  # (cell, device id, grab offset in units)
    _dragging = False
    _dropped: str | None = None  # the device just dropped: the click that follows keeps it

    def cell_at(self, x: int, y: int) -> Cursor | None:
        """The rack, unit and rail under a point of the widget; None off the racks."""
        from .racks_view import BODY_W, COLUMN_W, GAP_W, LABEL_W, Cursor

        view: Any = self
        plans = view.plans()
        if not plans:
            return None
        x = x + view.scroll_offset.x - view.gutter.left
        y = y - view.gutter.top
        rack, within = divmod(x, COLUMN_W)
        if x < 0 or rack >= len(plans) or within >= COLUMN_W - GAP_W or y < 1:
            return None
        tallest = max(p.height for p in plans)
        unit = tallest - (y + view.scroll_offset.y) + 1  # as render_line draws it
        if not 1 <= unit <= plans[rack].height:
            return None
        rail = "left" if within == LABEL_W else "right" if within == LABEL_W + 1 + BODY_W else None
        return Cursor(rack, unit, rail)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        view: Any = self
        self._press = None
        self._dropped = None
        if event.button != 1 or view.app.moving is not None:
            return
        cell = self.cell_at(event.x, event.y)
        if cell is None:
            return
        block = view.block_at(cell)
        if block is None or block.height == 0 or block.device.position is None:
            return
        self._press = (cell, block.device.id, cell.unit - block.device.position)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        view: Any = self
        if self._press is None or event.button != 1:
            return
        cell = self.cell_at(event.x, event.y)
        start, device, grab = self._press
        if not self._dragging:
            if cell is None or (cell.rack, cell.unit) == (start.rack, start.unit):
                return
            view._set_cursor(start, announce=False)
            view.app.action_move()
            if view.app.moving != device:
                self._press = None
                return
            self._dragging = True
            view.capture_mouse()
        if cell is None or view.ghost is None:
            return
        view._move_ghost(cell.rack - view.ghost.rack, cell.unit - grab - view.ghost.unit)

    def on_mouse_up(self, event: events.MouseUp) -> None:
        view: Any = self
        if self._dragging and self._press is not None:
            self._dragging = False
            self._dropped = self._press[1]
            view.release_mouse()
            view.app.finish_move()
        self._press = None

    def on_click(self, event: events.Click) -> None:
        # The view's own click handler has already put the cursor on the unit clicked.
        view: Any = self
        if self._dropped is not None:
            device, self._dropped = self._dropped, None
            session = view.app.session
            owner = session.index.rack_of(device) if session is not None else None
            if owner is not None:
                view.jump(owner.id, device, announce=False)
            return
        cell = self.cell_at(event.x, event.y)
        rack = view.current_rack_id()
        if cell is None or rack is None:
            return
        view.post_message(self.UnitClicked(rack, view.cursor.unit, view.cursor.rail))
