"""The footer: the focused panel's keys and the palette's, one widget drawing one line.

Textual's footer is a container with a widget per key, and it recomposes whenever the
screen's bindings change. That happens on every focus change (each view switch, each
dialog closing). Mounting, styling and laying out those widgets took about 30 ms of every
view switch, the largest single part of it. This footer keeps the same keys,
the same look, clicks and tooltips. When the keys change it only repaints its one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget

from rackdesigner.tui import safe

SEPARATOR = "│"


@dataclass(frozen=True, slots=True)
class Item:
    key: str  # what a click presses
    display: str  # the key as shown (``^s``)
    description: str
    enabled: bool
    tooltip: str


class DesignerFooter(Widget, can_focus=False):
    ALLOW_SELECT = False
    DEFAULT_CSS = """
    DesignerFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        & > .footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .footer--hover { background: $block-hover-background; }
        & > .footer--separator { color: $foreground 20%; }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "footer--key",
        "footer--description",
        "footer--hover",
        "footer--separator",
    }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.items: tuple[Item, ...] = ()
        self.palette: Item | None = None
        self._hover: int | None = None  # index into items; len(items) is the palette

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)
        self.bindings_changed(self.screen)

    def bindings_changed(self, screen: Screen[Any]) -> None:
        if not self.is_attached or screen is not self.screen:
            return
        items, palette = self.shown_items()
        if (items, palette) != (self.items, self.palette):
            self.items, self.palette = items, palette
            self._hover = None
            self.refresh()

    def shown_items(self) -> tuple[tuple[Item, ...], Item | None]:
        """The keys to show now, in the screen's order, one per action (as Textual's footer
        shows them), and the palette's key."""
        app = self.app
        active = self.screen.active_bindings
        seen: set[str] = set()
        items: list[Item] = []
        for _, binding, enabled, tooltip in active.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            items.append(
                Item(
                    binding.key,
                    app.get_key_display(binding),
                    binding.description,
                    enabled,
                    tooltip or binding.tooltip or "",
                )
            )
        palette = None
        if app.ENABLE_COMMAND_PALETTE and app.COMMAND_PALETTE_BINDING in active:
            _, binding, enabled, tooltip = active[app.COMMAND_PALETTE_BINDING]
            palette = Item(
                binding.key,
                app.get_key_display(binding),
                binding.description,
                enabled,
                tooltip or binding.tooltip or binding.description,
            )
        return tuple(items), palette

    # -- drawing ---------------------------------------------------------------------------

    @staticmethod
    def _label(item: Item) -> tuple[str, str]:
        # Textual's footer key: the key padded either side, the description padded right.
        return f" {safe.plain(item.display)} ", f"{item.description} " if item.description else ""

    def spans(self) -> list[tuple[int, int, int]]:
        """(index, start, end) of each item drawn at the current width; the palette's
        index is ``len(items)``, at the right edge."""
        width = self.size.width
        right = 0
        if self.palette is not None:
            key, text = self._label(self.palette)
            right = len(SEPARATOR) + len(key) + len(text)
        out = []
        x = 0
        for index, item in enumerate(self.items):
            key, text = self._label(item)
            end = x + len(key) + len(text)
            if end > width - right:
                break  # what does not fit is in the help screen and the palette
            out.append((index, x, end))
            x = end
        if self.palette is not None and right <= width:
            out.append((len(self.items), width - right + len(SEPARATOR), width))
        return out

    def render(self) -> Text:
        key_style = self.get_component_rich_style("footer--key")
        text_style = self.get_component_rich_style("footer--description")
        hover = self.get_component_rich_style("footer--hover", partial=True)
        separator = self.get_component_rich_style("footer--separator")
        dim = Style(dim=True)
        line = Text(no_wrap=True, overflow="crop", end="")
        everything = (*self.items, self.palette)
        x = 0
        for index, start, end in self.spans():
            item = everything[index]
            assert item is not None
            if start > x:
                line.append(" " * (start - x - len(SEPARATOR)))
                line.append(SEPARATOR, separator)
            key, text = self._label(item)
            extra = (hover if index == self._hover else Style()) + (
                Style() if item.enabled else dim
            )
            line.append(key, key_style + extra)
            line.append(text, text_style + extra)
            x = end
        return line

    # -- mouse -----------------------------------------------------------------------------

    def _item_at(self, x: int) -> int | None:
        return next((index for index, start, end in self.spans() if start <= x < end), None)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        index = self._item_at(event.x)
        if index != self._hover:
            self._hover = index
            everything = (*self.items, self.palette)
            item = everything[index] if index is not None else None
            self.tooltip = item.tooltip if item is not None and item.tooltip else None
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.refresh()

    def on_mouse_down(self, event: events.MouseDown) -> None:
        index = self._item_at(event.x)
        if index is None:
            return
        item = (*self.items, self.palette)[index]
        assert item is not None
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()
