"""The power view: the chain behind the feeds (docs/power-chain.md), an element a line from
the sources down, each with a load bar of its rating, its margin and its worst single
failure, then its load and rating, what its loss takes down, its transient peak and kind;
enter on an element opens the first rack it feeds in the racks view.

Narrower than its table it scrolls sideways (left / right); the element, its bar, its
margin and its worst failure come first, so an 80-column terminal shows them. The lines
come from :mod:`rackdesigner.tui.power_rows` (built off the main thread); this widget only
paints them, with the Line API, so a hall's hundreds of elements cost only the lines on
screen.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from rackdesigner.export.render import palette
from rackdesigner.model.wording import plural
from rackdesigner.tui import safe
from rackdesigner.tui.widgets.style_cache import styles_changed
from rackdesigner.tui.widgets.summary_view import bar

if TYPE_CHECKING:
    from rackdesigner.tui.power_rows import ChainLine, ChainView

ID_W = 22
BAR_W = 10
USE_W = 6  # " 100%"
MARGIN_W = 10
WORST_W = 44
LOAD_W = 18  # "1.26 MW / 1.75 MW"
LOST_W = 24
PEAK_W = 9
KIND_W = 11
ALSO_W = 20
TABLE_W = (
    ID_W + 1 + BAR_W + USE_W + 1 + MARGIN_W + WORST_W + LOAD_W + LOST_W + PEAK_W + KIND_W + ALSO_W
)
NO_CHAIN = (
    "This layout declares no power chain: its racks end at their feeds. Declare the "
    "elements behind them ([[power.elements]], a feed's source; docs/power-chain.md), or "
    "start from `rackdesigner new --gpus N`, which writes one."
)


class PowerView(ScrollView, can_focus=True):
    """The power chain, sources first; the cursor moves element to element."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", show=False, id="power-up"),
        Binding("down", "cursor(1)", show=False, id="power-down"),
        Binding("pageup", "cursor(-10)", show=False, id="power-page-up"),
        Binding("pagedown", "cursor(10)", show=False, id="power-page-down"),
        Binding("home", "cursor(-1000000)", show=False, id="power-top"),
        Binding("end", "cursor(1000000)", show=False, id="power-bottom"),
        Binding("left", "scroll_left", show=False, id="power-left"),
        Binding("right", "scroll_right", show=False, id="power-right"),
        Binding("enter", "open", "open rack", id="power-open"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {"power--heading", "power--muted", "power--cursor"}

    DEFAULT_CSS = """
    PowerView > .power--cursor { background: $boost; text-style: bold; }
    PowerView:focus > .power--cursor { background: $accent 50%; }
    """

    class Opened(Message):
        """Enter (or a double click) on an element: open the first rack it feeds."""

        def __init__(self, rack: str) -> None:
            self.rack = rack
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view: ChainView | None = None
        self.waiting = "Adding up the chain…"
        self.head: list[list[tuple[str, str]]] = []
        self.version = 0
        self._cache: LRUCache[tuple[object, ...], Strip] = LRUCache(maxsize=2048)
        self._theme = "dark"
        self.cursor = 0
        self.pending: str | None = None  # an element to highlight once the lines come
        self.border_title = "Power"

    def show(self, view: ChainView | None, waiting: str = "Adding up the chain…") -> None:
        """New lines; the highlighted element stays highlighted while it is listed."""
        held = self.pending or self.current_element()
        self.view = view
        self.waiting = waiting
        self.head = self._head(view) if view is not None else []
        self.version += 1
        ids = [line.id for line in view.lines] if view is not None else []
        self.cursor = ids.index(held) if held in ids else 0
        if held in ids and held == self.pending:
            self.pending = None
            self.call_after_refresh(self._scroll_to_cursor)
        self._resize()
        self.refresh()

    def select(self, element: str) -> bool:
        """Highlight ``element`` (scrolled into view); one not listed yet is highlighted
        when the lines come (False until then)."""
        ids = [line.id for line in self.view.lines] if self.view is not None else []
        if element not in ids:
            self.pending = element
            return False
        self.pending = None
        self.cursor = ids.index(element)
        self._scroll_to_cursor()
        self.refresh()
        return True

    def current_element(self) -> str | None:
        if self.view is not None and 0 <= self.cursor < len(self.view.lines):
            return self.view.lines[self.cursor].id
        return None

    def _lines(self) -> list[ChainLine]:
        return self.view.lines if self.view is not None else []

    def _resize(self) -> None:
        self.virtual_size = Size(TABLE_W, len(self.head) + len(self._lines()) + 1)
        self._say_shown()

    def _say_shown(self) -> None:
        """The title counts the elements and, when not all are in view, which are."""
        count = len(self._lines())
        if not count:
            self.border_title = "Power"
            return
        height = self.container_size.height - self.scrollbar_size_horizontal
        top = int(self.scroll_offset.y) - len(self.head)
        first = min(max(top, 0), count)
        last = min(max(top + max(height, 1), 0), count)
        title = f"Power chain · {plural(count, 'element')}"
        if last - first < count:
            title += f" · {first + 1}–{last} in view" if last > first else " · none in view"
        self.border_title = title

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._say_shown()

    def on_resize(self) -> None:
        self._resize()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if styles_changed(self):  # a theme switch, not a focus change
            self._cache.clear()

    def action_cursor(self, step: int) -> None:
        lines = self._lines()
        if not lines:
            return
        row = min(max(self.cursor + step, 0), len(lines) - 1)
        if row == self.cursor:
            if step < 0:
                self.scroll_home(animate=False)
            return
        self.cursor = row
        self._scroll_to_cursor(top=step < 0 and row == 0)
        self.refresh()

    def _scroll_to_cursor(self, top: bool = False) -> None:
        height = max(self.scrollable_content_region.height, 1)
        line = len(self.head) + self.cursor
        y = self.scroll_offset.y
        if top:
            y = 0
        elif line < y:
            y = line
        elif line >= y + height:
            y = line - height + 1
        self.scroll_to(y=y, animate=False, immediate=True)

    def action_open(self) -> None:
        lines = self._lines()
        if 0 <= self.cursor < len(lines) and lines[self.cursor].rack is not None:
            self.post_message(self.Opened(lines[self.cursor].rack or ""))
        else:
            self.app.bell()

    def on_click(self, event: events.Click) -> None:
        row = event.y - self.gutter.top + self.scroll_offset.y - len(self.head)
        if 0 <= row < len(self._lines()):
            self.cursor = row
            self.refresh()
            if event.chain > 1:
                self.action_open()

    # -- drawing ------------------------------------------------------------------------

    def _head(self, view: ChainView) -> list[list[tuple[str, str]]]:
        if not view.lines:
            return [[(f" {line}", "")] for line in textwrap.wrap(NO_CHAIN, 76)]
        said = [("Power chain ", "h"), (plural(len(view.lines), "element"), "b")]
        said.append((f" · {plural(view.racks_on, 'rack')} on it", ""))
        if view.racks_off:
            said.append((f" · {plural(view.racks_off, 'rack')} on no element", "m"))
        said.append((f" · transient peak factor {view.factor}", "m"))
        state: list[tuple[str, str]] = [("Margins ", "h")]
        if view.over:
            state.append((f"{plural(view.over, 'element')} over its rating  ", "error"))
        if view.fragile:
            state.append((f"{view.fragile} over it after a single failure", "error"))
        if not view.over and not view.fragile:
            state.append(("every element within its rating, also after any single failure", ""))
        return [said, state, [("", "columns")]]

    @staticmethod
    def columns() -> str:
        return (
            f"{'element':<{ID_W}} {'load of rating':<{BAR_W + USE_W}} {'margin':>{MARGIN_W - 1}} "
            f"{'worst single failure':<{WORST_W}}{'load / rating':<{LOAD_W}}"
            f"{'if lost':<{LOST_W}}{'peak':<{PEAK_W}}{'kind':<{KIND_W}}also fed by"
        )

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        self._theme = "dark" if self.app.current_theme.dark else "light"
        if self.view is None:
            return Strip(
                [Segment(f"  {safe.plain(self.waiting)}" if y == 0 else "", base)]
            ).extend_cell_length(width, base)
        scroll_x, scroll_y = self.scroll_offset
        line = y + scroll_y
        here = line - len(self.head) == self.cursor and bool(self.view.lines)
        key = (line, self.version, self._theme, here)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._draw(line)
            if here:
                cursor = self.get_component_rich_style("power--cursor")
                strip = Strip([Segment(t, (st or base) + cursor) for t, st, _ in strip])
            self._cache[key] = strip
        if line < len(self.head) and self.head[line][:1] != [("", "columns")]:
            return strip.crop_extend(0, width, base)  # stays put when the table scrolls
        fill = base + self.get_component_rich_style("power--cursor") if here else base
        return strip.crop_extend(scroll_x, scroll_x + width, fill)

    def _style(self, name: str) -> Style:
        base = self.rich_style
        colours = palette.SEVERITY_COLOURS[self._theme]
        if name == "h":
            return self.get_component_rich_style("power--heading")
        if name == "b":
            return base + Style(bold=True)
        if name == "m":
            return self.get_component_rich_style("power--muted")
        if name == "ok":
            return base + Style(color=palette.swatch("gpu-node", self._theme).fill)
        if name in colours:
            return base + Style(color=colours[name], bold=True)
        return base

    def _draw(self, line: int) -> Strip:
        assert self.view is not None
        if line < len(self.head):
            head = self.head[line]
            if head and head[0][1] == "columns":
                return Strip([Segment(self.columns(), self._style("h"))])
            return Strip([Segment(safe.plain(text), self._style(style)) for text, style in head])
        index = line - len(self.head)
        if index >= len(self.view.lines):
            return Strip([])
        return Strip(self._element(self.view.lines[index]))

    def _element(self, e: ChainLine) -> list[Segment]:
        muted = self._style("m")
        level = e.level
        shade = self._style(level) if level else self._style("ok" if e.use is not None else "m")
        name = (e.prefix + safe.plain(e.id))[: ID_W - 2]
        symbol = palette.SEVERITY_SYMBOLS[level] if level else " "
        full, rest = bar(e.use, BAR_W)
        use = "  –  " if e.use is None else f"{e.use:>5.0%}"
        margin_style = self._style("error") if e.use is not None and e.use > 1 else self._style("")
        worst_style = self._style("error") if e.worst_over else self._style("")
        return [
            Segment(f"{name:<{ID_W - 1}}", self._style("b")),
            Segment(symbol + " ", shade),
            Segment(full, shade),
            Segment(rest, muted),
            Segment(f"{use} ", shade),
            Segment(f"{e.margin:>{MARGIN_W - 1}} ", margin_style),
            Segment(safe.plain(e.worst)[: WORST_W - 1].ljust(WORST_W), worst_style),
            Segment(f"{e.load} / {e.rating}"[: LOAD_W - 1].ljust(LOAD_W), self._style("")),
            Segment(e.lost[: LOST_W - 1].ljust(LOST_W), self._style("")),
            Segment(e.peak[: PEAK_W - 1].ljust(PEAK_W), muted),
            Segment(safe.plain(e.kind)[: KIND_W - 1].ljust(KIND_W), muted),
            Segment(safe.plain(e.also)[:ALSO_W], muted),
        ]
