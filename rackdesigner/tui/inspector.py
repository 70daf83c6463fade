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
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
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
    """An inspector field; remembers which entity and key it edits."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "revert", "undo typing", show=True, id="field-revert")
    ]

    def __init__(self, ref: Ref, field: s.Field, text: str) -> None:
        hint = field.doc
        if field.choices:
            hint = " | ".join(str(c) for c in field.choices)
        super().__init__(
            text,
            placeholder=hint if not field.required else f"{hint} (required)",
            id=f"field-{field.key}",
            classes="field",
            select_on_focus=False,
        )
        self.ref = ref
        self.field = field
        self.original = text
        self.tooltip = field.doc

    def action_revert(self) -> None:
        self.value = self.original
        self.remove_class("-invalid")
        self.screen.focus_next()


class Inspector(VerticalScroll, can_focus=False):
    """Shows one entity; rebuilds its fields only when the entity changes."""

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

    def compose(self) -> ComposeResult:
        yield Static("Nothing selected.", id="inspector-facts", classes="facts")

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
        if ref is None or entity is None:
            self.ref = None
            self.border_title = "Inspector"
            self.query(".field-row").remove()
            self.query_one("#inspector-facts", Static).update(
                "\n".join(facts) if facts else "Nothing selected."
            )
            return
        kind, ident = ref
        self.border_title = f"{kind} {ident}"
        self.query_one("#inspector-facts", Static).update(self._facts(facts, findings))
        spec = [f for f in SPECS[kind] if f.kind not in ("table", "tables")]
        if ref == self.ref and not rebuild:
            for field in spec:
                for box in self.query(f"#field-{field.key}").results(FieldInput):
                    text = field_text(field, getattr(entity, field.key, None))
                    if not box.has_focus and not box.has_class("-invalid"):
                        box.value = text
                    box.original = text
            return
        self.ref = ref
        with self.app.batch_update():
            self.query(".field-row").remove()
            rows: list[Vertical] = []
            for field in spec:
                text = field_text(field, getattr(entity, field.key, None))
                rows.append(
                    Vertical(
                        Horizontal(
                            Label(field.key, classes="field-key"),
                            FieldInput(ref, field, text),
                            classes="field-line",
                        ),
                        Static("", classes="field-error", id=f"error-{field.key}"),
                        classes="field-row",
                    )
                )
            self.mount_all(rows)

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

    def refused(self, key: str, message: str) -> None:
        """Show why a value was refused, under its field (the field keeps the typed text)."""
        for box in self.query(f"#field-{key}").results(FieldInput):
            box.add_class("-invalid")
        for note in self.query(f"#error-{key}").results(Static):
            note.update(Text(f"✖ {message}"))
            note.add_class("-shown")

    def accepted(self, key: str) -> None:
        for box in self.query(f"#field-{key}").results(FieldInput):
            box.remove_class("-invalid")
            box.original = box.value
        for note in self.query(f"#error-{key}").results(Static):
            note.update("")
            note.remove_class("-shown")

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
        if box.value == box.original and not box.has_class("-invalid"):
            return
        self.post_message(self.Commit(box.ref, box.field.key, box.value))

    def focus_first(self) -> bool:
        for box in self.query(FieldInput):
            box.focus()
            return True
        return False
