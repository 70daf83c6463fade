"""Drawings: elevations, floor plan, topology, print pack and PNG (rackdesigner/render/).

Golden files are in test_render_golden.py; this file checks what the drawings say: where a
device is drawn, that user text stays text, that every bundled layout draws, and the
command line's options.
"""

from __future__ import annotations

import io
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.stock import stock_length
from rackdesigner.check.engine import check
from rackdesigner.cli.main import cli
from rackdesigner.export.drawings import rack_file_name
from rackdesigner.export.render import elevation, floorplan, pdf, raster, topology_svg
from rackdesigner.export.render.elevation import GEOMETRY, plan_rack, sheet, single
from rackdesigner.layout_io import load_path
from tests.conftest import ROOT

SMALL = ROOT / "tests" / "data" / "render" / "small.toml"
SVG = "{http://www.w3.org/2000/svg}"
BUNDLED = sorted((ROOT / "layouts").glob("*.toml")) + sorted(
    (ROOT / "layouts" / "problems").glob("*.toml")
)


def checked(path: Path):
    layout = load_path(str(path))
    return check(layout, file=str(path))


def parse(document: str) -> ET.Element:
    return ET.fromstring(document.encode("utf-8"))


def all_text(root: ET.Element) -> str:
    return "\n".join("".join(node.itertext()) for node in root.iter())


@pytest.fixture(scope="module")
def small():
    return checked(SMALL)


# -- every bundled layout -------------------------------------------------------------------


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_every_drawing_of_every_bundled_layout_is_xml(path: Path) -> None:
    analysis, diagnostics = checked(path)
    documents = [
        sheet(analysis, diagnostics),
        sheet(analysis, diagnostics, theme="dark", date="2026-01-02"),
        floorplan.floorplan(analysis, diagnostics),
        topology_svg.topology(analysis, diagnostics),
        *(single(analysis, facts, diagnostics) for facts in analysis.racks),
        *pdf.pages(analysis, diagnostics, paper="letter"),
    ]
    for document in documents:
        root = parse(document)
        assert root.tag == f"{SVG}svg"
        assert root.get("viewBox")
        # Self-contained: no script, no external reference, no links.
        assert not any(node.tag.endswith("script") for node in root.iter())
        assert "xlink" not in document
        for node in root.iter():
            href = node.get("href")
            assert href is None or href.startswith("#")


# -- geometry -------------------------------------------------------------------------------


def _face_groups(rack_group: ET.Element) -> list[ET.Element]:
    faces = [
        g for g in rack_group.findall(f"{SVG}g") if g.get("transform", "").startswith("translate")
    ]
    assert len(faces) == 2  # front, rear
    return faces


def _rail_numbers(frame: ET.Element, left: bool = True) -> dict[int, float]:
    """The U numbers of a frame symbol's left (or right) rail and the y of each: one text
    per number, in the symbol's ``un`` group."""
    numbers: dict[int, float] = {}
    for group in frame.iter(f"{SVG}g"):
        if group.get("class") != "un":
            continue
        for t in group.iter(f"{SVG}text"):
            assert (t.text or "").isdigit() and " " not in t.get("x") + t.get("y")
            if (float(t.get("x")) < GEOMETRY.body_x) != left:
                continue
            numbers[int(t.text)] = float(t.get("y"))
    return numbers


def _units_under(document: str, device: str) -> dict[str, tuple[int, int]]:
    """For each face, the units whose rail numbers lie within the body drawn for ``device``
    (the U numbers come from the frame symbol, so this checks the drawing against its own
    scale, not against the formula that placed the device)."""
    root = parse(document)
    symbols = {s.get("id"): s for s in root.iter(f"{SVG}symbol")}
    found: dict[str, tuple[int, int]] = {}
    for rack in root.iter(f"{SVG}g"):
        if not rack.get("transform", "").startswith("translate") or rack.find(f"{SVG}text") is None:
            continue
        faces = [
            g for g in rack.findall(f"{SVG}g") if g.get("transform", "").startswith("translate(")
        ]
        if len(faces) != 2:
            continue
        for name, face in zip(("front", "rear"), faces, strict=True):
            frame = symbols[face.find(f"{SVG}use").get("href")[1:]]
            numbers = _rail_numbers(frame)
            for node in face.iter():
                texts = [t for t in node if t.tag == f"{SVG}text"]
                uses = [u for u in node if u.tag == f"{SVG}use"]
                if not texts or not uses or texts[0].text != device:
                    continue
                body = symbols[uses[0].get("href")[1:]]
                rect = body.find(f"{SVG}rect")
                top = float(uses[0].get("y", 0)) + float(rect.get("y", 0))
                bottom = top + float(rect.get("height"))
                inside = sorted(u for u, y in numbers.items() if top < y < bottom)
                found[name] = (inside[0], inside[-1])
    return found


