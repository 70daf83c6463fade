"""What-if on rack-scale parts, each case worked by hand in its docstring.

The layouts declare their own tray, shelf and CDU figures (``[catalog]`` tables), so the
arithmetic holds whatever the built-in catalog's NVL72 figures are:

- compute tray ``t-compute``: 4 GPUs, 6 kW, 80 % of it to cold plates; switch tray
  ``t-switch``: 1 kW, 80 % to cold plates. 18 + 9 of them: 18 x 6 + 9 x 1 = 117 kW of DC.
- power shelf ``t-shelf``: 6 PSUs of 5.5 kW, all 6 needed: 33 kW of DC, one AC input.
- feeds: 415 V 3-phase; 125 A gives 415 x 125 x 0.8 x sqrt(3) = 71.88 kW usable, 63 A
  36.23 kW. Eight shelves over feeds A1, A2, B1, B2 in order: s1 A1, s2 A2, s3 B1, s4 B2,
  s5 A1, s6 A2, s7 B1, s8 B2 (four on each side).
"""

from __future__ import annotations

import math

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.failures import rack_power
from rackdesigner.layout_io.document import loads
from rackdesigner.whatif import WhatIf, parse_failure, what_if
from tests.builders import HEADER

CATALOG = """
[catalog.t-compute]
kind = "gpu-node"
name = "test compute tray"
height = "1 U"
power = "6 kW"
gpu = "gb200-b200"
gpus = 4
liquid_fraction = 0.8
nvl_domain = "nvl72"
ports = [ { name = "ib", count = 1, speed = "400 Gbps", tech = "infiniband", role = "compute" } ]

[catalog.t-switch]
kind = "other"
name = "test NVLink switch tray"
height = "1 U"
power = "1 kW"
liquid_fraction = 0.8
nvl_domain = "nvl72"
nvl_role = "switch"

[catalog.t-shelf]
kind = "other"
name = "test power shelf"
height = "1 U"
psus = 6
psus_required = 6
psu_rating = "5.5 kW"
dc_voltage = "48 V"

[catalog.t-busbar]
kind = "other"
name = "test busbar"
height = "0 U"
busbar_current = "3000 A"

[catalog.t-cdu]
kind = "cdu"
name = "test CDU"
height = "42 U"
power = "0 W"
capacity = "100 kW"

[catalog.t-cdu-small]
kind = "cdu"
name = "test CDU, small"
height = "42 U"
power = "0 W"
capacity = "60 kW"

[catalog.t-door]
kind = "rear-door"
name = "test rear door"
height = "0 U"
power = "0 W"
capacity = "30 kW"
"""

TRAYS_DC = 18 * 6000.0 + 9 * 1000.0  # 117 kW
SHELF = 6 * 5500.0  # 33 kW
USABLE_125 = 415 * 125 * 0.8 * math.sqrt(3)  # 71.88 kW
USABLE_63 = 415 * 63 * 0.8 * math.sqrt(3)  # 36.23 kW


def nvl_rack(rid: str, slot: int, *, amps: int = 125, cdu: str = "", door: str = "") -> str:
    """An NVL72-like rack: 8 shelves, a busbar, 18 compute and 9 switch trays."""
    feeds = ",\n".join(
        f'    {{ id = "{rid}-{f}", side = "{f[0]}", voltage = "415 V", phases = 3, '
        f'current = "{amps} A" }}'
        for f in ("A1", "A2", "B1", "B2")
    )
    text = (
        f'[[racks]]\nid = "{rid}"\nrow = "A"\nslot = {slot}\ncooling = "liquid"\n'
        f'nvlink_domain = "nvl-{rid}"\n'
    )
    text += f'cdu = "{cdu}"\n' if cdu else ""
    text += f'door = "{door}"\n' if door else ""
    text += f"feeds = [\n{feeds},\n]\n"
    devices = [(f"{rid}-s{n}", "t-shelf") for n in range(1, 9)]
    devices += [(f"{rid}-c{n:02d}", "t-compute") for n in range(1, 19)]
    devices += [(f"{rid}-w{n}", "t-switch") for n in range(1, 10)]
    for position, (ident, model) in enumerate(devices, 1):
        text += f'\n[[racks.devices]]\nid = "{ident}"\nmodel = "{model}"\nposition = {position}\n'
    text += f'\n[[racks.devices]]\nid = "{rid}-bus"\nmodel = "t-busbar"\n'
    if door:
        text += f'\n[[racks.devices]]\nid = "{door}"\nmodel = "t-door"\n'
    return text + "\n"


def cdu_rack(rid: str, slot: int, cdus: list[tuple[str, str]]) -> str:
    text = (
        f'[[racks]]\nid = "{rid}"\nrow = "B"\nslot = {slot}\n'
        'feeds = [\n    { id = "' + rid + '-A", side = "A", voltage = "415 V", phases = 3, '
        'current = "32 A" },\n    { id = "' + rid + '-B", side = "B", voltage = "415 V", '
        'phases = 3, current = "32 A" },\n]\n'
    )
    for ident, model in cdus:
        text += f'\n[[racks.devices]]\nid = "{ident}"\nmodel = "{model}"\nposition = 1\n'
    return text + "\n"


