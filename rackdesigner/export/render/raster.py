"""SVG to PNG through cairosvg, scaled so that the long side stays within a limit."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rackdesigner.layout_io.saving import signals_deferred

if TYPE_CHECKING:
    from rackdesigner.export.render.elevation import Overview

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
    with signals_deferred():  # cairo writes through a cffi callback (see there)
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


def painted_png(document: str, theme: str, max_side: int) -> bytes:
    """One of our drawings (the floor plan) as a PNG painted with libcairo directly
    (paint.Painter, as the print pack paints it): a hall's plan has tens of thousands of
    elements, which cairosvg would take minutes over. Brought down to ``max_side``."""
    import cairocffi as cairo

    from rackdesigner.export.render.paint import Painter

    width, height = size(document)
    scale = scale_for(width, height, max_side)
    out_w = max(1, min(max_side, int(width * scale)))
    out_h = max(1, min(max_side, int(height * scale)))
    surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, out_w, out_h)
    ctx = cairo.Context(surface)
    ctx.scale(scale, scale)
    Painter(theme).paint(ctx, flatten(document, scale))
    out = io.BytesIO()
    with signals_deferred():  # cairo writes through a cffi callback (see there)
        surface.write_to_png(out)
    return out.getvalue()


# A band above an overview holds its title and legend at a size that reads at any scale.
OVERVIEW_BAND = 64


def overview_png(view: Overview, theme: str, max_side: int) -> bytes:
    """Draw a sheet's overview with libcairo directly (through cairocffi, the binding
    cairosvg uses): colours from the same palette, the same places as the sheet."""
    import cairocffi as cairo

    from rackdesigner.export.render import palette

    band = OVERVIEW_BAND
    scale = scale_for(view.width, view.height, max_side - band)
    width = max(1, min(max_side, int(view.width * scale)))
    height = max(1, min(max_side, int(view.height * scale) + band))
    surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, width, height)
    ctx = cairo.Context(surface)
    ctx.translate(0, band)
    ctx.scale(scale, scale)
    colours = _Colours(
        palette.SURFACES.get(theme, palette.SURFACES["light"]),
        palette.SEVERITY_COLOURS.get(theme, palette.SEVERITY_COLOURS["light"]),
        # Device kinds, then the parts of rack-scale systems (drawn as their own kinds).
        {
            **palette.THEMES.get(theme, palette.LIGHT),
            **palette.PARTS.get(theme, palette.PARTS["light"]),
        },
    )
    ctx.set_source_rgb(*palette.rgb(colours.surfaces["bg"]))
    ctx.paint()
    hatch = _hatch(cairo, colours.surfaces)
    _draw_boxes(ctx, view, colours, hatch)
    _draw_texts(ctx, cairo, view, colours, scale)
    _draw_band(ctx, cairo, view, colours, hatch)
    out = io.BytesIO()
    with signals_deferred():  # cairo writes through a cffi callback (see there)
        surface.write_to_png(out)
    return out.getvalue()


@dataclass(frozen=True, slots=True)
class _Colours:
    """A theme's colours for an overview: its surfaces, severities and kinds' swatches."""

    surfaces: dict[str, str]
    severity: dict[str, str]
    kinds: dict[str, Any]


def _hatch(cairo: Any, surfaces: dict[str, str]) -> Any:
    """The blocked units' pattern: a diagonal line on a 6 px tile, repeated."""
    from rackdesigner.export.render import palette

    hatch = cairo.ImageSurface(cairo.FORMAT_ARGB32, 6, 6)
    hctx = cairo.Context(hatch)
    hctx.set_source_rgb(*palette.rgb(surfaces["blocked"]))
    hctx.paint()
    hctx.set_source_rgb(*palette.rgb(surfaces["blocked_line"]))
    hctx.set_line_width(1.2)
    hctx.move_to(0, 6)
    hctx.line_to(6, 0)
    hctx.stroke()
    pattern = cairo.SurfacePattern(hatch)
    pattern.set_extend(cairo.EXTEND_REPEAT)
    # The default (good) filter resamples the scaled tile for every box: 20 ms a box.
    pattern.set_filter(cairo.FILTER_NEAREST)
    return pattern