def test_a_2u_full_depth_device_at_u5_covers_u5_and_u6_on_both_faces(small) -> None:
    analysis, diagnostics = small
    r1 = analysis.racks[0]
    document = single(analysis, r1, diagnostics)
    spans = _units_under(document, "gpu1")
    assert spans == {"front": (5, 6), "rear": (5, 6)}


def test_geometry_span_and_its_inverse() -> None:
    def units_at(rack_units: int, y: float, height: float) -> tuple[int, int]:
        """The lowest and highest unit a body drawn at ``y``, ``height`` px covers."""
        top_unit = rack_units - round(y / GEOMETRY.unit)
        return top_unit - round(height / GEOMETRY.unit) + 1, top_unit

    for units in (42, 48, 52):
        for position, height in ((1, 1), (5, 2), (units - 7, 8)):
            y, h = GEOMETRY.span(units, position, height)
            assert units_at(units, y, h) == (position, position + height - 1)


def test_half_depth_devices_only_on_their_face_and_0u_on_the_rails(small) -> None:
    analysis, diagnostics = small
    plan = plan_rack(analysis.racks[0])
    faces = {p.dev.id: (p.face, p.full) for p in plan.placed}
    assert faces["r1-mgmt"] == ("rear", False)
    assert faces["gpu1"] == ("front", True)
    assert [d.id for d in plan.sides["left"]] == ["r1-pdu-a"]
    assert [d.id for d in plan.sides["right"]] == ["r1-pdu-b"]
    document = single(analysis, analysis.racks[0], diagnostics)
    spans = _units_under(document, "r1-mgmt")
    assert spans == {"rear": (30, 30)}  # nothing of it on the front face
    root = parse(document)
    titles = [t.text for t in root.iter(f"{SVG}title") if t.text]
    assert any(t.startswith("r1-pdu-a\n") and "left rail" in t for t in titles)
    r2 = plan_rack(analysis.racks[1])
    assert [d.id for d in r2.doors] == ["r2-door"]


def test_findings_are_outlined_with_a_symbol_and_their_codes(small) -> None:
    analysis, diagnostics = small
    document = single(analysis, analysis.racks[0], diagnostics)
    root = parse(document)
    leaf = next(
        g for g in root.iter(f"{SVG}g") if (g.findtext(f"{SVG}title") or "").startswith("r1-leaf\n")
    )
    codes = {d.code for d in diagnostics if d.entity == "device r1-leaf"}
    assert codes
    for code in codes:
        assert code in leaf.findtext(f"{SVG}title")
    outline = [u.get("href") for u in leaf.iter(f"{SVG}use") if u.get("href", "").startswith("#o")]
    assert outline, "a device with findings is outlined"
    symbol = next(s for s in root.iter(f"{SVG}symbol") if s.get("id") == outline[0][1:])
    marks = [u.get("href") for u in symbol.iter(f"{SVG}use")]
    assert marks and marks[0] in ("#se", "#sw", "#si")  # the severity's shape, not only colour


def test_labels_are_clipped_to_the_body_with_the_full_text_in_the_tooltip(small) -> None:
    analysis, diagnostics = small
    root = parse(single(analysis, analysis.racks[0], diagnostics))
    group = next(
        g for g in root.iter(f"{SVG}g") if (g.findtext(f"{SVG}title") or "").startswith("gpu2 ")
    )
    # The id stands whole on the top line (the cable schedule's name for it); the label,
    # too long beside it, goes under it, cut to the body with the full text in the tooltip.
    label = group.find(f"{SVG}text")
    assert label.text == "gpu2"
    second = label.find(f"{SVG}tspan").text
    assert second.startswith("training node two") and second.endswith("…")
    assert len(second) * GEOMETRY.char_small <= GEOMETRY.body - 10
    assert "training node two with a long label" in group.findtext(f"{SVG}title")


