"""The screen's catalog panel (designer.md): device types and GPUs, searchable by typing,
grouped by kind, with U height, power and ports.

It sits in the right column under the inspector. In a short terminal it shows only its
search line until it has focus (click it, Tab to it, or palette "Catalog"); from 40 lines
up it stays open. Enter on an entry places it at the racks view's cursor; a click on an
entry arms it, and a click on a unit then places it there; an entry dragged out of the list
shows its ghost over the units it would take (or why it cannot go there), and dropped on a
unit is placed there.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, OptionList
from textual.widgets.option_list import Option

from rackdesigner.design.placing import KIND_TITLES, match, summary
from rackdesigner.layout_io.catalog import Catalog
from rackdesigner.tui import safe


class CatalogList(OptionList):
    """Remembers whether the last choice came from the mouse (a click arms the entry for
    a click on a unit; Enter places it at the cursor)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "screen.focus_racks", "back to racks", show=False),
    ]

    by_mouse = False
    _pressed: str | None = None  # the entry under a press: dragged out, it is dropped
    _dragging = False

    def on_click(self, event: events.Click) -> None:
        # Runs before OptionList's own click handler (subclass first), which selects.
        self.by_mouse = True

    def on_mouse_down(self, event: events.MouseDown) -> None:
        self._pressed, self._dragging = None, False
        index = event.style.meta.get("option") if event.button == 1 else None
        if not isinstance(index, int) or not 0 <= index < self.option_count:
            return
        option = self.get_option_at_index(index)
        if option.disabled or not option.id or option.id.startswith("gpu:"):
            return
        self._pressed = option.id
        self.capture_mouse()  # the release over a rack comes here, where it started

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._pressed is None:
            return
        x, y = int(event.screen_x), int(event.screen_y)
        if not self._dragging:
            if self.region.contains(x, y):
                return
            self._dragging = True
            self.post_message(CatalogPanel.DragStarted(self._pressed))
        # Where it is now: the racks view draws its ghost there (fits, or why not).
        self.post_message(CatalogPanel.Dragging(self._pressed, x, y))

    def on_mouse_up(self, event: events.MouseUp) -> None:
        model, self._pressed, self._dragging = self._pressed, None, False
        if model is None:
            return
        self.release_mouse()
        x, y = int(event.screen_x), int(event.screen_y)
        if not self.region.contains(x, y):  # (a release on the list is a click: it arms)
            self.post_message(CatalogPanel.Dropped(model, x, y))


class CatalogSearch(Input):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "focus_list", show=False),
        Binding("escape", "screen.focus_racks", "back to racks", show=False),
    ]

    def action_focus_list(self) -> None:
        for options in self.screen.query("#catalog-list").results(OptionList):
            options.focus()


class CatalogPanel(Vertical):
    class Chosen(Message):
        """An entry was chosen: by the mouse (arm it) or by Enter (place it now)."""

        def __init__(self, model: str, by_mouse: bool) -> None:
            self.model = model
            self.by_mouse = by_mouse
            super().__init__()

    class DragStarted(Message):
        """An entry is being dragged out of the list."""

        def __init__(self, model: str) -> None:
            self.model = model
            super().__init__()

    class Dragging(Message):
        """A dragged entry is over a point of the screen (over a unit: show its ghost)."""

        def __init__(self, model: str, screen_x: int, screen_y: int) -> None:
            self.model = model
            self.screen_x = screen_x
            self.screen_y = screen_y
            super().__init__()

    class Dropped(Message):
        """A dragged entry was let go at a point of the screen (a unit: place it there)."""

        def __init__(self, model: str, screen_x: int, screen_y: int) -> None:
            self.model = model
            self.screen_x = screen_x
            self.screen_y = screen_y
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.catalog: Catalog | None = None
        self.border_title = "Catalog"

    def compose(self) -> ComposeResult:
        yield CatalogSearch(placeholder="search the catalog…", id="catalog-search")
        yield CatalogList(id="catalog-list")

    def show(self, catalog: Catalog) -> None:
        """A layout was opened (its own catalog entries join the built-in ones)."""
        if catalog is self.catalog:
            return
        self.catalog = catalog
        self._fill()

    def _fill(self) -> None:
        # The picker's module (a dialog) shares its rows; not needed for the first frame.
        from rackdesigner.tui.screens.catalog_picker import catalog_options

        if self.catalog is None:
            return
        query = self.query_one("#catalog-search", Input).value
        theme = "dark" if self.app.current_theme.dark else "light"
        # The panel is narrow: a shorter key column, and the headings name the kinds.
        options = catalog_options(
            self.catalog.devices, query, [], theme, key_width=16, always_grouped=True
        )
        gpus = match(self.catalog.gpus, query)
        if gpus:
            options.append(Option(Text(KIND_TITLES["gpu"], style="bold dim"), disabled=True))
            for key in gpus:
                gpu = self.catalog.gpus[key]
                line = Text(
                    safe.plain(f"  {key.ljust(16)} {summary(gpu)}"),
                    no_wrap=True,
                    overflow="ellipsis",
                )
                options.append(Option(line, id=f"gpu:{key}", disabled=True))
        listing = self.query_one("#catalog-list", CatalogList)
        listing.set_options(options)
        first = next(
            (i for i, o in enumerate(options) if o.id and not o.id.startswith("gpu:")), None
        )
        listing.highlighted = first

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._fill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the search places the first match at the cursor."""
        event.stop()
        listing = self.query_one("#catalog-list", CatalogList)
        option = listing.highlighted_option
        if option is not None and option.id and not option.id.startswith("gpu:"):
            self.post_message(self.Chosen(option.id, by_mouse=False))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        listing = self.query_one("#catalog-list", CatalogList)
        by_mouse, listing.by_mouse = listing.by_mouse, False
        if event.option.id and not event.option.id.startswith("gpu:"):
            self.post_message(self.Chosen(event.option.id, by_mouse=by_mouse))
