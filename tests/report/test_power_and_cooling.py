"""The report's power and cooling sections: each rack with one feed side lost, and each CDU
group's N+1 margin."""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis


def test_report_shows_one_side_lost_and_the_cdu_groups_n_plus_one_margin() -> None:
    from rackdesigner.layout_io.document import load
    from rackdesigner.report.report import build, to_text
    from tests.conftest import ROOT

    document = load(ROOT / "layouts" / "training-128.toml")
    report = build(Analysis(document.layout))
    a01 = next(r for r in report["power"]["racks"] if r["rack"] == "a01")
    side = 415 * 32 * 0.8 * 3**0.5
    assert a01["all_sides"] == pytest.approx(4 * side)
    assert a01["one_side_lost"] == pytest.approx(3 * side)
    (group,) = report["cooling"]["cdus"]
    assert group["cdus"] == ["a06-cdu", "a07-cdu"]
    assert group["n_plus_one"] == pytest.approx(750e3)
    assert group["margin"] == pytest.approx(750e3 - group["load"])
    text = to_text(report)
    assert "one side lost" in text
    assert "CDU group a06-cdu + a07-cdu" in text and "N+1 margin 649 kW" in text
