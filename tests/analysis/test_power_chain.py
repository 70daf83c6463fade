"""The power chain's facts (analysis/power_chain.py) and failures (analysis/power_failures.py):
ratings, loads, losses, the transient peak, what a failure takes down, each worked by hand.

The racks hold a test node of 10 kW (8 GPUs) so that the arithmetic stays round.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.power_chain import feed_shares, peak_multiplier
from rackdesigner.analysis.power_failures import (
    impact,
    shared_elements,
    single_failures,
    worst_failures,
)
from rackdesigner.model.layout import (
    Device,
    DeviceType,
    Feed,
    Layout,
    PowerElement,
    Rack,
    Workload,
)
from tests.strategies import examples

NODE = DeviceType("node-10kw", kind="gpu-node", power=10_000.0, gpus=8, gpu="h100-sxm")


def rack(rid: str, nodes: int, sources: dict[str, str | None], voltage: float = 415.0) -> Rack:
    """A rack of ``nodes`` 10 kW nodes with one feed per side ({side: source})."""
    feeds = [
        Feed(f"{rid}-{side or 'F'}", voltage, 3, 63.0, side=side or None, source=source)
        for side, source in sources.items()
    ]
    devices = [Device(f"{rid}-n{i}", NODE.key, position=1 + 8 * i) for i in range(nodes)]
    return Rack(rid, feeds=feeds, devices=devices)


def hall(elements: list[PowerElement], racks: list[Rack], **layout: object) -> Analysis:
    return Analysis(
        Layout("t", catalog={NODE.key: NODE}, power_elements=elements, racks=racks, **layout)  # type: ignore[arg-type]
    )


def e(ident: str, kind: str, *fed_by: str, **keys: object) -> PowerElement:
    return PowerElement(ident, kind, list(fed_by) or None, **keys)  # type: ignore[arg-type]


def two_n(ups: float = 100e3) -> Analysis:
    """Utility -> switchboard -> ups-a, ups-b; racks a01, a02 (4 nodes each) on A and B."""
    return hall(
        [
            e("util", "utility", capacity=1e6),
            e("swbd", "switchgear", "util", capacity=1e6),
            e("ups-a", "ups", "swbd", capacity=ups),
            e("ups-b", "ups", "swbd", capacity=ups),
        ],
        [rack(r, 4, {"A": "ups-a", "B": "ups-b"}) for r in ("a01", "a02")],
    )


def test_ratings_convert_kva_and_current_to_continuous_watts() -> None:
    """A 1,500 kVA UPS at PF 0.9: 1,500 × 0.9 = 1,350 kW (kW and kVA both: the smaller).
    A 415 V 3-phase 800 A busway: 415 × 800 × √3 = 575.0 kW, × 0.8 continuous (NEC 215.3)
    = 460.0 kW. The same busway listed for 100 % (derate 1): 575.0 kW. An 800 VDC power
    rack of 1,250 A: 800 × 1,250 = 1 MW."""
    analysis = hall(
        [
            e("util", "utility", capacity=5e6, voltage=415.0),
            e("ups", "ups", "util", capacity=1.4e6, apparent_power=1.5e6, power_factor=0.9),
            e("bus", "busway", "ups", current=800.0),
            e("bus100", "busway", "ups", current=800.0, derate=1.0),
            e("pr", "power-rack", "util", voltage=800.0, current=1250.0),
        ],
        [
            rack("a01", 1, {"A": "bus", "B": "bus100"}),
            rack("a02", 1, {"": "pr"}, voltage=800.0),
        ],
    )
    chain = analysis.power_chain
    ups, bus, bus100, pr = (chain.element(i) for i in ("ups", "bus", "bus100", "pr"))
    assert ups is not None and bus is not None and bus100 is not None and pr is not None
    assert ups.rating == pytest.approx(1.35e6)
    assert ups.binding is not None and ups.binding.key == "apparent_power"
    assert bus.rating == pytest.approx(415 * 800 * math.sqrt(3) * 0.8)
    assert bus.rating == pytest.approx(460.04e3, rel=1e-4)
    assert bus100.rating == pytest.approx(575.05e3, rel=1e-4)
    assert pr.rating == pytest.approx(1e6)


def test_loads_sum_up_the_chain_with_losses() -> None:
    """Two racks of 4 × 10 kW on A (ups-a) and B (ups-b): each side carries half, so each
    UPS delivers 2 × 20 kW = 40 kW. ups-a at 96 % efficiency draws 40 ÷ 0.96 = 41.67 kW;
    the switchboard delivers 41.67 + 40 = 81.67 kW, and so does the utility."""
    analysis = hall(
        [
            e("util", "utility", capacity=1e6),
            e("swbd", "switchgear", "util", capacity=1e6),
            e("ups-a", "ups", "swbd", capacity=100e3, efficiency=0.96),
            e("ups-b", "ups", "swbd", capacity=100e3),
        ],
        [rack(r, 4, {"A": "ups-a", "B": "ups-b"}) for r in ("a01", "a02")],
    )
    chain = analysis.power_chain
    loads = {f.id: f.load for f in chain.elements}
    assert loads["ups-a"] == pytest.approx(40e3)
    assert loads["ups-b"] == pytest.approx(40e3)
    assert loads["swbd"] == pytest.approx(40e3 / 0.96 + 40e3)
    assert loads["util"] == pytest.approx(81_666.67, rel=1e-6)


def test_one_ups_of_a_2n_pair_lost_puts_the_whole_load_on_the_other() -> None:
    """2N: with ups-b lost every rack runs on its A side: ups-a carries 80 kW (2 × 40 kW);
    both racks (64 GPUs) are on one path, none down. At 70 kW the UPS is overloaded."""
    chain = two_n(70e3).power_chain
    result = impact(chain, ["ups-b"])
    a = chain.by_id["ups-a"]
    assert result.load(chain, a) == pytest.approx(80e3)
    assert result.gpus_down == 0 and result.gpus_one_path == 64
    assert [(i, load) for i, load, _ in result.overloaded] == [(a, pytest.approx(80e3))]
    worst = worst_failures(chain)[a]
    assert worst.failure.id == "ups-b" and worst.margin == pytest.approx(-10e3)


def test_a_lost_switchboard_takes_everything_below_it() -> None:
    """The switchboard feeds both UPSs: its loss leaves both with no source, the racks
    down (64 GPUs), and the utility with nothing to carry."""
    chain = two_n().power_chain
    result = impact(chain, ["swbd"])
    assert {chain.elements[i].id for i in result.dead} == {"swbd", "ups-a", "ups-b"}
    assert result.gpus_down == 64 and result.racks_down == [0, 1]
    assert result.load(chain, chain.by_id["util"]) == pytest.approx(0.0, abs=1e-6)


def test_the_ats_moves_the_load_to_the_generator_when_the_utility_is_lost() -> None:
    """ATS fed by [util, gen]: normally the utility carries the 80 kW, the generator 0;
    with the utility lost the generator carries 80 kW and no rack goes down."""
    analysis = hall(
        [
            e("util", "utility", capacity=1e6),
            e("gen", "generator", capacity=60e3),
            e("ats", "ats", "util", "gen", capacity=1e6),
        ],
        [rack(r, 4, {"": "ats"}) for r in ("a01", "a02")],
    )
    chain = analysis.power_chain
    gen = chain.by_id["gen"]
    assert chain.elements[gen].load == 0.0
    assert chain.element("util").load == pytest.approx(80e3)  # type: ignore[union-attr]
    result = impact(chain, ["util"])
    assert result.load(chain, gen) == pytest.approx(80e3)
    assert result.gpus_down == 0
    assert [i for i, _, _ in result.overloaded] == [gen]


def test_one_module_of_an_n_plus_one_ups_lost() -> None:
    """A 4-module 100 kW UPS declared n+1 keeps 100 × 3 ÷ 4 = 75 kW with one module
    lost: 80 kW of racks overload it then (PWR022's module failure)."""
    analysis = hall(
        [
            e("util", "utility", capacity=1e6),
            e("ups", "ups", "util", capacity=100e3, modules=4, redundancy="n+1"),
        ],
        [rack(r, 4, {"": "ups"}) for r in ("a01", "a02")],
    )
    chain = analysis.power_chain
    modules = [(f, r) for f, r in single_failures(chain) if f.module]
    assert len(modules) == 1
    failure, result = modules[0]
    assert failure.spec == "ups-module:ups"
    assert result.rating(chain, failure.element) == pytest.approx(75e3)
    assert [(i, load, rating) for i, load, rating in result.overloaded] == [
        (failure.element, pytest.approx(80e3), pytest.approx(75e3))
    ]


def test_false_2n_names_the_ats_and_the_utility_takes_every_gpu() -> None:
    """The issue's worked case: A and B UPSs both behind one ATS on one utility. The sides
    of both racks meet in the ATS (the element nearest the racks whose loss takes them
    down); losing the utility takes every GPU (64) down."""
    analysis = hall(
        [
            e("util", "utility", capacity=1e6),
            e("ats", "ats", "util", capacity=1e6),
            e("ups-a", "ups", "ats", capacity=200e3),
            e("ups-b", "ups", "ats", capacity=200e3),
        ],
        [rack(r, 4, {"A": "ups-a", "B": "ups-b"}) for r in ("a01", "a02")],
    )
    chain = analysis.power_chain
    assert shared_elements(chain) == {chain.by_id["ats"]: [0, 1]}
    assert impact(chain, ["util"]).gpus_down == 64


def test_the_dps_simulator_shape_fails_at_the_utility() -> None:
    """NVIDIA DPS's simulator: a 750 kW utility, a 1.6 MW switchboard, four 450 kW floor
    PDUs, eight racks (two a PDU). With 18 × 7,678 W GB300 trays a rack (138.2 kW) the
    utility carries 8 × 138.2 = 1,105.6 kW > 750 kW; each floor PDU 276.4 kW < 450 kW;
    the switchboard 1,105.6 kW < 1.6 MW: only the utility is over its rating."""
    tray = DeviceType("tray", kind="gpu-node", power=7678.0, gpus=4, gpu="b300")
    elements = [
        e("utility", "utility", capacity=750e3),
        e("switchboard", "switchgear", "utility", capacity=1.6e6),
        *(e(f"floorpdu-{i}", "rpp", "switchboard", capacity=450e3) for i in range(1, 5)),
    ]
    racks = []
    for number in range(1, 9):
        r = rack(f"r{number}", 0, {"": f"floorpdu-{(number - 1) % 4 + 1}"})
        r.devices = [Device(f"r{number}-c{t}", "tray", position=t + 1) for t in range(18)]
        racks.append(r)
    analysis = Analysis(Layout("dps", catalog={"tray": tray}, power_elements=elements, racks=racks))
    over = [f.id for f in analysis.power_chain.elements if f.load > (f.rating or math.inf)]
    assert over == ["utility"]
    assert analysis.power_chain.element("utility").load == pytest.approx(8 * 18 * 7678)  # type: ignore[union-attr]
    assert analysis.power_chain.element("floorpdu-1").load == pytest.approx(2 * 18 * 7678)  # type: ignore[union-attr]


def test_peak_multiplier_takes_the_factor_and_the_smoothing() -> None:
    """A GPU node under a 1.4 workload factor peaks at 1.4 × its power; a type smoothing
    30 % of its peak (GB300) at max(1, 1.4 × 0.7 = 0.98) = 1 × its power; a switch at 1."""
    analysis = hall([], [rack("a01", 1, {})], workload=Workload("training", peak_factor=1.4))
    node = analysis.devices[0]
    assert peak_multiplier(node, analysis.workload) == pytest.approx(1.4)
    smoothed = DeviceType("s", kind="gpu-node", power=1.0, power_smoothing=0.3)
    node.type = smoothed
    assert peak_multiplier(node, analysis.workload) == pytest.approx(1.0)
    node.type = DeviceType("sw", kind="switch", power=1.0)
    assert peak_multiplier(node, analysis.workload) == 1.0


def test_a_rack_with_three_sides_keeps_two_thirds_per_side_when_one_is_lost() -> None:
    """Three sides share the load by thirds; with one lost each remaining side carries a
    half (load ÷ live sides)."""
    analysis = hall(
        [
            e("util", "utility", capacity=1e6),
            *(e(f"ups-{s}", "ups", "util", capacity=1e6) for s in "abc"),
        ],
        [rack("a01", 3, {"A": "ups-a", "B": "ups-b", "C": "ups-c"})],
    )
    chain = analysis.power_chain
    rack_chain = chain.rack_chain(0)
    assert feed_shares(rack_chain)[0] == pytest.approx([1 / 3] * 3)
    shares, state = feed_shares(rack_chain, {chain.by_id["ups-a"]})
    assert shares == pytest.approx([0.0, 0.5, 0.5]) and state == "one-path"


def test_a_layout_without_a_chain_has_an_empty_one() -> None:
    analysis = hall([], [rack("a01", 1, {"A": None, "B": None})])
    assert not analysis.power_chain and analysis.power_chain.racks == []


# -- the delta computation against a from-scratch one --------------------------------------


def _from_scratch(analysis: Analysis, failed: set[int]) -> dict[int, float]:
    """Every live element's load with ``failed`` lost, computed the plain way: lost
    elements by repeated passes, each rack's shares, then each element's load handed to
    its first live source, children first."""
    chain = analysis.power_chain
    elements = chain.elements
    dead = set(failed)
    changed = True
    while changed:
        changed = False
        for facts in elements:
            if facts.index not in dead and facts.parents and all(p in dead for p in facts.parents):
                dead.add(facts.index)
                changed = True
    out = dict.fromkeys(range(len(elements)), 0.0)
    for rack_chain in chain.racks:
        shares, _ = feed_shares(rack_chain, dead)
        for feed, source in enumerate(rack_chain.sources):
            if source >= 0 and source not in dead:
                out[source] += rack_chain.load * shares[feed]
    for index in reversed(chain.topo):
        facts = elements[index]
        if index in dead:
            continue
        parent = next((p for p in facts.parents if p not in dead), -1)
        if parent >= 0:
            out[parent] += out[index] / facts.efficiency
    return {i: load for i, load in out.items() if i not in dead}


@st.composite
def chains(draw: st.DrawFn) -> tuple[Analysis, list[int]]:
    """A random chain (each element fed by one or two earlier ones, sources first) with
    racks on random elements, and a random set of elements to lose."""
    count = draw(st.integers(2, 9))
    elements = [e("s0", "utility", capacity=1e6), e("s1", "generator", capacity=1e6)]
    for number in range(2, count + 2):
        parents = draw(st.lists(st.integers(0, number - 1), min_size=1, max_size=2, unique=True))
        efficiency = draw(st.sampled_from([1.0, 0.95, 0.9]))
        elements.append(
            e(f"e{number}", "switchgear", *(elements[p].id for p in parents), efficiency=efficiency)
        )
    racks = []
    for number in range(draw(st.integers(1, 5))):
        sides = draw(st.sampled_from(["", "AB", "ABC"]))
        picks = [draw(st.integers(2, len(elements) - 1)) for _ in sides or "x"]
        racks.append(
            rack(
                f"r{number}",
                draw(st.integers(1, 3)),
                {s: elements[p].id for s, p in zip(sides or [""], picks, strict=True)},
            )
        )
    failed = draw(st.lists(st.integers(0, len(elements) - 1), max_size=3, unique=True))
    return hall(elements, racks), failed


@settings(max_examples=examples(60), deadline=None)
@given(chains())
def test_a_failure_computed_by_deltas_matches_one_computed_from_scratch(
    drawn: tuple[Analysis, list[int]],
) -> None:
    """The delta walk of power_failures (only what a failure touches) gives every live
    element the load a full recomputation gives it."""
    analysis, failed = drawn
    chain = analysis.power_chain
    result = impact(chain, failed)
    expected = _from_scratch(analysis, set(failed))
    assert set(expected) == set(range(len(chain.elements))) - result.dead
    for index, load in expected.items():
        assert result.load(chain, index) == pytest.approx(load, rel=1e-9, abs=1e-6)