def test_a_device_is_named_by_its_id_with_its_label_beside_it() -> None:
    """A 1 U spine labelled "spine 2" shows "a03-spine2 · spine 2" (the id the cable
    schedule prints, then the label) on its front and, blocked, on its rear; a label too
    long beside the id gives way, the id never ("a01-leaf2 · leaf, r…": 20 characters fit
    the sheet's 1 U body)."""
    from rackdesigner.export.render.svg import named

    assert named("a01-leaf2", "leaf, rails 5-8", 28) == "a01-leaf2 · leaf, rails 5-8"
    assert named("a01-leaf2", "leaf, rails 5-8", 16) == "a01-leaf2 · lea…"
    assert named("a01-leaf2", "a01-leaf2", 28) == "a01-leaf2"
    assert named("a01-leaf2", "leaf", 12) == "a01-leaf2"  # no room for " · " and a letter
    analysis = Analysis(load_path(ROOT / "layouts" / "training-128.toml"))
    document = single(analysis, analysis.racks[2], [])
    assert document.count(">a03-spine2 · spine 2<") == 2  # front, and rear blocked
    # The sheet's narrower racks keep the id whole and cut the label.
    document = sheet(analysis, [])
    assert document.count(">a01-leaf2 · leaf, r…<") == 1
    assert ">leaf, rails 5-8<" not in document and ">leaf, rails 5-8 · " not in document
    # The print pack's elevations are painted from the same labels.
    from pypdf import PdfReader

    pages = PdfReader(io.BytesIO(pdf.pdf(analysis, []))).pages
    printed = pages[0].extract_text() + pages[1].extract_text()  # a01 and a02, a03 and a04
    assert "a01-leaf2 · leaf, " in printed and "a03-spine2 · spine 2" in printed


def test_rack_heights_42_48_52_have_numbers_on_both_rails(small) -> None:
    analysis, diagnostics = small
    root = parse(sheet(analysis, diagnostics))
    for units in (42, 48, 52):
        for face in "fr":
            symbol = next(s for s in root.iter(f"{SVG}symbol") if s.get("id") == f"{face}{units}")
            for left in (True, False):
                numbers = _rail_numbers(symbol, left)
                assert sorted(numbers) == list(range(1, units + 1))
                assert numbers[units] < numbers[1]  # U1 at the bottom


def test_racks_of_one_line_stand_on_one_floor(small) -> None:
    analysis, diagnostics = small
    document = sheet(analysis, diagnostics)
    # r1 (42 U) and r2 (48 U) share row A: the bottoms of their frames are level.
    root = parse(document)
    bottoms = []
    for rack in root.iter(f"{SVG}g"):
        head = rack.find(f"{SVG}text")
        if head is None or head.get("class") != "h3" or head.text not in ("r1", "r2"):
            continue
        _, y = re.match(r"translate\(([\d.]+),([\d.]+)\)", rack.get("transform")).groups()
        units = 42 if head.text == "r1" else 48
        bottoms.append(float(y) + GEOMETRY.header + GEOMETRY.caption + units * GEOMETRY.unit)
    assert len(bottoms) == 2 and bottoms[0] == bottoms[1]


def test_a_rear_door_is_named_in_full_under_the_rear_view(small) -> None:
    analysis, diagnostics = small
    root = parse(sheet(analysis, diagnostics))
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert any(t.startswith("rear door r2-door") for t in texts)
    assert not any("…" in t and "door" in t for t in texts)


def test_floor_plan_routes_between_the_same_racks_are_one_line_numbered_with_their_ranks() -> None:
    # The bundled inference hall: its ten longest cables all run between a01 and a02.
    analysis, diagnostics = check(load_path(ROOT / "layouts" / "inference-32-b200.toml"))
    root = parse(floorplan.floorplan(analysis, diagnostics))
    routes = [p for p in root.iter(f"{SVG}path") if p.get("class") == "route"]
    numbers = [
        t.text
        for g in root.iter(f"{SVG}g")
        for t in g.findall(f"{SVG}text")
        if g.find(f"{SVG}path") is not None
    ]
    assert len(routes) == 2  # the one route, and the legend's swatch
    assert numbers == ["1–10"]
    assert floorplan.ranges([0, 1, 2, 3, 5, 7, 8]) == "1–4, 6, 8–9"
    assert floorplan.ranges([4]) == "5"


def test_a_hall_row_longer_than_a_line_wraps_evenly() -> None:
    lines = elevation._lines(list(range(40)), 36)
    assert [len(line) for line in lines] == [20, 20]
    assert elevation._lines(list(range(36)), 36) == [list(range(36))]


