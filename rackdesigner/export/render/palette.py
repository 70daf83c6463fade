"""Colours and symbols shared by every picture of a layout: SVG elevations and the designer.

One table per theme maps a device kind to a fill and a text colour, so a GPU node is the
same green in a printed elevation as on the terminal. Severity is never shown by colour
alone: each has a symbol too. Plain data over the model's own vocabulary (device kinds
and media are :mod:`rackdesigner.model.layout`'s): the SVG writer turns these into CSS
class rules and the app into Rich styles.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from rackdesigner.model.layout import MEDIA as LAYOUT_MEDIA
from rackdesigner.model.layout import DeviceType

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
    """The colours of a device kind, or of a rack-scale part (:data:`PARTS`, what
    :func:`drawn_kind` names); unknown kinds (or an unknown model) are ``other``."""
    table = THEMES.get(theme, LIGHT)
    found = table.get(kind or "other")
    if found is None:
        found = PARTS.get(theme, PARTS["light"]).get(kind or "", table["other"])
    return found


# Surfaces of a drawing per theme: page, text, rack frame, rails, empty units, the hatch of
# units blocked by a full-depth device on the other face, rear doors and cable routes.
SURFACES = {
    "light": {
        "bg": "#ffffff",
        "fg": "#1a1a1a",
        "muted": "#5c5c5c",
        "frame": "#3c3c3c",
        "frame_fill": "#f4f4f4",
        "rail": "#e2e2e2",
        "slot": "#fbfbfb",
        "slot_line": "#c4c4c4",
        "body_line": "#2a2a2a",
        "blocked": "#ededed",
        "blocked_line": "#a0a0a0",
        "door": "#2b9e9a",
        "route": "#c2185b",
    },
    "dark": {
        "bg": "#16181b",
        "fg": "#e8e8e8",
        "muted": "#a8a8a8",
        "frame": "#9a9a9a",
        "frame_fill": "#22252a",
        "rail": "#33373d",
        "slot": "#1c1f23",
        "slot_line": "#474c53",
        "body_line": "#0a0a0a",
        "blocked": "#2a2d32",
        "blocked_line": "#5d636b",
        "door": "#4fd1cb",
        "route": "#ff6fa8",
    },
}

# Cable media in topology drawings: a colour per theme and a dash pattern, so that media
# stay apart in print without colour too.
MEDIA = (*LAYOUT_MEDIA, "unknown")  # a cable of no known medium is drawn too
MEDIA_COLOURS = {
    "light": {
        "dac": "#4d4d4d",
        "acc": "#7b5b3a",
        "aoc": "#1f77b4",
        "mmf": "#2ca02c",
        "smf": "#d62728",
        "copper-rj45": "#9467bd",
        "unknown": "#8c8c8c",
    },
    "dark": {
        "dac": "#c8c8c8",
        "acc": "#d7a97a",
        "aoc": "#6fb6ff",
        "mmf": "#7ddc7d",
        "smf": "#ff7b7b",
        "copper-rj45": "#c6a5ff",
        "unknown": "#9a9a9a",
    },
}
MEDIA_DASHES = {
    "dac": "",
    "acc": "6 2",
    "aoc": "",
    "mmf": "8 3",
    "smf": "2 2",
    "copper-rj45": "1 3",
    "unknown": "4 4",
}

# Power density of a rack in floor plans: upper bounds in kW, fixed bands that cover both
# air-cooled racks (5-45 kW, the purple ramp: light to dark reads as more power) and
# liquid-cooled rack-scale systems (the orange ramp above 60 kW: a GB200 NVL72 rack draws
# about 120-140 kW, DGX GB200 user guide, and a GB300 NVL72 up to 142 kW, NVL72 AI Factory
# RA), so a 130 kW rack lands on a band of its own instead of the open end of the air
# scale. The last step is open-ended.
DENSITY_STEPS_KW = (5.0, 10.0, 20.0, 30.0, 45.0, 60.0, 90.0, 120.0, 150.0)
DENSITY_COLOURS = {
    "light": (
        "#f2f0f7",
        "#dadaeb",
        "#bcbddc",
        "#9e9ac8",
        "#807dba",
        "#6a51a3",
        "#4a1486",
        "#f59a4b",
        "#d9590f",
        "#a63603",
    ),
    "dark": (
        "#2b2540",
        "#3b3160",
        "#4d3f80",
        "#6650a0",
        "#8064b8",
        "#9b7fd0",
        "#c2a8ff",
        "#8a4a1f",
        "#c0661f",
        "#ff9f4a",
    ),
}
DENSITY_TEXT = {
    "light": (
        "#1a1a1a",
        "#1a1a1a",
        "#1a1a1a",
        "#1a1a1a",
        "#ffffff",
        "#ffffff",
        "#ffffff",
        "#1a1a1a",
        "#ffffff",
        "#ffffff",
    ),
    "dark": (
        "#f0f0f0",
        "#f0f0f0",
        "#f0f0f0",
        "#ffffff",
        "#ffffff",
        "#101010",
        "#101010",
        "#ffffff",
        "#101010",
        "#101010",
    ),
}
# Where the floor plan's legend starts the rack-scale part of the scale (the orange ramp).
DENSITY_RACK_SCALE_STEP = 7

# The parts of a rack-scale system (GB200/GB300 NVL72: DGX GB200 user guide, Hardware),
# drawn apart from the device kinds they share (a compute tray is a GPU node, a switch
# tray and a power shelf are "other"): a colour per theme, and a mark on the body.
PART_LABELS = {
    "nvl-compute": "compute tray",
    "nvl-switch": "NVLink switch tray",
    "power-shelf": "power shelf",
    "busbar": "DC busbar (rear)",
    "cartridge": "NVLink cable cartridges (rear)",
    "supply": "liquid manifold, supply",
    "return": "liquid manifold, return",
}
PARTS: dict[str, dict[str, Swatch]] = {
    "light": {
        "nvl-compute": Swatch("#3f8f52", "#ffffff"),
        "nvl-switch": Swatch("#2f4f8f", "#ffffff"),
        "power-shelf": Swatch("#f2c94c", "#2b2000"),
        "busbar": Swatch("#b87333", "#1a0d00"),
        "cartridge": Swatch("#5a5a5a", "#ffffff"),
        "supply": Swatch("#2a7fd4", "#ffffff"),
        "return": Swatch("#d4472a", "#ffffff"),
    },
    "dark": {
        "nvl-compute": Swatch("#2f6e3e", "#eaf7ec"),
        "nvl-switch": Swatch("#27457f", "#eef3fb"),
        "power-shelf": Swatch("#b8912a", "#1a1200"),
        "busbar": Swatch("#c98a4b", "#1a0d00"),
        "cartridge": Swatch("#6e6e6e", "#ffffff"),
        "supply": Swatch("#4f9be8", "#0a1a2a"),
        "return": Swatch("#e8664f", "#1a0a05"),
    },
}

# A rack-scale part's mark on its body, and how many (the elevations draw that many small
# shapes at the body's right; the designer writes the symbol as many times): a compute
# tray's four, a switch tray's two squares, a power shelf's six bars.
PART_MARKS = {"nvl-compute": ("▪", 4), "nvl-switch": ("■", 2), "power-shelf": ("▮", 6)}


def drawn_kind(dtype: DeviceType | None) -> str:
    """What a device is drawn as: its kind, or the rack-scale part it is (a compute tray
    is a GPU node, a switch tray and a power shelf "other", yet each looks its own)."""
    if dtype is None:
        return "other"
    role = dtype.nvl_tray_role
    if role is not None:
        return "nvl-compute" if role == "compute" else "nvl-switch"
    if dtype.is_power_shelf:
        return "power-shelf"
    if dtype.is_busbar:
        return "busbar"
    return dtype.kind or "other"


@functools.lru_cache(maxsize=256)
def rgb(colour: str) -> tuple[float, float, float]:
    """``#rrggbb`` or ``#rgb`` as cairo's red, green and blue, each 0 to 1 (an alpha,
    ``#rrggbbaa`` or ``#rgba``, is left to the caller's opacity)."""
    digits = colour.removeprefix("#")
    if len(digits) in (3, 4):
        digits = "".join(c * 2 for c in digits)
    if len(digits) not in (6, 8):
        raise ValueError(f"not a colour: {colour!r}")
    red, green, blue = (int(digits[i : i + 2], 16) / 255 for i in (0, 2, 4))
    return red, green, blue


