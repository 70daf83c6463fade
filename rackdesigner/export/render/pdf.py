"""The print pack: elevations, floor plan, topology, device tables, power cords, cables,
findings; the sections are listed in :mod:`rackdesigner.export.pack` (``--pages``).

Each page is an SVG document of the paper's size (user units are points) for
:func:`pages`; the PDF draws them all onto one libcairo surface, table pages directly from
their lines, elevation and floor plan pages by painting their SVG with cairo directly
(paint.py; see :class:`_CairoPack`); pypdf carries the pages over.
Nothing here writes PDF syntax. Elevations go two or three racks to a landscape page,
front and rear together, at a scale that keeps 10 px labels at 7 pt or more; a floor plan
too large for one page is tiled over several at a legible scale; tables are portrait.

Deterministic: cairo stamps its PDF with its creation time, but only the pages
are carried over; the joined document's information holds the title and, with ``--date``,
that date, and no file identifier is written.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rackdesigner.analysis import Analysis
from rackdesigner.export.render import svg
from rackdesigner.export.render.elevation import ElevationWriter, _ordered_rows, _Symbols, plan_rack
from rackdesigner.export.render.floorplan import floorplan_parts
from rackdesigner.export.render.schedule import cable_rows, device_rows
from rackdesigner.export.render.svg import clip, kw, num, text
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.progress import each, report

if TYPE_CHECKING:
    from rackdesigner.export.pack import PackSection

MM = 72 / 25.4  # points per millimetre
PAPERS = {  # portrait width, height in points; the size attributes as printed
    "a4": (210 * MM, 297 * MM, "210mm", "297mm"),
    "letter": (612.0, 792.0, "8.5in", "11in"),
}
MARGIN = 28.0
HEAD = 22.0  # the running head above a page's content
FOOT = 14.0
MIN_SCALE = 0.7  # elevations: 10 px labels print at 7 pt or more
ROW_H = 10.5  # table rows
CHAR = 4.82  # an 8 pt monospaced character
HEADING_PT = 10  # a table's group headings (style.css .th)


@dataclass(slots=True)
class Page:
    landscape: bool
    section: str
    body: list[str]
    defs: str = ""
    # A table page also as its lines, each the arguments of :func:`_line` (its y, content,
    # style, shade, width), so the PDF draws it with libcairo directly (see _CairoPack).
    lines: list[tuple[float, str | list[tuple[float, str]], str, bool, float]] | None = None
    # An elevation or floor plan page: the PDF paints its SVG with libcairo directly
    # (paint.Painter).
    painted: bool = False
    # A table page's outlined boxes (x, y, width, height, in the lines' frame): the labels'
    # cut lines.
    boxes: list[tuple[float, float, float, float]] | None = None


class Paper:
    def __init__(self, paper: str):
        w, h, sw, sh = PAPERS.get(paper, PAPERS["a4"])
        self.portrait = (w, h, sw, sh)
        self.landscape = (h, w, sh, sw)

    def size(self, landscape: bool) -> tuple[float, float, str, str]:
        return self.landscape if landscape else self.portrait

    def content(self, landscape: bool) -> tuple[float, float]:
        w, h, _, _ = self.size(landscape)
        return w - 2 * MARGIN, h - 2 * MARGIN - HEAD - FOOT


@dataclass(slots=True)
class PackInput:
    """What a section of the pack lays out its pages from (export/pack.py)."""

    analysis: Analysis
    diagnostics: list[Diagnostic]
    paper: Paper
    theme: str
    date: str | None


def elevation_pages(pack: PackInput) -> Iterator[Page]:
    analysis, paper = pack.analysis, pack.paper
    writer = ElevationWriter(analysis, pack.diagnostics, theme=pack.theme)
    g = writer.g
    cw, ch = paper.content(True)
    racks = [facts for row in _ordered_rows(analysis) for facts in row]
    if not racks:
        return
    # The tallest a page's line of racks can be: all standing on the tallest one's floor.
    _, tallest = writer.stand([plan_rack(f) for f in racks])
    columns = 2
    for n in (3, 2):
        if min(cw / (n * g.pitch - g.rack_gap), ch / tallest) >= MIN_SCALE:
            columns = n
            break
    scale = min(cw / (columns * g.pitch - g.rack_gap), ch / tallest, 1.0)
    for start in range(0, len(racks), columns):
        writer.symbols = _Symbols(g)  # each page is a document of its own
        body: list[str] = [
            f'<g transform="translate({num(MARGIN)},{num(MARGIN + HEAD)}) scale({scale:.4f})">'
        ]
        chunk = racks[start : start + columns]
        plans = [plan_rack(f) for f in chunk]
        drops, _ = writer.stand(plans)
        for i, (plan, drop) in enumerate(zip(plans, drops, strict=True)):
            writer.rack(body, plan, i * g.pitch, drop)
        body.append("</g>")
        ids = ", ".join(f.rack.id for f in chunk)
        yield Page(True, f"Rack elevations: {ids}", body, writer.defs(), painted=True)


def floorplan_pages(pack: PackInput) -> Iterator[Page]:
    width, height, parts = floorplan_parts(
        pack.analysis, pack.diagnostics, date=pack.date, theme=pack.theme
    )
    cw, ch = pack.paper.content(True)
    scale = min(1.0, cw / width, ch / height)
    if scale < 0.45:
        scale = min(1.0, cw / width)  # wide enough to read; tiled down the hall
    yield from drawing_pages("Floor plan", parts, height, scale, cw, ch)


def drawing_pages(
    section: str,
    parts: list[str],
    height: float,
    scale: float,
    cw: float,
    ch: float,
    width: float | None = None,
    defs: str = "",
) -> Iterator[Page]:
    """A drawing on landscape pages at ``scale``: tiled down it (and across it, given
    its ``width``) where it does not fit one page, each tile a clipped viewport (``defs``:
    the drawing's own definitions, on every page)."""
    tile_w, tile_h = cw / scale, ch / scale
    # A drawing scaled to fit a page exactly is one page, not two (float dust).
    across = 1 if width is None else max(1, math.ceil(width / tile_w - 1e-6))
    down = max(1, math.ceil(height / tile_h - 1e-6))
    total = across * down
    for k in range(down):
        for j in range(across):
            body = [
                f'<svg x="{num(MARGIN)}" y="{num(MARGIN + HEAD)}" width="{num(cw)}" '
                f'height="{num(ch)}" viewBox="{num(j * tile_w)} {num(k * tile_h)} '
                f'{num(tile_w)} {num(tile_h)}">',
                *parts,
                "</svg>",
            ]
            number = k * across + j + 1
            title = section + (f" ({number} of {total})" if total > 1 else "")
            yield Page(True, title, body, defs, painted=True)


def table_pages(
    title: str,
    columns: list[tuple[str, int]],
    groups: Iterable[tuple[str, list[tuple[str, ...]]]],
    paper: Paper,
) -> Iterator[Page]:
    """Rows under a column header, in groups with a heading each, flowing over portrait
    pages; a group that continues on a new page repeats its heading's first line. A heading
    may be several lines (``\n`` between them), each cut to the page's width."""
    cw, ch = paper.content(False)
    heading_chars = int(cw / (CHAR * HEADING_PT / 8))
    x0, y0 = MARGIN, MARGIN + HEAD
    lines_per_page = int(ch // ROW_H) - 1
    header = _row([c for c, _ in columns], columns)
    body: list[str] = []
    lines: list[tuple[float, str | list[tuple[float, str]], str, bool, float]] = []
    used = 0.0

    def add(
        n: float,
        content: str | list[tuple[float, str]],
        style: str,
        shade: bool = False,
        width: float = 0,
    ) -> None:
        body.append(_line(n, content, style, shade, width))
        lines.append((n, content, style, shade, width))

    def start() -> None:
        nonlocal body, lines, used
        body = [f'<g transform="translate({num(x0)},{num(y0)})">']
        lines = []
        add(0, header, "b")
        used = 1

    def finish() -> Page:
        body.append("</g>")
        return Page(False, title, body, lines=lines)

    start()
    for heading, rows in groups:
        heads = [clip(line, heading_chars) for line in heading.split("\n")]
        pending: list[tuple[str | list[tuple[float, str]], str]] = [(h, "h3") for h in heads]
        pending.extend((_row(r, columns), "") for r in rows)
        for i, (content, style) in enumerate(pending):
            # a heading keeps its lines together, with a row under them
            room = 1 + len(heads) - i if style == "h3" else 0
            if used >= lines_per_page - room:
                yield finish()
                start()
                if style != "h3":
                    add(used, clip(heads[0] + " (continued)", heading_chars), "h3")
                    used += 1
            if style == "h3":
                if i == 0:
                    used += 0.6  # air above a heading
                add(used, content, "h3")
            else:
                add(used, content, "", i % 2 == 0, cw)
            used += 1
    yield finish()


def _row(cells: Iterable[str], columns: list[tuple[str, int]]) -> list[tuple[float, str]]:
    """Cells at their column's x, each cut to its column's width."""
    out = []
    x = 0.0
    for value, (_, width) in zip(cells, columns, strict=True):
        if value:
            out.append((x, clip(str(value), width - 1)))
        x += width * CHAR
    return out


def _line(
    n: float,
    content: str | list[tuple[float, str]],
    style: str,
    shade: bool = False,
    width: float = 0,
) -> str:
    y = num(n * ROW_H)
    back = (
        f'<rect class="rl" x="-2" y="{num(n * ROW_H - 8)}" width="{num(width + 4)}" '
        f'height="{num(ROW_H)}" fill-opacity=".5"/>'
        if shade
        else ""
    )
    if isinstance(content, str):
        return f'<text class="th" x="0" y="{y}">{text(content)}</text>'
    weight = ' font-weight="bold"' if style == "b" else ""
    cells = "".join(f'<text x="{num(x)}" y="{y}">{text(value)}</text>' for x, value in content)
    return f'{back}<g class="sm"{weight}>{cells}</g>'


def _device_groups(analysis: Analysis) -> Iterator[tuple[str, list[tuple[str, ...]]]]:
    for row in _ordered_rows(analysis):
        for facts in row:
            rack = facts.rack
            capacity = f" of {kw(facts.capacity)}" if facts.capacity else ""
            heading = (
                f"Rack {rack.id} · row {rack.row or '–'} slot {rack.slot or '–'} · "
                f"{rack.height_u:.0f} U · load {kw(facts.load)}{capacity} · {facts.gpus} GPUs"
            )
            yield heading, device_rows(facts)


def _cable_groups(analysis: Analysis) -> Iterator[tuple[str, list[tuple[str, ...]]]]:
    rows = cable_rows(analysis)
    yield (
        f"{len(rows)} cables · length = declared, or the computed route plus slack",
        [
            (
                r.cable_id,
                r.a_rack,
                r.a_u,
                r.b_end,
                r.b_rack,
                r.b_u,
                r.media,
                r.length_m,
                r.stock_m,
            )
            for r in rows
        ],
    )


def device_pages(pack: PackInput) -> Iterator[Page]:
    yield from table_pages(
        "Devices by rack", DEVICE_COLUMNS, _device_groups(pack.analysis), pack.paper
    )


def cable_pages(pack: PackInput) -> Iterator[Page]:
    yield from table_pages(
        "Cable schedule", CABLE_COLUMNS, _cable_groups(pack.analysis), pack.paper
    )


DEVICE_COLUMNS = [
    ("U", 10),
    ("device", 22),
    ("model", 20),
    ("kind", 12),
    ("power", 10),
    ("GPUs", 5),
    ("label", 32),
]
CABLE_COLUMNS = [
    ("cable (a end)", 24),
    ("a rack", 8),
    ("a U", 9),
    ("b end", 24),
    ("b rack", 8),
    ("b U", 9),
    ("media", 11),
    ("m", 7),
    ("stock", 6),
]


@dataclass(slots=True)
class _Sheet:
    """A page with its running head and paper, ready to draw as SVG or with cairo."""

    page: Page
    width: float
    height: float
    size: tuple[str, str]
    run: str  # the running head, left: the layout and the section
    right: str  # right: the page number, and the date
    chars: int  # the running head's room, in characters


def _sheets(
    analysis: Analysis,
    diagnostics: Iterable[Diagnostic],
    *,
    paper: str,
    theme: str,
    date: str | None,
    sections: Sequence[PackSection] | None = None,
) -> list[_Sheet]:
    from rackdesigner.export.pack import chosen

    sheet = Paper(paper)
    pack = PackInput(analysis, list(diagnostics), sheet, theme, date)
    found: list[Page] = []
    for section in chosen(None) if sections is None else sections:
        found.extend(section.load()(pack))
    name = analysis.layout.name
    total = len(found)
    sheets = []
    for number, page in enumerate(found, 1):
        w, h, sw, sh = sheet.size(page.landscape)
        right = f"page {number} of {total}" + (f" · {date}" if date else "")
        chars = int((w - 2 * MARGIN) / CHAR) - len(right) - 4
        sheets.append(_Sheet(page, w, h, (sw, sh), f"{name} · {page.section}", right, chars))
    return sheets


def _document(sheet: _Sheet, theme: str) -> str:
    """The page as an SVG document of the paper's size."""
    w = sheet.width
    head = (
        f'<text class="sm" x="{num(MARGIN)}" y="{num(MARGIN + 8)}">'
        f"{text(clip(sheet.run, sheet.chars))}</text>"
        f'<text class="sm r" x="{num(w - MARGIN)}" y="{num(MARGIN + 8)}">{text(sheet.right)}</text>'
        f'<path class="grid" d="M{num(MARGIN)} {num(MARGIN + 13)}H{num(w - MARGIN)}"/>\n'
    )
    return svg.document(
        w,
        sheet.height,
        [head, *sheet.page.body],
        theme=theme,
        title=sheet.run,
        defs=sheet.page.defs,
        size=sheet.size,
    )


def pages(
    analysis: Analysis,
    diagnostics: Iterable[Diagnostic],
    *,
    paper: str = "a4",
    theme: str = "light",
    date: str | None = None,
    sections: Sequence[PackSection] | None = None,
) -> list[str]:
    """Every page of the pack (of ``sections``, else all) as an SVG document, in order."""
    sheets = _sheets(analysis, diagnostics, paper=paper, theme=theme, date=date, sections=sections)
    return [_document(sheet, theme) for sheet in sheets]


class _CairoPack:
    """One multi-page PDF surface of libcairo (through cairocffi, the binding cairosvg
    uses), as the large-hall PNG overview is drawn (raster.overview_png).

    Table pages, most of a hall's pack (the cable schedule of 16,000 cables is 240 pages),
    are drawn here directly: text at the places the SVG page gives it, in the same font,
    sizes and colours. Elevation and floor plan pages are painted from the SVG their
    writers made (paint.Painter: their boxes and labels, no second layout, no cairosvg
    tree). No one-page PDF to write, parse and join per page.
    """

    def __init__(self, theme: str) -> None:
        import cairocffi as cairo

        from rackdesigner.export.render import palette

        self.cairo = cairo
        self.out = io.BytesIO()
        self.surface = cairo.PDFSurface(self.out, 1, 1)
        self.theme = theme
        surfaces = palette.SURFACES.get(theme, palette.SURFACES["light"])
        self.colours = {k: palette.rgb(v) for k, v in surfaces.items()}
        self._painter: Any = None

    def painted_page(self, sheet: _Sheet, document: str) -> None:
        """Paint an elevation page (its SVG, flattened) with libcairo directly: the boxes
        and labels the elevation writer wrote, without cairosvg's tree (paint.py)."""
        if self._painter is None:
            from rackdesigner.export.render.paint import Painter

            self._painter = Painter(self.theme)
        self.surface.set_size(sheet.width, sheet.height)
        self._painter.paint(self.cairo.Context(self.surface), document)
        self.surface.show_page()

    def table_page(self, sheet: _Sheet) -> None:
        """Draw a table page: background, running head, then its lines (see _line)."""
        cairo = self.cairo
        colours = self.colours
        self.surface.set_size(sheet.width, sheet.height)
        ctx = cairo.Context(self.surface)
        w = sheet.width
        ctx.set_source_rgb(*colours["bg"])
        ctx.paint()
        normal, bold = cairo.FONT_WEIGHT_NORMAL, cairo.FONT_WEIGHT_BOLD

        def font(size: float, weight: int) -> None:
            ctx.select_font_face("DejaVu Sans Mono", cairo.FONT_SLANT_NORMAL, weight)
            ctx.set_font_size(size)

        # The running head: layout and section left, page number right, a rule under them.
        font(8, normal)
        ctx.set_source_rgb(*colours["fg"])
        ctx.move_to(MARGIN, MARGIN + 8)
        ctx.show_text(clip(sheet.run, sheet.chars))
        ctx.move_to(w - MARGIN - ctx.text_extents(sheet.right)[4], MARGIN + 8)
        ctx.show_text(sheet.right)
        ctx.move_to(MARGIN, MARGIN + 13)
        ctx.line_to(w - MARGIN, MARGIN + 13)
        ctx.set_source_rgb(*colours["slot_line"])
        ctx.set_line_width(0.5)
        ctx.stroke()
        ctx.translate(MARGIN, MARGIN + HEAD)
        # Shading first (it lies under the text of its row), then the text by style.
        rail = colours["rail"]
        for n, _, _, shade, width in sheet.page.lines or ():
            if shade:
                ctx.rectangle(-2, n * ROW_H - 8, width + 4, ROW_H)
        ctx.set_source_rgba(*rail, 0.5)
        ctx.fill()
        if sheet.page.boxes:
            for x, y, bw, bh in sheet.page.boxes:
                ctx.rectangle(x, y, bw, bh)
            ctx.set_source_rgb(*colours["slot_line"])
            ctx.set_line_width(0.5)
            ctx.set_dash([2.0, 2.0])
            ctx.stroke()
            ctx.set_dash([])
        ctx.set_source_rgb(*colours["fg"])
        current: tuple[float, int] | None = None
        for n, content, style, _, _ in sheet.page.lines or ():
            y = n * ROW_H
            wanted = (
                (10.0, bold)
                if isinstance(content, str)
                else (8.0, bold if style == "b" else normal)
            )
            if wanted != current:
                font(*wanted)
                current = wanted
            if isinstance(content, str):
                ctx.move_to(0, y)
                ctx.show_text(content)
                continue
            for x, value in content:
                ctx.move_to(x, y)
                ctx.show_text(value)
        self.surface.show_page()

    def finish(self) -> bytes:
        self.surface.finish()
        return self.out.getvalue()


def pdf(
    analysis: Analysis,
    diagnostics: Iterable[Diagnostic],
    *,
    paper: str = "a4",
    theme: str = "light",
    date: str | None = None,
    sections: Sequence[PackSection] | None = None,
) -> bytes:
    """The print pack as one PDF. cairo draws every page onto one surface; pypdf then
    carries the pages over into a document whose information holds only the title and the
    date (cairo's own stamps its creation time)."""
    from pypdf import PdfReader, PdfWriter

    from rackdesigner.export.render.raster import flatten
    from rackdesigner.layout_io.saving import signals_deferred

    report("laying out the pages", 0, 0)
    sheets = _sheets(analysis, diagnostics, paper=paper, theme=theme, date=date, sections=sections)
    # cairo writes the pages through a cffi callback, which a signal's exception cannot
    # unwind: Ctrl-C and SIGTERM are raised between pages instead.
    with signals_deferred() as check:
        pack = _CairoPack(theme)
        for sheet in each(sheets, "printing pages"):
            if sheet.page.lines is not None:
                pack.table_page(sheet)
            else:
                pack.painted_page(sheet, flatten(_document(sheet, theme)))
            check()
        drawn = pack.finish()
    report("joining the pages", 0, 0)
    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(drawn)), import_outline=False)
    info = {"/Title": f"{analysis.layout.name}: print pack", "/Creator": "rackdesigner"}
    if date:
        info["/CreationDate"] = "D:" + date.replace("-", "")
    writer.add_metadata(info)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
