"""The summary view: GPUs, cost, CDU N+1 margins and a line per rack, worst first.

The figures come from :mod:`rackdesigner.report.summary` (built on ``report.build``, off the main
thread); this widget only paints them, with the Line API so that 3,000 racks cost only the
lines on screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from rackdesigner.export.render import palette
from rackdesigner.tui import safe
from rackdesigner.tui.widgets.style_cache import styles_changed

if TYPE_CHECKING:  # the report (networkx, 0.45 s) loads when the summary is made
    from rackdesigner.report.summary import RackSummary, Summary

BAR_W = 10
RACK_W = 10


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


class SummaryView(ScrollView, can_focus=True):
    """What the layout adds up to; the racks nearest their limits first."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "scroll_up", show=False, id="summary-up"),
        Binding("down", "scroll_down", show=False, id="summary-down"),
        Binding("pageup", "page_up", show=False, id="summary-page-up"),
        Binding("pagedown", "page_down", show=False, id="summary-page-down"),
        Binding("home", "scroll_home", show=False, id="summary-top"),
        Binding("end", "scroll_end", show=False, id="summary-bottom"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {"summary--heading", "summary--muted"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.summary: Summary | None = None
        self.waiting = "Adding up…"
        self.head: list[list[tuple[str, str]]] = []  # (text, style name) pieces per line
        self.version = 0
        self._cache: LRUCache[tuple[object, ...], Strip] = LRUCache(maxsize=2048)
        self._theme = "dark"
        self.border_title = "Summary"

    def show(self, summary: Summary | None, waiting: str = "Adding up…") -> None:
        self.summary = summary
        self.waiting = waiting
        self.head = self._head(summary) if summary is not None else []
        self.version += 1
        racks = len(summary.racks) if summary is not None else 0
        self.virtual_size = Size(RACK_W + 4 * BAR_W + 130, len(self.head) + racks + 1)
        self.refresh()

    def _head(self, s: Summary) -> list[list[tuple[str, str]]]:
        lines: list[list[tuple[str, str]]] = []
        models = ", ".join(f"{n} × {m}" for m, n in s.gpus_by_model.items()) or "no GPU nodes"
        lines.append([("GPUs ", "h"), (f"{s.gpus:,}", "b"), (f"  {models}", "")])
        per_gpu = _money(s.per_gpu) if s.per_gpu is not None else "–"
        unpriced = f" ({s.unpriced} devices unpriced)" if s.unpriced else ""
        lines.append(
            [("Cost ", "h"), (_money(s.cost), "b"), (f"  {per_gpu} per GPU{unpriced}", "")]
        )
        budget = f" of {_kw(s.site_budget)} kW budget" if s.site_budget is not None else ""
        over = s.site_budget is not None and s.site_load > s.site_budget
        lines.append(
            [("Site ", "h"), (f"{_kw(s.site_load)} kW", "error" if over else "b"), (budget, "")]
        )
        for c in s.cdus:
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
        lines.append([])
        lines.append(
            [
                (
                    f"{'rack':<{RACK_W}} {'power kW used/usable':<{BAR_W + 16}}"
                    f"{'heat kW/limit':<{BAR_W + 26}}{'busiest line A/limit':<{BAR_W + 24}}"
                    f"{'one side lost':<15}per phase A (that feed)",
                    "h",
                )
            ]
        )
        return lines

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
        key = (line, self.version, self._theme)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._draw(line)
            self._cache[key] = strip
        return strip.crop_extend(scroll_x, scroll_x + width, base)

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
            return Strip([Segment(safe.plain(text), self._style(style)) for text, style in head])
        index = line - len(self.head)
        if index >= len(self.summary.racks):
            return Strip([])
        return Strip(self._rack(self.summary.racks[index]))

    def _rack(self, r: RackSummary) -> list[Segment]:
        muted = self._style("m")
        out = [Segment(f"{safe.plain(r.rack)[:RACK_W]:<{RACK_W}} ", self._style("b"))]

        def gauge(share: float | None, text: str, width: int) -> None:
            level = _level(share)
            style = self._style(level) if level else self._style("")
            full, rest = bar(share)
            symbol = palette.SEVERITY_SYMBOLS[level] if level else " "
            out.append(Segment(full, style))
            out.append(Segment(rest, muted))
            out.append(Segment(f"{symbol}{safe.plain(text)}"[: width - 1].ljust(width), style))

        share = r.load / r.capacity if r.capacity else (None if not r.load else float("inf"))
        lower = "≥" if r.load_is_lower_bound else ""
        gauge(share, f"{lower}{_kw(r.load)}/{_kw(r.capacity)}", 16)
        heat_share = r.heat / r.heat_limit if r.heat_limit else None
        limit = _kw(r.heat_limit) if r.heat_limit else "no limit"
        gauge(heat_share, f"{_kw(r.heat)}/{limit} {r.heat_what}", 26)
        amps = r.current / r.current_limit if r.current_limit else None
        gauge(amps, f"{r.current:.1f}/{r.current_limit:.1f} {r.phase}", 24)
        lost = _kw(r.one_side_lost) + " kW" if r.one_side_lost is not None else "not redundant"
        out.append(Segment(f"{lost:<15}", muted if r.one_side_lost is None else self._style("")))
        # Every line of the busiest feed (its side carrying the rack alone), in amps.
        phases = " · ".join(f"{line} {amps:.1f}" for line, amps in r.lines.items())
        out.append(Segment(safe.plain(phases), muted))
        return out