# (v1.4) A cable pathway's fill on the floor plan: its cables' cross-section at its busiest
# point against its width x depth (CAB006). Upper bounds of the bands: a sequential blue
# ramp up to the 40 % design fill (TIA-569's, as cabling makers quote it), then the band
# past it (a warning: no room to grow) and the one past the 50 % limit (an error), in the
# severity colours; a pathway past its limit also carries the severity's symbol, so the
# bands are never told by colour alone.
FILL_STEPS = (0.1, 0.2, 0.3, 0.4, 0.5)
FILL_COLOURS = {
    "light": ("#c6dbef", "#9ecae1", "#6baed6", "#2171b5", "#e08a1e", "#c62828"),
    "dark": ("#1f3a5c", "#2f5f8f", "#4a86c5", "#8fc1f0", "#ffb347", "#ff6b6b"),
}
# A pathway whose size is not declared (its fill cannot be judged).
FILL_UNSIZED = {"light": "#9a9a9a", "dark": "#6e6e6e"}


def fill_step(ratio: float) -> int:
    """The band of :data:`FILL_STEPS` a fill ratio falls in (0 .. len(FILL_STEPS))."""
    for index, limit in enumerate(FILL_STEPS):
        if ratio < limit:
            return index
    return len(FILL_STEPS)