def analysis(text: str, capping: bool = False) -> Analysis:
    workload = "[workload]\nkind = 'training'\npower_capping = true\n\n" if capping else ""
    return Analysis(loads(HEADER + workload + CATALOG + text).layout)


def fails(*texts: str) -> list:
    return [parse_failure(t) for t in texts]


@pytest.fixture(scope="module")
def rack() -> Analysis:
    return analysis(nvl_rack("r1", 1))


def test_a_lost_side_takes_its_shelves_and_leaves_the_others_whole(rack: Analysis) -> None:
    """side:A kills the shelves on A1 and A2 (s1, s2, s5, s6); s3, s4, s7, s8 on B carry the
    trays: 4 x 33 = 132 kW for 117 kW, 29.25 kW each, 58.5 kW on each B feed of 71.88 kW
    usable. Nothing else is lost: no tray down, no shelf "degraded" (a shelf's PSUs are not
    split over the sides: it has one AC input)."""
    impact = what_if(rack, fails("side:A"), findings=False)
    down = {d.id: d.why for d in impact.down}
    assert down == {
        "r1-s1": "its feed r1-A1 is dead",
        "r1-s2": "its feed r1-A2 is dead",
        "r1-s5": "its feed r1-A1 is dead",
        "r1-s6": "its feed r1-A2 is dead",
    }
    assert impact.degraded == [] and impact.power == [] and impact.gpus_lost == 0
    power = rack_power(rack.racks[0], {0, 1})
    assert power.shelves_live == 4
    assert power.shelf_draw == pytest.approx(TRAYS_DC / 4)  # 29.25 kW
    assert power.feed_load[2] == pytest.approx(TRAYS_DC / 2)  # 58.5 kW on r1-B1
    assert power.feed_load[3] == pytest.approx(TRAYS_DC / 2)


def test_a_dead_feeds_shelves_are_not_spread_over_the_live_feeds(rack: Analysis) -> None:
    """Three of the four feeds lost (A1, A2, B1): the two shelves on B2 (s4, s8) are left,
    2 x 33 = 66 kW for 117 kW of trays: the trays are down (72 GPUs), not "3 on A + 5 on B"
    and not 0 lost with a shortfall line. B2 carries nothing then."""
    impact = what_if(rack, fails("feed:r1-A1", "feed:r1-A2", "feed:r1-B1"), findings=False)
    assert impact.gpus_down == 72
    assert impact.gpus_degraded == 0
    trays = [d for d in impact.down if d.id.startswith(("r1-c", "r1-w"))]
    assert len(trays) == 27
    assert {d.why for d in trays} == {"2 power shelves left deliver 66 kW for the trays' 117 kW"}
    shelves = sorted(d.id for d in impact.down if d.id.startswith("r1-s"))
    assert shelves == ["r1-s1", "r1-s2", "r1-s3", "r1-s5", "r1-s6", "r1-s7"]


def test_power_capping_degrades_instead() -> None:
    """The same loss with ``[workload] power_capping = true``: the 27 trays run capped on
    the 66 kW the two shelves deliver (72 GPUs degraded, none down); B2 carries 66 kW."""
    capped = analysis(nvl_rack("r1", 1), capping=True)
    impact = what_if(capped, fails("feed:r1-A1", "feed:r1-A2", "feed:r1-B1"), findings=False)
    assert impact.gpus_down == 0
    assert impact.gpus_degraded == 72
    assert impact.gpus_lost == 72  # down + degraded + cut off
    (tray,) = [d for d in impact.degraded if d.id == "r1-c01"]
    assert tray.why == "power-capped: 2 power shelves left deliver 66 kW for the trays' 117 kW"


def test_a_feed_over_its_usable_capacity_trips_and_takes_the_rest() -> None:
    """On 63 A feeds (36.23 kW usable) side:A leaves B1 and B2 two shelves each at
    117 / 4 = 29.25 kW: 58.5 kW on each, over 36.23 kW: both trip, no shelf is left and
    the trays are down (72 GPUs). Both trips are listed as the cause."""
    small = analysis(nvl_rack("r1", 1, amps=63))
    impact = what_if(small, fails("side:A"), findings=False)
    assert impact.gpus_down == 72
    assert sorted((p.feed, p.capped) for p in impact.power) == [
        ("r1-B1", False),
        ("r1-B2", False),
    ]
    (b1, _) = sorted(impact.power, key=lambda p: p.feed)
    assert b1.load == pytest.approx(TRAYS_DC / 2)
    assert b1.capacity == pytest.approx(USABLE_63)
    assert {d.why for d in impact.down if d.id == "r1-c01"} == {"no power shelf left"}


