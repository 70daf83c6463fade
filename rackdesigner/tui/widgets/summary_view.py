"""The summary view: GPUs, cost, CDU N+1 margins and a line per rack, worst first; enter
on a rack's line opens that rack in the racks view.

Narrower than its wide table (about 160 columns) it draws a compact one (shorter bars and
words, about 110 columns) and scrolls sideways for the rest (left / right).

The figures come from :mod:`rackdesigner.report.summary` (built on ``report.build``, off the main
thread); this widget only paints them, with the Line API so that 3,000 racks cost only the
lines on screen.
"""

from __future__ import annotations

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

if TYPE_CHECKING:  # the report (networkx, 0.45 s) loads when the summary is made
    from rackdesigner.report.summary import (
        LiquidGroupSummary,
        LoopSummary,
        RackSummary,
        Summary,
    )

BAR_W = 10
RACK_W = 10
COMPACT_BAR_W = 6
# The widths of the two tables: the wide one from this many columns up.
WIDE_W = RACK_W + 1 + (BAR_W + 16) + (BAR_W + 26) + (BAR_W + 24) + 15 + 40
COMPACT_W = RACK_W + 1 + (COMPACT_BAR_W + 12) + (COMPACT_BAR_W + 20) + (COMPACT_BAR_W + 18)
COMPACT_W += 9 + 20
# The workload lines' labels (Workload, Memory, Smallest, Sync, Storage) are this wide.
WORKLOAD_LABEL_W = 9
# The workload's lines are shown above the racks where this many racks (or all) stay in
# view under them.
MIN_RACKS_IN_VIEW = 4
# The compact table's words for what a heat limit applies to.
HEAT_SHORT = {"residual air": "res.air"}


def bar(share: float | None, width: int = BAR_W) -> tuple[str, str]:
    """A bar of eighths for ``share`` of a limit, and the rest of its width."""
    if share is None:
        return "", " " * width
    eighths = round(min(max(share, 0.0), 1.0) * width * 8)
    full, part = divmod(eighths, 8)
    text = "█" * full + (" ▏▎▍▌▋▊▉"[part] if part else "")
    return text, "·" * (width - len(text))


def _kw(watts: float | None) -> str:
    return "–" if watts is None else f"{watts / 1000:,.1f}"


def _money(value: float) -> str:
    return f"${value:,.0f}"


def _level(share: float | None) -> str | None:
    if share is None:
        return None
    if share > 1.0 + 1e-9:
        return "error"
    if share >= 0.9:
        return "warning"
    return None


