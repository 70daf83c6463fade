"""Power maths (feed capacity, outlet voltage, line currents) and power rule cases the
one-fires-one-silent fixtures cannot express."""

from __future__ import annotations

import math

import pytest

from rackdesigner.analysis import Analysis, RackFacts
from rackdesigner.check.engine import check
from rackdesigner.layout_io import load_text
from rackdesigner.layout_io.document import loads
from rackdesigner.model.diagnostics import Diagnostic
from tests.builders import HEADER, feed, feeds_line, findings

SQRT3 = math.sqrt(3.0)


def _layout(
    feeds: list[str], devices: list[tuple[str, str | None]], catalog: str = "", rid: str = "a01"
) -> str:
    """One rack; devices are (model, phase) pairs stacked from U1 (0U ones take no position)."""
    text = f'format = 1\nname = "t"\n{catalog}\n[[racks]]\nid = "{rid}"\nrow = "A"\nslot = 1\n'
    if feeds:
        text += feeds_line(*feeds)
    for index, (model, phase) in enumerate(devices, 1):
        text += f'\n[[racks.devices]]\nid = "{rid}-d{index}"\nmodel = "{model}"\n'
        text += f"position = {index * 10 - 9}\n"
        if phase:
            text += f'phase = "{phase}"\n'
    return text


def _rack(text: str) -> RackFacts:
    return Analysis(load_text(text)).racks[0]


def _run(code: str, text: str) -> list[Diagnostic]:
    _, diagnostics = check(load_text(text), select=[code])
    return [d for d in diagnostics if d.code == code]


# A device of exactly 2080 W makes the currents round: 10 A on a 208 V branch.
NODE = '[catalog.node]\nkind = "cpu-node"\nheight = "1 U"\npower = "2080 W"\n'
NODE_415 = '[catalog.node]\nkind = "cpu-node"\nheight = "1 U"\npower = "2400 W"\n'


# -- shared definitions (analysis/) ----------------------------------------------------------


def test_capacity_415v_3phase_63a_uses_exact_sqrt3() -> None:
    rack = _rack(_layout([feed("f", "415 V", 3, "63 A")], []))
    expected = SQRT3 * 415 * 63 * 0.8
    assert expected == pytest.approx(36_227.57, abs=0.01)
    assert rack.feeds[0].capacity == pytest.approx(expected, rel=1e-12)
    assert rack.capacity == pytest.approx(expected, rel=1e-12)


def test_capacity_single_phase_and_feed_derate() -> None:
    rack = _rack(_layout([feed("f", "230 V", 1, "32 A", derate=1.0)], []))
    assert rack.capacity == pytest.approx(230 * 32)
    text = _layout([feed("f", "230 V", 1, "32 A")], [])
    text = text.replace('name = "t"', 'name = "t"\n[rules.thresholds]\nfeed_derate = "90 %"')
    assert _rack(text).capacity == pytest.approx(230 * 32 * 0.9)


def test_sides_take_the_smallest_side_and_unsided_feeds_add_up() -> None:
    sided = _rack(
        _layout(
            [
                feed("a", "415 V", 3, "63 A", side="A"),
                feed("b", "415 V", 3, "32 A", side="B"),
            ],
            [],
        )
    )
    assert sided.redundant
    assert sided.capacity == pytest.approx(SQRT3 * 415 * 32 * 0.8)
    unsided = _rack(_layout([feed("a", "415 V", 3, "63 A"), feed("b", "415 V", 3, "32 A")], []))
    assert not unsided.redundant
    assert unsided.capacity == pytest.approx(SQRT3 * 415 * 95 * 0.8)


@pytest.mark.parametrize(
    ("voltage", "phases", "extra", "outlet"),
    [
        ("415 V", 3, {}, 415 / SQRT3),  # wye: 239.6 V
        ("480 V", 3, {}, 480 / SQRT3),  # wye: 277.1 V
        ("400 V", 3, {}, 400 / SQRT3),  # wye: 230.9 V
        ("208 V", 3, {}, 208.0),  # delta up to 240 V line-to-line
        ("240 V", 3, {}, 240.0),
        ("230 V", 1, {}, 230.0),
        ("480 V", 3, {"outlet_voltage": "240 V"}, 240.0),  # step-down PDU
        ("415 V", 3, {"wiring": "delta"}, 415.0),
    ],
)
def test_outlet_voltage(voltage: str, phases: int, extra: dict[str, str], outlet: float) -> None:
    rack = _rack(_layout([feed("f", voltage, phases, "32 A", **extra)], []))
    assert rack.feeds[0].outlet_voltage == pytest.approx(outlet)


