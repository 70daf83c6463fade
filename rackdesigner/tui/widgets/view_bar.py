"""The line of view names above the views, the shown one highlighted; a click shows one.

It replaces Textual's ``TabbedContent``. Its tabs are a widget each, with an animated
underline, and every switch restyled and re-laid them out. A key-driven switch also left
``Tabs.TabActivated`` messages in flight: when keys came faster than they were handled (a
held key, tmux's ``send-keys``), a late one switched the view back to an earlier tab. This
is one widget drawing one line, and it only reports clicks. The app decides what is shown.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

# Each name's padding either side, as Textual's tabs had.
PAD = 1


class ViewBar(Widget):
    DEFAULT_CSS = """
    ViewBar { height: 1; width: 1fr; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"view-bar--tab", "view-bar--active"}

    active: reactive[str] = reactive("", layout=False)

    class Chosen(Message):
        """A view's name was clicked."""

        def __init__(self, name: str) -> None:
            self.name = name
            super().__init__()

    def __init__(self, titles: dict[str, str], active: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.titles = dict(titles)
        self.set_reactive(ViewBar.active, active)

    def spans(self) -> list[tuple[str, int, int]]:
        """Each view's name with the columns it takes (start inclusive, end exclusive)."""
        out = []
        x = 0
        for name, title in self.titles.items():
            width = len(title) + 2 * PAD
            out.append((name, x, x + width))
            x += width
        return out

    def x_of(self, name: str) -> int:
        """A column inside ``name``'s label (for a click)."""
        start, end = next((s, e) for n, s, e in self.spans() if n == name)
        return (start + end) // 2

    def render(self) -> Text:
        tab = self.get_component_rich_style("view-bar--tab")
        active = self.get_component_rich_style("view-bar--active")
        text = Text(no_wrap=True, overflow="crop", end="")
        for name, title in self.titles.items():
            text.append(f"{' ' * PAD}{title}{' ' * PAD}", active if name == self.active else tab)
        return text

    def on_click(self, event: events.Click) -> None:
        for name, start, end in self.spans():
            if start <= event.x < end:
                event.stop()
                self.post_message(self.Chosen(name))
                return