# -- PNG pixels -----------------------------------------------------------------------------


def _pixels(png: bytes):
    import cairocffi

    surface = cairocffi.ImageSurface.create_from_png(io.BytesIO(png))
    data = bytes(surface.get_data())
    stride = surface.get_stride()

    def at(x: int, y: int) -> str:
        offset = y * stride + x * 4
        b, g, r = data[offset], data[offset + 1], data[offset + 2]  # ARGB32, little-endian
        return f"#{r:02x}{g:02x}{b:02x}"

    return at


def test_png_has_the_device_where_it_must_be_and_nothing_where_it_must_not(small) -> None:
    from rackdesigner.export.render import palette

    analysis, diagnostics = small
    document = single(analysis, analysis.racks[0], diagnostics)
    at = _pixels(raster.to_png(document, 16_000))
    g = GEOMETRY
    margin_x, margin_y = 16, 16 + 24  # where single() puts the rack's block
    faces_y = margin_y + g.header + g.caption

    def centre(unit: int) -> int:
        y, _ = g.span(42, unit, 1)
        return faces_y + y + g.unit // 2

    front = margin_x + g.body_x + 100  # right of the label, left of the rack ears
    rear = margin_x + g.face + g.face_gap + g.body_x + 100
    gpu = palette.LIGHT["gpu-node"].fill
    empty = palette.SURFACES["light"]["slot"]
    assert at(front, centre(5)) == gpu
    assert at(front, centre(6)) == gpu
    assert at(front, centre(4)) == empty
    assert at(front, centre(7)) == empty
    # On the rear the same units are hatched as blocked, U4 and U7 stay empty.
    hatch = {palette.SURFACES["light"]["blocked"], palette.SURFACES["light"]["blocked_line"]}
    for unit in (5, 6):
        colours = {at(rear + dx, centre(unit)) for dx in range(0, 8)}
        assert colours & hatch and gpu not in colours
    assert at(rear, centre(4)) == empty
    assert at(rear, centre(7)) == empty


def test_png_long_side_is_capped() -> None:
    assert raster.scale_for(75_000, 15_000, 16_000) == pytest.approx(16_000 / 75_000)
    assert raster.scale_for(900, 600, 16_000) == 1.0
    document = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="40000" height="300" '
        'viewBox="0 0 40000 300"><rect width="40000" height="300"/></svg>'
    )
    at_size = raster.size(document)
    assert at_size == (40000.0, 300.0)
    png = raster.to_png(document, 1000)
    width = int.from_bytes(png[16:20], "big")
    height = int.from_bytes(png[20:24], "big")
    assert width == 1000 and height <= 8


# -- escaping, determinism, themes -----------------------------------------------------------

HOSTILE = ("<script>alert(1)</script>", '"]]><x>')


def _hostile_layout(tmp_path: Path) -> Path:
    text = SMALL.read_text(encoding="utf-8")
    text = text.replace('name = "Drawing test hall"', 'name = "hall <script>alert(1)</script>"')
    text = text.replace('label = "training node two with a long label"', "label = '\"]]><x>'")
    text = text.replace(
        'id = "gpu1"\nmodel = "gpu-2u"\nposition = 5',
        'id = "gpu1"\nmodel = "gpu-2u"\nposition = 5\nlabel = "<script>alert(1)</script>"',
    )
    path = tmp_path / "hostile.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_hostile_labels_stay_visible_text(tmp_path: Path) -> None:
    analysis, diagnostics = checked(_hostile_layout(tmp_path))
    documents = [
        sheet(analysis, diagnostics),
        single(analysis, analysis.racks[0], diagnostics),
        floorplan.floorplan(analysis, diagnostics),
        topology_svg.topology(analysis, diagnostics),
        *pdf.pages(analysis, diagnostics),
    ]
    for document in documents:
        root = parse(document)  # parses: nothing broke out of its element
        tags = {node.tag.removeprefix(SVG) for node in root.iter()}
        assert "script" not in tags and "x" not in tags
        assert "<script>alert(1)</script>" in all_text(root)
    elevations = all_text(parse(single(analysis, analysis.racks[0], diagnostics)))
    assert '"]]><x>' in elevations
    assert "<script>alert(1)</script>" in elevations


