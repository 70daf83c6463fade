"""The floor view: the hall from above, one cell per rack at its row and slot.

Each cell shows the rack's id, its load in kW on the floor plan's density scale
(``palette.DENSITY_STEPS_KW``, the same steps and colours as ``export --floorplan``), its
cooling (a letter) and the use of its busiest feed. Drawn with the Line API: a line of a row
is one cached strip, so a hall of 3,000 racks costs only the lines on screen.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from rackdesigner.export.render import palette
from rackdesigner.model.layout import Layout
from rackdesigner.model.wording import plural
from rackdesigner.tui import actions, safe
from rackdesigner.tui.findings import Marks
from rackdesigner.tui.rows import rows_of
from rackdesigner.tui.widgets.columns import whole_steps
from rackdesigner.tui.widgets.style_cache import styles_changed

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.design.cable_route import FloorRoute

CELL_W = 9  # body: id / kW / cooling and feed use
COLUMN_W = CELL_W + 2  # a cursor mark each side
LABEL_W = 5  # "A   " row names
CELL_LINES = 3
ROW_LINES = CELL_LINES + 1  # a blank line between rows
HEADER_LINES = 2  # the scale and the key
COOLING_LETTER = {"air": "A", "liquid": "L", "rear-door": "D", "immersion": "I"}


def density_step(load_w: float) -> int:
    """The step of the density scale a load falls in (as the SVG floor plan)."""
    kw = load_w / 1000
    for index, limit in enumerate(palette.DENSITY_STEPS_KW):
        if kw < limit:
            return index
    return len(palette.DENSITY_STEPS_KW)


def scale_labels(compact: bool = False) -> list[str]:
    """The density scale's bands: ``5-10``, or by their lower bound alone when
    ``compact`` (``5``), so the whole scale fits an 80-column terminal's floor view."""
    steps = palette.DENSITY_STEPS_KW
    if compact:
        return [f"<{steps[0]:g}", *(f"{a:g}" for a in steps[:-1]), f"≥{steps[-1]:g}"]
    return [f"<{steps[0]:g}", *(f"{a:g}-{b:g}" for a, b in pairwise(steps)), f"≥{steps[-1]:g}"]


KEY = "A air · L liquid · D rear door · I immersion · % busiest feed"
KEY_SHORT = "A air · L liquid · D door · I imm. · % feed"


@dataclass(frozen=True, slots=True)
class Cell:
    rack: str
    column: int  # 0-based column on the floor (by slot)
    load: float | None  # W; None before the first check
    cooling: str
    feed_use: float | None  # the busiest feed's share of its usable capacity
    severity: str | None  # the worst finding of the rack


def floor_rows(
    layout: Layout, analysis: Analysis | None, marks: Marks
) -> list[tuple[str, list[Cell]]]:
    """Rows in floor order; in each, its racks at their slot's column (unslotted ones after)."""
    facts = {}
    if analysis is not None:
        facts = {f.rack.id: f for f in analysis.racks}
    out = []
    slots = [r.slot for r in layout.racks if r.slot is not None]
    first = min(slots, default=1)
    for name, racks in rows_of(layout):
        cells: list[Cell] = []
        column = 0
        for rack in racks:
            column = rack.slot - first if rack.slot is not None else column
            # Two racks claiming one slot stay visible side by side.
            if cells and column <= cells[-1].column:
                column = cells[-1].column + 1
            fact = facts.get(rack.id)
            uses = [f.utilisation for f in fact.feeds if f.utilisation is not None] if fact else []
            counts = marks.racks.get(rack.id, {})
            severity = next((s for s in ("error", "warning", "info") if counts.get(s)), None)
            cells.append(
                Cell(
                    rack.id,
                    column,
                    fact.load if fact is not None else None,
                    rack.cooling_mode,
                    max(uses) if uses else None,
                    severity,
                )
            )
            column += 1
        out.append((name, cells))
    return out


