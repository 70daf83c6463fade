"""``export --cooling-diagram`` and the print pack's ``cooling`` page
(export/render/cooling_plan.py, cooling_diagram.py).

The bundled GB200 SU (docs/liquid-cooling.md's worked example) is the drawing's main case:
its figures are the report's ``liquid_loops`` section, worked by hand below.
"""

from __future__ import annotations

import re
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from rackdesigner.analysis import Analysis
from rackdesigner.cli.main import cli
from rackdesigner.export.pack import chosen
from rackdesigner.export.render import cooling_plan as plan_module
from rackdesigner.export.render.cooling_diagram import cooling_diagram
from rackdesigner.export.render.cooling_plan import (
    OK,
    SHORT,
    TIGHT,
    UNJUDGED,
    cooling_plan,
    share_level,
)
from rackdesigner.export.render.pdf import pages
from rackdesigner.layout_io import load_path, load_text
from tests.conftest import ROOT

GB200 = ROOT / "layouts" / "gb200-nvl72-su.toml"
RULES = ROOT / "tests" / "rules"


@pytest.fixture(scope="module")
def su() -> Analysis:
    return Analysis(load_path(GB200))


def _texts(drawing: str) -> list[str]:
    root = ElementTree.fromstring(drawing)
    return ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]


def test_share_levels() -> None:
    """Over the limit short; 90 % of it or more tight (837.6 kW on a 930 kW loop is
    90.1 %); below ok; no capacity not judged."""
    assert share_level(837_640, 930_000) == TIGHT
    assert share_level(837_640, 1_500_000) == OK
    assert share_level(160_800, 180_000) == OK  # 89.3 %
    assert share_level(931_000, 930_000) == SHORT
    assert share_level(900, 1_000) == TIGHT
    assert share_level(10, None) == UNJUDGED
    assert share_level(0, 0) == OK


def test_the_su_diagram_says_the_reports_figures(su: Analysis) -> None:
    """One GB200 SU (docs/liquid-cooling.md, worked example):

    - a rack's cold plates 18 × 6,667 W × 0.85 + 9 × 400 W × 0.75 = 104,705 W = 104.7 kW,
      at 1.5 L/min per kW: 104.705 × 1.5 = 157.06 L/min;
    - 8 racks: 837,640 W; 3 CHx750 at 5 K = 2,250 kW; one lost 1,500 kW, margin
      1,500 − 837.64 = 662.4 kW (ok: 55.8 %);
    - flow 837.64 × 1.5 = 1,256.5 L/min; supply 32 + 5 = 37.0 °C, return 37 + 9.985 =
      47.0 °C;
    - fws-1: 930 kW − 837.6 = 92.4 kW (tight: 90.1 %), return 41.0 °C;
    - chw-1: 8 doors × 20.1 kW = 160.8 kW of 180 kW, margin 19.2 kW (ok: 89.3 %)."""
    plan = cooling_plan(su)
    assert [(b.state.loop.id, b.level, b.left) for b in plan.loops] == [
        ("fws-1", TIGHT, True),
        ("chw-1", OK, False),
    ]
    (band,) = plan.bands
    assert band.level == OK and band.loops == ["fws-1"] and band.side_loops == ["chw-1"]
    assert [r.racks[0].rack.id for r in band.racks] == [
        "a04", "a05", "a08", "a09", "a12", "a13", "a16", "a17"
    ]  # fmt: skip
    rack = band.racks[0]
    assert round(rack.heat) == 104_705 and round(rack.flow * 60_000, 2) == 157.06
    assert rack.door == "a04-door" and rack.door_loop == "chw-1" and rack.nowhere == 0
    texts = _texts(cooling_diagram(su))
    for said in (
        "3 × coolit-chx750",
        "750.0 kW at 5 K approach each",
        "cold plates 837.6 kW of 2,250.0 kW",
        "one CDU lost 1,500.0 kW: margin 662.4 kW",
        "flow 1,256 L/min needed · pumps not given",
        "supply 37.0 °C · return 47.0 °C (+10.0 K)",
        "supply 32.0 °C · return 41.0 °C",
        "heat 837.6 kW of 930.0 kW",
        "margin 92.4 kW",
        "margin 19.2 kW",
        "104.7 kW · 157 L/min",
        "door 20.1 kW",
        "8 rear doors 160.8 kW",
    ):
        assert said in texts, said


def test_colours_follow_the_levels(su: Analysis) -> None:
    """fws-1 tight (amber outline and its ▲ mark), the group and chw-1 ok (green), in
    both themes; the diagram's lines carry their own classes."""
    for theme, amber, green in (("light", "#b26a00", "#2e7d32"), ("dark", "#ffb347", "#66bb6a")):
        drawing = cooling_diagram(su, theme=theme)
        assert f".q1{{fill:none;stroke:{amber}" in drawing
        assert f".q0{{fill:none;stroke:{green}" in drawing
        assert drawing.count('<rect class="q1" x=') == 2  # fws-1's outline, the legend's
        assert drawing.count('<use href="#sw"') == 2  # fws-1's mark and the legend's
        assert 'class="lf"' in drawing and 'class="lc"' in drawing and 'class="ls"' in drawing