def _t(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def _lpm(flow: float | None) -> str:
    return "–" if flow is None else f"{flow * 60_000:,.0f}"


def loop_lines(loops: list[LoopSummary], detail: bool = True) -> list[list[tuple[str, str]]]:
    """(v1.4) Per water loop: heat against its plant, margin, flow, supply → return; under
    it each CDU group: heat against its CDUs at the approach they run at, the margin with
    one lost and, with ``detail``, the flow its cold plates need against its pumps' and
    its coolant (a line of its own, left out where the screen is short)."""
    lines: list[list[tuple[str, str]]] = []
    for loop in loops:
        if loop.loop is None:
            lines.append([("Loop ", "h"), ("none", "error"), ("  CDUs on no loop (COOL011)", "")])
        else:
            what = loop.grade or loop.kind
            of = f" of {_kw(loop.capacity)}" if loop.capacity is not None else ""
            share = loop.heat / loop.capacity if loop.capacity else None
            margin = f"margin {_kw(loop.margin)} kW" if loop.margin is not None else "no capacity"
            lines.append(
                [
                    ("Loop ", "h"),
                    (f"{loop.loop}  ", "b"),
                    (f"{what} {_t(loop.supply)}→{_t(loop.return_temperature)} °C · ", ""),
                    (f"{_kw(loop.heat)}{of} kW · ", ""),
                    (margin, _level(share) or ""),
                    (f" · {_lpm(loop.flow)} L/min" if loop.flow is not None else "", ""),
                ]
            )
        for g in loop.groups:
            lines.extend(_group_lines(g)[: None if detail else 1])
    return lines


def _group_lines(g: LiquidGroupSummary) -> list[list[tuple[str, str]]]:
    """Two lines a CDU group, each within the compact table's width."""
    at = f" at {g.approach:.3g} K" if g.approach is not None else ""
    capacity = f"{_kw(g.capacity)} kW{at}" if g.capacity is not None else f"not rated{at}"
    if g.margin_one_lost is None:
        margin, level = "N+1 (one lost): not judged", "warning"
    else:
        spare = g.margin_one_lost + g.heat
        margin = f"N+1 (one lost) margin {_kw(g.margin_one_lost)} kW"
        level = _level(g.heat / spare if spare > 0 else float("inf")) or ""
    short = g.pump_flow is not None and g.pump_flow < g.flow_needed
    pumps = "not given" if g.pump_flow is None else f"{_lpm(g.pump_flow)} L/min"
    names = " + ".join(g.cdus) if len(g.cdus) <= 3 else f"{g.cdus[0]} + {len(g.cdus) - 1} more"
    return [
        [
            ("  CDU ", "h"),
            (f"{names}  ", "b"),
            (f"{_kw(g.heat)} of {capacity} · ", ""),
            (margin, level),
        ],
        [
            ("      ", ""),
            (f"needs {_lpm(g.flow_needed)} L/min, pumps {pumps}", "error" if short else ""),
            (f" · coolant {_t(g.supply)}→{_t(g.return_temperature)} °C", ""),
        ],
    ]


class SummaryView(ScrollView, can_focus=True):
    """What the layout adds up to; the racks nearest their limits first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", show=False, id="summary-up"),
        Binding("down", "cursor(1)", show=False, id="summary-down"),
        Binding("pageup", "cursor(-10)", show=False, id="summary-page-up"),
        Binding("pagedown", "cursor(10)", show=False, id="summary-page-down"),
        Binding("home", "cursor(-1000000)", show=False, id="summary-top"),
        Binding("end", "cursor(1000000)", show=False, id="summary-bottom"),
        Binding("left", "scroll_left", show=False, id="summary-left"),
        Binding("right", "scroll_right", show=False, id="summary-right"),
        Binding("enter", "open", "open rack", id="summary-open"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "summary--heading",
        "summary--muted",
        "summary--cursor",
    }

    DEFAULT_CSS = """
    SummaryView > .summary--cursor { background: $boost; text-style: bold; }
    SummaryView:focus > .summary--cursor { background: $accent 50%; }
    """

    class Opened(Message):
        """Enter (or a double click) on a rack's line: open it in the racks view."""

        def __init__(self, rack: str) -> None:
            self.rack = rack
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.summary: Summary | None = None
        self.waiting = "Adding up…"
        self.head: list[list[tuple[str, str]]] = []  # (text, style name) pieces per line
        self.version = 0
        self._cache: LRUCache[tuple[object, ...], Strip] = LRUCache(maxsize=2048)
        self._theme = "dark"
        self.compact = False  # the compact table (narrower than WIDE_W)
        self.workload_shown = False  # the workload's lines are above the racks
        self.storage_shown = False  # and the storage's under them
        self._note = ""  # "updating…" while new figures are being added up
        self.cursor = 0  # the highlighted rack's line (an index into summary.racks)
        self.border_title = "Summary"

    def show(self, summary: Summary | None, waiting: str = "Adding up…") -> None:
        """New figures; the highlighted rack stays highlighted while it is listed."""
        held = self.current_rack()
        self.summary = summary
        self.waiting = waiting
        self.head = self._head(summary) if summary is not None else []
        self.version += 1
        racks = [r.rack for r in summary.racks] if summary is not None else []
        self.cursor = racks.index(held) if held in racks else 0
        self._resize()
        self.refresh()

    def note(self, text: str) -> None:
        """A passing note under the view ("updating…"), over the workload's gist; an empty
        one gives the gist back (the two share the border, so one owner sets it)."""
        self._note = text
        self._say_shown()

    def _resize(self) -> None:
        self.compact = self.size.width < WIDE_W
        racks = len(self.summary.racks) if self.summary is not None else 0
        # The table's width, or a longer line above it: left / right reach its end.
        head = max((sum(len(text) for text, _ in line) for line in self.head), default=0)
        width = max(COMPACT_W if self.compact else WIDE_W, head)
        self.virtual_size = Size(width, len(self.head) + racks + 1)
        self._say_shown()

    def racks_in_view(self) -> tuple[int, int]:
        """The racks' lines in view: the first's index and how many."""
        racks = len(self.summary.racks) if self.summary is not None else 0
        height = self.container_size.height - self.scrollbar_size_horizontal
        top = int(self.scroll_offset.y) - len(self.head)
        first = min(max(top, 0), racks)
        last = min(max(top + max(height, 1), 0), racks)
        return first, max(last - first, 0)

    def _say_shown(self) -> None:
        """The title counts the racks and, when not all are in view, which are and how
        many more are below (the lines past the panel's edge)."""
        racks = len(self.summary.racks) if self.summary is not None else 0
        summary = self.summary
        brief = ""
        if summary is not None and not self.workload_shown:
            brief = summary.workload_brief
        elif summary is not None and not self.storage_shown:
            brief = summary.storage_brief
        line = self._note or brief
        self.border_subtitle = safe.content(line) if line else ""
        if not racks:
            self.border_title = "Summary"
            return
        first, count = self.racks_in_view()
        title = f"Summary · {plural(racks, 'rack')}, nearest their limits first"
        if count < racks:
            title += f" · {first + 1}–{first + count} in view" if count else " · none in view"
        below = racks - first - count
        self.border_title = title + (f", {below:,} more ↓" if below else "")

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._say_shown()

    def watch_show_horizontal_scrollbar(self, shown: bool) -> None:
        self._say_shown()  # the scrollbar takes the last line: one rack fewer in view

    def on_resize(self) -> None:
        compact = self.compact
        if self.summary is not None:  # the workload's lines come or go with the height
            head = self._head(self.summary)
            if head != self.head:
                self.head = head
                self.version += 1
        self._resize()
        if compact != self.compact:
            self._cache.clear()

    def current_rack(self) -> str | None:
        """The highlighted rack's id."""
        if self.summary is not None and 0 <= self.cursor < len(self.summary.racks):
            return self.summary.racks[self.cursor].rack
        return None

    def action_cursor(self, step: int) -> None:
        if self.summary is None or not self.summary.racks:
            return
        row = min(max(self.cursor + step, 0), len(self.summary.racks) - 1)
        if row == self.cursor:
            if step < 0:  # at the first rack: up shows the figures above it
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
        rack = self.current_rack()
        if rack is not None:
            self.post_message(self.Opened(rack))

    def on_click(self, event: events.Click) -> None:
        if self.summary is None:
            return
        row = event.y - self.gutter.top + self.scroll_offset.y - len(self.head)
        if 0 <= row < len(self.summary.racks):
            self.cursor = row
            self.refresh()
            if event.chain > 1:
                self.post_message(self.Opened(self.summary.racks[row].rack))

    def _head(self, s: Summary) -> list[list[tuple[str, str]]]:
        lines: list[list[tuple[str, str]]] = []
        models = ", ".join(f"{n:,} × {m}" for m, n in s.gpus_by_model.items()) or "no GPU nodes"
        lines.append([("GPUs ", "h"), (f"{s.gpus:,}", "b"), (f"  {models}", "")])
        per_gpu = _money(s.per_gpu) if s.per_gpu is not None else "–"
        unpriced = f" ({plural(s.unpriced, 'device')} unpriced)" if s.unpriced else ""
        lines.append(
            [("Cost ", "h"), (_money(s.cost), "b"), (f"  {per_gpu} per GPU{unpriced}", "")]
        )
        budget = f" of {_kw(s.site_budget)} kW budget" if s.site_budget is not None else ""
        over = s.site_budget is not None and s.site_load > s.site_budget
        lines.append(
            [("Site ", "h"), (f"{_kw(s.site_load)} kW", "error" if over else "b"), (budget, "")]
        )
        for c in () if s.loops else s.cdus:
            group = " + ".join(c.cdus)
            if c.margin is None:
                text, level = f"{_kw(c.load)} kW of unknown capacity", "warning"
            else:
                text = (
                    f"N+1 {_kw(c.n_plus_one)} kW carries {_kw(c.load)} kW: "
                    f"margin {_kw(c.margin)} kW"
                )
                level = "error" if c.margin < 0 else ""
            lines.append([("CDU  ", "h"), (f"{group}  ", "b"), (text, level)])
        loops = loop_lines(s.loops, detail=False)
        at = len(lines)
        lines.extend(loops)
        # The model's memory fit and its gradient sync, where they leave room for the
        # racks; else their gist under the view (:meth:`_say_shown`).
        wide = max(
            (sum(len(text) for text, _ in line) for line in lines),
            default=0,
        )
        wide = max(
            wide, *(WORKLOAD_LABEL_W + len(text) for _, text, _ in s.workload or [("", "", "")])
        )
        self.workload_shown = bool(s.workload) and self._room_for(
            len(lines) + 3 + len(s.workload), len(s.racks), wide
        )
        if self.workload_shown:
            lines.append([])
            for label, text, level in s.workload:
                lines.append([(f"{label:<{WORKLOAD_LABEL_W}}", "h"), (text, level)])
        # The CDU groups' flow and coolant, where the racks keep their room with them too.
        detailed = loop_lines(s.loops)
        if len(detailed) > len(loops) and self._room_for(
            len(lines) + 2 + len(detailed) - len(loops), len(s.racks), wide
        ):
            lines[at : at + len(loops)] = detailed
        # The storage a GPU and the checkpoint under the workload's lines, where the racks
        # keep their room with them too (else their gist under the view).
        wide = max(
            wide, *(WORKLOAD_LABEL_W + len(text) for _, text, _ in s.storage or [("", "", "")])
        )
        self.storage_shown = (
            self.workload_shown
            and bool(s.storage)
            and self._room_for(len(lines) + 2 + len(s.storage), len(s.racks), wide)
        )
        if self.storage_shown:
            for label, text, level in s.storage:
                lines.append([(f"{label:<{WORKLOAD_LABEL_W}}", "h"), (text, level)])
        lines.append([])
        lines.append([("", "columns")])  # the column names: the wide or the compact table's
        return lines

    def _room_for(self, head: int, racks: int, wide: int) -> bool:
        """Whether ``head`` lines above the racks leave ``MIN_RACKS_IN_VIEW`` of them (or
        all) in view. Judged on the widget's own size, less the line a horizontal scrollbar
        takes where the table or the ``wide`` head is wider than it: the scrollbar's state
        follows this decision, so reading it here would make the answer depend on the order
        the two were settled in."""
        table = COMPACT_W if self.size.width < WIDE_W else WIDE_W
        scrollbar = (
            self.styles.scrollbar_size_horizontal if max(table, wide) > self.size.width else 0
        )
        rows = self.size.height - scrollbar
        return head + min(racks, MIN_RACKS_IN_VIEW) <= rows

    @staticmethod
    def columns(compact: bool) -> str:
        if compact:
            b = COMPACT_BAR_W
            return (
                f"{'rack':<{RACK_W}} {'power kW':<{b + 12}}{'heat kW/limit':<{b + 20}}"
                f"{'line A/limit':<{b + 18}}{'1 side':<9}phase A"
            )
        return (
            f"{'rack':<{RACK_W}} {'power kW used/usable':<{BAR_W + 16}}"
            f"{'heat kW/limit':<{BAR_W + 26}}{'busiest line A/limit':<{BAR_W + 24}}"
            f"{'one side lost':<15}per phase A (that feed)"
        )

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if styles_changed(self):  # a theme switch, not a focus change
            self._cache.clear()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        self._theme = "dark" if self.app.current_theme.dark else "light"
        if self.summary is None:
            return Strip(
                [Segment(f"  {safe.plain(self.waiting)}" if y == 0 else "", base)]
            ).extend_cell_length(width, base)
        scroll_x, scroll_y = self.scroll_offset
        line = y + scroll_y
        here = line - len(self.head) == self.cursor
        key = (line, self.version, self._theme, self.compact, here)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._draw(line)
            if here:
                cursor = self.get_component_rich_style("summary--cursor")
                strip = Strip([Segment(t, (st or base) + cursor) for t, st, _ in strip])
            self._cache[key] = strip
        fill = base + self.get_component_rich_style("summary--cursor") if here else base
        return strip.crop_extend(scroll_x, scroll_x + width, fill)

    def _style(self, name: str) -> Style:
        base = self.rich_style
        colours = palette.SEVERITY_COLOURS[self._theme]
        if name == "h":
            return self.get_component_rich_style("summary--heading")
        if name == "b":
            return base + Style(bold=True)
        if name == "m":
            return self.get_component_rich_style("summary--muted")
        if name in colours:
            return base + Style(color=colours[name], bold=True)
        return base

    def _draw(self, line: int) -> Strip:
        assert self.summary is not None
        if line < len(self.head):
            head = self.head[line]
            if head and head[0][1] == "columns":
                return Strip([Segment(self.columns(self.compact), self._style("h"))])
            return Strip([Segment(safe.plain(text), self._style(style)) for text, style in head])
        index = line - len(self.head)
        if index >= len(self.summary.racks):
            return Strip([])
        return Strip(self._rack(self.summary.racks[index]))

    def _rack(self, r: RackSummary) -> list[Segment]:
        muted = self._style("m")
        compact = self.compact
        bar_w = COMPACT_BAR_W if compact else BAR_W
        out = [Segment(f"{safe.plain(r.rack)[:RACK_W]:<{RACK_W}} ", self._style("b"))]

        def gauge(share: float | None, text: str, width: int) -> None:
            level = _level(share)
            style = self._style(level) if level else self._style("")
            full, rest = bar(share, bar_w)
            symbol = palette.SEVERITY_SYMBOLS[level] if level else " "
            out.append(Segment(full, style))
            out.append(Segment(rest, muted))
            out.append(Segment(f"{symbol}{safe.plain(text)}"[: width - 1].ljust(width), style))

        share = r.load / r.capacity if r.capacity else (None if not r.load else float("inf"))
        lower = "≥" if r.load_is_lower_bound else ""
        gauge(share, f"{lower}{_kw(r.load)}/{_kw(r.capacity)}", 12 if compact else 16)
        heat_share = r.heat / r.heat_limit if r.heat_limit else None
        limit = _kw(r.heat_limit) if r.heat_limit else ("none" if compact else "no limit")
        what = HEAT_SHORT.get(r.heat_what, r.heat_what) if compact else r.heat_what
        gauge(heat_share, f"{_kw(r.heat)}/{limit} {what}", 20 if compact else 26)
        amps = r.current / r.current_limit if r.current_limit else None
        # Compact: the feed without its rack's id in front ("a01-A L1" is "A L1" on a01's line).
        phase = r.phase.removeprefix(f"{r.rack}-") if compact else r.phase
        gauge(amps, f"{r.current:.1f}/{r.current_limit:.1f} {phase}", 18 if compact else 24)
        if r.one_side_lost is not None:
            lost = _kw(r.one_side_lost) + ("" if compact else " kW")
        else:
            lost = "none" if compact else "not redundant"
        lost_w = 9 if compact else 15
        out.append(
            Segment(f"{lost:<{lost_w}}", muted if r.one_side_lost is None else self._style(""))
        )
        # Every line of the busiest feed (its side carrying the rack alone), in amps.
        if compact:
            phases = "·".join(f"{amps:.1f}" for amps in r.lines.values())
        else:
            phases = " · ".join(f"{line} {amps:.1f}" for line, amps in r.lines.items())
        out.append(Segment(safe.plain(phases), muted))
        return out
