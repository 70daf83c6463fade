"""The racks view: the racks of one row side by side as elevations, drawn with the Line API.

Only the visible lines of the visible racks are rendered. Each rack's piece of a line is a
strip cached by (rack, its version, line, zoom, face, what of the cursor, selection and move
ghost falls in it, theme); an edit bumps the versions of the racks it touched, so after an
edit only those are drawn again.

The zoom (``z``) draws 1 U per line (the default), 2 U per line, or as many as fit the whole
of the tallest rack in the view's height. A compact line covers its units from the lowest
(the number in its label, as devices are positioned by their lowest unit); it is coloured by
the device it names and names the cursor's device, else the topmost device starting there,
with ``+N`` for the others starting in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from rackdesigner.export.render import palette
from rackdesigner.export.render.svg import named
from rackdesigner.layout_io.catalog import Catalog
from rackdesigner.model.layout import Device, Layout
from rackdesigner.tui import actions, safe
from rackdesigner.tui.findings import Marks
from rackdesigner.tui.rows import Block, RackPlan, plan_rack, rows_of
from rackdesigner.tui.widgets.columns import whole_steps
from rackdesigner.tui.widgets.style_cache import styles_changed

LABEL_W = 3  # "42 "
BODY_W = 15
GAP_W = 1
COLUMN_W = LABEL_W + 1 + BODY_W + 1 + GAP_W  # label, left rail, body, right rail, gap
EMPTY_HINT = "No racks yet: ctrl+p → Add rack."

# The zoom levels ``z`` cycles through: units per line; 0 fits the tallest rack to the height.
ZOOMS = (1, 2, 0)
ZOOM_NAMES = {1: "1 U per row", 2: "2 U per row", 0: "whole rack"}


@dataclass(frozen=True, slots=True)
class Cursor:
    rack: int  # index in the current row
    unit: int  # 1-based from the bottom
    rail: str | None = None  # "left" / "right": on a 0U rail rather than the units


@dataclass(frozen=True, slots=True)
class Ghost:
    """A device being moved (``m``): where it would go if placed now. ``block``: a catalog
    entry being dragged over the racks (a device not in the layout yet), drawn alike;
    ``refused``: why it cannot go there (drawn on the ghost)."""

    device: str
    rack: int
    unit: int
    block: Block | None = field(default=None, compare=False, hash=False)
    refused: str | None = None


class RacksView(ScrollView, can_focus=True):
    """Elevations of the current row; a cursor (rack, U); findings marked per rack and unit."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *actions.bindings("racks"),
        Binding("escape", "screen.cancel", "cancel", show=False, id="cancel"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "racks--unit",
        "racks--cursor",
        "racks--empty",
        "racks--frame",
        "racks--title",
        "racks--selected",
    }

    face: reactive[str] = reactive("front")

    class CursorMoved(Message):
        """The cursor is on another rack, unit or device."""

        def __init__(self, rack: str | None, device: str | None) -> None:
            self.rack = rack
            self.device = device
            super().__init__()

    def __init__(self, *, id: str | None = None, selection: set[str] | None = None) -> None:
        super().__init__(id=id)
        self.plan_layout: Layout | None = None
        self.catalog: Catalog | None = None
        self.rows: list[tuple[str, list[RackPlan]]] = []
        self.row = 0
        self.cursor = Cursor(0, 1)
        self.marks = Marks()
        self.empty_hint = EMPTY_HINT  # without racks: what to do, or "Loading N racks…"
        # The devices marked with space: the workspace's set, handed here to draw.
        self.selection: set[str] = selection if selection is not None else set()
        self.ghost: Ghost | None = None
        # A what-if's shading over the marks: device -> "down" / "degraded" / "cut off"
        # (SHADES), with the rack of each; drawn until cleared (escape).
        self.shade: dict[str, str] = {}
        self.shade_where: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self._cache: LRUCache[tuple[object, ...], Strip] = LRUCache(maxsize=8192)
        self._theme = "dark"
        self.zoom = 1  # units per line; 0: the tallest rack fitted to the height

    # -- zoom ---------------------------------------------------------------------------

    def units_per_row(self) -> int:
        """The units one line draws now (the fitted zoom follows the view's height)."""
        if self.zoom:
            return self.zoom
        tallest = max((p.height for p in self.plans()), default=1)
        room = max(self.scrollable_content_region.height - 3, 1)  # title, bottom, caption
        return max(1, -(-tallest // room))

    def set_zoom(self, zoom: int) -> None:
        """1 or 2 U per line, or 0: the whole of the tallest rack in the view's height."""
        self.zoom = zoom
        self._resize()
        if zoom == 0:
            self.scroll_to(y=0, animate=False, immediate=True, force=True)
        self._scroll_to_cursor(force=True)
        self.refresh()

    def zoom_name(self) -> str:
        k = self.units_per_row()
        return ZOOM_NAMES[self.zoom] + (f" ({k} U per row)" if self.zoom == 0 else "")

    def _line_count(self, tallest: int, k: int) -> int:
        return -(-tallest // k)

    def _mark_segment(self, device: str, style: Style) -> Segment | None:
        """The finding mark drawn before a device's name (its worst severity), or None."""
        severity = self.marks.devices.get(device)
        if not severity:
            return None
        colour = palette.SEVERITY_COLOURS[self._theme][severity]
        background = "#000000" if self._theme == "dark" else "#ffffff"
        return Segment(
            palette.SEVERITY_SYMBOLS[severity],
            style + Style(color=colour, bgcolor=background, bold=True),
        )

    def line_of_unit(self, unit: int) -> int:
        """The content line (1 under the title) that draws ``unit``."""
        plans = self.plans()
        tallest = max((p.height for p in plans), default=1)
        k = self.units_per_row()
        return self._line_count(tallest, k) - (max(unit, 1) - 1) // k

    def units_of_line(self, line: int) -> tuple[int, int] | None:
        """The lowest and highest unit content line ``line`` draws; None off the units."""
        plans = self.plans()
        tallest = max((p.height for p in plans), default=1)
        k = self.units_per_row()
        count = self._line_count(tallest, k)
        if not 0 < line <= count:
            return None
        lowest = (count - line) * k + 1
        return lowest, lowest + k - 1

    def unit_for_line(self, plan: RackPlan, line: int) -> int:
        """Where a click or a drop on content ``line`` of ``plan`` puts the cursor: its
        unit (1 U per row), or the unit that names what the compact line shows."""
        k = self.units_per_row()
        tallest = max(p.height for p in self.plans())
        if k == 1:
            return tallest - line + 1
        row = self.units_of_line(line)
        if row is None:
            return 0 if line > 0 else plan.height + 1
        lowest, highest = row
        highest = min(highest, plan.height)
        units = plan.units(self.face)
        for unit in range(highest, lowest - 1, -1):
            block = units.get(unit)
            if block is not None:
                return min(block.top, highest)
        return highest

    def fit_in_line(self, rack: int, unit: int, block: Block) -> int:
        """Where ``block`` goes when dropped on the line drawing ``unit`` of the ``rack``-th
        rack in a compact zoom: the lowest position in that line where it fits, else the
        line's lowest unit (the drop is then refused with the reason, as a key move is)."""
        plans = self.plans()
        if not 0 <= rack < len(plans):
            return unit
        plan = plans[rack]
        row = self.units_of_line(self.line_of_unit(unit))
        if row is None:
            return unit
        units = plan.units(self.face)
        for position in range(row[0], min(row[1], plan.height) + 1):
            span = range(position, position + max(block.height, 1))
            if span[-1] <= plan.height and all(units.get(u) in (None, block) for u in span):
                return position
        return row[0]

    def top_occupied(self, plan: RackPlan) -> int:
        """The top of the highest device of a rack (its top unit when it is empty): where
        opening the rack puts the cursor, so its occupied units are on screen."""
        units = plan.units(self.face)
        return min(max(units), plan.height) if units else plan.height

    def _open_at(self, cursor: Cursor) -> None:
        """The cursor on a rack just opened, scrolled so the units under it fill the view."""
        self._set_cursor(cursor)
        if self.zoom == 1:  # (the compact zooms show the rack whole or nearly)
            y = max(self.line_of_unit(self.cursor.unit) - 2, 0)
            self.scroll_to(y=y, animate=False, immediate=True, force=True)

    # -- data ---------------------------------------------------------------------------

    def show(self, layout: Layout, catalog: Catalog, marks: Marks) -> None:
        """Draw ``layout`` afresh (a file opened, or a change of many racks)."""
        self.plan_layout, self.catalog, self.marks = layout, catalog, marks
        previous = self.current_rack_id()
        self.rows = [
            (name, [plan_rack(rack, catalog) for rack in racks]) for name, racks in rows_of(layout)
        ]
        for _, plans in self.rows:
            for plan in plans:
                self.versions[plan.rack.id] = self.versions.get(plan.rack.id, 0) + 1
        self.selection &= {d.id for _, d in layout.devices()}
        if previous is None or not self.jump(previous, unit=self.cursor.unit, announce=False):
            self.row = min(self.row, max(len(self.rows) - 1, 0))
            self._resize()
            plans = self.plans()
            self._open_at(Cursor(0, self.top_occupied(plans[0]) if plans else 1))
        self._resize()
        self.refresh()

    def redraw(self, rack_ids: set[str]) -> None:
        """Draw these racks again (their selection changed), and repaint."""
        for rack in rack_ids:
            self.versions[rack] = self.versions.get(rack, 0) + 1
        self.refresh()

    def redraw_all(self) -> None:
        """Draw the layout shown afresh (the selection was cleared)."""
        if self.plan_layout is not None and self.catalog is not None:
            self.show(self.plan_layout, self.catalog, self.marks)

    def update_racks(self, rack_ids: set[str]) -> None:
        """Re-plan only these racks (an edit touched them); the others keep their strips."""
        if self.plan_layout is None or self.catalog is None:
            return
        if self._structure_changed():
            self.show(self.plan_layout, self.catalog, self.marks)
            return
        by_id = {rack.id: rack for rack in self.plan_layout.racks}
        for _, plans in self.rows:
            for index, plan in enumerate(plans):
                if plan.rack.id in rack_ids and plan.rack.id in by_id:
                    plans[index] = plan_rack(by_id[plan.rack.id], self.catalog)
                    self.versions[plan.rack.id] = self.versions.get(plan.rack.id, 0) + 1
        if self.selection:  # (a pass over every device: only when something is selected)
            self.selection &= {d.id for _, d in self.plan_layout.devices()}
        self._resize()
        # The cursor stays where it was; only a different rack or device under it is news
        # (the inspector would otherwise leave the feed or link being edited).
        before = (self.current_rack_id(), self.current_device_id())
        self._set_cursor(self.cursor, announce=False)
        after = (self.current_rack_id(), self.current_device_id())
        if after != before:
            self.post_message(self.CursorMoved(*after))
        self.refresh()

    def set_marks(self, marks: Marks) -> None:
        """New findings: redraw only the racks whose marks changed."""
        old = self.marks
        self.marks = marks
        # Only the marks that changed are looked at (a pass over every device of a
        # 100,000-GPU hall per edit is not affordable); a rack whose marks or whose
        # devices' marks changed is redrawn.
        changed = {
            rack
            for rack in old.racks.keys() | marks.racks.keys()
            if old.racks.get(rack) != marks.racks.get(rack)
        }
        for device in old.devices.keys() | marks.devices.keys():
            if old.devices.get(device) != marks.devices.get(device):
                changed.update(
                    r for r in (old.where.get(device), marks.where.get(device)) if r is not None
                )
        for rack in changed:
            self.versions[rack] = self.versions.get(rack, 0) + 1
        self.refresh()

    def set_shade(self, shade: dict[str, str], where: dict[str, str]) -> None:
        """Shade these devices (a what-if: device -> one of SHADES; ``where``: device ->
        rack); an empty ``shade`` clears it. Only the racks concerned are drawn again."""
        for rack in {*self.shade_where.values(), *where.values()}:
            self.versions[rack] = self.versions.get(rack, 0) + 1
        self.shade, self.shade_where = dict(shade), dict(where)
        self.refresh()

    def _structure_changed(self) -> bool:
        assert self.plan_layout is not None
        now = [(name, [r.id for r in racks]) for name, racks in rows_of(self.plan_layout)]
        then = [(name, [p.rack.id for p in plans]) for name, plans in self.rows]
        if now != then:
            return True
        by_id = {rack.id: rack for rack in self.plan_layout.racks}
        return any(p.rack is not by_id.get(p.rack.id) for _, plans in self.rows for p in plans)

    # -- queries ------------------------------------------------------------------------

    def plans(self) -> list[RackPlan]:
        return self.rows[self.row][1] if self.rows else []

    def row_name(self) -> str:
        return self.rows[self.row][0] if self.rows else ""

    def current_plan(self) -> RackPlan | None:
        plans = self.plans()
        return plans[self.cursor.rack] if 0 <= self.cursor.rack < len(plans) else None

    def current_rack_id(self) -> str | None:
        plan = self.current_plan()
        return plan.rack.id if plan else None

    def block_at(self, cursor: Cursor | None = None) -> Block | None:
        cursor = cursor or self.cursor
        plans = self.plans()
        if not 0 <= cursor.rack < len(plans):
            return None
        plan = plans[cursor.rack]
        if cursor.rail:
            return _rail_block(plan.rail(cursor.rail, self.face), plan.height, cursor.unit)
        return plan.units(self.face).get(cursor.unit)

    def current_device_id(self) -> str | None:
        block = self.block_at()
        return block.device.id if block else None

    # -- cursor -------------------------------------------------------------------------

    def _set_cursor(self, cursor: Cursor, *, announce: bool = True) -> None:
        plans = self.plans()
        if not plans:
            self.cursor = Cursor(0, 1)
            if announce:
                self.post_message(self.CursorMoved(None, None))
            return
        rack = min(max(cursor.rack, 0), len(plans) - 1)
        unit = min(max(cursor.unit, 1), plans[rack].height)
        rail = cursor.rail if cursor.rail and plans[rack].rail(cursor.rail, self.face) else None
        self.cursor = Cursor(rack, unit, rail)
        self._scroll_to_cursor()
        self.refresh()
        if announce:
            self.post_message(self.CursorMoved(plans[rack].rack.id, self.current_device_id()))

    def move_cursor(self, racks: int, units: int, *, rails: bool = False) -> None:
        """Arrows: units up/down, racks left/right; with ``rails`` (shift+arrows) the
        cursor also stops on each rack's 0U side rails."""
        if self.ghost is not None:
            # One key moves the ghost one line: a compact line holds k units, and a move of
            # one unit would leave the ghost on the same line for k - 1 presses.
            self._move_ghost(racks, units * self.units_per_row())
            return
        if units and self.units_per_row() > 1:
            self._compact_step(units)
            return
        if units:
            self._unit_step(units)
        else:
            self._rack_step(racks, rails)

    def _unit_step(self, units: int) -> None:
        """Up or down a unit; one press leaves a tall device (the cursor jumps its rest)."""
        cursor = self.cursor
        step = units
        block = self.block_at()
        if block is not None and not cursor.rail and abs(units) == 1:
            position = block.device.position or cursor.unit
            step = block.top + 1 - cursor.unit if units > 0 else position - 1 - cursor.unit
        self._set_cursor(Cursor(cursor.rack, cursor.unit + step, cursor.rail))

    def _rack_step(self, racks: int, rails: bool) -> None:
        """Left or right by ``racks`` stops: each rack, and with ``rails`` its 0U side
        rails too (the rail the cursor is on stays a stop); the unit kept where it fits."""
        cursor = self.cursor
        plans = self.plans()
        if not plans:
            return
        order: list[tuple[int, str | None]] = []
        for index, each in enumerate(plans):
            left, right = each.rail("left", self.face), each.rail("right", self.face)
            if left and (rails or (cursor.rail == "left" and index == cursor.rack)):
                order.append((index, "left"))
            order.append((index, None))
            if right and (rails or (cursor.rail == "right" and index == cursor.rack)):
                order.append((index, "right"))
        here = order.index((cursor.rack, cursor.rail)) if (cursor.rack, cursor.rail) in order else 0
        there = min(max(here + racks, 0), len(order) - 1)
        rack, rail = order[there]
        unit = cursor.unit if plans[rack].height >= cursor.unit else plans[rack].height
        self._set_cursor(Cursor(rack, unit, rail))

    def _compact_step(self, units: int) -> None:
        """Up or down in a compact zoom: to the next device, or the next line when the
        units passed are empty, so each press changes what the cursor shows."""
        cursor, plan = self.cursor, self.current_plan()
        if plan is None:
            return
        if abs(units) != 1 or cursor.rail:
            self._set_cursor(
                Cursor(cursor.rack, cursor.unit + units * self.units_per_row(), cursor.rail)
            )
            return
        shown = plan.units(self.face)
        start_line, start = self.line_of_unit(cursor.unit), shown.get(cursor.unit)
        unit = cursor.unit
        while 1 <= unit + units <= plan.height:
            unit += units
            block = shown.get(unit)
            if block is not None and block is not start:
                break
            if block is None and self.line_of_unit(unit) != start_line:
                unit = self.unit_for_line(plan, self.line_of_unit(unit))  # what it names
                break
        else:
            return
        self._set_cursor(Cursor(cursor.rack, unit))

    def cursor_end(self, direction: int) -> None:
        plan = self.current_plan()
        if plan is not None:
            self._set_cursor(Cursor(self.cursor.rack, plan.height if direction > 0 else 1))

    def switch_row(self, step: int) -> bool:
        if not self.rows or self.ghost is not None:
            return False
        row = min(max(self.row + step, 0), len(self.rows) - 1)
        if row == self.row:
            return False
        self.row = row
        self._resize()
        plans = self.plans()
        self._open_at(Cursor(0, self.top_occupied(plans[0]) if plans else 1))
        return True

    def jump(
        self,
        rack_id: str,
        device_id: str | None = None,
        *,
        unit: int | None = None,
        announce: bool = True,
    ) -> bool:
        """Put the cursor on a rack (and a device in it); switches row and face as needed."""
        for row, (_, plans) in enumerate(self.rows):
            for index, plan in enumerate(plans):
                if plan.rack.id != rack_id:
                    continue
                if row != self.row:
                    self.row = row
                    self._resize()
                cursor = Cursor(index, unit if unit is not None else plan.height)
                if device_id is not None:
                    cursor = self._cursor_for(plan, index, device_id) or cursor
                self._set_cursor(cursor, announce=announce)
                return True
        return False

    def _cursor_for(self, plan: RackPlan, index: int, device_id: str) -> Cursor | None:
        for side in ("left", "right"):
            for block in plan.rail(side):
                if block.device.id == device_id and block.device.side is None:
                    self.face = block.device.face or self.face  # a rear-only rail device
            rail = plan.rail(side, self.face)
            unit = _rail_unit(rail, plan.height, device_id)
            if unit is not None:
                return Cursor(index, unit, side)
        for block in plan.blocks:
            if block.device.id == device_id and block.device.position is not None:
                if not block.full_depth and (block.device.face or "front") != self.face:
                    self.face = block.device.face or "front"
                return Cursor(index, block.top)
        return None

    def _scroll_to_cursor(self, *, force: bool = False) -> None:
        plans = self.plans()
        if not plans:
            return
        line = self.line_of_unit(self.cursor.unit)  # content line of the cursor's unit
        height = max(self.scrollable_content_region.height, 2)
        y = self.scroll_offset.y
        if line < y + 1:  # screen row 0 is the racks' title line: the cursor goes under it
            y = line - 1
        elif line > y + height - 2:
            y = line - height + 2
        first, shown = self.first_rack(), self.racks_shown()
        if self.cursor.rack < first:
            first = self.cursor.rack
        elif self.cursor.rack >= first + shown:
            first = self.cursor.rack - shown + 1
        # ``force``: the scrollbars the new virtual size needs are not laid out yet.
        self.scroll_to(x=first * COLUMN_W, y=y, animate=False, immediate=True, force=force)

    # -- move mode ----------------------------------------------------------------------

    def start_move(self) -> str | None:
        block = self.block_at()
        if block is None or block.height == 0:
            return None
        self.ghost = Ghost(block.device.id, self.cursor.rack, block.device.position or 1)
        self._bump_ghost_racks()
        self.refresh()
        return block.device.id

    def end_move(self) -> None:
        self._bump_ghost_racks()
        self.ghost = None
        self.refresh()

    def ghost_block(self) -> Block | None:
        if self.ghost is None:
            return None
        if self.ghost.block is not None:
            return self.ghost.block
        for _, plans in self.rows:
            for plan in plans:
                for block in plan.blocks:
                    if block.device.id == self.ghost.device:
                        return block
        return None

    def preview_entry(self, model: str, cell: Cursor | None) -> str:
        """A catalog entry dragged over ``cell``: its ghost where the drop would place it
        (designer.md's rule: the unit under the pointer, else the nearest free units that
        fit), drawn as a moved device's is; the text says where, or why not. ``cell``
        None (off the racks) clears the ghost."""
        from rackdesigner.design.placing import NoRoom, is_rail_device, plan, rear_face

        if self.ghost is not None and self.ghost.block is None:
            return f"moving {self.ghost.device}: enter places it, escape cancels"
        self.clear_preview()
        plans = self.plans()
        entry = self.catalog.devices.get(model) if self.catalog is not None else None
        if cell is None or entry is None or not 0 <= cell.rack < len(plans):
            return f"drop {model} on a unit to place it"
        rack = plans[cell.rack]
        if entry.height_u <= 0:
            where = (
                "on a side rail"
                if is_rail_device(entry)
                else "on its rear"
                if rear_face(entry)
                else "on the rack"
            )
            return f"drop: {model} is 0U, placed {where} of {rack.rack.id}"
        height = max(1, round(entry.height_u))
        # Listed blanking panels make way for a drop (design/panels.py).
        taken = {
            f: {u for u, b in rack.units(f).items() if b.kind != "blank"} for f in ("front", "rear")
        }
        block = Block(Device(f"+{model}", model), entry.kind or "other", height, entry.full_depth)
        try:
            placed = plan(
                {model: entry},
                [model],
                top=rack.height,
                taken=taken,
                near=cell.unit,
                face=self.face,
            )[0]
        except NoRoom as error:
            self.ghost = Ghost(block.device.id, cell.rack, cell.unit, block, "no room")
            self._bump_ghost_racks()
            self.refresh()
            return f"{rack.rack.id}: {error}"
        unit = placed.position or cell.unit
        block.device.position = unit
        self.ghost = Ghost(block.device.id, cell.rack, unit, block)
        self._bump_ghost_racks()
        self.refresh()
        span = f"U{unit}" if height == 1 else f"U{unit}-U{unit + height - 1}"
        if placed.moved:
            return f"drop: U{cell.unit} is taken, so {model} goes to {rack.rack.id} {span}"
        return f"drop: {model} fits at {rack.rack.id} {span}"

    def clear_preview(self) -> None:
        """Take a dragged catalog entry's ghost away (dropped, or off the racks)."""
        if self.ghost is not None and self.ghost.block is not None:
            self._bump_ghost_racks()
            self.ghost = None
            self.refresh()

    def _move_ghost(self, racks: int, units: int) -> None:
        ghost, block = self.ghost, self.ghost_block()
        if ghost is None or block is None:
            return
        plans = self.plans()
        rack = min(max(ghost.rack + racks, 0), len(plans) - 1)
        limit = max(plans[rack].height - block.height + 1, 1)
        unit = min(max(ghost.unit + units, 1), limit)
        self._bump_ghost_racks()
        self.ghost = Ghost(ghost.device, rack, unit)
        self._bump_ghost_racks()
        self.cursor = Cursor(rack, unit + block.height - 1)
        self._scroll_to_cursor()
        self.refresh()

    def _bump_ghost_racks(self) -> None:
        if self.ghost is None:
            return
        plans = self.plans()
        for index in {self.ghost.rack, self.cursor.rack}:
            if 0 <= index < len(plans):
                rack = plans[index].rack.id
                self.versions[rack] = self.versions.get(rack, 0) + 1
        for _, each in self.rows:
            for plan in each:
                if any(b.device.id == self.ghost.device for b in plan.blocks):
                    self.versions[plan.rack.id] = self.versions.get(plan.rack.id, 0) + 1

    # -- events -------------------------------------------------------------------------

    def watch_face(self) -> None:
        for key in self.versions:
            self.versions[key] += 1
        self._resize()
        self.refresh()
        if self.is_mounted:
            self.post_message(self.CursorMoved(self.current_rack_id(), self.current_device_id()))

    def on_resize(self) -> None:
        self._resize()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if styles_changed(self):  # a theme switch, not a focus change
            self._cache.clear()

    def on_click(self, event: events.Click) -> None:
        plans = self.plans()
        if not plans:
            return
        x = event.x + self.scroll_offset.x - self.gutter.left
        y = event.y - self.gutter.top
        rack, within = divmod(x, COLUMN_W)
        if rack >= self.first_rack() + self.racks_shown():  # the hint of the racks beyond
            self.focus()
            self.move_cursor(1, 0)
            return
        if rack >= len(plans) or within >= COLUMN_W - GAP_W:
            return
        # As render_line draws: line y (below the title line 0) shows unit tallest - (y + scroll).
        unit = (
            self.unit_for_line(plans[rack], y + self.scroll_offset.y)
            if y >= 1
            else self.cursor.unit
        )
        rail = "left" if within == LABEL_W else "right" if within == LABEL_W + 1 + BODY_W else None
        self.focus()
        self._set_cursor(Cursor(rack, unit, rail))

    # -- sideways: whole racks only ------------------------------------------------------

    def racks_shown(self) -> int:
        """How many racks the view's width shows whole (at least one)."""
        width = self.container_size.width - self.scrollbar_size_vertical
        return max(1, width // COLUMN_W)

    def first_rack(self) -> int:
        """The leftmost rack in view: the view scrolls by whole racks."""
        return int(self.scroll_offset.x) // COLUMN_W

    def _last_x(self) -> int:
        return max(len(self.plans()) - self.racks_shown(), 0) * COLUMN_W

    def validate_scroll_x(self, value: float) -> float:
        return whole_steps(value, self.scroll_x, COLUMN_W, self._last_x())

    def validate_scroll_target_x(self, value: float) -> float:
        return whole_steps(value, self.scroll_target_x, COLUMN_W, self._last_x())

    def _resize(self) -> None:
        plans = self.plans()
        tallest = max((p.height for p in plans), default=0)
        lines = self._line_count(tallest, self.units_per_row()) if plans else 0
        shown = self.racks_shown()
        # The last racks scroll in whole: the width past the last rack is the width the
        # view leaves over beside the racks it shows.
        spare = max(self.container_size.width - self.scrollbar_size_vertical - shown * COLUMN_W, 0)
        width = len(plans) * COLUMN_W + (spare if len(plans) > shown else 0)
        self.virtual_size = Size(width, lines + 3 if plans else 1)
        self.border_title = safe.content(self._title())

    def _title(self) -> str:
        """Row A · front · 3–4 of 7 · 6 U per row: where the view is (racks 3 and 4 of
        the row's 7; short enough for an 80-column terminal's racks view)."""
        if not self.rows:
            return "Racks"
        parts = [f"Row {self.row_name() or '–'}"]
        if len(self.rows) > 1:
            parts[0] += f" ({self.row + 1} of {len(self.rows)})"
        parts.append(self.face)
        count, first = len(self.plans()), self.first_rack()
        last = min(first + self.racks_shown(), count)
        if count > last - first:
            parts.append(f"{first + 1}–{last} of {count}")
        if self.units_per_row() > 1:
            parts.append(f"{self.units_per_row()} U per row")
        return " · ".join(parts)

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        self._resize()  # the scrollbar takes a column: perhaps a rack fewer in view

    def watch_scroll_x(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_x(old_value, new_value)
        self.border_title = safe.content(self._title())

    # -- drawing ------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        plans = self.plans()
        if not plans:
            text = self.empty_hint if y == 1 else ""
            return Strip([Segment(f"  {text}".ljust(width), base)]).crop(0, width)
        scroll_x, scroll_y = self.scroll_offset
        tallest = max(p.height for p in plans)
        line = 0 if y == 0 else y + scroll_y  # the title line stays put when scrolling
        self._theme = "dark" if self.app.current_theme.dark else "light"
        first = scroll_x // COLUMN_W
        last = min(len(plans), first + self.racks_shown())
        pieces = [self._piece(index, plans[index], line, tallest) for index in range(first, last)]
        if y == 0 and last < len(plans):  # the racks beyond, never a piece of the next one
            room = width - (last - first) * COLUMN_W
            hint = f"→ {len(plans) - last:,} more"
            if len(hint) > room:
                hint = f"→{len(plans) - last:,}"
            if len(hint) <= room:
                style = self.get_component_rich_style("racks--title")
                pieces.append(Strip([Segment(hint.rjust(room), style)]))
        strip = Strip.join(pieces) if pieces else Strip([])
        offset = scroll_x - first * COLUMN_W
        return strip.crop_extend(offset, offset + width, base)

    def _piece(self, index: int, plan: RackPlan, line: int, tallest: int) -> Strip:
        """One rack's part of a line: cached until the rack, its marks or the cursor change."""
        k = self.units_per_row()
        if k > 1:
            return self._compact_piece(index, plan, line, tallest, k)
        unit = tallest - line + 1 if 0 < line <= tallest else None
        cursor = self.cursor
        mine = index == cursor.rack
        block = plan.units(self.face).get(unit) if unit is not None else None
        current = self.block_at() if mine else None
        key = (
            plan.rack.id,
            self.versions.get(plan.rack.id, 0),
            line,
            self.face,
            self._theme,
            mine and (line == 0 or unit == cursor.unit),  # the cursor's title or unit
            cursor.rail if mine else None,
            current.device.id
            if current is not None and (cursor.rail or current is block)
            else None,
            block.device.id if block is not None and block.device.id in self.selection else None,
            self.ghost if self.ghost is not None and index == self.ghost.rack else None,
        )
        cached = self._cache.get(key)
        if cached is None:
            cached = self._draw(index, plan, line, unit, tallest)
            self._cache[key] = cached
        return cached

    def _draw(self, index: int, plan: RackPlan, line: int, unit: int | None, tallest: int) -> Strip:
        base = self.rich_style
        frame = self.get_component_rich_style("racks--frame")
        theme = self._theme
        colours = palette.SEVERITY_COLOURS[theme]
        gap = Segment(" " * GAP_W, base)
        if line == 0:  # title: rack id and its findings, by symbol and colour
            segments = [Segment(" " * (LABEL_W + 1), base)]
            title = self.get_component_rich_style("racks--title")
            name = safe.plain(plan.rack.id)
            if index == self.cursor.rack:
                title += self.get_component_rich_style("racks--cursor")
            segments.append(Segment(name[:BODY_W], title))
            used = min(len(name), BODY_W)
            counts = self.marks.racks.get(plan.rack.id, {})
            for severity in ("error", "warning", "info"):
                count = counts.get(severity)
                if not count or used >= BODY_W - 2:
                    continue
                text = f" {palette.SEVERITY_SYMBOLS[severity]}{count}"[: BODY_W - used]
                segments.append(Segment(text, base + Style(color=colours[severity], bold=True)))
                used += len(text)
            segments.append(Segment(" " * (BODY_W + 1 - used), base))
            return Strip([*segments, gap]).adjust_cell_length(COLUMN_W, base)
        if unit is None:
            if line == tallest + 1 and plan.height >= 1:
                bottom = f"└{'─' * BODY_W}┘"
                return Strip([Segment(" " * LABEL_W, base), Segment(bottom, frame), gap])
            if line == tallest + 2:
                text = safe.plain(f"{plan.rack.height_u:g} U · {plan.rack.cooling_mode}")[
                    : BODY_W + 2
                ]
                return Strip(
                    [Segment(" " * LABEL_W, base), Segment(text.center(BODY_W + 2), frame), gap]
                ).adjust_cell_length(COLUMN_W, base)
            return Strip.blank(COLUMN_W, base)
        if unit > plan.height:
            if unit == plan.height + 1:
                top = f"┌{'─' * BODY_W}┐"
                return Strip([Segment(" " * LABEL_W, base), Segment(top, frame), gap])
            return Strip.blank(COLUMN_W, base)
        cursor = self.cursor
        here = index == cursor.rack and unit == cursor.unit
        label_style = self.get_component_rich_style("racks--unit")
        if here and not cursor.rail:
            label_style = self.get_component_rich_style("racks--cursor")
        segments = [Segment(f"{unit:>2} ", label_style)]
        segments.append(self._rail(plan, "left", unit, index, frame))
        segments.extend(self._body(index, plan, unit))
        segments.append(self._rail(plan, "right", unit, index, frame))
        segments.append(gap)
        return Strip(segments).adjust_cell_length(COLUMN_W, base)

    # -- the compact zooms: several units a line ----------------------------------------

    def _compact_piece(self, index: int, plan: RackPlan, line: int, tallest: int, k: int) -> Strip:
        cursor = self.cursor
        mine = index == cursor.rack
        row = self.units_of_line(line)
        current = self.block_at() if mine else None
        shown: tuple[str, ...] = ()
        if row is not None and row[0] <= plan.height:
            units = plan.units(self.face)
            shown = tuple(
                sorted(
                    {
                        b.device.id
                        for u in range(row[0], min(row[1], plan.height) + 1)
                        if (b := units.get(u)) is not None and b.device.id in self.selection
                    }
                )
            )
        key = (
            "compact",
            k,
            plan.rack.id,
            self.versions.get(plan.rack.id, 0),
            line,
            self.face,
            self._theme,
            mine and (line == 0 or line == self.line_of_unit(cursor.unit)),
            cursor.rail if mine else None,
            current.device.id if current is not None else None,
            shown,
            self.ghost if self.ghost is not None and index == self.ghost.rack else None,
        )
        cached = self._cache.get(key)
        if cached is None:
            cached = self._draw_compact(index, plan, line, row, tallest, k)
            self._cache[key] = cached
        return cached

    def _draw_compact(
        self,
        index: int,
        plan: RackPlan,
        line: int,
        row: tuple[int, int] | None,
        tallest: int,
        k: int,
    ) -> Strip:
        count = self._line_count(tallest, k)
        if line == 0 or row is None:  # the title, the bottom and the caption as at 1 U
            return self._draw(index, plan, line, None, count)
        base = self.rich_style
        frame = self.get_component_rich_style("racks--frame")
        gap = Segment(" " * GAP_W, base)
        lowest, highest = row
        if lowest > plan.height:
            if lowest - k <= plan.height:
                top = f"┌{'─' * BODY_W}┐"
                return Strip([Segment(" " * LABEL_W, base), Segment(top, frame), gap])
            return Strip.blank(COLUMN_W, base)
        highest = min(highest, plan.height)
        cursor = self.cursor
        here = index == cursor.rack and lowest <= cursor.unit <= highest
        label_style = self.get_component_rich_style("racks--unit")
        if here and not cursor.rail:
            label_style = self.get_component_rich_style("racks--cursor")
        segments = [Segment(f"{lowest:>2} ", label_style)]
        segments.append(self._rail(plan, "left", highest, index, frame, lowest))
        segments.extend(self._compact_body(index, plan, lowest, highest, k))
        segments.append(self._rail(plan, "right", highest, index, frame, lowest))
        segments.append(gap)
        return Strip(segments).adjust_cell_length(COLUMN_W, base)

    def _compact_body(
        self, index: int, plan: RackPlan, lowest: int, highest: int, k: int
    ) -> list[Segment]:
        """A compact line's body, units ``lowest``..``highest`` as one cell: the device
        being moved over them, else the one the cursor is on, else the first that starts
        on them (with how many more start there)."""
        ghost = self._compact_ghost(index, plan, lowest, highest)
        if ghost is not None:
            return [ghost]
        blocks, moved_away = self._blocks_between(plan, lowest, highest)
        cursor = self.cursor
        if not blocks:
            if moved_away:
                return [Segment("╌" * BODY_W, self.get_component_rich_style("racks--empty"))]
            here = index == cursor.rack and lowest <= cursor.unit <= highest and not cursor.rail
            style = self.get_component_rich_style("racks--cursor" if here else "racks--empty")
            return [Segment("·".center(BODY_W), style)]
        current = self.block_at() if index == cursor.rack else None
        starts = [b for b in blocks if lowest <= b.top <= highest]
        if current is not None and current in blocks:
            block = current
        else:
            block = starts[0] if starts else blocks[0]
        return self._compact_cell(block, block is current, starts, lowest, highest)

    def _compact_ghost(
        self, index: int, plan: RackPlan, lowest: int, highest: int
    ) -> Segment | None:
        """The device being moved, where its ghost covers units of this line."""
        ghost, moving = self.ghost, self.ghost_block()
        if ghost is None or moving is None or ghost.rack != index:
            return None
        spans = range(max(lowest, ghost.unit), min(highest, ghost.unit + moving.height - 1) + 1)
        if not spans:
            return None
        units = plan.units(self.face)
        clash = any(_in_the_way(units.get(u), moving) for u in spans)
        clash = clash or ghost.refused is not None
        top = ghost.unit + moving.height - 1
        return self._ghost_cell(moving, top if lowest <= top <= highest else -1, ghost.unit, clash)

    def _blocks_between(
        self, plan: RackPlan, lowest: int, highest: int
    ) -> tuple[list[Block], bool]:
        """The devices on units ``lowest``..``highest``, top down, but the one being moved
        away; and whether it was among them."""
        units = plan.units(self.face)
        blocks: list[Block] = []
        for unit in range(highest, lowest - 1, -1):
            block = units.get(unit)
            if block is not None and block not in blocks:
                blocks.append(block)
        moving = self.ghost_block()
        moved_away = moving is not None and self.ghost is not None and moving in blocks
        if moved_away:
            blocks.remove(moving)  # type: ignore[arg-type]
        return blocks, moved_away

    def _compact_cell(
        self, block: Block, current: bool, starts: list[Block], lowest: int, highest: int
    ) -> list[Segment]:
        """``block``'s cell on a compact line: its id (marks, selection tick, ½) where it
        starts on the line, else its model or label; then ``+N`` more starting there, or the
        parts' marks where they are trays and shelves."""
        swatch = palette.swatch(block.kind, self._theme)
        style = Style(color=swatch.text, bgcolor=swatch.fill)
        if current:
            style += self.get_component_rich_style("racks--selected")
        named = lowest <= block.top <= highest
        segments: list[Segment] = []
        room = BODY_W
        if named:
            text = safe.plain(block.device.id)
            if not block.full_depth:
                text = f"{text} ½"
            mark = self._mark_segment(block.device.id, style)
            if mark is not None:
                segments.append(mark)
                room -= 1
            if block.device.id in self.selection:
                text = f"✓{text}"
        else:
            below = self.line_of_unit(highest) - self.line_of_unit(block.top)
            under = {1: block.device.model, 2: block.device.label or ""}
            text = safe.plain(under.get(below, ""))
        others = len([b for b in starts if b is not block])
        more = f" +{others}" if others else ""
        if named and others and all(b.kind in palette.PART_MARKS for b in starts):
            # Trays and shelves tell apart by their marks, one a device, top to bottom.
            marks = " " + "".join(palette.PART_MARKS[b.kind][0] for b in starts)
            if len(text) + 1 + len(marks) <= room:
                more = marks
        body = f" {text}"[: room - len(more)].ljust(room - len(more)) + more
        segments.append(Segment(body, style + (Style(bold=True) if named else Style())))
        return segments

    def _rail(
        self,
        plan: RackPlan,
        side: str,
        unit: int,
        index: int,
        frame: Style,
        lowest: int | None = None,
    ) -> Segment:
        """The rail's cell at ``unit`` (a compact line: at ``lowest``..``unit``)."""
        rail = plan.rail(side, self.face)
        block = _rail_block(rail, plan.height, unit, lowest)
        if block is None:
            return Segment("│", frame)
        swatch = palette.swatch(block.kind, self._theme)
        here = self.cursor.rack == index and self.cursor.rail == side
        selected = here and self.block_at() is block
        style = Style(color=swatch.fill, bold=True)
        if block.device.id in self.shade:
            style = Style(color=_shade_style(self.shade[block.device.id], self._theme).bgcolor)
        if selected:
            style += self.get_component_rich_style("racks--cursor")
        return Segment("┃" if not selected else "▐", style)

    def _body(self, index: int, plan: RackPlan, unit: int) -> list[Segment]:
        """One unit's body: the device being moved over it, else the device on it (its top
        line or the lines under it), else an empty unit."""
        ghost = self.ghost
        moving = self.ghost_block()
        if (
            ghost is not None
            and moving is not None
            and ghost.rack == index
            and ghost.unit <= unit < ghost.unit + moving.height
        ):
            refused = _in_the_way(plan.units(self.face).get(unit), moving)
            refused = refused or ghost.refused is not None
            return [self._ghost_cell(moving, unit, ghost.unit, refused)]
        block = plan.units(self.face).get(unit)
        if block is not None and moving is not None and block is moving and ghost is not None:
            return [Segment("╌" * BODY_W, self.get_component_rich_style("racks--empty"))]
        if block is None:
            here = index == self.cursor.rack and unit == self.cursor.unit and not self.cursor.rail
            style = self.get_component_rich_style("racks--cursor" if here else "racks--empty")
            return [Segment("·".center(BODY_W), style)]
        return self._block_cell(index, block, unit)

    def _block_cell(self, index: int, block: Block, unit: int) -> list[Segment]:
        """``block``'s cell at ``unit``: in its what-if shade or its kind's colours; on its
        top unit its marks and name, bold, below that what :func:`_under_text` says."""
        swatch = palette.swatch(block.kind, self._theme)
        style = Style(color=swatch.text, bgcolor=swatch.fill)
        shade = self.shade.get(block.device.id) if self.shade else None
        if shade is not None:
            style = _shade_style(shade, self._theme)
        if index == self.cursor.rack and self.block_at() is block:
            style += self.get_component_rich_style("racks--selected")
        row_in_block = block.top - unit  # 0 on its top unit
        if row_in_block:
            body = f" {safe.plain(_under_text(block, row_in_block))}"[:BODY_W].ljust(BODY_W)
            return [Segment(body, style)]
        segments: list[Segment] = []
        room = BODY_W
        mark = self._mark_segment(block.device.id, style)
        if mark is not None:
            segments.append(mark)
            room -= 1
        text = self._top_text(block, shade, room - 1)
        body = _with_marks(f" {text}", block.kind, room)[:room].ljust(room)
        segments.append(Segment(body, style + Style(bold=True)))
        return segments

    def _top_text(self, block: Block, shade: str | None, room: int) -> str:
        """A device's top line: what-if shade, selection tick, then its id (the cable
        schedule's name for it) with its label beside it when the whole label fits, and ½
        for a half-depth device."""
        device = block.device
        lead = (SHADES[shade] if shade is not None else "") + (
            "✓" if device.id in self.selection else ""
        )
        half = "" if block.full_depth else " ½"
        label = safe.plain(device.label) if _label_beside(block) else None
        return lead + named(safe.plain(device.id), label, room - len(lead) - len(half)) + half

    def _ghost_cell(self, block: Block, unit: int, bottom: int, clash: bool) -> Segment:
        swatch = palette.swatch(block.kind, self._theme)
        colour = palette.SEVERITY_COLOURS[self._theme]["error"] if clash else swatch.fill
        text = safe.plain(block.device.id) if unit == bottom + block.height - 1 else ""
        if clash and unit == bottom + block.height - 1:
            why = self.ghost.refused if self.ghost is not None else None
            text = f"{text} ✖ {why or 'taken'}"
        return Segment(f"░{text}"[:BODY_W].ljust(BODY_W, "░"), Style(color=colour, bold=True))


# The top line's room for the id and a label beside it: the body less its leading space
# and one cell for a finding's mark or the selection's tick.
TOP_ROOM = BODY_W - 2


def _label_beside(block: Block) -> bool:
    """Whether a device's label fits whole beside its id on its top line."""
    device = block.device
    if not device.label or device.label == device.id:
        return False
    half = 0 if block.full_depth else 2
    return len(device.id) + 3 + len(device.label) + half <= TOP_ROOM


def _under_text(block: Block, row: int) -> str:
    """The line ``row`` units under a device's top: its label (unless it stands beside the
    id), then its model."""
    device = block.device
    if device.label and device.label != device.id and not _label_beside(block):
        lines = [device.label, device.model]
    else:
        lines = [device.model]
    return lines[row - 1] if row - 1 < len(lines) else ""


# A what-if's shades: the symbol before the device's id.
SHADES = {"down": "▼", "degraded": "◐", "cut off": "⌁"}


def _in_the_way(block: Block | None, moving: Block) -> bool:
    """Whether a unit's block stops a move: not the device itself, and not a listed
    blanking panel (a move over panels takes their place: design/panels.py)."""
    return block is not None and block is not moving and block.kind != "blank"


def _shade_style(shade: str, theme: str) -> Style:
    """Down: the error colour, struck through; degraded and cut off: the warning colour."""
    colours = palette.SEVERITY_COLOURS[theme]
    colour = colours["error"] if shade == "down" else colours["warning"]
    text = "#000000" if theme == "dark" else "#ffffff"
    return Style(color=text, bgcolor=colour, strike=shade == "down", italic=shade != "down")


def _rail_block(
    rail: list[Block], height: int, unit: int, lowest: int | None = None
) -> Block | None:
    """The 0U device drawn at ``unit`` of a rail (or anywhere from ``lowest`` to ``unit``):
    one drawn over units of its own (the busbar, over the trays and shelves), else the
    rail's height shared in file order by the others."""
    shared = rail
    if any(b.span is not None for b in rail):
        bottom = unit if lowest is None else lowest
        for block in rail:
            if block.span is not None and block.span[0] <= unit and bottom <= block.span[1]:
                return block
        shared = [b for b in rail if b.span is None]
    if not shared:
        return None
    share = height / len(shared)
    index = min(int((height - unit) / share), len(shared) - 1)
    return shared[index]


def _rail_unit(rail: list[Block], height: int, device_id: str) -> int | None:
    """Where a rail's device is drawn (the unit the cursor goes to on it)."""
    shared = [b for b in rail if b.span is None]
    for block in rail:
        if block.device.id == device_id:
            if block.span is not None:
                return block.span[1]
            share = height / len(shared)
            return max(1, int(height - shared.index(block) * share))
    return None


def _with_marks(text: str, kind: str, room: int) -> str:
    """A device's top line with its rack-scale part's marks at the right (the elevations'
    marks: a compute tray's four, a switch tray's two, a power shelf's six), as many as
    the id leaves room for; other kinds as they are."""
    mark = palette.PART_MARKS.get(kind)
    if mark is None:
        return text[:room].ljust(room)
    symbol, count = mark
    count = min(count, room - len(text.rstrip()) - 1)
    if count < 1:
        return text[:room].ljust(room)
    return text.ljust(room - count) + symbol * count
