"""The elevation's U numbers where librsvg draws them: beside their units, as in cairosvg.

librsvg (``rsvg-convert``; GNOME's viewers, MediaWiki and many converters) ignores
per-character ``x``/``y`` lists in ``<text>``: a U scale written as one text per rail
piled every number at the top. Both renderers draw one rack here, and in every unit's
band of each rail the ink must be there, centred on the rail, where the other renderer
puts it.

Skips without ``rsvg-convert`` (Debian ``librsvg2-bin``) unless
``RACKDESIGNER_REQUIRE_REAL=1``, where it fails instead.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from collections import Counter

import pytest

from rackdesigner.check.engine import check
from rackdesigner.export.render.elevation import GEOMETRY as G
from rackdesigner.export.render.elevation import plan_rack, single
from rackdesigner.layout_io import load_path
from tests.conftest import ROOT

SMALL = ROOT / "tests" / "data" / "render" / "small.toml"
MARGIN = 16  # single(): the rack block's corner is at (16, 16 + 24)
TOP = MARGIN + 24 + G.header + G.caption  # the top of the highest unit

pytestmark = [pytest.mark.slow, pytest.mark.real]  # its own .ci/run step

Centre = tuple[float, float] | None


def _rsvg() -> str:
    found = shutil.which("rsvg-convert")
    if found is None:
        message = "rsvg-convert is not installed (Debian: apt-get install librsvg2-bin)"
        if os.environ.get("RACKDESIGNER_REQUIRE_REAL") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return found


def _drawing() -> tuple[str, int]:
    analysis, diagnostics = check(load_path(str(SMALL)), file="small.toml")
    rack = analysis.racks[0]
    drawing = single(analysis, rack, diagnostics)
    assert f'<g transform="translate({MARGIN},{MARGIN + 24})">' in drawing  # where TOP is from
    return drawing, plan_rack(rack).units


def _rails() -> list[int]:
    """The left x of the four rails: front left and right, rear left and right."""
    rear = G.face + G.face_gap
    return [MARGIN + fx + x for fx in (0, rear) for x in (G.zero, G.body_x + G.body)]


def _centres(png: bytes, units: int) -> list[list[Centre]]:
    """Per rail, per unit from the top: the centre of the ink in that unit's band."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("L")
    assert image.size[1] > TOP + units * G.unit
    pixels = image.load()
    found = []
    for rail in _rails():
        # Two px in from each side: a finding's outline may reach over a rail's edge.
        columns = range(rail + 2, rail + G.rail - 2)
        rows = range(TOP, TOP + units * G.unit)
        ground = Counter(pixels[x, y] for x in columns for y in rows).most_common(1)[0][0]
        centres: list[Centre] = []
        for band in range(units):
            top = TOP + band * G.unit
            ink = [
                (x, y)
                for x in columns
                for y in range(top + 1, top + G.unit - 1)
                if abs(pixels[x, y] - ground) > 60
            ]
            if len(ink) < 4:
                centres.append(None)
                continue
            centres.append(
                (sum(x for x, _ in ink) / len(ink) - rail, sum(y for _, y in ink) / len(ink) - top)
            )
        found.append(centres)
    return found


def test_u_numbers_sit_beside_their_units_in_rsvg_and_cairosvg(tmp_path) -> None:
    import cairosvg

    program = _rsvg()
    drawing, units = _drawing()
    source = tmp_path / "rack.svg"
    source.write_text(drawing, encoding="utf-8")
    rendered = subprocess.run(
        [program, "--format", "png", str(source)], capture_output=True, timeout=60, check=True
    ).stdout
    by_rsvg = _centres(rendered, units)
    by_cairo = _centres(cairosvg.svg2png(bytestring=drawing.encode("utf-8")), units)
    for rail, (rsvg_rail, cairo_rail) in enumerate(zip(by_rsvg, by_cairo, strict=True)):
        for band, (ours, theirs) in enumerate(zip(rsvg_rail, cairo_rail, strict=True)):
            where = f"rail {rail}, U{units - band}"
            assert ours is not None, f"{where}: no number drawn by rsvg-convert"
            assert theirs is not None, f"{where}: no number drawn by cairosvg"
            # Centred on the rail and in the middle of the unit's band...
            assert abs(ours[0] - G.rail / 2) < 2.5, (where, ours)
            assert abs(ours[1] - G.unit / 2) < 2.5, (where, ours)
            # ... where cairosvg draws it too.
            assert abs(ours[0] - theirs[0]) < 1.5 and abs(ours[1] - theirs[1]) < 1.5, (
                where,
                ours,
                theirs,
            )


def test_each_u_number_is_its_own_text() -> None:
    drawing, units = _drawing()
    scale = drawing[drawing.index('<g class="un">') :]
    scale = scale[: scale.index("</g>")]
    assert scale.count("<text ") == 2 * units
    assert all(len(tag.split('"')[1].split()) == 1 for tag in scale.split("<text x=")[1:])
