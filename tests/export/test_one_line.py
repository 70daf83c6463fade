"""The power chain's single-line diagram (``export --one-line``; export/render/one_line.py):
where its boxes go, what they say, and the command line and the print pack around it."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from rackdesigner.analysis import Analysis
from rackdesigner.check.engine import check
from rackdesigner.cli.main import cli
from rackdesigner.export.pack import chosen
from rackdesigner.export.render import one_line
from rackdesigner.export.render.pdf import pages
from rackdesigner.layout_io import load_path
from rackdesigner.layout_io.document import loads
from tests.builders import chain_hall as hall
from tests.conftest import ROOT

CHAIN = ROOT / "tests" / "data" / "render" / "chain.toml"
SMALL = ROOT / "tests" / "data" / "render" / "small.toml"


def _analysis(text: str) -> Analysis:
    return Analysis(loads(text).layout)


def _boxes(plan: one_line.Plan, chain) -> dict[str, one_line.Box]:
    return {
        (chain.elements[b.element].id if b.leaf is None else b.leaf.label): b for b in plan.boxes
    }


def test_sources_on_top_racks_at_the_bottom_a_layer_per_step() -> None:
    """chain.toml: utility and generator (layer 0), the ATS (1), the switchboard (2), the
    UPSs (3), the panel and the busway (4), the racks (5); the rack on no element is left
    out."""
    analysis = Analysis(load_path(CHAIN))
    chain = analysis.power_chain
    laid = one_line.plan(analysis, chain)
    boxes = _boxes(laid, chain)
    layers = {name: box.layer for name, box in boxes.items()}
    assert layers == {
        "utility-1": 0,
        "gen-1": 0,
        "ats-1": 1,
        "swbd-1": 2,
        "ups-a": 3,
        "ups-b": 3,
        "rpp-a1": 4,
        "busway-b1": 4,
        "a01": 5,
        "a02": 5,
        "b01": 5,
    }
    assert laid.layers == 5
    # No two boxes of a layer overlap; every box is inside the drawing.
    for level in range(6):
        xs = sorted(b.x for b in laid.boxes if b.layer == level)
        assert all(b - a >= one_line.PITCH - 1e-6 for a, b in pairwise(xs))
    assert min(b.x for b in laid.boxes) - one_line.BOX_W / 2 >= one_line.MARGIN - 1e-6
    assert max(b.x for b in laid.boxes) + one_line.BOX_W / 2 <= laid.width


def test_a_2n_pair_stands_side_by_side_over_the_racks_both_feed() -> None:
    """Two blocks of two rows: each block's A and B UPSs are neighbours (not every A left of
    every B), each row's A and B busways too, and each row's box stands between them."""
    analysis = _analysis(hall(2, 2, 3))
    chain = analysis.power_chain
    laid = one_line.plan(analysis, chain)
    boxes = _boxes(laid, chain)

    def order(level: int) -> list[str]:
        return [n for n, b in sorted(boxes.items(), key=lambda i: i[1].x) if b.layer == level]

    assert order(2) == ["ups-1-a", "ups-1-b", "ups-2-a", "ups-2-b"]
    assert order(3) == [f"bw-{row}-{side}" for row in ("r1a", "r1b", "r2a", "r2b") for side in "ab"]
    assert order(4) == [f"{row}-{n:03d}" for row in ("r1a", "r1b", "r2a", "r2b") for n in (1, 2, 3)]
    # A row's racks stand under the mean of their two busways.
    a, b = boxes["bw-r1a-a"].x, boxes["bw-r1a-b"].x
    row = [box.x for name, box in boxes.items() if name.startswith("r1a-")]
    assert abs(sum(row) / len(row) - (a + b) / 2) < 1e-6
    assert boxes["swbd-a"].x < boxes["swbd-b"].x


def test_a_hall_of_a_thousand_racks_is_drawn_by_rows() -> None:
    """1,200 racks in 24 rows of 50 (4 blocks of 6 rows): 24 row boxes, not 1,200, each
    labelled with its first and last rack; the drawing is as wide as the 48 busways."""
    analysis = _analysis(hall(4, 6, 50))
    chain = analysis.power_chain
    found = one_line.leaves(analysis, chain)
    assert len(found) == 24
    assert found[0].label == "row r1a · r1a-001–r1a-050"
    assert [len(leaf.racks) for leaf in found] == [50] * 24
    laid = one_line.plan(analysis, chain)
    assert laid.width <= 48 * one_line.PITCH + 2 * one_line.MARGIN
    drawing = one_line.one_line(analysis)
    ElementTree.fromstring(drawing.encode("utf-8"))
    assert drawing.count("<title>row ") == 24


def test_up_to_sixteen_racks_are_drawn_one_by_one() -> None:
    analysis = _analysis(hall(1, 2, 8))
    assert [leaf.label for leaf in one_line.leaves(analysis, analysis.power_chain)][:2] == [
        "r1a-001",
        "r1a-002",
    ]
    analysis = _analysis(hall(1, 2, 9))
    assert len(one_line.leaves(analysis, analysis.power_chain)) == 2


def test_bands_follow_the_floor_plans_feed_bars() -> None:
    assert one_line.band(None) == "unrated"
    assert one_line.band(0.0) == "ok"
    assert one_line.band(0.8) == "ok"
    assert one_line.band(0.81) == "high"
    assert one_line.band(1.0) == "high"
    assert one_line.band(1.01) == "over"


def test_each_box_says_its_load_rating_margin_and_worst_failure() -> None:
    """chain.toml by hand: each side carries half of 51 kW (5 DGX H100 × 10.2 kW), 25.5 kW.
    ups-b: 25.5 kW of 30 kW = 85 % (amber), margin 4.5 kW; losing ups-a puts all 51 kW on
    it: margin 30 - 51 = -21 kW, and PWR022 outlines it in red. rpp-a1: 415 V × 100 A × √3
    × 0.8 = 57.5 kW, 25.5 kW is 44 %; after ups-b is lost, 51 kW: margin 6.5 kW. The
    switchboard has no rating (grey, PWR029); the ATS: 415 × 400 × √3 × 0.8 = 230 kW."""
    analysis, diagnostics = check(load_path(CHAIN))
    drawing = one_line.one_line(analysis, diagnostics)
    ElementTree.fromstring(drawing.encode("utf-8"))
    groups = {
        re.search(r"<text class=\"th\"[^>]*>([^<]*)</text>", g).group(1): g
        for g in drawing.split("<g>")[1:]
        if '<text class="th"' in g
    }
    ups_b = groups["ups-b"]
    assert 'class="b-high"' in ups_b
    assert "25.5 kW of 30 kW (85%)" in ups_b and "margin 4.5 kW" in ups_b
    assert "ups-a lost: margin -21 kW" in ups_b
    assert 'class="fe"' in ups_b  # PWR022, an error
    rpp = groups["rpp-a1"]
    assert "25.5 kW of 57.5 kW (44%)" in rpp and "ups-b lost: margin 6.5 kW" in rpp
    assert 'class="b-ok"' in rpp and "floor panel A1" in rpp  # its label, in the tooltip
    assert "415 V 3-phase 100 A × 0.8 = 57.5 kW continuous" in rpp
    swbd = groups["swbd-1"]
    assert 'class="b-unrated"' in swbd and "no rating" in swbd
    assert "51 kW of 230 kW (22%)" in groups["ats-1"]
    # The generator is the ATS's alternate source: dashed; the racks' feeds are not.
    assert drawing.count('<path class="alt"') == 2  # the line, and the legend's sample
    assert "1 rack on no element (not drawn)" in drawing
    assert "transient peak factor 1.4 ([workload] peak_factor, GPU nodes)" in drawing


def test_hostile_labels_stay_text() -> None:
    text = CHAIN.read_text().replace('label = "floor panel A1"', 'label = "<b>&amp;</b>"')
    analysis = _analysis(text)
    drawing = one_line.one_line(analysis)
    ElementTree.fromstring(drawing.encode("utf-8"))
    assert "&lt;b&gt;&amp;amp;&lt;/b&gt;" in drawing and "<b>" not in drawing


def test_the_command_writes_it_and_refuses_a_layout_without_a_chain(tmp_path: Path) -> None:
    out = tmp_path / "one-line.svg"
    result = CliRunner().invoke(
        cli, ["export", str(CHAIN), "--one-line", str(out), "--theme", "dark"]
    )
    assert result.exit_code == 0, result.output
    assert "<title>chain drawing: single-line diagram</title>" in out.read_text()
    other = tmp_path / "none.svg"
    result = CliRunner().invoke(cli, ["export", str(SMALL), "--one-line", str(other)])
    assert result.exit_code == 2
    assert "the layout declares no power chain" in result.output
    assert not other.exists()


def test_the_print_pack_has_a_page_of_it_only_where_there_is_a_chain() -> None:
    analysis, diagnostics = check(load_path(CHAIN))
    documents = pages(analysis, diagnostics, sections=chosen("one-line"))
    assert len(documents) == 1
    assert "chain drawing · Single-line diagram</title>" in documents[0]
    assert ".b-over{fill:" in documents[0]  # the diagram's own classes, on its page
    analysis = Analysis(load_path(SMALL))
    assert pages(analysis, [], sections=chosen("one-line")) == []


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_page_paints_with_cairo(theme: str) -> None:
    """The pack paints drawings with its own painter (paint.py): every element the
    diagram writes is one it paints."""
    from rackdesigner.export.render.pdf import pdf

    analysis, diagnostics = check(load_path(CHAIN))
    data = pdf(analysis, diagnostics, theme=theme, sections=chosen("one-line"))
    assert data.startswith(b"%PDF")


def test_the_floor_plan_names_the_element_each_feed_hangs_on() -> None:
    from rackdesigner.export.render.floorplan import floorplan

    drawing = floorplan(Analysis(load_path(CHAIN)))
    assert "power A on rpp-a1, B on busway-b1</title>" in drawing
    # b02's feed names no element: nothing said.
    b02 = drawing[drawing.index("<title>b02") :]
    assert "power " not in b02[: b02.index("</title>")]
