"""Paint our own SVG with libcairo directly: the print pack's elevation pages.

The elevation writer (:mod:`.elevation`) is the one home of an elevation's geometry: the
boxes, marks and labels it writes as SVG are the drawing model, and this module paints
that model onto a cairo context without a general SVG renderer in between. cairosvg
builds a node tree, matches the style sheet for every node and draws each label as a
path (most of a page's time, bench/README.md "The print pack of a hall"); here the page's
elements are walked once, the style sheet's rules (svg.py's, plain ``.class``,
``tag``, ``tag.class`` and ``.class tag`` selectors, all our drawings use) are matched
by a small cascade, and text is drawn with cairo's ``show_text`` in the same font.

It reads only what our writers emit after :func:`.raster.flatten` (symbols inlined,
tooltips dropped): ``g`` (translate, scale, rotate), ``rect``, ``path`` (M, L, H, V, Z,
absolute or relative), ``circle``, ``line`` and ``text`` with ``tspan``. Anything else
is skipped, and a nested ``svg`` (a print page's tile of the floor plan) is a clipped
viewport.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree

from rackdesigner.export.render import palette

_SVG = "{http://www.w3.org/2000/svg}"
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_TRANSFORM = re.compile(r"(translate|scale|rotate)\(([^)]*)\)")
_PATH = re.compile(r"[MmLlHhVvZz]|-?(?:\d+\.?\d*|\.\d+)")
# Inherited presentation properties (all we style are inherited in SVG).
_DEFAULT = {
    "fill": "#000000",
    "stroke": "none",
    "stroke-width": "1",
    "stroke-dasharray": "",
    "fill-opacity": "1",
    "stroke-opacity": "1",
    "font-size": "10px",
    "font-weight": "normal",
    "text-anchor": "start",
}
_ATTRIBUTES = tuple(_DEFAULT)
_RUNS = re.compile(" {2,}")


@dataclass(frozen=True, slots=True)
class _Selector:
    """``compound`` or ``ancestor compound``; a compound is a tag, a class or both."""

    tag: str | None
    cls: str | None
    ancestor: tuple[str | None, str | None] | None
    specificity: tuple[int, int]


def _compound(text: str) -> tuple[str | None, str | None]:
    tag, _, cls = text.partition(".")
    return (tag or None, cls or None)


def _rules(css: str) -> list[tuple[_Selector, int, dict[str, str]]]:
    rules = []
    for order, (selectors, body) in enumerate(_RULE.findall(css)):
        declarations = {}
        for item in body.split(";"):
            name, _, value = item.partition(":")
            if name.strip():
                declarations[name.strip()] = value.strip()
        for selector in selectors.split(","):
            parts = selector.split()
            if not parts or len(parts) > 2:
                continue
            tag, cls = _compound(parts[-1])
            ancestor = _compound(parts[0]) if len(parts) == 2 else None
            compounds = [(tag, cls)] + ([ancestor] if ancestor else [])
            specificity = (
                sum(1 for _, c in compounds if c),
                sum(1 for t, _ in compounds if t),
            )
            rules.append((_Selector(tag, cls, ancestor, specificity), order, declarations))
    return rules


def _matches(compound: tuple[str | None, str | None], tag: str, classes: tuple[str, ...]) -> bool:
    want_tag, want_cls = compound
    return (want_tag is None or want_tag == tag) and (want_cls is None or want_cls in classes)


def _colour(value: str) -> tuple[float, float, float] | None:
    """A CSS colour as cairo's; None for what is not one written in hex (``none``)."""
    return palette.rgb(value) if value.startswith("#") else None


def _spaces(text: str) -> str:
    return _RUNS.sub(" ", text.replace("\n", "").replace("\t", " "))


def _number(value: str | None, default: float = 0.0) -> float:
    if not value:
        return default
    return float(value.removesuffix("px"))


