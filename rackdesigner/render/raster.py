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

    data = document.encode("utf-8")
    width, height = size(data)
    scale = scale_for(width, height, max_side)
    # Whole pixels that never exceed the limit (cairosvg rounds the scaled size).
    out_w = max(1, min(max_side, int(width * scale)))
    out_h = max(1, min(max_side, int(height * scale)))
    return cairosvg.svg2png(bytestring=data, output_width=out_w, output_height=out_h)