def test_delta_all_load_on_one_pair_loads_its_two_lines_with_the_branch_current() -> None:
    rack = _rack(_layout([feed("f", "208 V", 3, "60 A")], [("node", "L1-L2")], NODE))
    lines = rack.feeds[0].lines
    assert rack.feeds[0].wiring == "delta"
    assert lines["L1"] == pytest.approx(10.0)  # I_12 = 2080 W / 208 V
    assert lines["L2"] == pytest.approx(10.0)
    assert lines["L3"] == pytest.approx(0.0)
    assert rack.feeds[0].imbalance == pytest.approx(1.0)  # mean 6.67 A; L3 is 100 % below it


def test_balanced_delta_line_current_is_sqrt3_times_the_branch_current() -> None:
    devices = [("node", "L1-L2"), ("node", "L2-L3"), ("node", "L3-L1")]
    rack = _rack(_layout([feed("f", "208 V", 3, "60 A")], devices, NODE))
    for line in ("L1", "L2", "L3"):
        assert rack.feeds[0].lines[line] == pytest.approx(SQRT3 * 10.0)
    assert rack.feeds[0].imbalance == pytest.approx(0.0, abs=1e-12)
    spread = _rack(_layout([feed("f", "208 V", 3, "60 A")], [("node", None)] * 3, NODE))
    assert spread.feeds[0].lines == pytest.approx(rack.feeds[0].lines)


def test_delta_two_branches_combine_as_phasors() -> None:
    devices = [("node", "L1-L2"), ("node", "L1-L2"), ("node", "L3-L1")]
    lines = _rack(_layout([feed("f", "208 V", 3, "60 A")], devices, NODE)).feeds[0].lines
    i12, i23, i31 = 20.0, 0.0, 10.0
    assert lines["L1"] == pytest.approx(math.sqrt(i12**2 + i31**2 + i12 * i31))  # 26.46 A
    assert lines["L2"] == pytest.approx(math.sqrt(i12**2 + i23**2 + i12 * i23))
    assert lines["L3"] == pytest.approx(math.sqrt(i23**2 + i31**2 + i23 * i31))


def test_wye_phase_loads_its_line_at_the_line_to_neutral_voltage() -> None:
    rack = _rack(_layout([feed("f", "415 V", 3, "32 A")], [("node", "L1")], NODE_415))
    lines = rack.feeds[0].lines
    assert rack.feeds[0].wiring == "wye"
    assert lines["L1"] == pytest.approx(2400 / (415 / SQRT3))
    assert lines["L2"] == lines["L3"] == 0.0
    spread = _rack(_layout([feed("f", "415 V", 3, "32 A")], [("node", None)], NODE_415))
    for line in ("L1", "L2", "L3"):  # P / (√3 × V_LL) on every line
        assert spread.feeds[0].lines[line] == pytest.approx(2400 / (SQRT3 * 415))


def test_each_side_carries_the_whole_rack_and_unsided_feeds_share_it() -> None:
    devices = [("node", None)] * 2
    sided = _rack(
        _layout(
            [
                feed("a", "230 V", 1, "32 A", side="A"),
                feed("b", "230 V", 1, "32 A", side="B"),
            ],
            devices,
            NODE,
        )
    )
    for facts in sided.feeds:
        assert facts.load == pytest.approx(4160.0)
        assert facts.lines == {"L": pytest.approx(4160 / 230)}
    shared = _rack(
        _layout([feed("a", "230 V", 1, "32 A"), feed("b", "230 V", 1, "32 A")], devices, NODE)
    )
    for facts in shared.feeds:
        assert facts.load == pytest.approx(2080.0)


# -- rules -------------------------------------------------------------------------------------


def test_pwr001_names_the_weaker_side() -> None:
    feeds = [
        feed("a", "415 V", 3, "63 A", side="A"),
        feed("b1", "415 V", 3, "16 A", side="B"),
        feed("b2", "415 V", 3, "16 A", side="B"),
    ]
    found = _run("PWR001", _layout(feeds, [("dgx-h100", None), ("dgx-h100", None)]))
    assert len(found) == 1
    assert found[0].message == (
        "load 20.4 kW exceeds usable feed capacity 18.4 kW; side B alone "
        "must carry it: 2 × 415 V 3-phase 16 A × 0.8"
    )
    assert found[0].values["capacity"] == pytest.approx(SQRT3 * 415 * 32 * 0.8)