def test_control_characters_do_not_break_the_file() -> None:
    from rackdesigner.export.render import svg

    assert svg.text("a\x01b<") == "a\ufffdb&lt;"
    assert svg.attr('a"\x0b') == "a&quot;\ufffd"


def test_same_layout_same_bytes(small) -> None:
    again = checked(SMALL)
    for make in (
        lambda a, d: sheet(a, d),
        lambda a, d: floorplan.floorplan(a, d),
        lambda a, d: topology_svg.topology(a, d),
    ):
        assert make(*small) == make(*again)
    assert pdf.pages(*small) == pdf.pages(*again)
    # The PDF's and PNG's bytes: test_export_writes_every_drawing.


def test_themes_differ_only_in_the_style_sheet(small) -> None:
    analysis, diagnostics = small
    light = sheet(analysis, diagnostics, theme="light")
    dark = sheet(analysis, diagnostics, theme="dark")
    assert light != dark
    strip = re.compile(r"<style>.*?</style>", re.S)
    assert strip.sub("", light) == strip.sub("", dark)
    assert "var(" not in light and "var(" not in dark


def test_no_date_unless_asked(small) -> None:
    analysis, diagnostics = small
    assert "2026-03-04" in floorplan.floorplan(analysis, diagnostics, date="2026-03-04")
    assert not re.search(r"20\d\d-\d\d-\d\d", floorplan.floorplan(analysis, diagnostics))


# -- topology aggregation ----------------------------------------------------------------------