class Painter:
    """Paints flattened SVG documents of ours onto cairo contexts, in ``theme``."""

    def __init__(self, theme: str) -> None:
        import cairocffi as cairo

        self.cairo = cairo
        self.theme = theme
        self._rules: list[tuple[_Selector, int, dict[str, str]]] = []
        self._css = ""
        self._known: dict[tuple[object, ...], dict[str, str]] = {}
        self._font_set: tuple[str, str] | None = None
        surfaces = palette.SURFACES.get(theme, palette.SURFACES["light"])
        # The hatch of blocked units as svg.COMMON_DEFS draws it: a 6 px tile, its line on
        # the tile's edge, turned 45 degrees (drawn at 4 x for a sharp tile).
        tile = cairo.ImageSurface(cairo.FORMAT_ARGB32, 24, 24)
        tctx = cairo.Context(tile)
        tctx.scale(4, 4)
        tctx.set_source_rgb(*(_colour(surfaces["blocked"]) or (1, 1, 1)))
        tctx.paint()
        tctx.set_source_rgb(*(_colour(surfaces["blocked_line"]) or (0, 0, 0)))
        tctx.set_line_width(1.2)
        tctx.move_to(0, 0)
        tctx.line_to(0, 6)
        tctx.stroke()
        self.hatch = cairo.SurfacePattern(tile)
        self.hatch.set_extend(cairo.EXTEND_REPEAT)
        matrix = cairo.Matrix()
        matrix.scale(4, 4)
        matrix.rotate(-math.pi / 4)
        self.hatch.set_matrix(matrix)

    def paint(self, ctx: Any, document: str) -> None:
        """Paint ``document`` (a whole SVG of ours, flattened) at the context's origin."""
        root = ElementTree.fromstring(document)
        css = "".join(el.text or "" for el in root.iter() if el.tag in (f"{_SVG}style", "style"))
        if css != self._css:  # pages of one pack share their style sheet
            self._css = css
            self._rules = _rules(css)
            self._known = {}
        self._font_set = None  # a new context has no font set
        style = dict(_DEFAULT)
        style.update(self._cascade("svg", (), [], style))
        self._children(ctx, root, style, [("svg", ())])

    # -- cascade -------------------------------------------------------------------------

    def _cascade(
        self,
        tag: str,
        classes: tuple[str, ...],
        ancestors: list[tuple[str, tuple[str, ...]]],
        inherited: dict[str, str],
    ) -> dict[str, str]:
        # A page repeats the same few element kinds in the same few places thousands of
        # times: the cascade's answer is kept per element, ancestry and inherited style
        # (matching every rule for every element was 70 % of a page's time).
        key = (tag, classes, tuple(ancestors), tuple(inherited.items()))
        known = self._known.get(key)
        if known is not None:
            return known
        found = []
        for selector, order, declarations in self._rules:
            if not _matches((selector.tag, selector.cls), tag, classes):
                continue
            if selector.ancestor is not None and not any(
                _matches(selector.ancestor, t, c) for t, c in ancestors
            ):
                continue
            found.append((selector.specificity, order, declarations))
        style = dict(inherited)
        for _, _, declarations in sorted(found, key=lambda item: (item[0], item[1])):
            style.update(declarations)
        self._known[key] = style
        return style

    def _style(
        self,
        el: ElementTree.Element,
        tag: str,
        ancestors: list[tuple[str, tuple[str, ...]]],
        inherited: dict[str, str],
    ) -> tuple[dict[str, str], tuple[str, ...]]:
        classes = tuple((el.get("class") or "").split())
        base = dict(inherited)
        for name in _ATTRIBUTES:  # presentation attributes: below every style rule
            value = el.get(name)
            if value is not None:
                base[name] = value
        return self._cascade(tag, classes, ancestors, base), classes

    # -- elements ------------------------------------------------------------------------

    def _children(
        self,
        ctx: Any,
        parent: ElementTree.Element,
        style: dict[str, str],
        ancestors: list[tuple[str, tuple[str, ...]]],
    ) -> None:
        for el in parent:
            tag = el.tag.removeprefix(_SVG)
            if tag in ("title", "style", "defs"):
                continue
            own, classes = self._style(el, tag, ancestors, style)
            transform = el.get("transform")
            if tag == "g":
                if transform:
                    ctx.save()
                    self._transform(ctx, transform)
                ancestors.append((tag, classes))
                self._children(ctx, el, own, ancestors)
                ancestors.pop()
                if transform:
                    ctx.restore()
                    self._font_set = None  # restore() brings back the font set before save()
            elif tag == "text":
                if transform:
                    ctx.save()
                    self._transform(ctx, transform)
                self._text(ctx, el, own, [*ancestors, (tag, classes)])
                if transform:
                    ctx.restore()
                    self._font_set = None  # restore() brings back the font set before save()
            elif tag in ("rect", "path", "circle", "line"):
                self._shape(ctx, el, tag, own)
            elif tag == "svg":  # a viewport: a print page's tile of the floor plan
                self._viewport(ctx, el, own, ancestors)

    def _viewport(
        self,
        ctx: Any,
        el: ElementTree.Element,
        style: dict[str, str],
        ancestors: list[tuple[str, tuple[str, ...]]],
    ) -> None:
        """A nested ``svg`` at x, y, width, height showing its viewBox, clipped to it."""
        x, y = _number(el.get("x")), _number(el.get("y"))
        w, h = _number(el.get("width")), _number(el.get("height"))
        box = [float(v) for v in (el.get("viewBox") or f"0 0 {w} {h}").split()]
        if w <= 0 or h <= 0 or box[2] <= 0 or box[3] <= 0:
            return
        ctx.save()
        ctx.rectangle(x, y, w, h)
        ctx.clip()
        ctx.translate(x, y)
        # preserveAspectRatio's default (xMidYMid meet): one scale, the box centred.
        scale = min(w / box[2], h / box[3])
        ctx.translate((w - box[2] * scale) / 2, (h - box[3] * scale) / 2)
        ctx.scale(scale, scale)
        ctx.translate(-box[0], -box[1])
        ancestors.append(("svg", ()))
        self._children(ctx, el, style, ancestors)
        ancestors.pop()
        ctx.restore()
        self._font_set = None  # restore() brings back the font set before save()

    def _transform(self, ctx: Any, transform: str) -> None:
        for name, args in _TRANSFORM.findall(transform):
            values = [float(v) for v in re.split(r"[\s,]+", args.strip()) if v]
            if name == "translate":
                ctx.translate(values[0], values[1] if len(values) > 1 else 0.0)
            elif name == "scale":
                ctx.scale(values[0], values[1] if len(values) > 1 else values[0])
            else:
                ctx.rotate(math.radians(values[0]))

    def _shape(self, ctx: Any, el: ElementTree.Element, tag: str, style: dict[str, str]) -> None:
        if tag == "rect":
            x, y = _number(el.get("x")), _number(el.get("y"))
            w, h = _number(el.get("width")), _number(el.get("height"))
            if w <= 0 or h <= 0:
                return
            r = min(_number(el.get("rx")), w / 2, h / 2)
            if r > 0:
                ctx.new_sub_path()
                ctx.arc(x + w - r, y + r, r, -math.pi / 2, 0)
                ctx.arc(x + w - r, y + h - r, r, 0, math.pi / 2)
                ctx.arc(x + r, y + h - r, r, math.pi / 2, math.pi)
                ctx.arc(x + r, y + r, r, math.pi, 3 * math.pi / 2)
                ctx.close_path()
            else:
                ctx.rectangle(x, y, w, h)
        elif tag == "circle":
            ctx.new_sub_path()
            ctx.arc(
                _number(el.get("cx")), _number(el.get("cy")), _number(el.get("r")), 0, 2 * math.pi
            )
        elif tag == "line":
            ctx.move_to(_number(el.get("x1")), _number(el.get("y1")))
            ctx.line_to(_number(el.get("x2")), _number(el.get("y2")))
        else:
            self._path(ctx, el.get("d") or "")
        self._fill_and_stroke(ctx, style, closed=tag != "line")

    def _path(self, ctx: Any, d: str) -> None:
        tokens = _PATH.findall(d)
        x = y = 0.0
        start = (0.0, 0.0)
        i = 0
        command = "M"
        while i < len(tokens):
            token = tokens[i]
            if token.isalpha():
                command = token
                i += 1
                if command in "Zz":
                    ctx.close_path()
                    x, y = start
                continue
            relative = command.islower()
            op = command.upper()
            if op in ("M", "L"):
                nx, ny = float(tokens[i]), float(tokens[i + 1])
                i += 2
                if relative:
                    nx, ny = x + nx, y + ny
                if op == "M":
                    ctx.move_to(nx, ny)
                    start = (nx, ny)
                    command = "l" if relative else "L"  # pairs after a move are lines
                else:
                    ctx.line_to(nx, ny)
                x, y = nx, ny
            elif op == "H":
                x = x + float(tokens[i]) if relative else float(tokens[i])
                i += 1
                ctx.line_to(x, y)
            elif op == "V":
                y = y + float(tokens[i]) if relative else float(tokens[i])
                i += 1
                ctx.line_to(x, y)
            else:
                i += 1  # a command we do not write: skip its number

    def _source(self, ctx: Any, value: str, opacity: float) -> bool:
        if value == "none":
            return False
        if value.startswith("url("):
            ctx.set_source(self.hatch)
            return True
        colour = _colour(value)
        if colour is None:
            return False
        ctx.set_source_rgba(*colour, opacity)
        return True

    def _fill_and_stroke(self, ctx: Any, style: dict[str, str], *, closed: bool) -> None:
        stroke = style["stroke"]
        if closed and self._source(ctx, style["fill"], float(style["fill-opacity"])):
            if stroke == "none":
                ctx.fill()
                return
            ctx.fill_preserve()
        if self._source(ctx, stroke, float(style["stroke-opacity"])):
            ctx.set_line_width(_number(style["stroke-width"], 1.0))
            dashes = [float(v) for v in re.split(r"[\s,]+", style["stroke-dasharray"]) if v]
            ctx.set_dash(dashes)
            ctx.stroke()
            ctx.set_dash([])
        else:
            ctx.new_path()

    def _font(self, ctx: Any, style: dict[str, str]) -> None:
        cairo = self.cairo
        weight = (
            cairo.FONT_WEIGHT_BOLD if style["font-weight"] == "bold" else cairo.FONT_WEIGHT_NORMAL
        )
        ctx.select_font_face("DejaVu Sans Mono", cairo.FONT_SLANT_NORMAL, weight)
        ctx.set_font_size(_number(style["font-size"], 10.0))

    def _show(self, ctx: Any, content: str, x: float, y: float, style: dict[str, str]) -> float:
        """Draw ``content`` at (x, y) as its anchor says; return where the next run starts."""
        if not content or not self._source(ctx, style["fill"], float(style["fill-opacity"])):
            return x
        font = (style["font-size"], style["font-weight"])
        if font != self._font_set:  # a face and size stay set on a page's context
            self._font(ctx, style)
            self._font_set = font
        anchor = style["text-anchor"]
        if anchor in ("end", "middle"):
            advance = ctx.text_extents(content)[4]
            x -= advance if anchor == "end" else advance / 2
        ctx.move_to(x, y)
        ctx.show_text(content)
        # Where the text ended: cairo moved the current point past it (no second measure).
        return ctx.get_current_point()[0]

    def _text(
        self,
        ctx: Any,
        el: ElementTree.Element,
        style: dict[str, str],
        ancestors: list[tuple[str, tuple[str, ...]]],
    ) -> None:
        x, y = _number(el.get("x")), _number(el.get("y"))
        # SVG's default white space: newlines gone, runs of spaces one, none leading.
        x = self._show(ctx, _spaces(el.text or "").lstrip(" "), x, y, style)
        for child in el:
            tag = child.tag.removeprefix(_SVG)
            if tag == "tspan":
                own, _ = self._style(child, tag, ancestors, style)
                if child.get("x") is not None:
                    x = _number(child.get("x"))
                y += _number(child.get("dy"))
                x = self._show(ctx, _spaces(child.text or ""), x, y, own)
            if child.tail:
                x = self._show(ctx, _spaces(child.tail), x, y, style)
