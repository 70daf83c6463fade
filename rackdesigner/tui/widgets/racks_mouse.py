"""The racks view's mouse (designer.md): a click selects (the view's own handler) and, when a
catalog entry is armed, places it on the unit clicked; dragging a device moves it, to other
units or another rack of the row; a catalog entry dropped on a unit is placed there (the
screen asks :meth:`BuildingRacksView.cell_at_screen` where it fell).

A drag is the keyboard's move (``m``) driven by the pointer: the same ghost while it moves,
and on release the same MoveDevice command with the same refusals (a drop on taken units
is refused with a notification and changes nothing). Dragged to the view's left or right
edge, the racks scroll a rack at a time, so a rack out of view is reached; dragged over a
rack's title line, the ghost goes to that rack at its unit.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.message import Message

from rackdesigner.tui.widgets.racks_view import BODY_W, COLUMN_W, GAP_W, LABEL_W, Cursor, RacksView

# A drag within this many columns of the view's left or right edge scrolls it a rack.
EDGE_W = 2


class BuildingRacksView(RacksView):
    """The racks view with the building half's mouse: the app composes this one."""

    class UnitClicked(Message):
        """A unit (or a rail) of a rack was clicked; the cursor is on it now."""

        def __init__(self, rack: str, unit: int, rail: str | None) -> None:
            self.rack = rack
            self.unit = unit
            self.rail = rail
            super().__init__()

    class MoveStarted(Message):
        """A drag started moving ``device`` (its ghost follows the pointer)."""

        def __init__(self, device: str) -> None:
            self.device = device
            super().__init__()

    class Dropped(Message):
        """The dragged device was let go: place it where its ghost is."""

    _drag_press: tuple[Any, str, int] | None = None  # (cell, device id, grab offset in units)
    _drag_active = False
    _drag_dropped: str | None = None  # the device just dropped: the click that follows keeps it

    def cell_at(self, x: int, y: int) -> Cursor | None:
        """The rack, unit and rail under a point of the widget; None off the racks."""
        plans = self.plans()
        if not plans:
            return None
        x = x + self.scroll_offset.x - self.gutter.left
        y = y - self.gutter.top
        rack, within = divmod(x, COLUMN_W)
        beyond = rack >= self.first_rack() + self.racks_shown()  # not drawn: the hint
        if x < 0 or rack >= len(plans) or beyond or within >= COLUMN_W - GAP_W or y < 1:
            return None
        unit = self.unit_for_line(plans[rack], y + self.scroll_offset.y)  # as drawn
        if not 1 <= unit <= plans[rack].height:
            return None
        rail = "left" if within == LABEL_W else "right" if within == LABEL_W + 1 + BODY_W else None
        return Cursor(rack, unit, rail)

    def cell_at_screen(self, x: int, y: int) -> Cursor | None:
        """:meth:`cell_at` for a point of the screen (a catalog entry dropped there)."""
        region = self.region
        if not region.contains(x, y):
            return None
        return self.cell_at(x - region.x, y - region.y)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        self._drag_press = None
        self._drag_dropped = None
        if event.button != 1 or self.ghost is not None:  # (a move with ``m`` is on)
            return
        cell = self.cell_at(event.x, event.y)
        if cell is None:
            return
        block = self.block_at(cell)
        if block is None or block.height == 0 or block.device.position is None:
            return
        self._drag_press = (cell, block.device.id, cell.unit - block.device.position)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._drag_press is None or event.button != 1:
            return
        cell = self.cell_at(event.x, event.y)
        start, device, grab = self._drag_press
        if not self._drag_active:
            if cell is None or (cell.rack, cell.unit) == (start.rack, start.unit):
                return
            self._set_cursor(start, announce=False)
            started = self.start_move()
            if started != device:
                if started is not None:
                    self.end_move()
                self._drag_press = None
                return
            self.post_message(self.MoveStarted(device))
            self._drag_active = True
            self.capture_mouse()
        moving = self.ghost_block()
        if self.ghost is None or moving is None:
            return
        edge = self._edge_rack(event.x)
        if edge is not None:  # the rack past the edge, scrolled into view
            pointed = cell is not None and self.units_per_row() == 1
            unit = cell.unit - grab if cell is not None and pointed else self.ghost.unit
            self._move_ghost(edge - self.ghost.rack, unit - self.ghost.unit)
            return
        if cell is None:
            title = self._title_rack(event.x, event.y)
            if title is not None:  # a rack's title line: that rack, the ghost at its unit
                self._move_ghost(title - self.ghost.rack, 0)
            return
        # A compact line holds several units: the device goes where it fits in the line.
        target = (
            cell.unit - grab
            if self.units_per_row() == 1
            else self.fit_in_line(cell.rack, cell.unit, moving)
        )
        self._move_ghost(cell.rack - self.ghost.rack, target - self.ghost.unit)

    def _edge_rack(self, x: int) -> int | None:
        """At (or past) the view's left or right edge while dragging: the rack just beyond
        the racks wholly in view on that side (``_move_ghost`` scrolls it into view), so a
        rack out of view is reached a rack per move; None away from the edges or when no
        rack is beyond."""
        plans = self.plans()
        width = self.scrollable_content_region.width
        inside = x - self.gutter.left
        if not plans or EDGE_W <= inside < width - EDGE_W:
            return None
        view_x = self.scroll_offset.x
        # Left of the first whole rack, or right of the last whole one.
        rack = -(-view_x // COLUMN_W) - 1 if inside < EDGE_W else (view_x + width) // COLUMN_W
        return rack if 0 <= rack < len(plans) else None

    def _title_rack(self, x: int, y: int) -> int | None:
        """The rack whose title line (or the space above it) is at a point, else None."""
        plans = self.plans()
        if y - self.gutter.top > 0 or not plans:
            return None
        rack, within = divmod(x - self.gutter.left + self.scroll_offset.x, COLUMN_W)
        drawn = self.first_rack() <= rack < self.first_rack() + self.racks_shown()
        return rack if 0 <= rack < len(plans) and drawn and within < COLUMN_W - GAP_W else None

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self._drag_active and self._drag_press is not None:
            self._drag_active = False
            self._drag_dropped = self._drag_press[1]
            self.release_mouse()
            self.post_message(self.Dropped())
        self._drag_press = None

    def on_click(self, event: events.Click) -> None:
        # Runs before RacksView's own click handler (subclass first), which selects.
        if self._drag_dropped is not None:
            self._drag_dropped = None
            event.prevent_default()  # the cursor stays on the device where it now is
            return
        cell = self.cell_at(event.x, event.y)
        if cell is None:
            return
        rack = self.plans()[cell.rack].rack.id
        self.post_message(self.UnitClicked(rack, cell.unit, cell.rail))
