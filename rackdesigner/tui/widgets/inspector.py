"""The inspector: every field of the selected rack, feed, device or link, editable.

A value is committed with enter (or by leaving the field). The app turns it into a SetField
command, parsed by the loader's converters; a refusal is shown under the field with the
loader's message and the layout is left as it was.

The facts and fields are drawn by one Line API widget, and a single input edits the field
being changed, placed over its line. Showing another entity only repaints the inspector.
Not a label and an input per field (about 50 widgets): with those, each cursor key that
showed another entity would cost a layout pass of the whole screen, 200–300 ms on 100,000
GPUs with a check running beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import Reactive
from textual.strip import Strip
from textual.suggester import SuggestFromList
from textual.widget import Widget
from textual.widgets import Input, OptionList

from rackdesigner.export.render import palette
from rackdesigner.layout_io import schema as s
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.tui import safe
from rackdesigner.tui.findings import Ref
from rackdesigner.tui.widgets.layout_settings import Page
from rackdesigner.tui.widgets.layout_settings import text_of as field_text

SPECS: dict[str, tuple[s.Field, ...]] = {
    "rack": s.RACK,
    "feed": s.FEED,
    "device": s.DEVICE,
    "link": s.LINK,
}

# The key column, then one space, then the value.
KEY_W = 11
GAP = 1
# Notes shown under a field after a refusal start with this.
REFUSED = "✖ "


def editable(kind: str) -> tuple[s.Field, ...]:
    """A kind's fields as the inspector lists them (tables are edited elsewhere)."""
    return tuple(f for f in SPECS[kind] if f.kind not in ("table", "tables"))


def choices_of(field: s.Field) -> list[str]:
    """What the field's chooser lists: an enum's choices, a flag's true and false."""
    if field.kind == "bool":
        return ["true", "false"]
    return [str(c) for c in field.choices]


def placeholder(field: s.Field) -> str:
    choices = choices_of(field)
    hint = " | ".join(choices) if choices else field.doc
    return f"{hint} (required)" if field.required else hint


@dataclass
class Shown:
    """What the inspector shows: an entity's fields, their text, and refusals."""

    ref: Ref | None = None
    facts: Text = field(default_factory=lambda: Text("Nothing selected."))
    fields: tuple[s.Field, ...] = ()
    values: dict[str, str] = field(default_factory=dict)  # as in the layout
    typed: dict[str, str] = field(default_factory=dict)  # refused text, kept as typed
    notes: dict[str, str] = field(default_factory=dict)  # why a value was refused
    # A page's (layout settings, port groups): the label shown for a key, where it is not
    # the key itself, and a heading line above a field.
    labels: dict[str, str] = field(default_factory=dict)
    headings: dict[str, str] = field(default_factory=dict)

    def label(self, key: str) -> str:
        return self.labels.get(key, key)


