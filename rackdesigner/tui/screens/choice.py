"""A Select whose list opens with space or the arrows, and a checkbox that space ticks, so
that Enter accepts the dialog they sit in (the designer's rule: every dialog has defaults
that Enter accepts)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Checkbox, Select


class Choice(Select[object], inherit_bindings=False):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,space,up", "show_overlay", "choose", show=False)
    ]


class Tick(Checkbox, inherit_bindings=False):
    """A checkbox that space ticks; Enter is the dialog's."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_button", "toggle", show=False)
    ]
