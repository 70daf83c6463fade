"""SVG to PNG through cairosvg, scaled so that the long side stays within a limit."""

from __future__ import annotations

import re

_SIZE = re.compile(rb'<svg[^>]*?\bwidth="([\d.]+)"[^>]*?\bheight="([\d.]+)"')


def size(document: str | bytes) -> tuple[float, float]:
    """The width and height in px an SVG of ours declares."""
    data = document.encode("utf-8") if isinstance(document, str) else document
    match = _SIZE.search(data[:4096])
    if match is None:
        raise ValueError("not an SVG with a width and height in px")
    return float(match[1]), float(match[2])


def scale_for(width: float, height: float, max_side: int) -> float:
    """At most 1: drawings are not enlarged, only brought down to ``max_side``."""
    long_side = max(width, height)
    return 1.0 if long_side <= max_side else max_side / long_side


def to_png(document: str, max_side: int) -> bytes:
    import cairosvg

    width, height = size(document)
    scale = scale_for(width, height, max_side)
    data = flatten(document, scale).encode("utf-8")
    # Whole pixels that never exceed the limit (cairosvg rounds the scaled size).
    out_w = max(1, min(max_side, int(width * scale)))
    out_h = max(1, min(max_side, int(height * scale)))
    return cairosvg.svg2png(bytestring=data, output_width=out_w, output_height=out_h)


# cairosvg builds a new tree for every <use> and matches the style sheet again inside it,
# about a millisecond each: a 3,000-rack sheet has some 60,000, and cairosvg refuses more
# than 100,000 references. Our own documents are regular (symbols are flat, written by
# svg.py and elevation.py), so before conversion each <use> is replaced by its symbol's
# content, tooltips are dropped (nothing shows them on paper) and, at a small scale, text
# that would come out below a readable size.
_SYMBOL = re.compile(r'<symbol id="([^"]+)" overflow="visible">(.*?)</symbol>\n?', re.S)
_USE = re.compile(r'<use href="#([^"]+)"(?: x="([-\d.]+)")?(?: y="([-\d.]+)")?/>')
_TITLE = re.compile(r"<title>.*?</title>", re.S)
_TEXT = re.compile(r'<text(?: class="([^"]*)")?[^>]*>.*?</text>', re.S)
_NUMBERS = re.compile(r'<g class="un">.*?</g>', re.S)
FONT_PX = {"sm": 8, "xs": 7, "th": 10, "h1": 22, "h2": 15, "h3": 13}
MIN_TEXT_PX = 4.0


def flatten(document: str, scale: float = 1.0) -> str:
    """``document`` with every ``<use>`` of a symbol inlined and no tooltips; text that
    would be drawn smaller than :data:`MIN_TEXT_PX` at ``scale`` is left out."""
    symbols: dict[str, str] = {}

    def keep(match: re.Match[str]) -> str:
        symbols[match[1]] = match[2]
        return ""

    document = _TITLE.sub("", document)
    if 8 * scale < MIN_TEXT_PX:
        document = _NUMBERS.sub("", document)
    if 22 * scale < MIN_TEXT_PX:
        document = _TEXT.sub("", document)
    elif 10 * scale < MIN_TEXT_PX:

        def small_text(match: re.Match[str]) -> str:
            classes = (match[1] or "").split()
            size = max((FONT_PX.get(c, 0) for c in classes), default=0) or 10
            return "" if size * scale < MIN_TEXT_PX else match[0]

        document = _TEXT.sub(small_text, document)
    document = _SYMBOL.sub(keep, document)

    def inline(match: re.Match[str]) -> str:
        content = symbols.get(match[1])
        if content is None:
            return match[0]  # not a symbol (none today): leave it to the converter
        x, y = match[2] or "0", match[3] or "0"
        if x == "0" and y == "0":
            return f"<g>{content}</g>"
        return f'<g transform="translate({x},{y})">{content}</g>'

    # Symbols may use others (an outline holds its severity mark): expand them first.
    for name, content in list(symbols.items()):
        symbols[name] = _USE.sub(inline, content)
    return _USE.sub(inline, document)
