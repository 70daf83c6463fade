"""The header: layout name, file, unsaved marker and the live totals."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from rackdesigner.export.render import palette
from rackdesigner.tui import safe
from rackdesigner.tui.totals import Totals


class DesignerHeader(Static):
    """The layout, its file and the live totals, wrapped in two lines; "checking…" while
    a worker runs."""

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
        # panels below no longer jump by a line when "checking…" comes and goes.
        self.update(self.text(), layout=False)

    def text(self) -> Text:
        theme = "dark" if self.app.current_theme.dark else "light"
        colours = palette.SEVERITY_COLOURS[theme]
        out = Text(no_wrap=False, overflow="ellipsis")
        out.append(safe.plain(self.title), style="bold")
        out.append(f"  {safe.plain(self.file or 'untitled')}", style="dim")
        if self.dirty:
            out.append(" ● unsaved", style="bold")
            if self.autosave_failed:
                failed = f" · autosave failed: {safe.plain(self.autosave_failed)}"
                out.append(failed, style=f"bold {colours['error']}")
        out.append("   ")
        totals = self.totals
        if self.status:
            out.append(safe.plain(self.status), style="italic")
        elif self.figures:
            out.append(safe.plain(self.figures), style=f"bold {colours['warning']}")
        elif totals is not None:
            # Non-breaking spaces inside each figure: a narrow header wraps between them.
            nb = "\u00a0"
            out.append(f"{totals.gpus:,}{nb}GPUs", style="bold")
            over = totals.usable and totals.load > totals.usable
            out.append(" · ")
            out.append(
                totals.power_text().replace(" ", nb),
                style=f"bold {colours['error']}" if over else "",
            )
            out.append(f" · heat{nb}{totals.heat_text().replace(' ', nb)}")
            out.append(" · cooling" + nb)
            out.append(
                totals.cooling.replace(" ", nb),
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
                out.append(f"{symbol}\u00a0{count} ", style=style)
        if self.checking and not self.status.startswith("checking"):
            out.append(" checking…", style="italic")
        return out
