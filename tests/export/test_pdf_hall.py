"""The print pack drawn on one libcairo surface (table pages directly) says what the old
path said: every page converted alone by cairosvg from its SVG, the pages joined by pypdf.
Same page count, the same sizes and, page by page, the same text."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from rackdesigner.check.engine import check
from rackdesigner.export.render import pdf
from rackdesigner.export.render.raster import flatten
from rackdesigner.layout_io import load_path
from tests.conftest import ROOT

# Whole-hall print packs (seconds each): with the end-to-end tests, in their own .ci/run step.
pytestmark = pytest.mark.slow

SMALL = ROOT / "tests" / "data" / "render" / "small.toml"
TRAINING = ROOT / "layouts" / "training-128.toml"


def _old_path(documents: list[str]) -> bytes:
    """How the pack was made before: one cairosvg PDF per page, joined by pypdf."""
    import cairosvg
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for document in documents:
        single = cairosvg.svg2pdf(bytestring=flatten(document).encode("utf-8"))
        writer.add_page(PdfReader(io.BytesIO(single)).pages[0])
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _words(text: str) -> list[str]:
    return re.sub(r"\s+", " ", text).strip().split(" ")


@pytest.mark.parametrize(
    ("path", "options"),
    [
        (SMALL, {"paper": "a4", "theme": "light"}),
        (SMALL, {"paper": "letter", "theme": "dark", "date": "2026-12-01"}),
        (TRAINING, {"paper": "a4", "theme": "light"}),
    ],
)
def test_the_pack_says_what_the_old_path_said(path: Path, options: dict) -> None:
    from pypdf import PdfReader

    analysis, diagnostics = check(load_path(path), file=str(path))
    new = PdfReader(io.BytesIO(pdf.pdf(analysis, diagnostics, **options)))
    old = PdfReader(io.BytesIO(_old_path(pdf.pages(analysis, diagnostics, **options))))
    assert len(new.pages) == len(old.pages) > 3
    tables = 0
    for number, (mine, theirs) in enumerate(zip(new.pages, old.pages, strict=True), 1):
        assert mine.mediabox == theirs.mediabox, number
        text = mine.extract_text()
        assert _words(text) == _words(theirs.extract_text()), number
        tables += "Devices by rack" in text or "Cable schedule" in text
    assert tables >= 2
    info = new.metadata
    assert info is not None and info["/Title"].endswith(": print pack")
    assert ("/CreationDate" in info) == ("date" in options)


def test_table_pages_carry_their_lines_and_the_same_svg() -> None:
    """The SVG of a table page (the golden files) and the lines cairo draws are one list."""
    analysis, diagnostics = check(load_path(SMALL), file=str(SMALL))
    sheets = pdf._sheets(analysis, diagnostics, paper="a4", theme="light", date=None)
    tables = [s for s in sheets if s.page.lines is not None]
    assert tables and all(not s.page.landscape for s in tables)
    for sheet in tables:
        assert sheet.page.lines is not None
        drawn = [pdf._line(*line) for line in sheet.page.lines]
        assert sheet.page.body[1:-1] == drawn
