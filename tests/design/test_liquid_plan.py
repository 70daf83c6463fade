"""(v1.4) ``new`` and the templates write the water loops a hall needs, sized for what it
puts on them, and the liquid-loop rules pass on what they write. The figures are worked
by hand from docs/rack-scale.md's (a GB200 rack's cold plates take 104,705 W, its rear
door 20,097 W with its own 1 kW of fans)."""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.check.engine import check
from rackdesigner.design.templates import NewOptions, build
from rackdesigner.report.report import build as report_build

LOOP_RULES = [f"COOL{n:03d}" for n in range(11, 21)] + ["COOL003", "COOL006", "COOL009"]


def test_the_gb200_su_gets_a_facility_and_a_chilled_water_loop_sized_for_it():
    """One SU: 8 racks x 104,705 W = 837.6 kW of cold plates on fws-1 (W32); plant 837.6 x
    1.1 = 921.4 kW, to 930 kW; flow 921,360 W / (4.154 MJ/m³K x 10 K) = 0.02218 m³/s =
    1,330.8 L/min, to 1,340. The 8 rear doors take 8 x 20.1 = 160.8 kW on chw-1 (18 °C):
    176.9 kW to 180 kW, 255.5 L/min to 260. The doors take every rack's air heat, so the
    room's cooling is not stated (no liquid rack leaves it any)."""
    layout = build(NewOptions(template="gb200-superpod", sus=1)).layout
    fws, chw = layout.cooling_loops
    assert (fws.id, fws.ashrae_class, fws.supply) == ("fws-1", "W32", 32.0)
    assert (float(fws.capacity or 0), str(fws.flow)) == (930e3, "1340 L/min")
    assert fws.devices == ["a01-cdu1", "a02-cdu1", "a03-cdu1"]
    assert (chw.loop_kind, chw.supply, float(chw.capacity or 0), str(chw.flow)) == (
        "chilled",
        18.0,
        180e3,
        "260 L/min",
    )
    assert len(chw.devices or []) == 8
    assert layout.site is not None and layout.site.cooling_capacity is None
    _, found = check(layout, select=LOOP_RULES)
    assert [d for d in found if d.code in LOOP_RULES] == []
    assert "Liquid loops (v1.4)" in (layout.comment or "")
    assert "each door's coil takes up to 20.1 kW" in (layout.comment or "")


def test_the_report_says_where_each_nvl72_rack_s_air_heat_goes():
    """The report's liquid_loops: the CDU group carries 837.6 kW on 3 x 750 kW (at their
    rated 5 K), 1.5 MW with one lost, margin 662.4 kW; its cold plates need 837.6 x 1.5 =
    1,256.4 L/min; and each NVL72 rack sends its 20.1 kW of air heat through its rear door
    to chilled water."""
    report = report_build(Analysis(build(NewOptions(template="gb200-superpod", sus=1)).layout))
    section = report["liquid_loops"]
    (group,) = section["cdu_groups"]
    assert group["heat"] == pytest.approx(837_640, rel=1e-4)
    assert group["capacity"] == 2.25e6 and group["capacity_one_lost"] == 1.5e6
    assert group["flow_needed"] * 60000 == pytest.approx(1256.46, rel=1e-4)
    assert group["supply_temperature"] == 37.0
    doors = [r for r in section["air_residue"] if r["door"]]
    assert len(doors) == 8
    assert all(r["door_heat"] == pytest.approx(20_097, rel=1e-3) for r in doors)
    assert all(r["door_loop"] == "chw-1" and r["nowhere"] == 0 for r in doors)


@pytest.mark.parametrize("template", ["gb300-superpod"])
def test_the_gb300_su_passes_the_loop_rules(template: str):
    layout = build(NewOptions(template=template, sus=1)).layout
    assert [loop.id for loop in layout.cooling_loops] == ["fws-1", "chw-1"]
    _, found = check(layout, select=LOOP_RULES)
    assert [d for d in found if d.code in LOOP_RULES] == []


def test_a_cold_plate_cluster_states_the_room_its_air_heat_needs():
    """16 liquid-cooled HGX H100 (0.7 to cold plates): their racks leave 30 % in the air,
    which no door takes: the room's cooling_capacity is stated (COOL019 stays silent)."""
    layout = build(NewOptions(gpus=128, gpu="h100-sxm")).layout
    assert [loop.id for loop in layout.cooling_loops] == ["fws-1"]
    assert layout.site is not None and layout.site.cooling_capacity is not None
    _, found = check(layout, select=LOOP_RULES)
    assert [d for d in found if d.code in LOOP_RULES] == []


def test_an_air_cluster_gets_no_loop():
    layout = build(NewOptions(gpus=16, gpu="h100-sxm", cooling="air")).layout
    assert layout.cooling_loops == []


def test_the_report_text_is_the_one_docs_liquid_cooling_md_shows():
    """docs/liquid-cooling.md's worked example prints the bundled SU's report section as
    it is: the same lines, figure for figure."""
    from rackdesigner.layout_io.reader import load_path
    from rackdesigner.report.report import to_text
    from tests.conftest import ROOT

    layout = load_path(ROOT / "layouts" / "gb200-nvl72-su.toml")
    text = to_text(report_build(Analysis(layout)))
    section = text[text.index("Liquid loops:") :].split("\n\n")[0].strip("\n")
    doc = (ROOT / "docs" / "liquid-cooling.md").read_text(encoding="utf-8")
    start = doc.index("```\nLiquid loops:") + 4
    assert doc[start : doc.index("```", start)].strip("\n") == section