def test_pwr001_no_feed_with_only_unknown_draw_and_silent_for_passive_racks() -> None:
    shelf = '[catalog.shelf]\nkind = "other"\nheight = "1 U"\n'
    found = _run("PWR001", _layout([], [("shelf", None)], shelf))
    assert [d.message for d in found] == ["has no feed for its 1 powered device (load unknown)"]
    assert _run("PWR001", _layout([], [("blank-1u", None), ("patch-panel-1u", None)])) == []


def test_pwr002_threshold_override() -> None:
    text = _layout([feed("f", "208 V", 3, "60 A")], [("dgx-h100", None)])
    assert _run("PWR002", text) == []
    text = text.replace(
        'name = "t"', 'name = "t"\n[rules.thresholds]\ngpu_feed_min_voltage = "400 V"'
    )
    found = _run("PWR002", text)
    assert [d.entity for d in found] == ["rack a01 feed f"]
    # v1.1: the outlet voltage (208 V delta: 208 V) against the minimum
    assert found[0].values == {"voltage": 208.0, "min_voltage": 400.0}


def test_pwr003_same_circuit_within_one_rack_fires_since_v11() -> None:
    # v1 let both feeds of one rack share a circuit; they are one breaker, one fault.
    feeds = [
        feed("a", "415 V", 3, "32 A", circuit="C1", side="A"),
        feed("b", "415 V", 3, "32 A", circuit="C1", side="B"),
    ]
    found = _run("PWR003", _layout(feeds, []))
    assert [d.entity for d in found] == ["rack a01 feed b"]
    assert "sides A and B on one circuit are not redundant" in found[0].message


def test_pwr004_overload_on_a_redundant_side_says_when() -> None:
    feeds = [
        feed("a", "208 V", 3, "30 A", side="A"),
        feed("b", "208 V", 3, "30 A", side="B"),
    ]
    # 3 × 2080 W on L1-L2 is 30 A on lines L1 and L2 when one side carries the rack, over 24 A,
    # while 6.24 kW fits the 8.65 kW of a side
    found = _run("PWR004", _layout(feeds, [("node", "L1-L2")] * 3, NODE))
    assert [(d.entity, d.severity) for d in found] == [
        ("rack a01 feed a", "error"),
        ("rack a01 feed b", "error"),
    ]
    assert found[0].message.startswith(
        "line currents L1 30 A and L2 30 A when side A carries "
        "the rack alone exceed the breaker's continuous limit "
        "24 A (30 A × 0.8); the lines are 100 % imbalanced"
    )
    assert found[0].values == pytest.approx({"current": 30.0, "limit": 24.0, "imbalance": 1.0})


def test_pwr004_fires_on_its_own_whether_or_not_pwr001_runs() -> None:
    # rules.md: a line over the breaker x derate is an error, whatever the rack total says;
    # a run that ignores PWR001 must still hear about the overloaded lines.
    feeds = [
        feed("a", "208 V", 3, "30 A", side="A"),
        feed("b", "208 V", 3, "30 A", side="B"),
    ]
    text = _layout(feeds, [("node", None)] * 5, NODE)  # 10.4 kW over 8.65 kW per side
    assert [d.entity for d in _run("PWR001", text)] == ["rack a01"]
    assert [d.entity for d in _run("PWR004", text)] == ["rack a01 feed a", "rack a01 feed b"]


def test_pwr004_unequal_feeds_share_evenly_so_the_small_one_trips() -> None:
    feeds = [feed("big", "415 V", 3, "63 A"), feed("small", "415 V", 3, "16 A")]
    text = _layout(feeds, [("dgx-h100", None)] * 2)  # 20.4 kW of 45.4 kW, 10.2 kW per feed
    assert _run("PWR001", text) == []
    found = _run("PWR004", text)
    assert [d.entity for d in found] == ["rack a01 feed small"]
    assert found[0].message == (
        "each line carries 14.2 A, which exceeds the breaker's continuous limit 12.8 A (16 A × 0.8)"
    )
    assert found[0].values["current"] == pytest.approx(10200 / (SQRT3 * 415))


