"""The inspector: every field of the selected rack, feed, device or link, editable.

A value is committed with enter (or by leaving the field). The app turns it into a SetField
command, parsed by the loader's converters; a refusal is shown under the field with the
loader's message and the layout is left as it was.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, VerticalScroll
from textual.geometry import Size
from textual.message import Message
from textual.reactive import Reactive
from textual.widget import Widget
from textual.widgets import Input, Label, Static

from .. import palette
from .. import schema as s
from ..diagnostics import Diagnostic
from ..model import Q
from ..units import canonical_text
from .findings import Ref

SPECS: dict[str, tuple[s.Field, ...]] = {
    "rack": s.RACK,
    "feed": s.FEED,
    "device": s.DEVICE,
    "link": s.LINK,
}


def field_text(field: s.Field, value: Any) -> str:
    """A value as the user would type it: the file's own text for a quantity read from it."""
    if value is None:
        return ""
    if isinstance(value, Q):
        return value.text
    if field.kind in ("qty", "ratio") and isinstance(value, int | float) and field.dim is not None:
        return canonical_text(float(value), field.dim)
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


class FieldInput(Input):
    """An inspector field of one kind of entity; ``ref`` is the entity it edits now."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "revert", "back to racks", show=True, id="field-revert")
    ]
    # A field is one line of a fixed width: the length of its text (its virtual size) never
    # changes the screen's layout, yet Textual lays the whole screen out again whenever it
    # changes, which made every cursor key that showed another entity cost a layout pass.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)

    def __init__(self, kind: str, field: s.Field) -> None:
        hint = field.doc
        if field.choices:
            hint = " | ".join(str(c) for c in field.choices)
        super().__init__(
            "",
            placeholder=hint if not field.required else f"{hint} (required)",
            id=f"field-{kind}-{field.key}",
            classes="field",
            select_on_focus=False,
        )
        self.kind = kind
        self.ref: Ref | None = None
        self.field = field
        self.original = ""
        self.tooltip = field.doc

    def action_revert(self) -> None:
        """Escape: forget the typing and go back to the racks."""
        self.value = self.original
        self.remove_class("-invalid")
        for racks in self.screen.query("#racks"):
            racks.focus()


class Inspector(VerticalScroll, can_focus=False):
    """Shows one entity. Each kind's fields are built once and only refilled when the
    selection changes, so moving the cursor never re-lays-out the screen."""

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
        # (kind, key) -> its input, and its line (a refusal is mounted after it); found
        # once, queries are not free.
        self.boxes: dict[tuple[str, str], tuple[FieldInput, Widget]] = {}
        # Refusal notes, mounted on the first refusal of a field: every widget costs Textual
        # time on each restyle and layout pass, and most fields are never refused.
        self.notes: dict[tuple[str, str], Static] = {}
        self.groups: dict[str, Grid] = {}

    def compose(self) -> ComposeResult:
        yield Static("Nothing selected.", id="inspector-facts", classes="facts")

    def _group(self, kind: str) -> Grid:
        """A kind's fields, built the first time an entity of that kind is shown."""
        group = self.groups.get(kind)
        if group is not None:
            return group
        # A two-column grid of key and field: a row container per field would be one more
        # widget each for Textual to restyle and lay out on every pass.
        children: list[Any] = []
        for field in SPECS[kind]:
            if field.kind in ("table", "tables"):
                continue
            box = FieldInput(kind, field)
            self.boxes[(kind, field.key)] = (box, box)
            children.extend((Label(field.key, classes="field-key"), box))
        group = Grid(*children, id=f"group-{kind}", classes="field-group")
        self.groups[kind] = group
        self.mount(group)
        return group

    def prebuild(self) -> None:
        """Build the fields the cursor shows first (a rack's, a device's) now, hidden:
        mounting them costs a layout pass that would otherwise land on the first keys after
        a large layout is drawn. Feeds and links are built when first shown: every widget
        costs Textual time on each restyle and layout pass."""
        for kind in ("rack", "device"):
            if kind not in self.groups:
                self._group(kind).display = self.ref is not None and self.ref[0] == kind

    def show(
        self,
        ref: Ref | None,
        entity: Any,
        facts: list[str],
        findings: list[Diagnostic],
        *,
        rebuild: bool = False,
    ) -> None:
        """Show ``entity`` (a Rack, Feed, Device or Link) under ``ref``; None clears."""
        facts_box = self.query_one("#inspector-facts", Static)
        if ref is None or entity is None:
            self.ref = None
            self.border_title = "Inspector"
            for group in self.groups.values():
                group.display = False
            self._show_facts(facts_box, "\n".join(facts) if facts else "Nothing selected.")
            return
        kind, ident = ref
        self.border_title = f"{kind} {ident}"
        self._show_facts(facts_box, self._facts(facts, findings))
        same = ref == self.ref and not rebuild
        self.ref = ref
        self._group(kind)
        for name, group in self.groups.items():
            if group.display != (name == kind):
                group.display = name == kind
        for (box_kind, _), (box, _) in self.boxes.items():
            if box_kind != kind:
                continue
            text = field_text(box.field, getattr(entity, box.field.key, None))
            box.ref = ref
            if not same:
                self._clear(box)
            if box.value != text and not (same and (box.has_focus or box.has_class("-invalid"))):
                box.value = text  # (setting a value, even the same one, costs a layout pass)
            box.original = text

    @staticmethod
    def _show_facts(box: Static, content: Text | str) -> None:
        """New facts; the screen is laid out again only when their height changes. A layout
        pass re-renders every panel: it was most of a cursor key's cost."""
        before = box.content_size
        box.update(content, layout=False)
        if before.width <= 0:
            box.refresh(layout=True)
            return
        height = box.get_content_height(box.content_region.size, box.app.size, before.width)
        if height != before.height:
            box.refresh(layout=True)

    def _clear(self, box: FieldInput) -> None:
        box.remove_class("-invalid")
        note = self.notes.get((box.kind, box.field.key))
        if note is not None and note.has_class("-shown"):
            note.update("")
            note.remove_class("-shown")

    def _facts(self, facts: list[str], findings: list[Diagnostic]) -> Text:
        theme = "dark" if self.app.current_theme.dark else "light"
        out = Text("\n".join(facts))
        for diagnostic in findings[:6]:
            colour = palette.SEVERITY_COLOURS[theme][diagnostic.severity]
            out.append("\n")
            out.append(palette.SEVERITY_SYMBOLS[diagnostic.severity], style=f"bold {colour}")
            out.append(f" {diagnostic.code} ", style=colour)
            out.append(diagnostic.message)
        if len(findings) > 6:
            out.append(f"\n… {len(findings) - 6} more in the problems panel", style="dim")
        return out

    def _box(self, key: str) -> FieldInput | None:
        if self.ref is None:
            return None
        found = self.boxes.get((self.ref[0], key))
        return found[0] if found else None

    def refused(self, key: str, message: str) -> None:
        """Show why a value was refused, under its field (the field keeps the typed text)."""
        box = self._box(key)
        if box is None:
            return
        box.add_class("-invalid")
        note = self.notes.get((box.kind, key))
        if note is None:
            note = Static("", classes="field-error", id=f"error-{box.kind}-{key}")
            self.notes[(box.kind, key)] = note
            line = self.boxes[(box.kind, key)][1]
            line.parent.mount(note, after=line)  # type: ignore[union-attr]
        note.update(Text(f"✖ {message}"))
        note.add_class("-shown")
        self.call_after_refresh(note.scroll_visible, animate=False)

    def accepted(self, key: str) -> None:
        box = self._box(key)
        if box is None:
            return
        box.original = box.value
        self._clear(box)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if isinstance(event.input, FieldInput):
            self._commit(event.input)

    def on_input_blurred(self, event: Input.Blurred) -> None:
        if isinstance(event.input, FieldInput) and event.input.value != event.input.original:
            self._commit(event.input)

    def on_input_changed(self, event: Input.Changed) -> None:
        if isinstance(event.input, FieldInput) and event.input.has_class("-invalid"):
            event.input.remove_class("-invalid")

    def _commit(self, box: FieldInput) -> None:
        if box.ref is None or (box.value == box.original and not box.has_class("-invalid")):
            return
        self.post_message(self.Commit(box.ref, box.field.key, box.value))

    def focus_first(self) -> bool:
        if self.ref is None:
            return False
        for (kind, _), (box, _) in self.boxes.items():
            if kind == self.ref[0]:
                box.focus()
                return True
        return False
