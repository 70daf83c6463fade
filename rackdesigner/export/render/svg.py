"""What every drawing shares: escaping, numbers, the themed style sheet, the document frame.

SVG is written as plain strings, not with svgwrite, by measurement (bench/render_bench.py
--svgwrite, the 100,000-GPU layout, 3,321 racks, one run on a shared 2-core machine): the
whole elevations sheet as strings took 4.1 s; svgwrite building only the racks' device
groups (a fraction of the sheet) took 10.2 s with validation off and 18.2 s with it on, and
holds every element as an object until it serialises. The price of plain strings is that
nothing checks the output as it is written, so the tests do: every drawing of every
bundled layout parses as XML, hostile labels stay text, golden files pin the bytes.

Everything here is deterministic: no dates, no ids from counters that depend on dict order,
numbers formatted one way.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from string import Template

from rackdesigner.export.render import palette
from rackdesigner.model.layout import DEVICE_KINDS

# XML 1.0 forbids most control characters even as references; a label with one (TOML
# allows "\u0001") would make the file unreadable, so it becomes U+FFFD.
_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_TEXT_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
_ATTR_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\n": "&#10;", "\t": "&#9;"}
)


def text(value: object) -> str:
    """A user string as XML character data (``]]>`` cannot survive: ``>`` is escaped)."""
    s = str(value)
    if _BAD_XML.search(s):
        s = _BAD_XML.sub("\ufffd", s)
    return s.translate(_TEXT_ESCAPES)


def attr(value: object) -> str:
    """A user string for a double-quoted attribute value."""
    s = str(value)
    if _BAD_XML.search(s):
        s = _BAD_XML.sub("\ufffd", s)
    return s.translate(_ATTR_ESCAPES)


def num(value: float) -> str:
    """A coordinate: an integer when it is one, else at most two decimals, no trailing 0."""
    r = round(value, 2)
    if r == int(r):
        return str(int(r))
    return f"{r:.2f}".rstrip("0").rstrip(".")


def clip(label: str, chars: int) -> str:
    """``label`` cut to ``chars`` characters with an ellipsis (the font is monospaced, so a
    character count is a width)."""
    if chars <= 0:
        return ""
    if len(label) <= chars:
        return label
    return label[: max(0, chars - 1)] + "…"


def named(device_id: str, label: str | None, chars: int) -> str:
    """A device as drawings name it: its id, which the cable schedule and the power-cord
    schedule print, then its label beside it (``a01-leaf2 · leaf, rails 5-8``), cut to
    ``chars``: the label gives way first, so the id a technician looks up stays whole."""
    if not label or label == device_id or len(device_id) + 4 > chars:
        return clip(device_id, chars)
    return clip(f"{device_id} · {label}", chars)


# Short CSS class per device kind: the class is written once per device drawn, so on a
# 25,000-device sheet a long name costs a quarter of a megabyte.
KIND_CLASS = {
    "gpu-node": "kg",
    "cpu-node": "kc",
    "storage": "ks",
    "switch": "kw",
    "pdu": "kp",
    "cdu": "kd",
    "rear-door": "kr",
    "patch-panel": "kt",
    "blank": "kb",
    "other": "ko",
    # Parts of a rack-scale system (palette.PARTS), drawn apart from their device kind.
    "nvl-compute": "kq",
    "nvl-switch": "kn",
    "power-shelf": "kh",
    "busbar": "ku",
    "cartridge": "kx",
    "supply": "ky",
    "return": "kz",
}
SEVERITY_CLASS = {"error": "e", "warning": "w", "info": "i"}
MEDIA_CLASS = {m: f"m{i}" for i, m in enumerate(palette.MEDIA)}


def kind_class(kind: str | None) -> str:
    return KIND_CLASS.get(kind or "other", "ko")


@cache
def stylesheet(theme: str) -> str:
    """The embedded CSS of ``theme``: the shared rules plus the kind, media and density
    colours as plain class rules."""
    if theme not in palette.THEMES:
        theme = "light"
    base = resources.files(__package__).joinpath("style.css").read_text(encoding="utf-8")
    surfaces = dict(palette.SURFACES[theme])
    surfaces.update(palette.SEVERITY_COLOURS[theme])
    base = re.sub(r"/\*.*?\*/\s*", "", base, flags=re.S)
    rules = [Template(base).substitute(surfaces)]
    for kind, swatch in palette.THEMES[theme].items():
        cls = KIND_CLASS[kind]
        rules.append(f".{cls}{{fill:{swatch.fill}}}.{cls} text,text.{cls}{{fill:{swatch.text}}}\n")
    for media, colour in palette.MEDIA_COLOURS[theme].items():
        dash = palette.MEDIA_DASHES[media]
        dash_rule = f";stroke-dasharray:{dash}" if dash else ""
        rules.append(f".{MEDIA_CLASS[media]}{{stroke:{colour}{dash_rule}}}\n")
    for i, (fill, ink) in enumerate(
        zip(palette.DENSITY_COLOURS[theme], palette.DENSITY_TEXT[theme], strict=True)
    ):
        rules.append(f".d{i}{{fill:{fill}}}.d{i} text,text.d{i}{{fill:{ink}}}\n")
    return "".join(rules)


@cache
def part_style(theme: str) -> str:
    """A ``<style>`` of the rack-scale parts' colours (palette.PARTS), for the definitions
    of a drawing that shows a rack-scale system: drawings without one stay as they were."""
    parts = palette.PARTS.get(theme, palette.PARTS["light"])
    rules = "".join(
        f".{KIND_CLASS[part]}{{fill:{swatch.fill}}}"
        f".{KIND_CLASS[part]} text,text.{KIND_CLASS[part]}{{fill:{swatch.text}}}"
        for part, swatch in parts.items()
    )
    muted = palette.SURFACES.get(theme, palette.SURFACES["light"])["muted"]
    # The domain's bracket, and the cables drawn on the cartridges.
    rules += f".dom{{fill:none;stroke:{muted};stroke-width:1}}"
    rules += ".cab{fill:none;stroke:#fff;stroke-opacity:.35;stroke-width:1}"
    return f"<style>{rules}</style>"


# Definitions every drawing may use: the hatch of blocked units and the severity marks.
# The marks are shapes, not font glyphs, so they look the same without any font: a cross in
# a disc for errors (✖), a triangle for warnings (▲), a dot for information (●).
COMMON_DEFS = (
    '<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
    'patternTransform="rotate(45)"><rect class="bkf" width="6" height="6"/>'
    '<line class="bkl" x1="0" y1="0" x2="0" y2="6"/></pattern>'
    '<symbol id="se" overflow="visible"><circle class="se" cx="5" cy="5" r="5"/>'
    '<path class="sx" d="M2.6 2.6L7.4 7.4M7.4 2.6L2.6 7.4"/></symbol>'
    '<symbol id="sw" overflow="visible"><path class="sw" d="M5 0L10.4 9.6H-.4Z"/>'
    '<path class="sx" d="M5 3.2V6.2M5 7.4V8"/></symbol>'
    '<symbol id="si" overflow="visible"><circle class="si" cx="5" cy="5" r="4"/></symbol>'
)


def document(
    width: float,
    height: float,
    body: str | list[str],
    *,
    theme: str,
    title: str,
    defs: str = "",
    size: tuple[str, str] | None = None,
) -> str:
    """A complete SVG document: viewBox, embedded style, definitions, background, body.

    ``size`` gives the printed width and height (``("297mm", "210mm")``); by default the
    document is as large as its viewBox in pixels.
    """
    w, h = num(width), num(height)
    sw, sh = size if size is not None else (w, h)
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{sw}" height="{sh}" '
        f'viewBox="0 0 {w} {h}">\n'
        f"<title>{text(title)}</title>\n"
        f"<style>{stylesheet(theme)}</style>\n"
        f"<defs>{COMMON_DEFS}{defs}</defs>\n"
        f'<rect class="bg" width="{w}" height="{h}"/>\n'
    ]
    if isinstance(body, str):
        parts.append(body)
    else:
        parts.extend(body)
    parts.append("</svg>\n")
    return "".join(parts)


def kw(watts: float | None) -> str:
    """Watts for people: kW with one decimal (``10.2 kW``), small draws in W (``20 W``)."""
    if watts is None:
        return "?"
    if 0 < abs(watts) < 950:
        return f"{watts:.0f} W"
    return f"{watts / 1000:.1f} kW"


def legend_kinds(kinds: set[str]) -> list[str]:
    """The kinds to show in a legend: those drawn, in the model's order, then the parts of
    rack-scale systems drawn (palette.PARTS)."""
    return [k for k in (*DEVICE_KINDS, *palette.PART_LABELS) if k in kinds]