def test_pwr004_imbalance_just_under_and_over_the_limit() -> None:
    # wye, 2 nodes on L1, 2 on L2, 2 on L3 and 1 more on L1: imbalance 3/(7/3) - 1 = 28.6 %
    devices = [
        ("node", "L1"),
        ("node", "L1"),
        ("node", "L2"),
        ("node", "L2"),
        ("node", "L3"),
        ("node", "L3"),
        ("node", "L1"),
    ]
    text = _layout([feed("f", "415 V", 3, "63 A")], devices, NODE_415)
    found = _run("PWR004", text)
    assert [d.severity for d in found] == ["warning"]
    assert found[0].values["imbalance"] == pytest.approx(3 / (7 / 3) - 1)
    text = text.replace(
        'name = "t"', 'name = "t"\n[rules.thresholds]\nphase_imbalance_max = "30 %"'
    )
    assert _run("PWR004", text) == []


def test_pwr004_estimated_and_unknown_loads_are_said() -> None:
    catalog = (
        '[catalog.g493-sb0]\ngpu = "rtx-a6000"\n[catalog.shelf]\nkind = "other"\nheight = "1 U"\n'
    )
    feeds = [feed("f", "230 V", 1, "16 A"), feed("g", "230 V", 1, "63 A")]
    found = _run(
        "PWR004", _layout(feeds, [("g493-sb0", None), ("g493-sb0", None), ("shelf", None)], catalog)
    )
    # v1.2: 3.36 kW each (a PCIe chassis: host_overhead_pcie 0.4): 14.6 A of 12.8 A
    assert [d.entity for d in found] == ["rack a01 feed f"]
    assert found[0].message.startswith(
        "current 14.6 A (estimated; lower bounds: devices of unknown draw not counted) exceeds"
    )


def test_pwr004_phase_conflicts_grouped_per_device() -> None:
    feeds = [
        feed("a", "415 V", 3, "32 A", side="A"),
        feed("b", "415 V", 3, "32 A", side="B"),
    ]
    found = _run("PWR004", _layout(feeds, [("node", "L1-L2")], NODE_415))
    assert [d.entity for d in found] == ["device a01-d1"]
    assert found[0].message == (
        "phase L1-L2 does not fit feeds a and b: L1-L2 is a line-to-line "
        "pair but the feed is wye (use L1, L2 or L3)"
    )


def test_pwr008_odd_psu_count_loses_the_larger_half() -> None:
    catalog = (
        '[catalog.node]\nkind = "cpu-node"\nheight = "1 U"\npower = "1 kW"\n'
        "psus = 5\npsus_required = 3\n"
    )
    feeds = [
        feed("a", "415 V", 3, "32 A", side="A"),
        feed("b", "415 V", 3, "32 A", side="B"),
    ]
    found = _run("PWR008", _layout(feeds, [("node", None)], catalog))
    assert found[0].message.startswith(
        "5 PSUs split 3 + 2 over sides A and B: losing side A leaves 2, fewer than the 3"
    )
    assert _run("PWR008", _layout(feeds[:1], [("node", None)], catalog)) == []  # one side only


def test_pwr010_only_the_offending_feed_is_named() -> None:
    feeds = [
        feed("a", "480 V", 3, "60 A", side="A"),
        feed("b", "415 V", 3, "63 A", side="B"),
    ]
    found = _run("PWR010", _layout(feeds, [("dgx-h100", None)]))
    assert found[0].message == (
        "dgx-h100 PSUs accept 200-240 V, not the 277 V outlets of feed a (480 V 3-phase wye)"
    )
    assert found[0].values["outlet_voltage"] == pytest.approx(480 / SQRT3)


# -- regressions -------------------------------------------------------------------------------


def test_fanless_gpu_node_is_estimated_not_zero() -> None:
    catalog = (
        '[catalog.imm-node]\nkind = "gpu-node"\nheight = "4 U"\ngpu = "h100-sxm"\n'
        'gpus = 8\nairflow = "passive"\n'
    )
    rack = _rack(_layout([feed("f", "415 V", 3, "63 A")], [("imm-node", None)], catalog))
    assert rack.devices[0].power_estimated
    assert rack.load == pytest.approx(8 * 700 * 1.8)