def _draw_boxes(ctx: Any, view: Overview, colours: _Colours, hatch: Any) -> None:
    """The sheet's boxes, style by style (frames, slots, devices by kind, blocked units,
    doors, findings' outlines on top), each filled and outlined in its style."""
    from rackdesigner.export.render import palette

    surfaces, severity = colours.surfaces, colours.severity
    # style -> (fill, stroke, width, dashes)
    styles: dict[str, tuple[object, str | None, float, tuple[float, ...]]] = {
        "fr": (surfaces["frame_fill"], surfaces["frame"], 1.5, ()),
        "sl": (surfaces["slot"], surfaces["slot_line"], 0.5, ()),
        "bk": (hatch, surfaces["blocked_line"], 0.6, ()),
        "door": (None, surfaces["door"], 3.0, ()),
        "fe": (None, severity["error"], 2.4, ()),
        "fw": (None, severity["warning"], 2.4, (5.0, 2.0)),
        "fi": (None, severity["info"], 2.4, (1.5, 2.0)),
    }
    for kind, swatch in colours.kinds.items():
        styles[kind] = (swatch.fill, surfaces["body_line"], 0.6, ())
    order = ["fr", "sl", *colours.kinds, "bk", "door", "fi", "fw", "fe"]
    for style in order:
        rects = view.boxes.get(style)
        if not rects:
            continue
        fill, stroke, line, dashes = styles[style]
        if fill is not None:
            if isinstance(fill, str):
                ctx.set_source_rgb(*palette.rgb(fill))
            else:
                ctx.set_source(fill)
            # One fill per box: cairo fills a lone rectangle fast, but a path of thousands
            # of boxes goes through its general scan converter (minutes for a hall).
            for x, y, w, h in rects:
                ctx.rectangle(x, y, w, h)
                ctx.fill()
        if stroke:
            for x, y, w, h in rects:
                ctx.rectangle(x, y, w, h)
            ctx.set_source_rgb(*palette.rgb(stroke))
            ctx.set_line_width(line)
            ctx.set_dash(list(dashes))
            ctx.stroke()
            ctx.set_dash([])


def _draw_texts(ctx: Any, cairo: Any, view: Overview, colours: _Colours, scale: float) -> None:
    """The sheet's texts, style by style: headings, figures, labels in their kind's text
    colour, labels of blocked units muted, U numbers."""
    from rackdesigner.export.render import palette

    surfaces = colours.surfaces
    # style -> (size, bold, colour)
    fonts: dict[str, tuple[float, bool, str]] = {
        "h2": (15.0, True, surfaces["fg"]),
        "h3": (13.0, True, surfaces["fg"]),
        "t": (10.0, False, surfaces["fg"]),
        "tm": (10.0, False, surfaces["muted"]),
        "u": (8.0, False, surfaces["muted"]),
    }
    for kind, swatch in colours.kinds.items():
        fonts[f"t:{kind}"] = (10.0, False, swatch.text)
    current = None
    for style, x, y, content in sorted(view.texts, key=lambda t: t[0]):
        if style != current:
            size, bold, colour = fonts[style]
            if style in ("h2", "h3"):
                size = max(size, 8 / scale)  # row names and rack ids: 8 px at least
            weight = cairo.FONT_WEIGHT_BOLD if bold else cairo.FONT_WEIGHT_NORMAL
            ctx.select_font_face("DejaVu Sans Mono", cairo.FONT_SLANT_NORMAL, weight)
            ctx.set_font_size(size)
            ctx.set_source_rgb(*palette.rgb(colour))
            current = style
        ctx.move_to(x, y)
        ctx.show_text(content)


def _draw_band(ctx: Any, cairo: Any, view: Overview, colours: _Colours, hatch: Any) -> None:
    """The band above the sheet, in pixels: title, totals and the legend (the kinds
    drawn, blocked units, the findings' outlines)."""
    from rackdesigner.export.render import palette

    surfaces, severity, kinds = colours.surfaces, colours.severity, colours.kinds
    ctx.select_font_face("DejaVu Sans Mono", cairo.FONT_SLANT_NORMAL, cairo.FONT_WEIGHT_BOLD)
    ctx.set_source_rgb(*palette.rgb(surfaces["fg"]))
    ctx.identity_matrix()
    ctx.set_source_rgb(*palette.rgb(surfaces["fg"]))
    ctx.set_font_size(18)
    ctx.move_to(12, 22)
    ctx.show_text(view.title)
    ctx.select_font_face("DejaVu Sans Mono", cairo.FONT_SLANT_NORMAL, cairo.FONT_WEIGHT_NORMAL)
    ctx.set_font_size(11)
    ctx.move_to(12, 38)
    ctx.show_text(view.subtitle)
    x = 12.0
    labels = {**palette.PART_LABELS, **palette.KIND_LABELS}
    # (fill, label, outline colour or cairo pattern)
    items: list[tuple[str | None, str, object]]
    items = [(kinds[k].fill, labels.get(k, k), None) for k in view.kinds]
    items.append((None, "blocked (full depth, other face)", hatch))
    items.extend((None, f"{name} outline", severity[name]) for name in ("error", "warning", "info"))
    for fill, label, extra in items:
        ctx.rectangle(x, 46, 18, 10)
        if fill is not None:
            ctx.set_source_rgb(*palette.rgb(fill))
            ctx.fill()
        elif isinstance(extra, str):
            ctx.set_source_rgb(*palette.rgb(extra))
            ctx.set_line_width(2)
            ctx.stroke()
        else:
            ctx.set_source(extra)
            ctx.fill()
        ctx.set_source_rgb(*palette.rgb(surfaces["fg"]))
        ctx.move_to(x + 24, 55)
        ctx.show_text(label)
        x += 24 + len(label) * 6.7 + 30
