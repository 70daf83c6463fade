"""The print pack's elevation pages painted with libcairo directly look like the SVG."""

from __future__ import annotations

import io
import re

import cairocffi as cairo
import cairosvg
from PIL import Image, ImageChops, ImageStat

from rackdesigner.check.engine import check
from rackdesigner.export.render import pdf
from rackdesigner.export.render.paint import Painter
from rackdesigner.export.render.raster import flatten
from rackdesigner.layout_io import load_path
from tests.conftest import ROOT


def _both(document: str, paint: bool = True) -> tuple[Image.Image, Image.Image]:
    """The page through cairosvg and through the painter, at 2 px a point."""
    width, height = (
        float(v) for v in re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', document).groups()
    )  # type: ignore[union-attr]
    size = (int(width * 2), int(height * 2))
    reference = Image.open(
        io.BytesIO(
            cairosvg.svg2png(
                bytestring=document.encode(), output_width=size[0], output_height=size[1]
            )
        )
    ).convert("RGB")
    surface = cairo.ImageSurface(cairo.FORMAT_ARGB32, *size)
    ctx = cairo.Context(surface)
    ctx.set_source_rgb(1, 1, 1)
    ctx.paint()
    ctx.scale(2, 2)
    if paint:
        Painter("light").paint(ctx, document)
    out = io.BytesIO()
    surface.write_to_png(out)
    painted = Image.open(io.BytesIO(out.getvalue())).convert("RGB")
    return reference, painted


def _difference(a: Image.Image, b: Image.Image) -> float:
    """Mean absolute difference per channel, 0-255."""
    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3


def test_an_nvl72_elevation_page_painted_directly_matches_cairosvg() -> None:
    analysis, diagnostics = check(load_path(str(ROOT / "layouts" / "gb200-nvl72-su.toml")))
    page = flatten(pdf.pages(analysis, diagnostics)[1])  # a03 and a04
    reference, painted = _both(page)
    # Two renderers rasterise text and edges a little apart: on this page cairosvg and
    # rsvg-convert differ by 3.4, the painter and cairosvg by 4.1, a blank page and
    # cairosvg by 40. A missing part, a wrong colour or a misplaced label shows far above.
    assert _difference(reference, painted) < 6.0
    _, blank = _both(page, paint=False)
    assert _difference(reference, blank) > 30.0


def test_a_floor_plan_page_painted_directly_matches_cairosvg() -> None:
    # A print page holds the floor plan as a nested svg viewport (a tile of the hall).
    analysis, diagnostics = check(load_path(str(ROOT / "tests" / "data" / "render" / "small.toml")))
    pages = pdf.pages(analysis, diagnostics)
    page = flatten(next(p for p in pages if "Floor plan" in p.split("</title>")[0]))
    assert "<svg x=" in page
    reference, painted = _both(page)
    assert _difference(reference, painted) < 1.5  # 0.4 measured; a blank page is 3.3


def test_the_pdf_paints_every_drawing_page_and_draws_tables_from_their_lines() -> None:
    analysis, diagnostics = check(load_path(str(ROOT / "tests" / "data" / "render" / "small.toml")))
    sheets = pdf._sheets(analysis, diagnostics, paper="a4", theme="light", date=None)
    kinds = {
        (s.page.section.split(":")[0].split(" (")[0], s.page.painted, s.page.lines is None)
        for s in sheets
    }
    assert kinds == {
        ("Rack elevations", True, True),
        ("Floor plan", True, True),
        ("Topology", True, True),
        ("Devices by rack", False, False),
        ("Power cords", False, False),
        ("Cable schedule", False, False),
        ("Findings", False, False),
    }
