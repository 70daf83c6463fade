"""The cooling diagram as librsvg draws it (``rsvg-convert``: GNOME's viewers, MediaWiki
and many converters), in both themes: the page is the drawing's size, and each box's
outline is where the drawing puts it, in its level's colour (the SU's facility loop
fws-1 tight, amber; its CDU group ok, green; chilled loop chw-1 ok).

Skips without ``rsvg-convert`` (Debian ``librsvg2-bin``) unless
``RACKDESIGNER_REQUIRE_REAL=1``, where it fails instead.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.export.render import palette
from rackdesigner.export.render.cooling_diagram import (
    CHANNEL,
    GROUP_W,
    LOOP_W,
    MARGIN,
    TOP,
    WATER,
    cooling_diagram,
)
from rackdesigner.layout_io import load_path
from tests.conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.real]  # its own .ci/run step (.ci/slurm-test)


def _rsvg() -> str:
    found = shutil.which("rsvg-convert")
    if found is None:
        message = "rsvg-convert is not installed (Debian: apt-get install librsvg2-bin)"
        if os.environ.get("RACKDESIGNER_REQUIRE_REAL") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return found


def _near(pixel: tuple[int, ...], colour: str, tolerance: int = 40) -> bool:
    want = [round(c * 255) for c in palette.rgb(colour)]
    return all(abs(p - w) <= tolerance for p, w in zip(pixel[:3], want, strict=True))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_rsvg_draws_the_su_diagram_with_its_levels_coloured(theme: str) -> None:
    from PIL import Image

    rsvg = _rsvg()
    drawing = cooling_diagram(
        Analysis(load_path(ROOT / "layouts" / "gb200-nvl72-su.toml")), theme=theme
    )
    width, height = (int(v) for v in re.search(r'width="(\d+)" height="(\d+)"', drawing).groups())
    result = subprocess.run(
        [rsvg, "--format", "png"], input=drawing.encode(), capture_output=True, timeout=120
    )
    assert result.returncode == 0, result.stderr.decode()
    image = Image.open(io.BytesIO(result.stdout)).convert("RGB")
    assert image.size == (width, height)
    pixels = image.load()
    amber = palette.SEVERITY_COLOURS[theme]["warning"]
    green = WATER[theme]["ok"]
    y = TOP + 50  # below where the facility line enters the group's box
    assert _near(pixels[MARGIN, y], amber), pixels[MARGIN, y]  # fws-1's left edge
    x_group = MARGIN + LOOP_W + CHANNEL
    assert _near(pixels[x_group, y], green), pixels[x_group, y]
    assert _near(pixels[x_group + GROUP_W, y], green)
    # Inside the group's box: its fill, the frame's colour of the theme.
    inside = pixels[x_group + GROUP_W - 8, y]
    assert _near(inside, palette.SURFACES[theme]["frame_fill"], 12), inside
    # The page itself.
    assert _near(pixels[width - 3, height - 3], palette.SURFACES[theme]["bg"], 8)
