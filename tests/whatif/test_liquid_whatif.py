"""What-if on the liquid loop (docs/whatif.md, Cooling): CDUs judged at the approach they
run at, a water loop lost, warmer facility water. Each case worked by hand in its
docstring.

The layout declares its own figures: ``t-node`` draws 10 kW, 80 % of it to cold plates
(8 kW), 8 GPUs; rack r1 holds 6 of them: 48 kW of cold plates, 48 GPUs. ``t-cdu`` is rated
by a table, 40 kW at a 3 K approach and 60 kW at 5 K (interpolated between); ``t-cdu-pumps``
is the same with pumps of 60 L/min and a secondary it takes back at 46 °C at most. Two of
them, c1 and c2 (rack c01), cool r1, both on the facility loop ``fws`` at 30 °C. Without a
setpoint a CDU makes the loop's supply plus its lowest rated approach: 33 °C, a 3 K
approach, 40 kW each.
"""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.layout_io.document import loads
from rackdesigner.whatif import WhatIf, parse_failure, what_if
from rackdesigner.whatif.render import impact_text
from tests.builders import HEADER

CATALOG = """
[catalog.t-node]
kind = "gpu-node"
name = "test liquid node"
height = "4 U"
power = "10 kW"
gpu = "h100-sxm"
gpus = 8
liquid_fraction = 0.8

[catalog.t-cdu]
kind = "cdu"
name = "test CDU"
height = "4 U"
power = "0 W"
capacity = "60 kW"
capacity_table = [["3 K", "40 kW"], ["5 K", "60 kW"]]

[catalog.t-cdu-pumps]
kind = "cdu"
name = "test CDU with its pumps"
height = "4 U"
power = "0 W"
capacity = "60 kW"
capacity_table = [["3 K", "40 kW"], ["5 K", "60 kW"]]
pump_flow = "60 L/min"
max_return_temperature = "46 °C"
"""


def layout(setpoint: str | None = None, nodes: int = 6, cdu: str = "t-cdu") -> Analysis:
    devices = "".join(
        f'\n[[racks.devices]]\nid = "n{k}"\nmodel = "t-node"\nposition = {1 + 4 * k}\n'
        for k in range(nodes)
    )
    held = f'supply_setpoint = "{setpoint}"\n' if setpoint else ""
    cdus = "".join(
        f'\n[[racks.devices]]\nid = "{c}"\nmodel = "{cdu}"\nposition = {1 + 4 * k}\n{held}'
        for k, c in enumerate(("c1", "c2"))
    )
    text = f"""{HEADER}{CATALOG}
[[racks]]
id = "r1"
row = "A"
slot = 1
cooling = "liquid"
cdu = ["c1", "c2"]
{devices}
[[racks]]
id = "c01"
row = "A"
slot = 2
{cdus}
[[cooling.loops]]
id = "fws"
supply_temperature = "30 °C"
devices = ["c1", "c2"]
"""
    return Analysis(loads(text).layout)


def fails(*texts: str) -> list:
    return [parse_failure(t) for t in texts]


def test_a_cdu_lost_is_judged_at_the_approach_the_other_runs_at() -> None:
    """At a 3 K approach c2 carries 40 kW, less than r1's 48 kW of cold plates: r1's 6 nodes
    trip, 48 GPUs down. (Its nominal 60 kW, the capacity at 5 K, would carry it: the
    what-if must not read it.)"""
    impact = what_if(layout(), fails("cdu:c1"), findings=False)
    assert impact.gpus_down == 48
    (loss,) = impact.cooling
    assert (loss.racks, loss.cause, loss.tripped) == (("r1",), "CDU c1 lost", True)
    assert (loss.heat, loss.capacity) == (pytest.approx(48e3), pytest.approx(40e3))
    node = next(d for d in impact.down if d.id == "n0")
    assert node.why == "thermal trip: CDU c1 lost, cold plates 48 kW on 40 kW"


def test_a_water_loop_lost_stops_its_cdus() -> None:
    """loop:fws: c1 and c2 stop (down, no GPUs); r1's 48 kW have no CDU left: its nodes
    trip, 48 GPUs down."""
    impact = what_if(layout(), fails("loop:fws"), findings=False)
    assert {d.id: d.why for d in impact.down if d.kind == "cdu"} == {
        "c1": "its loop fws lost",
        "c2": "its loop fws lost",
    }
    assert impact.gpus_down == 48
    assert impact.cooling[0].cause == "water loop fws lost"
    assert [str(i.failures[0]) for i in WhatIf(layout()).rank("loop")] == ["loop:fws"]