def test_a_lost_side_uses_the_redundancy_up(rack: Analysis) -> None:
    """side:A's findings: no capacity error (132 kW of shelves for 117 kW, 58.5 kW per B
    feed of 71.88 kW), and two "redundancy lost" warnings: PWR001 (losing side B next takes
    the 27 trays, 72 GPUs, down) and PWR016 (4 shelves left: one more lost leaves
    3 x 33 = 99 kW for 117 kW). PWR019 is not re-applied to the failed layout."""
    impact = what_if(rack, fails("side:A"))
    found = {(d.code, d.severity): d.message for d in impact.findings or ()}
    assert set(found) == {("PWR001", "warning"), ("PWR016", "warning")}
    assert found["PWR001", "warning"].startswith("redundancy lost: with side A lost")
    assert "losing side B next would take 27 devices (72 GPUs) down" in found["PWR001", "warning"]
    assert "the 4 left deliver 132 kW" in found["PWR016", "warning"]
    assert "one more lost would leave 99 kW" in found["PWR016", "warning"]


CDU_LAYOUT = (
    nvl_rack("x1", 1, cdu="", door="x1-door").replace(
        'cooling = "liquid"\n', 'cooling = "liquid"\ncdu = ["cx1", "cx2"]\n', 1
    )
    + nvl_rack("y1", 2, door="y1-door").replace(
        'cooling = "liquid"\n', 'cooling = "liquid"\ncdu = ["cy1", "cy2"]\n', 1
    )
    + cdu_rack("k1", 1, [("cx1", "t-cdu")])
    + cdu_rack("k2", 2, [("cx2", "t-cdu")])
    + cdu_rack("k3", 3, [("cy1", "t-cdu-small")])
    + cdu_rack("k4", 4, [("cy2", "t-cdu-small")])
)


@pytest.fixture(scope="module")
def loops() -> Analysis:
    return analysis(CDU_LAYOUT)


def test_a_loop_short_of_capacity_trips_its_racks(loops: Analysis) -> None:
    """Rack y1's cold plates take 0.8 x 117 = 93.6 kW; its rear door takes the other
    23.4 kW to chilled water (under its 30 kW), so the loop carries 93.6 kW, not 117. With
    cy1 lost, cy2's 60 kW is short of 93.6 kW: y1 trips, its 27 trays (72 GPUs) down."""
    impact = what_if(loops, fails("cdu:cy1"), findings=False)
    (loss,) = impact.cooling
    assert loss.heat == pytest.approx(0.8 * TRAYS_DC)
    assert loss.capacity == pytest.approx(60000.0)
    assert loss.tripped and loss.racks == ("y1",)
    assert impact.gpus_down == 72
    tray = next(d for d in impact.down if d.id == "y1-c01")
    assert tray.why.startswith("thermal trip: CDU cy1 lost")


def test_each_cdu_ranks_the_ones_that_take_racks_down_first(loops: Analysis) -> None:
    """cx1 or cx2 alone carries x1's 93.6 kW (100 kW): nothing lost. cy1 or cy2 alone
    (60 kW) does not carry y1's: 72 GPUs each. They rank first."""
    ranked = WhatIf(loops).rank("cdu")
    assert [(str(i.failures[0]), i.gpus_lost) for i in ranked] == [
        ("cdu:cy1", 72),
        ("cdu:cy2", 72),
        ("cdu:cx1", 0),
        ("cdu:cx2", 0),
    ]


def test_a_failed_cdu_reads_as_failed_not_missing(loops: Analysis) -> None:
    """cx1 lost: x1's loop runs on cx2 (93.6 kW of 100 kW): no COOL003 "names no device",
    one COOL009 "redundancy lost" (losing cx2 next leaves 0 W)."""
    impact = what_if(loops, fails("cdu:cx1"))
    assert [(d.code, d.severity) for d in impact.findings or ()] == [("COOL009", "warning")]
    (finding,) = impact.findings or ()
    assert finding.message.startswith("redundancy lost: with cx1 failed the group runs on cx2")
    assert "losing cx2 next would leave 0 W" in finding.message


def test_power_capping_is_a_v14_workload_key() -> None:
    """Optional, false by default, written back as read, in the JSON schema."""
    from rackdesigner.layout_io import dumps, load_text
    from rackdesigner.layout_io.json_schema import layout_schema

    text = HEADER + "[workload]\nkind = 'training'\npower_capping = true\n"
    layout = load_text(text)
    assert layout.workload is not None and layout.workload.power_capping is True
    assert load_text(dumps(layout)) == layout
    assert "power_capping = true" in dumps(layout)
    plain = load_text(HEADER + "[workload]\nkind = 'training'\n")
    assert plain.workload is not None and plain.workload.power_capping is None
    workload = layout_schema()["properties"]["workload"]["properties"]
    assert workload["power_capping"]["type"] == "boolean"
