"""Colours and symbols shared by every picture of a layout: SVG elevations and the designer.

One table per theme maps a device kind to a fill and a text colour, so a GPU node is the
same green in a printed elevation as on the terminal. Severity is never shown by colour
alone: each has a symbol too. Plain data, no imports: the SVG writer turns these into CSS
class rules and the app into Rich styles.
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = (
    "gpu-node",
    "cpu-node",
    "storage",
    "switch",
    "pdu",
    "cdu",
    "rear-door",
    "patch-panel",
    "blank",
    "other",
)

# How a kind is named in legends.
KIND_LABELS = {
    "gpu-node": "GPU node",
    "cpu-node": "CPU node",
    "storage": "storage",
    "switch": "switch",
    "pdu": "PDU",
    "cdu": "CDU",
    "rear-door": "rear door",
    "patch-panel": "patch panel",
    "blank": "blanking panel",
    "other": "other",
}


@dataclass(frozen=True, slots=True)
class Swatch:
    fill: str  # "#rrggbb"
    text: str  # a colour legible on ``fill``


# Hues chosen to stay apart for the common kinds of colour blindness (GPU nodes green,
# switches blue, storage orange, PDUs purple); text colours keep WCAG AA contrast on them.
LIGHT: dict[str, Swatch] = {
    "gpu-node": Swatch("#5aa469", "#0b1f10"),
    "cpu-node": Swatch("#8fb8de", "#0c1d2e"),
    "storage": Swatch("#e8a33d", "#2b1800"),
    "switch": Swatch("#3b6fb6", "#ffffff"),
    "pdu": Swatch("#9b6fc2", "#ffffff"),
    "cdu": Swatch("#3fb6b2", "#062423"),
    "rear-door": Swatch("#7fd1cf", "#062423"),
    "patch-panel": Swatch("#b5b5b5", "#1a1a1a"),
    "blank": Swatch("#d9d9d9", "#3a3a3a"),
    "other": Swatch("#c9b79c", "#261d0f"),
}

DARK: dict[str, Swatch] = {
    "gpu-node": Swatch("#3f7d4c", "#eaf7ec"),
    "cpu-node": Swatch("#4a6f94", "#eef5fc"),
    "storage": Swatch("#a8701f", "#fff4e3"),
    "switch": Swatch("#2c5597", "#eef3fb"),
    "pdu": Swatch("#6e4a93", "#f5effb"),
    "cdu": Swatch("#24807d", "#e6fbfa"),
    "rear-door": Swatch("#3d9a97", "#e6fbfa"),
    "patch-panel": Swatch("#5c5c5c", "#f0f0f0"),
    "blank": Swatch("#3a3a3a", "#c8c8c8"),
    "other": Swatch("#7a6a52", "#f7f1e7"),
}

THEMES = {"light": LIGHT, "dark": DARK}

# Severity: a colour per theme and a symbol that does not depend on it.
SEVERITY_SYMBOLS = {"error": "✖", "warning": "▲", "info": "●"}
SEVERITY_COLOURS = {
    "light": {"error": "#c62828", "warning": "#b26a00", "info": "#1f5fa8"},
    "dark": {"error": "#ff6b6b", "warning": "#ffb347", "info": "#6fa8ff"},
}


def swatch(kind: str | None, theme: str = "light") -> Swatch:
    """The colours of a device kind; unknown kinds (or an unknown model) are ``other``."""
    table = THEMES.get(theme, LIGHT)
    return table.get(kind or "other", table["other"])
