"""The catalog picker of Place device (``a``): device types grouped by kind with U height,
power and ports, filtered as the user types (designer.md's order: the exact key, then keys
starting with the text, then keys and names containing it); Enter picks the first, or the
one the arrows chose. Space marks several: Enter then places them all, stacked upward from
the cursor. Escape cancels."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from rackdesigner.design.placing import KIND_TITLES, grouped, match, summary
from rackdesigner.export.render import palette
from rackdesigner.layout_io.catalog import Catalog
from rackdesigner.model.layout import DeviceType
from rackdesigner.tui import safe

KEY_W = 20


def entry_prompt(
    key: str, entry: DeviceType, marked: bool, theme: str, *, kind: bool, key_width: int = KEY_W
) -> Text:
    """One catalog line: a swatch of the kind's colour, the key, and its figures."""
    swatch = palette.swatch(entry.kind or "other", theme)
    text = Text()
    if marked:  # a green tick on any theme: a kind's colour can be as dark as the dialog
        text.append("✓ ", style="bold #4ebf71")
    else:
        text.append("■ ", style=swatch.fill)
    text.append(safe.plain(key).ljust(key_width), style="bold")
    text.append(" ")
    if kind:
        text.append(f"{entry.kind or 'other'} · ", style="dim")
    text.append(safe.plain(summary(entry)))
    text.no_wrap = True
    text.overflow = "ellipsis"
    return text


def catalog_options(
    devices: dict[str, DeviceType],
    query: str,
    marked: list[str],
    theme: str,
    *,
    key_width: int = KEY_W,
    show_kind: bool = True,
    always_grouped: bool = False,
) -> list[Option]:
    """The picker's lines: grouped by kind under headings while nothing is typed, else in
    the matching order with each line's kind shown (where there is room: ``show_kind``).
    ``always_grouped`` keeps the headings while searching (the matching order inside each
    kind), as the catalog panel does."""
    keys = match(devices, query)
    if query.strip() and not always_grouped:
        return [
            Option(
                entry_prompt(
                    k, devices[k], k in marked, theme, kind=show_kind, key_width=key_width
                ),
                id=k,
            )
            for k in keys
        ]
    options: list[Option] = []
    for kind, group in grouped(devices, keys):
        options.append(Option(Text(KIND_TITLES.get(kind, kind), style="bold dim"), disabled=True))
        options += [
            Option(entry_prompt(k, devices[k], k in marked, theme, kind=False), id=k) for k in group
        ]
    return options


def move_highlight(options: OptionList, step: int) -> bool:
    """Move a list's highlight ``step`` entries (down when positive) as its own cursor
    keys do (headings, disabled options, are skipped); False when the list is empty."""
    if not options.option_count:
        return False
    action = options.action_cursor_down if step > 0 else options.action_cursor_up
    for _ in range(abs(step)):
        action()
    return True


class ListInput(Input):
    """A filter over a list: the arrows move through the list below (the screen's
    ``action_cursor``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "screen.cursor(-1)", show=False),
        Binding("down", "screen.cursor(1)", show=False),
        Binding("pageup", "screen.cursor(-8)", show=False),
        Binding("pagedown", "screen.cursor(8)", show=False),
    ]


class PickerInput(ListInput):
    """The catalog's filter: space marks an entry (catalog keys hold no blanks, so the
    filter never needs one)."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        return key != "space" and super().check_consume_key(key, character)

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "space":
            event.stop()
            event.prevent_default()
            screen: Any = self.screen
            screen.action_mark()
            return
        await super()._on_key(event)


class CatalogPickerScreen(ModalScreen[list[str] | None]):
    """Dismisses with the models to place (one, or the marked ones in marking order)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "cancel", id="picker-cancel"),
    ]

    def __init__(self, catalog: Catalog, title: str, query: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.devices = dict(catalog.devices)
        self.title_text = title
        self.query_text = query
        self.marked: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="picker-dialog"):
            yield Static(safe.content(self.title_text), classes="dialog-title")
            yield PickerInput(
                self.query_text, placeholder="type a key or a name: dgx, qm87, pdu…", id="picker"
            )
            yield OptionList(id="picker-list")
            yield Static("", id="picker-detail", classes="dialog-message")
            yield Static(
                "type to filter · ↑↓ · space marks several · enter places · esc cancels",
                id="picker-hint",
                classes="dialog-message",
            )

    def on_mount(self) -> None:
        self.query_one("#picker", Input).focus()
        self._fill()

    @property
    def theme_name(self) -> str:
        return "dark" if self.app.current_theme.dark else "light"

    def _fill(self, keep: str | None = None) -> None:
        options = self.query_one("#picker-list", OptionList)
        query = self.query_one("#picker", Input).value
        options.set_options(catalog_options(self.devices, query, self.marked, self.theme_name))
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        if keep in ids:
            options.highlighted = ids.index(keep)
        else:
            first = next((i for i, key in enumerate(ids) if key is not None), None)
            options.highlighted = first
        self._detail()

    def chosen(self) -> str | None:
        option = self.query_one("#picker-list", OptionList).highlighted_option
        return option.id if option is not None else None

    def matches(self) -> list[str]:
        """The keys listed now, top to bottom."""
        options = self.query_one("#picker-list", OptionList)
        ids = (options.get_option_at_index(i).id for i in range(options.option_count))
        return [key for key in ids if key is not None]

    def _detail(self) -> None:
        detail = self.query_one("#picker-detail", Static)
        key = self.chosen()
        lines = []
        if key is not None:
            entry = self.devices[key]
            lines.append(f"{key}: {entry.name or key}")
        elif self.query_one("#picker", Input).value.strip():
            lines.append("Nothing matches: fewer letters, or part of a name.")
        if self.marked:
            lines.append(f"marked: {', '.join(self.marked)} (enter stacks them upward)")
        detail.update(Text(safe.lines("\n".join(lines)), no_wrap=True, overflow="ellipsis"))

    def on_input_changed(self, event: Input.Changed) -> None:
        self._fill()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._detail()

    def action_cursor(self, step: int) -> None:
        move_highlight(self.query_one("#picker-list", OptionList), step)

    def action_mark(self) -> None:
        key = self.chosen()
        if key is None:
            return
        if key in self.marked:
            self.marked.remove(key)
        else:
            self.marked.append(key)
        self._fill(keep=key)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.accept()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.accept()

    def accept(self) -> None:
        if self.marked:
            self.dismiss(list(self.marked))
            return
        key = self.chosen()
        if key is None:
            self.app.bell()
            return
        self.dismiss([key])

    def action_cancel(self) -> None:
        self.dismiss(None)
