"""The inspector's liquid-loop lines (design/liquid_text.py) and the summary's loops
(report/summary.py ``loop_summaries``), worked by hand."""

from __future__ import annotations

from rackdesigner.analysis import Analysis
from rackdesigner.design.facts_text import facts_lines
from rackdesigner.design.liquid_text import device_lines, rack_lines
from rackdesigner.edit import Session
from rackdesigner.layout_io import load_path
from rackdesigner.report.report import build
from rackdesigner.report.summary import loop_summaries
from tests.conftest import ROOT

RULES = ROOT / "tests" / "rules"


def _analysis(code: str, which: str = "fires") -> Analysis:
    return Analysis(load_path(RULES / code / f"{which}.toml"))


def test_the_su_rack_its_cdu_its_door_and_a_tray() -> None:
    """GB200 SU rack a04: its group of 3 CHx750 (750 kW at 5 K) on fws-1 (W32: 32.0 °C);
    one lost 1,500 − 837.6 = 662.4 kW; coolant 32 + 5 = 37.0 °C out, 47.0 °C back; the
    rack's cold plates 104.705 kW × 1.5 L/min per kW = 157 L/min; its door takes
    20.1 kW to chw-1. A compute tray: 6,667 W × 0.85 = 5.7 kW, 8.5 L/min."""
    session = Session(load_path(ROOT / "layouts" / "gb200-nvl72-su.toml"))
    lines = facts_lines(session, ("rack", "a04"))
    start = lines.index("CDUs a01-cdu1 +2")
    tail = lines[start : start + 6]
    assert tail == [
        "CDUs a01-cdu1 +2",
        "loop fws-1 · 32.0 °C",
        "margin 662.4 kW, 1 lost",
        "coolant 37.0→47.0 °C",
        "flow 157 L/min",
        "door 20.1 kW → chw-1",
    ]
    assert all(len(line) <= 26 for line in tail)  # the inspector's width at 80x24
    assert lines[start + 6] == "NVLink domain nvl-a04"  # after the loop: first in view
    assert facts_lines(session, ("device", "a01-cdu1"))[2:] == [
        "loop fws-1 · 32.0 °C",
        "750.0 kW at 5 K",
        "margin 662.4 kW, 1 lost",
        "coolant 37.0→47.0 °C",
    ]
    assert facts_lines(session, ("device", "a04-door"))[2:] == [
        "loop chw-1 · 18.0 °C",
        "capacity 75.0 kW",
    ]
    tray = facts_lines(session, ("device", "a04-c01"))
    assert "cold plates 5.7 kW" in tray and "coolant 8.5 L/min" in tray
    assert rack_lines(session.analysis, session.analysis.racks[0]) == []  # a01: air, no CDU


def test_an_unrated_cdu_a_cdu_on_no_loop_and_a_layout_without_loops() -> None:
    """COOL012: c1's setpoint 33 °C on 30 °C water is a 3 K approach, below its 5 K
    rating: not rated. COOL011: the lone CHx80 on no loop; one lost leaves 0 of 16 kW.
    COOL009's silent layout declares no loop: no loop line at all."""
    analysis = _analysis("COOL012")
    rack = analysis.racks[0]
    assert rack_lines(analysis, rack)[:3] == [
        "CDUs c1",
        "loop fws · 30.0 °C",
        "not rated at 3 K",
    ]
    assert device_lines(analysis, analysis.device_by_id["c1"])[1] == "not rated at 3 K"
    analysis = _analysis("COOL011")
    lines = rack_lines(analysis, analysis.racks[0])
    assert lines[1:3] == ["✖ CDUs on no loop", "✖ margin -16.0 kW, 1 lost"]
    analysis = _analysis("COOL009", "silent")
    lines = [line for rack in analysis.racks for line in rack_lines(analysis, rack)]
    assert lines and not any(line.startswith(("loop", "✖ CDUs on no")) for line in lines)


def test_the_summarys_loops_hold_their_groups() -> None:
    """COOL011: the group's CDU hangs on no loop, so it is listed under a loop of its
    own (None) after the layout's two; its heat 16 kW, one lost 0 − 16 = −16 kW."""
    analysis = _analysis("COOL011")
    loops = loop_summaries(build(analysis, network=False, cords=False).get("liquid_loops"))
    assert [loop.loop for loop in loops] == ["fws", "chw", None]
    (group,) = loops[-1].groups
    assert group.cdus == ["c1"] and group.heat == 16_000
    assert group.margin_one_lost == -16_000
    assert loop_summaries(None) == []
