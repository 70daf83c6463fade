"""Golden files of the drawings: the bytes are the contract.

Each drawing kind of tests/data/render/small.toml is compared byte for byte with its file
in tests/golden/render/. A change to a drawing is a deliberate act: look at the new
output (render it with cairosvg and open it), then regenerate the files with

    RACKDESIGNER_REGENERATE_GOLDEN=1 python -m pytest -q tests/export/test_render_golden.py

and commit them with the change that explains why they moved. The print pack is pinned
by the SVG of its pages (its PDF bytes depend on the machine's cairo and fonts); the PNG
by the pixel test in test_render.py.
"""

from __future__ import annotations

import os

import pytest

from rackdesigner.check.engine import check
from rackdesigner.export.pack import chosen
from rackdesigner.export.render import floorplan, one_line, pdf, topology_svg
from rackdesigner.export.render.cooling_diagram import cooling_diagram
from rackdesigner.export.render.elevation import sheet, single
from rackdesigner.layout_io import load_path
from tests.conftest import ROOT

SMALL = ROOT / "tests" / "data" / "render" / "small.toml"
# A rack-scale system: one GB200 NVL72 rack of the bundled SU, front and rear, and the
# SU's floor plan with its ~100 kW racks on the density scale.
GB200 = ROOT / "layouts" / "gb200-nvl72-su.toml"
# A small 2N power chain (a panel, a busway, an unrated switchboard, an overloaded UPS).
CHAIN = ROOT / "tests" / "data" / "render" / "chain.toml"
GOLDEN = ROOT / "tests" / "golden" / "render"
REGENERATE = os.environ.get("RACKDESIGNER_REGENERATE_GOLDEN") == "1"


def _drawings() -> dict[str, str]:
    analysis, diagnostics = check(load_path(str(SMALL)), file="small.toml")
    drawings = {
        "elevations.svg": sheet(analysis, diagnostics),
        "elevations-dark.svg": sheet(analysis, diagnostics, theme="dark", date="2026-07-01"),
        "svg-dir-r1.svg": single(analysis, analysis.racks[0], diagnostics),
        "floorplan.svg": floorplan.floorplan(analysis, diagnostics, date="2026-07-01"),
        "topology.svg": topology_svg.topology(analysis, diagnostics),
    }
    for number, page in enumerate(pdf.pages(analysis, diagnostics, paper="a4"), 1):
        drawings[f"pdf-page-{number}.svg"] = page
    analysis, diagnostics = check(load_path(str(GB200)), file="gb200-nvl72-su.toml")
    nvl72 = next(r for r in analysis.racks if r.rack.id == "a04")
    drawings["nvl72-rack.svg"] = single(analysis, nvl72, diagnostics)
    drawings["nvl72-rack-dark.svg"] = single(analysis, nvl72, diagnostics, theme="dark")
    drawings["floorplan-gb200.svg"] = floorplan.floorplan(analysis, diagnostics)
    # The SU's liquid loop (docs/liquid-cooling.md's worked example), in both themes, and
    # its page of the print pack.
    drawings["cooling-gb200.svg"] = cooling_diagram(analysis, date="2026-07-01")
    drawings["cooling-gb200-dark.svg"] = cooling_diagram(analysis, theme="dark")
    (page,) = pdf.pages(analysis, diagnostics, sections=chosen("cooling"))
    drawings["pdf-cooling-gb200.svg"] = page
    # The power chain's single-line diagram, light and dark, and its page of the pack.
    analysis, diagnostics = check(load_path(str(CHAIN)), file="chain.toml")
    drawings["one-line.svg"] = one_line.one_line(analysis, diagnostics)
    drawings["one-line-dark.svg"] = one_line.one_line(
        analysis, diagnostics, theme="dark", date="2026-07-01"
    )
    (page,) = pdf.pages(analysis, diagnostics, sections=chosen("one-line"))
    drawings["pdf-one-line.svg"] = page
    return drawings


DRAWINGS = _drawings()


@pytest.mark.parametrize("name", sorted(DRAWINGS))
def test_drawing_matches_its_golden_file(name: str) -> None:
    path = GOLDEN / name
    data = DRAWINGS[name].encode("utf-8")
    if REGENERATE:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    assert path.exists(), f"no golden file {path}: regenerate (see this module's docstring)"
    assert data == path.read_bytes(), (
        f"{name} differs from {path}; if the change is intended, regenerate (see the "
        "module docstring) and commit the new file"
    )


def test_no_stale_golden_files() -> None:
    names = {p.name for p in GOLDEN.glob("*.svg")}
    assert names == set(DRAWINGS)
