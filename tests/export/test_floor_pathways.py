"""(v1.4) The floor plan's pathways: each drawn in the colour of its fill's band, the warning
and error marks past the design fill and the limit, the legend, the fullest listed under the
plan, and the labels where they can be read."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from rackdesigner.check.engine import check
from rackdesigner.export.render import floorplan, palette
from rackdesigner.layout_io.reader import load_text
from tests.conftest import ROOT

EXAMPLE = ROOT / "tests" / "data" / "plant" / "example.toml"
SVG = "{http://www.w3.org/2000/svg}"


def _narrowed() -> str:
    """The worked example (docs/cable-plant.md) with tray-a 20 x 15 mm and tray-b 10 x 15."""
    text = EXAMPLE.read_text(encoding="utf-8")
    a, b = text.index('id = "tray-a"'), text.index('id = "tray-b"')
    c = text.index('id = "cross-0"')
    size = 'width = "100 mm"\ndepth = "50 mm"'
    tray_a = text[a:b].replace(size, 'width = "20 mm"\ndepth = "15 mm"')
    tray_b = text[b:c].replace(size, 'width = "10 mm"\ndepth = "15 mm"')
    return text[:a] + tray_a + tray_b + text[c:]


def _pathways(svg: str) -> dict[str, tuple[str, str]]:
    """Each pathway's line class and its tooltip's first line."""
    root = ET.fromstring(svg)
    out = {}
    for group in root.iter(f"{SVG}g"):
        title, path = group.find(f"{SVG}title"), group.find(f"{SVG}path")
        if title is None or path is None or not (path.get("class") or "").startswith("pf"):
            continue
        out[(title.text or "").split("\n")[0]] = (path.get("class") or "", title.text or "")
    return out


def test_each_pathway_takes_its_fill_band_and_marks() -> None:
    """Cords of 3.0 mm are 7.0686 mm² each; the trunk's 12 legs 84.82 mm². tray-a carries
    the eight node cords and the trunk, 56.55 + 84.82 = 141.37 mm² of 20 x 15 = 300: 47.1 %,
    the 40-50 % band (pf4, the warning's mark); tray-b the trunk alone, 84.82 of 150: 56.5 %,
    past the 50 % limit (pf5, the error's mark); cross-0 the trunk in 100 x 50 = 5,000:
    1.7 %, under 10 % (pf0). The list under the plan puts tray-b first (84.82 / 150 =
    56.55 %, 57 % in whole percent)."""
    analysis, diagnostics = check(load_text(_narrowed()))
    svg = floorplan.floorplan(analysis, diagnostics)
    drawn = _pathways(svg)
    assert drawn["tray-a"][0] == "pf4" and "fill 47.1% at 0.6 m along it" in drawn["tray-a"][1]
    assert drawn["tray-b"][0] == "pf5" and "fill 56.5%" in drawn["tray-b"][1]
    assert drawn["cross-0"][0] == "pf0" and "1 cable," in drawn["cross-0"][1]
    assert svg.count('<use href="#sw"') >= 1 and svg.count('<use href="#se"') >= 1
    fullest = re.findall(r'class="sm"[^>]*>\s*(\d+%[^<]*mm²[^<]*)<', svg)
    assert fullest[0].startswith("57% ✖  tray-b: 1 cable, 85 of 150 mm²")
    assert fullest[1].startswith("47% ▲  tray-a: 9 cables, 141 of 300 mm², fullest 0.6 m")
    assert "pathway fill at its busiest point" in svg
    for theme in ("light", "dark"):
        colours = palette.FILL_COLOURS[theme]
        styled = floorplan.floorplan(analysis, diagnostics, theme=theme)
        assert f".pf4{{fill:none;stroke:{colours[4]}" in styled
        assert f".pf5{{fill:none;stroke:{colours[5]}" in styled


def test_a_cross_aisle_label_sits_in_the_aisle_clear_of_the_racks() -> None:
    """cross-0 runs from row A's lane down to row B's: its label lies below row A's racks
    and above tray-b's line (a label at its top end was struck through by the racks' tops)."""
    analysis, diagnostics = check(load_text(EXAMPLE.read_text(encoding="utf-8")))
    root = ET.fromstring(floorplan.floorplan(analysis, diagnostics))
    label = next(
        t for t in root.iter(f"{SVG}text") if t.get("class") == "xs" and "cross-0" in (t.text or "")
    )
    y = float(label.get("y") or 0)
    racks = [
        float(r.get("y") or 0) + float(r.get("height") or 0)
        for g in root.iter(f"{SVG}g")
        for r in g.findall(f"{SVG}rect")
        if r.get("class") == "b" and (g.findtext(f"{SVG}title") or "").startswith("a0")
    ]
    lines = {
        (g.findtext(f"{SVG}title") or "").split("\n")[0]: g.find(f"{SVG}path")
        for g in root.iter(f"{SVG}g")
        if g.find(f"{SVG}path") is not None
    }
    path = lines["tray-b"]
    assert path is not None
    tray_b_y = float(re.findall(r"[ML][\d.]+ ([\d.]+)", path.get("d") or "")[0])
    assert max(racks) < y < tray_b_y
