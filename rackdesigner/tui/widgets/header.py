"""The header: layout name, file, unsaved marker and the live totals."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from rackdesigner.export.render import palette
from rackdesigner.model.wording import plural
from rackdesigner.tui import safe
from rackdesigner.tui.totals import Totals

# The fewest columns of the layout's name a one-line header keeps (else two lines), and
# never less than half of it.
TITLE_MIN = 16


class DesignerHeader(Static):
    """The layout, its file and the live totals, fitted to the width (:meth:`fitted`);
    "checking…" while a worker runs."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.title = "rackdesigner"
        self.file = ""
        self.dirty = False
        self.totals: Totals | None = None
        self.checking = False
        self.status = ""
        self.autosave_failed = ""  # why the last autosave could not be written
        # A what-if's figures, shown instead of the totals while its shading is on.
        self.figures = ""

    def set_state(
        self,
        *,
        title: str | None = None,
        file: str | None = None,
        dirty: bool | None = None,
        totals: Totals | None = None,
        checking: bool | None = None,
        status: str | None = None,
        autosave_failed: str | None = None,
        figures: str | None = None,
    ) -> None:
        if title is not None:
            self.title = title
        if file is not None:
            self.file = file
        if dirty is not None:
            self.dirty = dirty
        if totals is not None:
            self.totals = totals
        if checking is not None:
            self.checking = checking
        if status is not None:
            self.status = status
        if autosave_failed is not None:
            self.autosave_failed = autosave_failed
        if figures is not None:
            self.figures = figures
        # Two lines always (app.tcss), so new text never changes the layout: a layout
        # pass redraws every panel, and the header changes whenever a check starts or
        # ends (a key pressed then waited 150 ms for the pass on 100,000 GPUs), and the
        # panels below no longer jump by a line when "checking…" comes and goes. The text
        # is fitted to the width when drawn (render): a repaint, no layout.
        self.refresh()

    def render(self) -> Text:
        return self.fitted(self.content_size.width)

    def text(self) -> Text:
        """Everything the header says, in full (one line where the terminal is wide)."""
        return self._identity(0) + self._figures(0)

    def fitted(self, width: int) -> Text:
        """The header for ``width`` columns: one line, its words shortened as far as needed
        (120 columns fit the 128-GPU example's); where even the shortest does not fit, the
        layout and its file on the first line and the figures on the second, each cut with
        an ellipsis rather than wrapped in the middle of a figure."""
        if width <= 0:
            return Text()
        for level in range(3):
            line = self._identity(level) + self._figures(level)
            if line.cell_len <= width:
                return line
        # Still one line with the layout's name cut short, if at least half of it is left
        # (else two lines show it whole).
        figures = self._figures(2)
        rest = self._identity(2, title=False).cell_len + figures.cell_len
        title = Text(safe.plain(self.title)).cell_len
        if width - rest >= max(TITLE_MIN, (title + 1) // 2):
            return self._identity(2, title_width=width - rest) + figures
        first = self._identity(3)
        second = self._figures(1)
        if second.cell_len > width:
            second = self._figures(2, width)
        for part in (first, second):
            part.truncate(width, overflow="ellipsis")
        return Text("\n").join([first, second])

    def _identity(self, level: int, *, title: bool = True, title_width: int = 0) -> Text:
        """The layout's name, its file and whether it is saved. Level 2 and up: the file's
        name without its folder; level 3 (a line of its own): no gap before the figures.
        ``title_width``: the name cut to that many columns; ``title`` False: without it."""
        theme = "dark" if self.app.current_theme.dark else "light"
        colours = palette.SEVERITY_COLOURS[theme]
        out = Text(no_wrap=True, overflow="ellipsis")
        name = Text(safe.plain(self.title), style="bold")
        if title_width:
            name.truncate(title_width, overflow="ellipsis")
        if title:
            out.append_text(name)
        file = self.file or "untitled"
        if level >= 2:
            file = file.replace("\\", "/").rsplit("/", 1)[-1]
        out.append(f"  {safe.plain(file)}", style="dim")
        if self.dirty:
            out.append(" ● unsaved", style="bold")
            if self.autosave_failed:
                failed = f" · autosave failed: {safe.plain(self.autosave_failed)}"
                out.append(failed, style=f"bold {colours['error']}")
        if level < 3:
            out.append("   " if level == 0 else "  ")
        return out

    def _figures(self, level: int, width: int = 0) -> Text:
        """The live totals (or what is happening instead). Level 1: the power as
        "used/usable kW" and the counts without spaces; level 2: the cooling verdict up to
        its first colon too, and a what-if's figures within ``width`` (if given)."""
        theme = "dark" if self.app.current_theme.dark else "light"
        colours = palette.SEVERITY_COLOURS[theme]
        out = Text(no_wrap=True, overflow="ellipsis")
        totals = self.totals
        if self.status:
            out.append(safe.plain(self.status), style="italic")
        elif self.figures:
            figures = self.figures if level < 2 else _fit_figures(self.figures, width)
            out.append(safe.plain(figures), style=f"bold {colours['warning']}")
        elif totals is not None:
            # Non-breaking spaces inside each figure: a narrow header wraps between them.
            nb = "\u00a0"
            out.append(plural(totals.gpus, "GPU").replace(" ", nb), style="bold")
            over = totals.usable and totals.load > totals.usable
            out.append(" · ")
            power = totals.power_text()
            if level >= 1:
                power = _short_power(power)
            out.append(
                power.replace(" ", nb),
                style=f"bold {colours['error']}" if over else "",
            )
            out.append(f" · heat{nb}{totals.heat_text().replace(' ', nb)}")
            out.append(" · cooling" + nb)
            cooling = totals.cooling
            if level >= 2:
                cooling = cooling.split(":", 1)[0]
            out.append(
                cooling.replace(" ", nb),
                style="" if totals.cooling in ("ok", "–") else f"bold {colours['error']}",
            )
            out.append(" · ")
            for severity, count in (
                ("error", totals.errors),
                ("warning", totals.warnings),
                ("info", totals.info),
            ):
                symbol = palette.SEVERITY_SYMBOLS[severity]
                style = f"bold {colours[severity]}" if count else "dim"
                gap = "\u00a0" if level == 0 else ""
                out.append(f"{symbol}{gap}{count} ", style=style)
        if self.checking and not self.status.startswith("checking"):
            out.append(" checking…", style="italic")
        out.rstrip()
        return out


def _fit_figures(figures: str, width: int) -> str:
    """A what-if's figures within ``width`` columns: the parts before the last ("esc
    clears") left out from the end, whole, rather than the line cut in the middle of a
    figure and the key that clears it lost; the first (what fails, what it takes down)
    stays, cut short itself where even it and the key do not fit."""
    parts = figures.split(" · ")
    while width and len(parts) > 2 and len(" · ".join(parts)) > width:
        del parts[-2]
    line = " · ".join(parts)
    if width and len(parts) == 2 and len(line) > width:  # the first cut, the key kept
        room = max(width - len(parts[1]) - len(" · …"), 1)
        line = f"{parts[0][:room].rstrip()}… · {parts[1]}"
    return line


def _short_power(text: str) -> str:
    """``182.7 kW / 276.0 kW`` as ``182.7/276.0 kW`` (one unit said once); other forms
    (MW for halls, two units) as they are."""
    used, sep, usable = text.partition(" / ")
    if not sep:
        return text
    number, _, unit = used.rpartition(" ")
    if number and usable.endswith(f" {unit}"):
        return f"{number}/{usable}"
    return text