class FieldInput(Input):
    """The one input that edits the field being changed; ``ref`` is its entity."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "revert", "back to racks", show=True, id="field-revert"),
        Binding("tab,down", "step(1)", "next field", show=False, id="field-next"),
        Binding("shift+tab,up", "step(-1)", "previous field", show=False, id="field-previous"),
        # A choice field's list (face, side, phase, cooling, media, role, ...): these pick
        # the next or previous choice; typing any value still works.
        Binding(
            "pagedown,alt+down", "choose(1)", "next choice", show=False, id="field-choice-next"
        ),
        Binding(
            "pageup,alt+up", "choose(-1)", "previous choice", show=False, id="field-choice-previous"
        ),
    ]
    # One line of a fixed width: the length of its text (its virtual size) never changes
    # the screen's layout, yet Textual lays the whole screen out again when it changes.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def __init__(self) -> None:
        super().__init__("", id="inspector-editor", classes="field", select_on_focus=False)
        self.ref: Ref | None = None
        self.field: s.Field | None = None
        self.original = ""

    @property
    def inspector(self) -> Inspector:
        parent = self.parent
        assert isinstance(parent, Inspector)
        return parent

    def action_revert(self) -> None:
        """Escape: forget the typing and go back to the racks."""
        self.value = self.original
        self.remove_class("-invalid")
        if self.field is not None:
            self.inspector.forget(self.field.key)
        for racks in self.screen.query("#racks"):
            racks.focus()

    def action_step(self, step: int) -> None:
        self.inspector.step(step)

    def action_choose(self, step: int) -> None:
        self.inspector.choose(step)


class Chooser(OptionList, can_focus=False):
    """The choices of the field being edited, under it: pgdn / pgup (alt+down / alt+up)
    or a click pick one; the focus stays in the field, so typing still works."""

    DEFAULT_CSS = """
    Chooser {
        layer: editor;
        position: absolute;
        height: auto;
        max-height: 7;
        border: none;
        padding: 0 0 0 1;
        background: $panel;
        scrollbar-size: 1 1;
    }
    """

    def __init__(self) -> None:
        super().__init__(id="inspector-chooser")
        self.choices: list[str] = []

    def offer(self, choices: list[str], current: str) -> None:
        self.choices = choices
        self.clear_options()
        self.add_options(choices)
        self.highlighted = choices.index(current) if current in choices else None


class InspectorLines(Widget):
    """The facts and the fields, drawn line by line. It scrolls by its own offset (the
    mouse wheel, or the field being edited): a scroll bar's coming and going would be a
    layout pass."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "inspector--facts",
        "inspector--key",
        "inspector--value",
        "inspector--placeholder",
        "inspector--invalid",
        "inspector--error",
        "inspector--more",
    }
    DEFAULT_CSS = """
    InspectorLines { width: 1fr; height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.shown = Shown()
        self.top = 0
        self._lines: list[Strip] | None = None
        self._width = -1
        self.rows: dict[str, int] = {}  # field key -> its line
        # Where a field's value starts: after the key column, or (a label longer than the
        # key column, on a page) on the line under its label.
        self.value_x: dict[str, int] = {}

    def show(self, shown: Shown) -> None:
        self.shown = shown
        self._lines = None
        self.refresh()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._lines = None

    def on_resize(self) -> None:
        self._lines = None

    def lines(self) -> list[Strip]:
        width = self.size.width
        if self._lines is None or width != self._width:
            self._lines, self.rows, self.value_x = self._build(max(width, 1))
            self._width = width
            self.top = max(0, min(self.top, len(self._lines) - self.size.height))
        return self._lines

    def _build(self, width: int) -> tuple[list[Strip], dict[str, int], dict[str, int]]:
        console: Console = self.app.console
        options = console.options.update_width(width)
        style = self.get_component_rich_style
        base = self.rich_style
        facts, key_style = style("inspector--facts"), style("inspector--key")
        value, hint = style("inspector--value"), style("inspector--placeholder")
        invalid, error = style("inspector--invalid"), style("inspector--error")
        out: list[Strip] = []

        def text_lines(text: Text, over: Style) -> None:
            for line in console.render_lines(text, options, style=base + over, pad=True):
                out.append(Strip(line, width))

        shown = self.shown
        text_lines(shown.facts, facts)
        rows: dict[str, int] = {}
        value_x: dict[str, int] = {}
        if shown.fields:
            out.append(Strip.blank(width, base))
        for f in shown.fields:
            heading = shown.headings.get(f.key)
            if heading is not None:
                if len(out) > 1 and out[-1].text.strip():
                    out.append(Strip.blank(width, base))
                head, _, more = heading.partition("\n")
                text_lines(safe.text(head, style="bold"), facts)
                if more:  # figures under the heading (a page's section)
                    text_lines(safe.text(more), facts)
            label = shown.label(f.key)
            x = KEY_W + GAP
            if f.key in shown.labels and len(label) > KEY_W:
                # A long label (a threshold's) has a line of its own, the value under it.
                text_lines(Text(label), key_style)
                x = 2
            room = max(1, width - x)
            rows[f.key] = len(out)
            value_x[f.key] = x
            typed = shown.typed.get(f.key)
            text = typed if typed is not None else shown.values.get(f.key, "")
            cell_style = invalid if f.key in shown.notes else value
            cell = f" {safe.plain(text)}" if text else f" {placeholder(f)}"
            head = safe.plain(label)[:KEY_W].ljust(KEY_W) if x > 2 else ""
            segments = [
                Segment(head, base + key_style),
                Segment(" " * (x - len(head)), base),
                Segment(cell[:room].ljust(room), cell_style + (hint if not text else Style())),
            ]
            out.append(Strip(segments).crop(0, width).extend_cell_length(width, base))
            note = shown.notes.get(f.key)
            if note is not None:
                text_lines(safe.text(REFUSED + note), error)
        return out, rows, value_x

    def render_line(self, y: int) -> Strip:
        lines = self.lines()
        index = self.top + y
        width = self.size.width
        if index >= len(lines):
            return Strip.blank(width, self.rich_style)
        line = lines[index]
        more = None
        if y == 0 and self.top > 0:
            more = "▲"
        elif y == self.size.height - 1 and index < len(lines) - 1:
            more = "▼"
        if more is not None and width > 1:
            mark = Strip([Segment(more, self.get_component_rich_style("inspector--more"))], 1)
            line = Strip.join([line.crop(0, width - 1), mark])
        return line

    def scroll_to_line(self, line: int) -> None:
        """Scroll so ``line`` is on screen."""
        height = self.size.height
        if height <= 0:
            return
        if line < self.top:
            self.top = line
        elif line >= self.top + height:
            self.top = line - height + 1
        else:
            return
        self.refresh()

    def _scroll(self, step: int) -> None:
        most = max(0, len(self.lines()) - self.size.height)
        top = max(0, min(self.top + step, most))
        if top != self.top:
            self.top = top
            self.refresh()
            self.inspector.place_editor()

    @property
    def inspector(self) -> Inspector:
        parent = self.parent
        assert isinstance(parent, Inspector)
        return parent

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self._scroll(2)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self._scroll(-2)

    def on_click(self, event: events.Click) -> None:
        line = self.top + event.y
        key = next((k for k, row in self.rows.items() if row == line), None)
        if key is not None:
            event.stop()
            self.inspector.edit(key)


class Inspector(Widget, can_focus=False):
    """Shows one entity; its fields are edited one at a time in the field input."""

    class Commit(Message):
        def __init__(self, ref: Ref, key: str, text: str) -> None:
            self.ref = ref
            self.key = key
            self.text = text
            super().__init__()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ref: Ref | None = None
        self.border_title = "Inspector"
        self.shown = Shown()
        self.editing: str | None = None  # the key of the field in the input
        # Commits the app has not answered yet: key -> (entity, text). The answer may come
        # after tab has moved the input on to the next field.
        self._pending: dict[str, tuple[Ref, str]] = {}

    def compose(self) -> ComposeResult:
        yield InspectorLines(id="inspector-lines")
        editor = FieldInput()
        editor.display = False
        yield editor
        chooser = Chooser()
        chooser.display = False
        yield chooser

    @property
    def lines_view(self) -> InspectorLines:
        return self.query_one("#inspector-lines", InspectorLines)

    @property
    def editor(self) -> FieldInput:
        return self.query_one("#inspector-editor", FieldInput)

    @property
    def chooser(self) -> Chooser:
        return self.query_one("#inspector-chooser", Chooser)

    # -- what is shown -------------------------------------------------------------------

    def show(
        self,
        ref: Ref | None,
        entity: Any,
        facts: list[str],
        findings: list[Diagnostic],
        *,
        rebuild: bool = False,
        page: Page | None = None,
    ) -> None:
        """Show ``entity`` (a Rack, Feed, Device or Link) under ``ref``; None clears.

        ``page``: fields of its own (the layout's settings: ``ref`` ("layout", "")), or
        shown after the entity's (a device's port groups)."""
        if ref is None or entity is None:
            self.ref = None
            self.border_title = "Inspector"
            self._stop_editing()
            self.shown = Shown(facts=safe.text("\n".join(facts) if facts else "Nothing selected."))
            self.lines_view.show(self.shown)
            return
        kind, ident = ref
        self.border_title = (
            "Layout settings" if kind == "layout" else safe.content(f"{kind} {ident}")
        )
        same = ref == self.ref and not rebuild
        same_kind = self.ref is not None and self.ref[0] == kind
        fields = editable(kind) if kind in SPECS else ()
        values = {f.key: field_text(f, getattr(entity, f.key, None)) for f in fields}
        labels: dict[str, str] = {}
        headings: dict[str, str] = {}
        if page is not None:
            fields = (*fields, *page.fields)
            values.update(page.values)
            labels, headings = dict(page.labels), dict(page.headings)
        if same:
            typed, notes = self.shown.typed, self.shown.notes
        else:
            typed, notes = {}, {}
        self.ref = ref
        self.shown = Shown(
            ref, self._facts(facts, findings), fields, values, typed, notes, labels, headings
        )
        self.lines_view.show(self.shown)
        editor = self.editor
        if self.editing is not None:
            if same or (same_kind and rebuild):
                editor.ref = ref
                # The new value shows unless the user is typing over the old one (an undo
                # while the field is open shows what it undid).
                new = safe.plain(values.get(self.editing, ""))
                untouched = editor.value == editor.original or not editor.has_focus
                if self.editing not in typed and untouched:
                    editor.value = new
                    editor.cursor_position = len(new)
                editor.original = new
            else:
                self._stop_editing()

    def _facts(self, facts: list[str], findings: list[Diagnostic]) -> Text:
        theme = "dark" if self.app.current_theme.dark else "light"
        out = safe.text("\n".join(facts))
        for diagnostic in findings[:6]:
            colour = palette.SEVERITY_COLOURS[theme][diagnostic.severity]
            out.append("\n")
            out.append(palette.SEVERITY_SYMBOLS[diagnostic.severity], style=f"bold {colour}")
            out.append(f" {diagnostic.code} ", style=colour)
            out.append(safe.plain(diagnostic.message))
        if len(findings) > 6:
            out.append(f"\n… {len(findings) - 6} more in the problems panel", style="dim")
        return out

    def facts_text(self) -> str:
        """The facts as plain text (what the top of the inspector says)."""
        return self.shown.facts.plain

    def note(self, key: str) -> str | None:
        """Why ``key``'s value was refused, while the refusal stands."""
        return self.shown.notes.get(key)

    def text_of(self, key: str) -> str | None:
        """``key``'s text as the inspector shows it (the typed text after a refusal)."""
        if key not in self.shown.values:
            return None
        return self.shown.typed.get(key, self.shown.values[key])

    # -- editing -------------------------------------------------------------------------

    def focus_first(self) -> bool:
        if self.ref is None or not self.shown.fields:
            return False
        self.edit(self.shown.fields[0].key)
        return True

    def edit(self, key: str) -> None:
        """Put ``key``'s field in the input and focus it."""
        field_ = next((f for f in self.shown.fields if f.key == key), None)
        if field_ is None or self.ref is None:
            return
        editor = self.editor
        self.editing = key
        editor.ref = self.ref
        editor.field = field_
        # The input shows the value escaped (safe.plain); a commit gives back its characters.
        editor.original = safe.plain(self.shown.values.get(key, ""))
        editor.value = self.shown.typed.get(key, editor.original)
        editor.placeholder = placeholder(field_)
        editor.tooltip = field_.doc
        editor.set_class(key in self.shown.notes, "-invalid")
        editor.cursor_position = len(editor.value)
        choices = choices_of(field_)
        editor.suggester = SuggestFromList(choices, case_sensitive=False) if choices else None
        chooser = self.chooser
        if choices:
            chooser.offer(choices, editor.value)
        chooser.display = bool(choices)
        lines = self.lines_view
        lines.lines()
        row = lines.rows.get(key, 0)
        note = self.shown.notes.get(key)
        lines.scroll_to_line(row + (1 if note is not None else 0))
        lines.scroll_to_line(row)
        editor.display = True
        self.place_editor()
        if not editor.has_focus:
            editor.focus()

    def place_editor(self) -> None:
        """Over its field's value, where the lines show it now (hidden when scrolled off)."""
        if self.editing is None:
            return
        lines = self.lines_view
        row = lines.rows.get(self.editing)
        editor = self.editor
        if row is None:
            return
        y = row - lines.top
        visible = 0 <= y < lines.size.height
        x = lines.value_x.get(self.editing, KEY_W + GAP)
        editor.styles.offset = (x, max(0, y))
        editor.styles.width = max(1, lines.size.width - x)
        editor.styles.visibility = "visible" if visible else "hidden"
        self._place_chooser(x, y, visible)

    def _place_chooser(self, x: int, y: int, visible: bool) -> None:
        chooser = self.chooser
        if not chooser.display:
            return
        lines = self.lines_view
        height = min(len(chooser.choices), 7)
        below = y + 1 + height <= lines.size.height
        chooser.styles.offset = (x, y + 1 if below else max(0, y - height))
        chooser.styles.width = max(1, lines.size.width - x)
        chooser.styles.visibility = "visible" if visible else "hidden"

    def choose(self, step: int) -> None:
        """The next (1) or previous (-1) choice into the field (pgdn / pgup)."""
        chooser = self.chooser
        if not chooser.display or not chooser.choices:
            return
        current = chooser.highlighted
        count = len(chooser.choices)
        index = (0 if step > 0 else count - 1) if current is None else (current + step) % count
        chooser.highlighted = index
        editor = self.editor
        editor.value = chooser.choices[index]
        editor.cursor_position = len(editor.value)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """A click on a choice: it is the field's value, committed."""
        if not isinstance(event.option_list, Chooser):
            return
        event.stop()
        editor = self.editor
        editor.value = event.option_list.choices[event.option_index]
        editor.cursor_position = len(editor.value)
        self._commit()
        if not editor.has_focus:
            editor.focus()

    def step(self, step: int) -> None:
        """Tab, down (1) or shift+tab, up (-1): commit this field, edit the next one; past
        either end, the focus moves on as tab would."""
        keys = [f.key for f in self.shown.fields]
        if self.editing not in keys:
            return
        self._commit()
        index = keys.index(self.editing) + step
        if 0 <= index < len(keys):
            self.edit(keys[index])
        elif step > 0:
            self.screen.focus_next()
        else:
            self.screen.focus_previous()

    def forget(self, key: str) -> None:
        """Escape: the typed text goes, and with it the refusal."""
        self.shown.typed.pop(key, None)
        self.shown.notes.pop(key, None)
        self.lines_view.show(self.shown)

    def _stop_editing(self) -> None:
        if self.editing is None:
            return
        self.editing = None
        editor = self.editor
        editor.display = False
        editor.field = None
        self.chooser.display = False

    def refused(self, key: str, message: str) -> None:
        """Show why a value was refused, under its field (the field keeps the typed text)."""
        ref, text = self._pending.pop(key, (self.ref, self.editor.value))
        if key not in self.shown.values or ref != self.ref:
            return
        editor = self.editor
        self.shown.typed[key] = text
        if self.editing == key:
            editor.add_class("-invalid")
        self.shown.notes[key] = message
        lines = self.lines_view
        lines.show(self.shown)
        lines.lines()
        row = lines.rows.get(key)
        if row is not None:
            lines.scroll_to_line(row + 1)
        self.place_editor()

    def accepted(self, key: str) -> None:
        ref, text = self._pending.pop(key, (self.ref, self.editor.value))
        if key not in self.shown.values or ref != self.ref:
            return
        editor = self.editor
        self.shown.values[key] = safe.typed(text, self.shown.values[key])
        if self.editing == key:
            editor.original = text
            editor.remove_class("-invalid")
        self.shown.typed.pop(key, None)
        self.shown.notes.pop(key, None)
        self.lines_view.show(self.shown)

    def _commit(self) -> None:
        editor = self.editor
        key = self.editing
        if editor.ref is None or key is None:
            return
        if editor.value == editor.original and key not in self.shown.notes:
            return
        if key in self.shown.notes and editor.value == self.shown.typed.get(key):
            return  # refused as it stands: the note says why
        if self._pending.get(key) == (editor.ref, editor.value):
            return  # sent already (tab, then the focus leaving)
        self._pending[key] = (editor.ref, editor.value)
        value = safe.typed(editor.value, self.shown.values.get(key, ""))
        self.post_message(self.Commit(editor.ref, key, value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if isinstance(event.input, FieldInput):
            self._commit()

    def on_input_blurred(self, event: Input.Blurred) -> None:
        if not isinstance(event.input, FieldInput):
            return
        self._commit()
        self._stop_editing()

    def on_input_changed(self, event: Input.Changed) -> None:
        if isinstance(event.input, FieldInput) and event.input.has_class("-invalid"):
            event.input.remove_class("-invalid")

    def on_resize(self) -> None:
        self.call_after_refresh(self.place_editor)