# (v1.4) A cable's route on the floor: box-drawing characters along the line under each
# row (the row's lane, where its tray runs), down and across the rows between, a dot at
# each end's rack.
_BOX = {
    frozenset("lr"): "─",
    frozenset("ud"): "│",
    frozenset("rd"): "┌",
    frozenset("ld"): "┐",
    frozenset("ru"): "└",
    frozenset("lu"): "┘",
    frozenset("udr"): "├",
    frozenset("udl"): "┤",
    frozenset("lrd"): "┬",
    frozenset("lru"): "┴",
    frozenset("lrud"): "┼",
    frozenset("l"): "─",
    frozenset("r"): "─",
    frozenset("u"): "│",
    frozenset("d"): "│",
}
END = "●"


def route_x(slot: float, first: int, columns: int) -> int:
    """The body column of a slot position: a rack's centre; between two racks at a half
    slot; at the floor's edge for a position beyond its racks (an aisle's tray)."""
    x = int((slot - first) * COLUMN_W + COLUMN_W // 2)
    return min(max(x, 0), max(columns * COLUMN_W - 1, 0))


def trace(
    points: Sequence[tuple[float, int]], first: int, columns: int
) -> dict[int, dict[int, str]]:
    """The characters a route is drawn with, by body line and column: each point (slot
    position, row index) on its row's lane (the blank line under the row), joined along
    the lanes and across the rows; a dot at the first and the last."""
    joins: dict[tuple[int, int], set[str]] = {}
    places = [(route_x(slot, first, columns), row * ROW_LINES + CELL_LINES) for slot, row in points]

    def join(x: int, y: int, way: str) -> None:
        joins.setdefault((y, x), set()).add(way)

    for (x0, y0), (x1, y1) in pairwise(places):
        step = 1 if x1 >= x0 else -1
        for x in range(x0, x1, step):  # along the lane first, then across the rows
            join(x, y0, "r" if step > 0 else "l")
            join(x + step, y0, "l" if step > 0 else "r")
        step = 1 if y1 >= y0 else -1
        for y in range(y0, y1, step):
            join(x1, y, "d" if step > 0 else "u")
            join(x1, y + step, "u" if step > 0 else "d")
    out: dict[int, dict[int, str]] = {}
    for (y, x), ways in joins.items():
        out.setdefault(y, {})[x] = _BOX.get(frozenset(ways), "┼")
    for x, y in (places[0], places[-1]) if places else ():
        out.setdefault(y, {})[x] = END
    return out


class FloorView(ScrollView, can_focus=True):
    """Racks from above; a cursor moves rack to rack; enter opens the rack's elevation."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *actions.bindings("floor"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {"floor--label", "floor--cursor", "floor--key"}

    class Opened(Message):
        """The rack under the cursor was double-clicked: open it, as enter does."""

    class CursorMoved(Message):
        def __init__(self, rack: str | None) -> None:
            self.rack = rack
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[tuple[str, list[Cell]]] = []
        self.columns_of: list[list[int]] = []
        self.row = 0
        self.index = 0  # the cursor's cell in its row
        self.version = 0
        self._cache: LRUCache[tuple[object, ...], Strip] = LRUCache(maxsize=4096)
        self._theme = "dark"
        self.border_title = "Floor"
        self.first_slot = 1
        self.route: FloorRoute | None = None  # the selected cable's, drawn over the floor
        self._trace: dict[int, dict[int, str]] = {}

    def show(self, layout: Layout, analysis: Analysis | None, marks: Marks) -> None:
        current = self.current_rack_id()
        self.rows = floor_rows(layout, analysis, marks)
        # Each row's columns (ascending): what a scroll shows is counted by bisection.
        self.columns_of = [[c.column for c in cells] for _, cells in self.rows]
        self.first_slot = min((r.slot for r in layout.racks if r.slot is not None), default=1)
        self.version += 1
        self._retrace()
        if current is None or not self.select(current, announce=False):
            self.row = min(self.row, max(len(self.rows) - 1, 0))
            self.index = 0
        self._resize()
        self.refresh()

    def show_route(self, route: FloorRoute | None) -> None:
        """Draw ``route`` (a selected cable's) over the floor, its summary under the panel;
        None clears it."""
        self.route = route
        self.border_subtitle = safe.plain(route.summary) if route is not None else ""
        self._retrace()
        self.refresh()

    def _retrace(self) -> None:
        route = self.route
        if route is None or not route.routed:
            self._trace = {}
            return
        self._trace = trace(route.points, self.first_slot, self._columns())

    def current_rack_id(self) -> str | None:
        if not self.rows or not self.rows[self.row][1]:
            return None
        cells = self.rows[self.row][1]
        return cells[min(self.index, len(cells) - 1)].rack

    def select(self, rack: str, *, announce: bool = True) -> bool:
        for row, (_, cells) in enumerate(self.rows):
            for index, cell in enumerate(cells):
                if cell.rack == rack:
                    self._set(row, index, announce=announce)
                    return True
        return False

    def move(self, dx: int, dy: int) -> None:
        if not self.rows:
            return
        row, index = self.row, self.index
        if dx:
            index = min(max(index + dx, 0), max(len(self.rows[row][1]) - 1, 0))
        if dy:
            here = self.rows[row][1]
            column = here[index].column if here else 0
            target = row + dy
            # Skip rows without racks; stay put at the hall's edge.
            while 0 <= target < len(self.rows) and not self.rows[target][1]:
                target += dy
            if not 0 <= target < len(self.rows):
                return
            row = target
            cells = self.rows[row][1]
            index = min(range(len(cells)), key=lambda i: (abs(cells[i].column - column), i))
        self._set(row, index)

    def _set(self, row: int, index: int, *, announce: bool = True) -> None:
        self.row, self.index = row, index
        self._scroll_to_cursor()
        self.refresh()
        if announce:
            self.post_message(self.CursorMoved(self.current_rack_id()))

    def _scroll_to_cursor(self) -> None:
        cells = self.rows[self.row][1] if self.rows else []
        if not cells:
            return
        top = HEADER_LINES + self.row * ROW_LINES
        left = LABEL_W + cells[self.index].column * COLUMN_W
        height = max(self.scrollable_content_region.height - HEADER_LINES, 1)
        width = max(self.scrollable_content_region.width - LABEL_W, 1)
        del width
        y = self.scroll_offset.y
        body = top - HEADER_LINES
        if body < y:
            y = body
        elif body + CELL_LINES > y + height:
            y = body + CELL_LINES - height
        column = (left - LABEL_W) // COLUMN_W
        first, shown = self.first_column(), self.columns_shown()
        if column < first:
            first = column
        elif column >= first + shown:
            first = column - shown + 1
        self.scroll_to(x=first * COLUMN_W, y=y, animate=False, immediate=True)

    # -- sideways: whole racks only ------------------------------------------------------

    def columns_shown(self) -> int:
        """How many slots the view's width shows whole (at least one)."""
        width = self.container_size.width - self.scrollbar_size_vertical - LABEL_W
        return max(1, width // COLUMN_W)

    def first_column(self) -> int:
        return int(self.scroll_offset.x) // COLUMN_W

    def validate_scroll_x(self, value: float) -> float:
        return whole_steps(value, self.scroll_x, COLUMN_W, self._last_x())

    def validate_scroll_target_x(self, value: float) -> float:
        return whole_steps(value, self.scroll_target_x, COLUMN_W, self._last_x())

    def _last_x(self) -> int:
        return max(self._columns() - self.columns_shown(), 0) * COLUMN_W

    def _columns(self) -> int:
        return max((cells[-1].column + 1 for _, cells in self.rows if cells), default=0)

    def _resize(self) -> None:
        columns, shown = self._columns(), self.columns_shown()
        spare = self.container_size.width - self.scrollbar_size_vertical - LABEL_W
        spare = max(spare - shown * COLUMN_W, 0) if columns > shown else 0
        self.virtual_size = Size(
            LABEL_W + columns * COLUMN_W + spare, HEADER_LINES + len(self.rows) * ROW_LINES
        )
        self.border_title = self._title()

    def _title(self) -> str:
        """Floor · 1 row · 7 racks · 3 in view: what the panel holds and what it shows
        (the racks of the rows and slots in view; the rest are a scroll away)."""
        racks = sum(len(cells) for _, cells in self.rows)
        title = f"Floor · {plural(len(self.rows), 'row')} · {plural(racks, 'rack')}"
        first, shown = self.first_column(), self.columns_shown()
        top = int(self.scroll_offset.y) // ROW_LINES
        height = self.container_size.height - self.scrollbar_size_horizontal - HEADER_LINES
        seen = sum(
            bisect_left(columns, first + shown) - bisect_left(columns, first)
            for columns in self.columns_of[top : top + max(height // ROW_LINES, 1)]
        )
        return title + (f" · {seen:,} in view" if seen < racks else "")

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        self._resize()  # the scrollbar takes a column: perhaps a rack fewer in view

    def watch_scroll_x(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_x(old_value, new_value)
        self.border_title = self._title()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self.border_title = self._title()

    def on_resize(self) -> None:
        self._resize()
        # The cursor may have been put on a rack before the view had a size (the view
        # first shown, or a cable's first rack): bring it into view now that it has one.
        self._scroll_to_cursor()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if styles_changed(self):  # a theme switch, not a focus change
            self._cache.clear()

    def on_click(self, event: events.Click) -> None:
        x = event.x - self.gutter.left + self.scroll_offset.x - LABEL_W
        y = event.y - self.gutter.top - HEADER_LINES
        if x < 0 or y < 0:
            return
        row, within = divmod(y + self.scroll_offset.y, ROW_LINES)
        if row >= len(self.rows) or within >= CELL_LINES:
            return
        column = x // COLUMN_W
        self.focus()
        for index, cell in enumerate(self.rows[row][1]):
            if cell.column == column:
                self._set(row, index)
                if event.chain >= 2:  # a double click opens it, as enter does
                    self.post_message(self.Opened())
                return

    # -- drawing ------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        self._theme = "dark" if self.app.current_theme.dark else "light"
        if y < HEADER_LINES:
            return self._header(y).crop_extend(0, width, base)
        if not self.rows:
            text = "  No racks in this layout." if y == HEADER_LINES else ""
            return Strip([Segment(text.ljust(width), base)])
        scroll_x, scroll_y = self.scroll_offset
        line = y - HEADER_LINES + scroll_y
        row, within = divmod(line, ROW_LINES)
        traced = self._trace.get(line)
        if row >= len(self.rows) or within >= CELL_LINES:
            if traced:
                return self._lane(traced, width, base)
            return Strip.blank(width, base)
        cursor = self.index if row == self.row else -1
        key = (row, within, cursor, self.version, self._theme)
        body = self._cache.get(key)
        if body is None:
            body = self._draw(row, within, cursor)
            self._cache[key] = body
        name = safe.plain(self.rows[row][0] or "–") if within == 0 else ""
        label_style = self.get_component_rich_style("floor--label")
        label = Strip([Segment(name[: LABEL_W - 1].ljust(LABEL_W), label_style)])
        # Whole racks only; past them, on a row's first line, how many are beyond.
        shown = self.columns_shown() * COLUMN_W
        rest = body.crop_extend(scroll_x, scroll_x + shown, base)
        if traced:  # the selected cable's route crosses this row
            rest = self._over(rest, traced, scroll_x, shown)
        room = max(width - LABEL_W - shown, 0)
        beyond = self.first_column() + self.columns_shown()
        columns = self.columns_of[row]
        more = len(columns) - bisect_left(columns, beyond) if within == 0 else 0
        hint = f"→{more:,}" if more else ""
        tail = Strip([Segment(hint.rjust(room)[:room], label_style)])
        return Strip.join([label, rest, tail])

    def _route_style(self) -> Style:
        return Style(color=palette.SURFACES[self._theme]["route"], bold=True)

    def _lane(self, traced: dict[int, str], width: int, base: Style) -> Strip:
        """A blank line under a row with the route's characters on it."""
        shown = self.columns_shown() * COLUMN_W
        scroll_x = int(self.scroll_offset.x)
        chars = [" "] * shown
        for x, char in traced.items():
            if scroll_x <= x < scroll_x + shown:
                chars[x - scroll_x] = char
        text = "".join(chars)
        style = self._route_style()
        segments = [Segment(" " * LABEL_W, base)]
        start = 0
        for index in range(1, len(text) + 1):  # runs of blanks and of the route
            if index == len(text) or (text[index] == " ") != (text[start] == " "):
                segments.append(Segment(text[start:index], base if text[start] == " " else style))
                start = index
        return Strip(segments).crop_extend(0, width, base)

    def _over(self, rest: Strip, traced: dict[int, str], scroll_x: int, shown: int) -> Strip:
        """A row's line with the route's characters drawn over it (where it crosses)."""
        style = self._route_style()
        for x, char in sorted(traced.items()):
            at = x - scroll_x
            if 0 <= at < shown:
                rest = Strip.join(
                    [rest.crop(0, at), Strip([Segment(char, style)]), rest.crop(at + 1, shown)]
                )
        return rest

    def _header(self, y: int) -> Strip:
        key = self.get_component_rich_style("floor--key")
        width = self.scrollable_content_region.width
        if y == 0:
            segments = [Segment("kW ", key)]
            wide = 3 + sum(len(label) + 1 for label in scale_labels())
            for index, label in enumerate(scale_labels(compact=wide > width)):
                fill = palette.DENSITY_COLOURS[self._theme][index]
                text = palette.DENSITY_TEXT[self._theme][index]
                # One space a band: the ten bands of the scale (up to 150 kW) fit a narrow panel.
                segments.append(Segment(f" {label}", Style(color=text, bgcolor=fill)))
            return Strip(segments)
        return Strip([Segment(KEY if len(KEY) <= width else KEY_SHORT, key)])

    def _draw(self, row: int, within: int, cursor: int) -> Strip:
        base = self.rich_style
        cells = self.rows[row][1]
        mark = self.get_component_rich_style("floor--cursor")
        colours = palette.SEVERITY_COLOURS[self._theme]
        segments: list[Segment] = []
        column = 0
        for index, cell in enumerate(cells):
            if cell.column > column:
                segments.append(Segment(" " * (COLUMN_W * (cell.column - column)), base))
            column = cell.column + 1
            step = density_step(cell.load) if cell.load is not None else 0
            style = Style(
                color=palette.DENSITY_TEXT[self._theme][step],
                bgcolor=palette.DENSITY_COLOURS[self._theme][step],
            )
            here = index == cursor
            segments.append(Segment("▐" if here else " ", mark if here else base))
            if within == 0:
                symbol = palette.SEVERITY_SYMBOLS[cell.severity] if cell.severity else ""
                text = safe.plain(cell.rack)[: CELL_W - (1 if symbol else 0)]
                segments.append(Segment(text.ljust(CELL_W - len(symbol)), style + Style(bold=True)))
                if symbol:
                    segments.append(
                        Segment(symbol, style + Style(color=colours[cell.severity], bold=True))
                    )
            elif within == 1:
                text = f"{cell.load / 1000:,.1f} kW" if cell.load is not None else "…"
                segments.append(Segment(text[:CELL_W].center(CELL_W), style))
            else:
                letter = COOLING_LETTER.get(cell.cooling, "?")
                use = f"{cell.feed_use:.0%}" if cell.feed_use is not None else "no feed"
                segments.append(Segment(f"{letter} {use}"[:CELL_W].center(CELL_W), style))
            segments.append(Segment("▌" if here else " ", mark if here else base))
        return Strip(segments)