def test_a_short_group_an_unrated_cdu_and_a_cdu_on_no_loop() -> None:
    """COOL012's fixture: two CHx80s run below their 5 K rating (3 K and 0 K): neither is
    judged (grey), their racks' 2 kW of air heat goes nowhere (tight). COOL011's: a CDU on
    no loop, and a lone CDU has nothing with one lost (80 kW − 80 kW = 0 < 16 kW): short."""
    plan = cooling_plan(Analysis(load_path(RULES / "COOL012" / "fires.toml")))
    assert [b.level for b in plan.bands] == [UNJUDGED, UNJUDGED]
    assert all(r.level == TIGHT and round(r.nowhere) == 2000 for b in plan.bands for r in b.racks)
    plan = cooling_plan(Analysis(load_path(RULES / "COOL011" / "fires.toml")))
    (band,) = plan.bands
    assert band.level == SHORT
    assert band.notes == [
        "short with one CDU lost",
        "its CDUs on no loop: no path to facility water",
    ]


def test_without_loops_the_groups_are_drawn_and_not_faulted_for_it() -> None:
    """A layout of CDU groups and no ``[[cooling.loops]]`` (as before v1.4): the groups
    and racks are drawn, no loop column, and no "on no loop" note."""
    analysis = Analysis(load_path(RULES / "COOL009" / "silent.toml"))
    assert not analysis.layout.cooling_loops
    plan = cooling_plan(analysis)
    assert plan.bands and not plan.loops
    assert not any("no loop" in note for b in plan.bands for note in b.notes)
    drawing = cooling_diagram(analysis)
    assert "no water loops declared" in drawing
    assert drawing.count('class="lf"') == 1  # the legend's: no loop drawn


def test_alike_racks_and_groups_are_drawn_once_above_the_limits(
    su: Analysis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above RACKS_DRAWN racks the SU's 8 alike racks are one box, "8 × a04 … a17"; above
    BANDS_DRAWN groups, alike groups are one band with their count (COOL012's two groups
    are not alike: 3 K and 0 K)."""
    monkeypatch.setattr(plan_module, "RACKS_DRAWN", 4)
    plan = cooling_plan(su)
    assert plan.aggregated_racks
    ((box,),) = [b.racks for b in plan.bands]
    assert box.count == 8 and box.racks[-1].rack.id == "a17"
    assert "8 × a04 … a17" in _texts(cooling_diagram(su, plan=plan))
    monkeypatch.setattr(plan_module, "BANDS_DRAWN", 0)
    plan = cooling_plan(Analysis(load_path(RULES / "COOL012" / "fires.toml")))
    assert plan.aggregated_bands and [b.count for b in plan.bands] == [1, 1]


TWO_GROUPS = """
format = 1
name = "two CDU groups alike"

[catalog.cp-10k]
kind = "cpu-node"
height = "4 U"
power = "10 kW"
liquid_fraction = 0.8

[[cooling.loops]]
id = "fws"
ashrae_class = "W17"
devices = ["c1", "c2"]

[[racks]]
id = "r01"
cooling = "liquid"
cdu = "c1"
devices = [{ id = "r01-n01", model = "cp-10k", position = 1 }]

[[racks]]
id = "r02"
cooling = "liquid"
cdu = "c2"
devices = [{ id = "r02-n01", model = "cp-10k", position = 1 }]

[[racks]]
id = "c01"
cooling = "air"
devices = [
    { id = "c1", model = "coolit-chx80", position = 1 },
    { id = "c2", model = "coolit-chx80", position = 10 },
]
"""


def test_alike_groups_say_their_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two CDU groups alike (a CHx80 each, 80 kW at 5 K; a rack of 10 kW × 0.8 = 8 kW of
    cold plates each, on W17 water: supply 17 + 5 = 22 °C), drawn as one band of 2 when
    fewer bands are drawn."""
    analysis = Analysis(load_text(TWO_GROUPS))
    assert len(cooling_plan(analysis).bands) == 2
    monkeypatch.setattr(plan_module, "BANDS_DRAWN", 1)
    plan = cooling_plan(analysis)
    (band,) = plan.bands
    assert band.count == 2 and band.racks[0].heat == 8000
    texts = _texts(cooling_diagram(analysis, plan=plan))
    assert "2 CDU groups alike, each:" in texts and "c1 … c2" in texts
    assert "supply 22.0 °C · return 32.0 °C (+10.0 K)" in texts


def test_hostile_loop_labels_stay_text(su: Analysis) -> None:
    su.layout.cooling_loops[0].label = '<script>alert("x")</script> & \x01'
    try:
        drawing = cooling_diagram(su)
    finally:
        su.layout.cooling_loops[0].label = None
    ElementTree.fromstring(drawing)
    assert "<script>" not in drawing and "&lt;script&gt;" in drawing


def test_the_command_line_writes_it_or_says_why_not(tmp_path: Path) -> None:
    out = tmp_path / "cooling.svg"
    result = CliRunner().invoke(
        cli, ["export", str(GB200), "--cooling-diagram", str(out), "--theme", "dark"]
    )
    assert result.exit_code == 0, result.output
    assert "#16181b" in out.read_text()  # the dark page
    air = ROOT / "layouts" / "starter-4x-a6000.toml"
    result = CliRunner().invoke(cli, ["export", str(air), "--cooling-diagram", str(out)])
    assert result.exit_code == 2
    assert "the layout has no liquid cooling to draw" in result.output


def test_the_print_pack_has_a_cooling_page_only_with_liquid_cooling(su: Analysis) -> None:
    """The SU's diagram on one A4 landscape page; an air-cooled layout has none."""
    (page,) = pages(su, [], sections=chosen("cooling"))
    assert re.search(r"<title>[^<]* · Liquid cooling</title>", page)
    assert 'width="297mm" height="210mm"' in page and "one CDU lost 1,500.0 kW" in page
    air = Analysis(load_path(ROOT / "layouts" / "starter-4x-a6000.toml"))
    assert pages(air, [], sections=chosen("cooling")) == []