def test_phase_conflict_of_a_device_with_unknown_draw_is_in_the_analysis() -> None:
    shelf = '[catalog.shelf]\nkind = "other"\nheight = "1 U"\n'
    rack = _rack(_layout([feed("f", "208 V", 3, "30 A")], [("shelf", "L1")], shelf))
    assert [c.device.id for c in rack.phase_conflicts] == ["a01-d1"]


def test_pwr004_reports_the_phase_of_a_device_with_unknown_draw() -> None:
    shelf = '[catalog.shelf]\nkind = "other"\nheight = "1 U"\n'
    found = _run("PWR004", _layout([feed("f", "208 V", 3, "30 A")], [("shelf", "L1")], shelf))
    assert [d.entity for d in found] == ["device a01-d1"]


# -- Feeds: any side label, (k - 1) x the smallest side --------------------------------------------


def _three_pdu_rack(*more_feeds: str) -> str:
    """NVIDIA's three-PDU DGX H100 rack: four DGX on sides A, B and C of 415 V 60 A."""
    sides = [feed(f"f{s}", current="60 A", side=s, circuit=f"C{s}") for s in "ABC"]
    devices = "".join(
        f'[[racks.devices]]\nid = "n{i}"\nmodel = "dgx-h100"\nposition = {2 + 8 * i}\n\n'
        for i in range(4)
    )
    return f'[[racks]]\nid = "a01"\n{feeds_line(*sides, *more_feeds)}\n{devices}'


def test_nvidias_three_pdu_dgx_h100_rack_keeps_four_of_six_psus() -> None:
    text = _three_pdu_rack()
    assert findings("PWR008", text) == []  # v1 could only model A and B: 3 + 3
    analysis = Analysis(loads(HEADER + text).layout)
    rack = analysis.racks[0]
    side = 415 * 60 * 0.8 * 3**0.5
    assert rack.capacity == pytest.approx(2 * side)  # any one of three sides lost
    assert findings("PWR001", text) == []  # 40.8 kW of 69 kW
    # With any side lost each remaining side carries half: 40.8 kW / 2 / 3 / 239.6 V.
    assert max(rack.feeds[0].lines.values()) == pytest.approx(40.8e3 / 2 / 3 / (415 / 3**0.5))


def test_a_feed_without_a_side_counts_for_no_side() -> None:
    text = _three_pdu_rack(feed("fX", current="60 A", circuit="CX"))
    assert [d.entity for d in findings("PWR013", text)] == ["rack a01 feed fX"]
    rack = Analysis(loads(HEADER + text).layout).racks[0]
    assert rack.capacity == pytest.approx(2 * 415 * 60 * 0.8 * 3**0.5)  # fX adds nothing


def test_power_factor_scales_capacity_and_currents() -> None:
    text = (
        '[rules.thresholds]\npower_factor = 0.9\n\n[[racks]]\nid = "a01"\n'
        + feeds_line(feed("f", current="32 A"))
        + '\n[[racks.devices]]\nid = "x"\nmodel = "load"\nposition = 1\n\n'
        '[catalog.load]\nkind = "other"\nheight = "1 U"\npower = "17 kW"\n'
    )
    rack = Analysis(loads(HEADER + text).layout).racks[0]
    assert rack.capacity == pytest.approx(415 * 32 * 0.8 * 3**0.5 * 0.9)
    assert rack.feeds[0].lines["L1"] == pytest.approx(17e3 / 3 / (415 / 3**0.5 * 0.9))
    (over,) = findings("PWR001", text)  # 17 kW > 16.6 kW
    assert "× PF 0.9" in over.message
    assert findings("PWR001", text.replace("power_factor = 0.9", "power_factor = 1.0")) == []


# -- PWR002: outlet voltage and one phase ----------------------------------------------------------


def test_a_starter_server_on_a_single_phase_208_v_30_a_pair_passes() -> None:
    text = (
        '[catalog.as-4125gs-tnrt2]\ngpu = "rtx-a6000"\ngpus = 4\n\n[[racks]]\nid = "a01"\n'
        + feeds_line(
            feed("A", "208 V", 1, "30 A", side="A", circuit="1"),
            feed("B", "208 V", 1, "30 A", side="B", circuit="2"),
        )
        + '\n[[racks.devices]]\nid = "g"\nmodel = "as-4125gs-tnrt2"\nposition = 2\n'
    )
    # v1: an error for any single-phase GPU rack
    assert findings("PWR002", text) == []
    assert findings("PWR001", text) == []
