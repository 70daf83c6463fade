"""A Select whose list opens with space or the arrows, so that Enter accepts the dialog it
sits in (the designer's rule: every dialog has defaults that Enter accepts)."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Select


class Choice(Select[object], inherit_bindings=False):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,space,up", "show_overlay", "choose", show=False)
    ]