def test_warmer_water_shrinks_the_approach() -> None:
    """Set to 35 °C on 30 °C water each CDU runs at 5 K: 60 kW, two 120 kW. 1 K warmer water
    leaves 4 K: 40 + (60 - 40) x (4 - 3) / (5 - 3) = 50 kW each, still 48 kW with one
    lost. 2 K warmer leaves 3 K: 40 kW each; with c1 lost c2's 40 kW is short of 48 kW: 48
    GPUs down. Without a setpoint the CDUs hold 33 °C: 1 K warmer leaves 2 K, below their
    table: not rated, not judged (48 GPUs), and the failed layout says so (COOL012)."""
    held = layout(setpoint="35 °C")
    assert what_if(held, fails("warmer-water:1", "cdu:c1"), findings=False).gpus_lost == 0
    hot = what_if(held, fails("warmer-water:2K", "cdu:c1"), findings=False)
    assert (hot.gpus_down, hot.warmer) == (48, 2.0)
    assert hot.cooling[0].cause == "CDU c1 lost, facility water 2 K warmer"
    assert hot.cooling[0].capacity == pytest.approx(40e3)
    unrated = what_if(layout(), fails("warmer-water:1 K"))
    ((racks, cdus, approach, gpus),) = [
        (n.racks, n.cdus, n.approach, n.gpus) for n in unrated.not_rated
    ]
    assert (racks, cdus, approach, gpus) == (("r1",), ("c1", "c2"), pytest.approx(2.0), 48)
    assert unrated.gpus_lost == 0 and unrated.failures == []
    assert unrated.findings is not None
    assert {(d.code, d.entity) for d in unrated.findings} == {
        ("COOL012", "device c1"),
        ("COOL012", "device c2"),
    }
    text = impact_text(unrated)
    assert text.startswith("What if the facility water is 1 K warmer:")
    assert "not rated at a 2 K approach (rated 40 kW at 3 K)" in text


def test_each_cdu_on_warmer_water() -> None:
    """On 35 °C setpoints, 2 K warmer: each CDU lost leaves the other 40 kW for 48 kW: both
    rank with 48 GPUs down. 1 K warmer: 50 kW each, neither loses anything."""
    held = layout(setpoint="35 °C")
    engine = WhatIf(held)
    hot = engine.rank("cdu", given=fails("warmer-water:2"))
    assert [(str(i.failures[0]), i.gpus_down, i.warmer) for i in hot] == [
        ("cdu:c1", 48, 2.0),
        ("cdu:c2", 48, 2.0),
    ]
    mild = engine.rank("cdu", given=fails("warmer-water:1"))
    assert [i.gpus_lost for i in mild] == [0, 0]


def test_less_pump_flow_throttles_on_a_warm_return() -> None:
    """t-cdu-pumps set to 35 °C (5 K, 60 kW each): r1's 48 kW need 48 x 1.5 = 72 L/min; both
    pumps give 120: the PG25 (4.006 MJ/m³K) warms 48,000 / (72/60,000 x 4.006e6) = 9.985 K, back at
    44.98 °C, within the CDUs' 46 °C. With c1 lost one pump gives 60 L/min: 48,000 /
    (60/60,000 x 4.006e6) = 11.98 K, back at 46.98 °C: above 46 °C, r1's nodes throttle:
    48 GPUs degraded, none down (c2's 60 kW carries the 48 kW)."""
    pumped = layout(setpoint="35 °C", cdu="t-cdu-pumps")
    assert what_if(pumped, [], findings=False).gpus_lost == 0
    impact = what_if(pumped, fails("cdu:c1"), findings=False)
    assert (impact.gpus_down, impact.gpus_degraded) == (0, 48)
    assert impact.degraded[0].why == "throttled: secondary return 47.0 °C above CDU c2's 46 °C"
    assert "48 degraded (throttled)" in impact_text(impact)


def test_warmer_water_and_bad_deltas_are_refused_clearly() -> None:
    from rackdesigner.whatif import PartError

    assert str(parse_failure("warmer-water:5")) == "warmer-water:5 K"
    assert str(parse_failure("warmer-water: 5 K")) == "warmer-water:5 K"
    for bad, said in (("-2", "negative"), ("0", "more than 0"), ("5 kW", "is a power")):
        with pytest.raises(PartError, match=said):
            parse_failure(f"warmer-water:{bad}")
    with pytest.raises(PartError, match=r"no loop nope in the layout; its loops: fws"):
        what_if(layout(), fails("loop:nope"))


def test_a_chilled_loop_lost_stops_its_in_row_cooler() -> None:
    """tests/rules/COOL020/silent.toml: racks a01 and a02 (5 kW of air heat each) send it
    to in-row cooler ir1 (10 kW). On a chilled loop ``chw`` that is lost, ir1 stops: the
    10 kW go to the room (a shortfall, no GPU lost), whose 5 kW of air handling they
    exceed (before, the room had 10 - 10 = 0 W of it)."""
    from tests.conftest import ROOT

    text = (ROOT / "tests" / "rules" / "COOL020" / "silent.toml").read_text()
    text = text.replace(
        'name = "COOL020 silent"\n', 'name = "t"\n\n[site]\ncooling_capacity = "5 kW"\n'
    )
    text += (
        '\n[[cooling.loops]]\nid = "chw"\nkind = "chilled"\nsupply_temperature = "18 °C"\n'
        'devices = ["ir1"]\n'
    )
    impact = what_if(Analysis(loads(text).layout), fails("loop:chw"), findings=False)
    assert [(d.id, d.why) for d in impact.down] == [("ir1", "its loop chw lost")]
    inrow, room = impact.cooling
    assert (inrow.racks, inrow.cause, inrow.heat, inrow.capacity) == (
        ("a01", "a02"),
        "in-row cooler ir1 lost",
        pytest.approx(10e3),
        0.0,
    )
    assert (room.cause, room.heat, room.capacity) == ("room air", pytest.approx(10e3), 5e3)
    assert impact.gpus_lost == 0
