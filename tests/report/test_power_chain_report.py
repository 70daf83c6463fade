"""``report``'s power-chain section: the JSON ``power_chain`` list (kW) and the text table."""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.layout_io.document import load
from rackdesigner.report.report import build, to_text
from tests.conftest import ROOT

FALSE_2N = ROOT / "tests" / "rules" / "PWR024" / "fires.toml"
DPS = ROOT / "tests" / "rules" / "PWR021" / "fires.toml"


def test_the_json_lists_each_element_with_load_rating_and_worst_failure() -> None:
    """The false-2N hall: 2 racks of 4 DGX H100 (10.2 kW) on ups-a and ups-b, both behind
    ats-1 on utility-1. Each UPS carries half the 81.6 kW, 40.8 kW, of its 200 kW; with
    its twin lost 81.6 kW (margin 118.4 kW); losing either puts 64 GPUs on one path; losing
    the ATS or the utility takes all 64 down."""
    report = build(Analysis(load(FALSE_2N).layout), network=False)
    rows = {row["id"]: row for row in report["power_chain"]}
    assert list(rows) == ["utility-1", "ats-1", "ups-a", "ups-b"]
    ups = rows["ups-a"]
    assert (ups["kind"], ups["load_kw"], ups["rating_kw"]) == ("ups", 40.8, 200.0)
    assert ups["margin_kw"] == pytest.approx(159.2)
    assert ups["worst_failure"] == {
        "failure": "ups:ups-b",
        "name": "ups ups-b",
        "load_kw": 81.6,
        "rating_kw": 200.0,
        "margin_kw": pytest.approx(118.4),
    }
    assert ups["if_lost"]["gpus_one_path"] == 64 and ups["if_lost"]["gpus_down"] == 0
    assert rows["ats-1"]["if_lost"]["gpus_down"] == 64
    assert rows["utility-1"]["worst_failure"] is None
    assert ups["peak_factor"].startswith("1 (none declared")


def test_the_text_table_says_the_peak_factor_and_the_dps_utility() -> None:
    """DPS's shape: the utility carries 8 × 18 × 7,678 W = 1.11 MW of its 750 kW: a margin
    of −356 kW."""
    text = to_text(build(Analysis(load(DPS).layout), network=False))
    assert "Power chain (transient peak factor 1 (none declared" in text
    line = next(x for x in text.splitlines() if x.strip().startswith("utility-1"))
    assert "1.11 MW" in line and "750 kW" in line and "-356 kW" in line


def test_a_layout_without_a_chain_has_an_empty_list_and_no_section() -> None:
    report = build(Analysis(load(ROOT / "layouts" / "training-128.toml").layout), network=False)
    assert report["power_chain"] == []
    assert "Power chain" not in to_text(report)


def test_the_csv_gives_each_elements_figures_in_watts() -> None:
    from rackdesigner.report.report import to_csv

    text = to_csv(build(Analysis(load(FALSE_2N).layout), network=False))
    assert "power,power element ups-a,load,40800.0,W" in text
    assert "power,power element ups-a,rating,200000.0,W" in text