def test_identical_scalable_units_are_drawn_once_with_a_count(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from generate import generate_layout_text
    finally:
        sys.path.remove(str(ROOT / "bench"))
    path = tmp_path / "gpus-2048.toml"
    path.write_text(generate_layout_text(2048), encoding="utf-8")
    analysis, diagnostics = checked(path)
    document = topology_svg.topology(analysis, diagnostics)
    root = parse(document)
    assert "× 8 scalable units like this" in all_text(root) or "× 8 identical" in all_text(root)
    lines = [p for p in root.iter(f"{SVG}path") if "ln" in (p.get("class") or "")]
    assert 0 < len(lines) < 80  # bundles, not 2,048+ cables
    labels = [  # the bundles' counts (the boxes' "× 8 scalable units" notes are not)
        t.text
        for t in root.iter(f"{SVG}text")
        if t.get("class") == "xs" and t.text and t.text.startswith("×")
    ]
    assert any(int(label[1:]) > 1 for label in labels)  # multiplicity on a bundle


# -- schedule and names ------------------------------------------------------------------------


def test_stock_lengths() -> None:
    assert stock_length(0.3) == 0.5
    assert stock_length(2.0) == 2
    assert stock_length(3.2) == 5
    assert stock_length(100) == 100
    assert stock_length(101) == 110


def test_rack_file_names() -> None:
    assert rack_file_name("a01") == "a01.svg"
    assert rack_file_name("hall/1 é") == "hall_1__.svg"


# -- command line ------------------------------------------------------------------------------


def test_export_writes_every_drawing(tmp_path: Path) -> None:
    def export(out: Path, layout: Path = SMALL, *extra: str) -> None:
        result = CliRunner().invoke(
            cli,
            [
                "export",
                str(layout),
                "--elevations",
                str(out / "e.svg"),
                "--svg-dir",
                str(out / "racks"),
                "--floorplan",
                str(out / "f.svg"),
                "--topology",
                str(out / "t.svg"),
                "--pdf",
                str(out / "p.pdf"),
                "--png",
                str(out / "e.png"),
                *extra,
            ],
        )
        assert result.exit_code == 0, result.output

    out = tmp_path / "out"
    options = ("--theme", "dark", "--paper", "letter", "--date", "2026-12-01")
    export(out, SMALL, *options)
    assert sorted(p.name for p in (out / "racks").iterdir()) == ["r1.svg", "r2.svg", "r3.svg"]
    for name in ("e.svg", "f.svg", "t.svg"):
        parse((out / name).read_text(encoding="utf-8"))
    assert (out / "e.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from pypdf import PdfReader

    reader = PdfReader(str(out / "p.pdf"))
    texts = [page.extract_text() for page in reader.pages]
    assert any("Rack elevations" in t for t in texts)
    assert any("Floor plan" in t for t in texts)
    assert any("Devices by rack" in t for t in texts)
    assert any("Cable schedule" in t for t in texts)
    width, height = reader.pages[0].mediabox.width, reader.pages[0].mediabox.height
    assert (float(width), float(height)) == (792.0, 612.0)  # Letter, landscape
    # Same layout, same bytes, PDF and PNG included (cairo stamps its one-page PDFs with the
    # time; none of it may reach the pack).
    again = tmp_path / "again"
    export(again, SMALL, *options)
    for name in ("e.svg", "f.svg", "t.svg", "p.pdf", "e.png", "racks/r1.svg"):
        assert (out / name).read_bytes() == (again / name).read_bytes(), name


def test_export_refuses_a_bad_date_and_colliding_rack_names(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["export", str(SMALL), "--floorplan", str(tmp_path / "f.svg"), "--date", "2026-13-01"]
    )
    assert result.exit_code == 2 and "not a date" in result.output
    text = (
        SMALL.read_text(encoding="utf-8")
        .replace('id = "r1"', 'id = "r/1"')
        .replace('id = "r2"', 'id = "r_1"')
    )
    text = text.replace('door = "r2-door"', 'door = "r2-door"')
    path = tmp_path / "collide.toml"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["export", str(path), "--svg-dir", str(tmp_path / "d")])
    assert result.exit_code == 2
    assert "r_1.svg" in result.output
    assert not (tmp_path / "d").exists()


def test_the_overview_of_a_large_hall_puts_devices_where_the_sheet_does(small) -> None:
    from rackdesigner.export.render import palette

    analysis, diagnostics = small
    view = elevation.overview(analysis, diagnostics, scale=1.0)
    document = sheet(analysis, diagnostics)
    assert (view.width, view.height) == raster.size(document)
    at = _pixels(raster.overview_png(view, "light", 16_000))
    # r1 is the first rack of the first line, as on the sheet.
    plan, x, y = elevation._arrange(elevation.ElevationWriter(analysis, diagnostics), 36).racks[0]
    assert plan.facts.rack.id == "r1"
    g = GEOMETRY
    arranged = elevation._arrange(elevation.ElevationWriter(analysis, diagnostics), 36)
    shift = view.height - arranged.height - elevation.SHEET_MARGIN  # the legend's push
    faces_y = raster.OVERVIEW_BAND + y + g.header + g.caption + shift

    def centre(unit: int) -> int:
        top, _ = g.span(42, unit, 1)
        return int(faces_y + top + g.unit // 2)

    front = int(x + g.body_x + 100)
    gpu = palette.LIGHT["gpu-node"].fill
    empty = palette.SURFACES["light"]["slot"]
    assert at(front, centre(5)) == gpu and at(front, centre(6)) == gpu
    assert at(front, centre(4)) == empty and at(front, centre(7)) == empty


def test_an_nvl72_rack_is_drawn_as_it_is_front_and_rear() -> None:
    from rackdesigner.check.engine import check
    from rackdesigner.export.render.elevation import plan_rack, single
    from rackdesigner.layout_io import load_path
    from tests.conftest import ROOT

    analysis, diagnostics = check(load_path(str(ROOT / "layouts" / "gb200-nvl72-su.toml")))
    facts = next(r for r in analysis.racks if r.rack.id == "a04")
    plan = plan_rack(facts)
    kinds = [p.kind for p in plan.placed]
    assert (kinds.count("nvl-compute"), kinds.count("nvl-switch")) == (18, 9)
    assert kinds.count("power-shelf") == 8
    # The busbar is not a PDU in a side channel: it runs down the rear's middle.
    assert [b.id for b in plan.busbars] == ["a04-bus"]
    assert not plan.sides["left"] and not plan.sides["right"]
    assert plan.manifolds
    drawing = single(analysis, facts, diagnostics)
    for part in ("kq", "kn", "kh", "ku", "kx", "ky", "kz"):
        assert f'<g class="{part}">' in drawing, part
    for label in (
        "compute tray",
        "NVLink switch tray",
        "power shelf",
        "DC busbar (rear)",
        "NVLink cable cartridges (rear)",
        "liquid manifold, supply",
        "liquid manifold, return",
        "NVLink domain nvl-a04 (18 + 9 trays)",
    ):
        assert label in drawing, label
    # An air-cooled rack without rack-scale parts keeps its plain drawing.
    cdu_rack = next(r for r in analysis.racks if r.rack.id == "a01")
    plain = single(analysis, cdu_rack, diagnostics)
    assert "kx" not in plain and "manifold" not in plain and "NVLink" not in plain
