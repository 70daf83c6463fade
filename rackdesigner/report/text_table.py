"""The text report's plain-text tables and the figures in them, shared by its sections."""

from __future__ import annotations

from collections.abc import Sequence

from rackdesigner.model.terminal import shown
from rackdesigner.model.units import POWER, fmt


def table(rows: Sequence[tuple[str, ...]]) -> list[str]:
    """``rows`` (the first the heading) as aligned lines: the first column left, the others
    right, a rule under the heading."""
    # Names (racks, catalog entries) are anyone's text: one line per row, controls shown.
    cells = [tuple(shown(cell) for cell in row) for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    lines = [
        "  "
        + "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in cells
    ]
    lines.insert(1, "  " + "  ".join("-" * w for w in widths))
    return lines


def watts(value: float | None) -> str:
    """A power (W) for people, "–" where there is none."""
    return "–" if value is None else fmt(value, POWER)


def percent(value: float | None) -> str:
    """A share (1.0 = 100 %) as a whole percentage, "–" where there is none."""
    return "–" if value is None else f"{value * 100:.0f} %"
