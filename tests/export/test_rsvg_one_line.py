"""The single-line diagram where librsvg draws it (``rsvg-convert``; GNOME's viewers,
MediaWiki and many converters): every element's box, its id and its bar are where cairosvg
puts them, in both themes.

Skips without ``rsvg-convert`` (Debian ``librsvg2-bin``) unless
``RACKDESIGNER_REQUIRE_REAL=1``, where it fails instead (.ci/slurm-test runs it so).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess

import pytest

from rackdesigner.check.engine import check
from rackdesigner.export.render import one_line
from rackdesigner.layout_io import load_path
from tests.conftest import ROOT

CHAIN = ROOT / "tests" / "data" / "render" / "chain.toml"

pytestmark = [pytest.mark.slow, pytest.mark.real]  # its own .ci/run step


def _rsvg() -> str:
    found = shutil.which("rsvg-convert")
    if found is None:
        message = "rsvg-convert is not installed (Debian: apt-get install librsvg2-bin)"
        if os.environ.get("RACKDESIGNER_REQUIRE_REAL") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return found


def _ink(image, box: tuple[int, int, int, int], ground: int) -> int:
    """Pixels in ``box`` (left, top, right, bottom) far from the ground grey."""
    pixels = image.load()
    left, top, right, bottom = box
    return sum(
        1 for x in range(left, right) for y in range(top, bottom) if abs(pixels[x, y] - ground) > 60
    )


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_box_is_drawn_by_rsvg_where_cairosvg_draws_it(tmp_path, theme: str) -> None:
    import cairosvg
    from PIL import Image

    program = _rsvg()
    analysis, diagnostics = check(load_path(CHAIN), file="chain.toml")
    drawing = one_line.one_line(analysis, diagnostics, theme=theme)
    source = tmp_path / "one-line.svg"
    source.write_text(drawing, encoding="utf-8")
    rendered = subprocess.run(
        [program, "--format", "png", str(source)], capture_output=True, timeout=60, check=True
    ).stdout
    by_rsvg = Image.open(io.BytesIO(rendered)).convert("L")
    by_cairo = Image.open(io.BytesIO(cairosvg.svg2png(bytestring=drawing.encode("utf-8")))).convert(
        "L"
    )
    assert by_rsvg.size == by_cairo.size
    laid = one_line.plan(analysis, analysis.power_chain)
    chain = analysis.power_chain
    assert len(laid.boxes) == 11  # 8 elements and 3 racks
    for box in laid.boxes:
        left = round(box.x - one_line.BOX_W / 2)
        top = round(laid.top(box.layer))
        name = box.leaf.label if box.leaf is not None else chain.elements[box.element].id
        # The id, bold at the box's top left; then, in an element, its bar.
        label = (left + 8, top + 3, left + 80, top + 16)
        regions = [label]
        use = chain.elements[box.element].utilisation if box.leaf is None else None
        if use:  # the bar's filled part
            right = left + 10 + int((one_line.BAR_W - 6) * min(use, 1.0))
            regions.append((left + 11, top + 30, right - 1, top + 35))
        for region in regions:
            ground_r = by_rsvg.getpixel((left + 150, top + 60))
            ground_c = by_cairo.getpixel((left + 150, top + 60))
            ours, theirs = _ink(by_rsvg, region, ground_r), _ink(by_cairo, region, ground_c)
            assert ours > 10, (name, region, "nothing drawn by rsvg-convert")
            # Within a third of what cairosvg inks there (fonts differ a little).
            assert abs(ours - theirs) <= max(theirs / 3, 20), (name, region, ours, theirs)
