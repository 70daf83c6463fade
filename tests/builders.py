"""Small builders the rule unit tests share: layouts as text, and running one rule."""

from __future__ import annotations

from rackdesigner.diagnostics import Diagnostic
from rackdesigner.engine import check
from rackdesigner.layout_io import load_text

HEADER = 'format = 1\nname = "t"\n'


def findings(code: str, text: str) -> list[Diagnostic]:
    """The findings of rule ``code`` on a layout given without its header lines."""
    _, diagnostics = check(load_text(HEADER + text), select=[code])
    return [d for d in diagnostics if d.code == code]


def rack_text(rid: str, models: list[str], slot: int | None = 1, row: str = "A") -> str:
    """A rack holding one device of each model, 10 units apart from U1."""
    text = f'[[racks]]\nid = "{rid}"\nrow = "{row}"\n'
    if slot is not None:
        text += f"slot = {slot}\n"
    position = 1
    for index, model in enumerate(models, 1):
        text += (
            f'\n[[racks.devices]]\nid = "{rid}-d{index}"\nmodel = "{model}"\n'
            f"position = {position}\n"
        )
        position += 10
    return text + "\n"
