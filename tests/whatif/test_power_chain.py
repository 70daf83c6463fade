"""What-if on the power chain (docs/whatif.md, The power chain), each case worked by hand
in its docstring.

The hall declares its own node, so that the arithmetic holds whatever the catalog's
figures are: ``t-node`` draws 10 kW, holds 8 GPUs and has 2 PSUs of which it needs 1
(one per side). Racks r1 and r2 hold 4 nodes each: 40 kW and 32 GPUs a rack, 64 GPUs in
all. Each rack has feeds A and B at 415 V 3-phase 125 A: 415 x 125 x 0.8 x sqrt(3) =
71.88 kW usable, so either side carries its rack alone. With both sides up each side
carries half of each rack, 20 kW.

The chain, 2N (side B mirrors side A with -b)::

    utility-1 (1 MW) ─┬─ ats-a ─ swbd-a ─ ups-a ─ tx-a ─┬─ rpp-a ─ r1-A
    gen-a (100 kW) ───┘  (1 MW)  (1 MW)  (480 V) (415 V) └─ busway-a ─ r2-A

ats-a is fed by utility-1, then gen-a; ups-a is 100 kW, tx-a 150 kVA, rpp-a and busway-a
400 A at 415 V (415 x 400 x sqrt(3) x 0.8 = 230 kW).

No element declares an efficiency: each passes its load up unchanged. So normally
rpp-a and busway-a carry 20 kW, tx-a, ups-a, swbd-a and ats-a 40 kW, utility-1 80 kW,
the generators nothing.
"""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.layout_io.document import load, loads
from rackdesigner.whatif import Impact, PartError, WhatIf, parse_failure, what_if
from rackdesigner.whatif.render import impact_text
from tests.builders import HEADER
from tests.conftest import ROOT

NODE = """
[catalog.t-node]
kind = "gpu-node"
name = "test node"
height = "4 U"
power = "10 kW"
gpu = "h100-sxm"
gpus = 8
psus = 2
psus_required = 1
"""


def _side(side: str, gen: str, ups: str, modules: str) -> str:
    return f"""
[[power.elements]]
id = "gen-{side}"
kind = "generator"
capacity = "{gen}"

[[power.elements]]
id = "ats-{side}"
kind = "ats"
fed_by = ["utility-1", "gen-{side}"]
capacity = "1 MW"

[[power.elements]]
id = "swbd-{side}"
kind = "switchgear"
fed_by = ["ats-{side}"]
capacity = "1 MW"

[[power.elements]]
id = "ups-{side}"
kind = "ups"
fed_by = ["swbd-{side}"]
capacity = "{ups}"
voltage = "480 V"
{modules}
[[power.elements]]
id = "tx-{side}"
kind = "transformer"
fed_by = ["ups-{side}"]
apparent_power = "150 kVA"
primary_voltage = "480 V"
voltage = "415 V"

[[power.elements]]
id = "rpp-{side}"
kind = "rpp"
fed_by = ["tx-{side}"]
current = "400 A"

[[power.elements]]
id = "busway-{side}"
kind = "busway"
fed_by = ["tx-{side}"]
current = "400 A"
"""


def _rack(name: str, slot: int, source: str) -> str:
    nodes = "".join(
        f'\n[[racks.devices]]\nid = "{name}-n{k}"\nmodel = "t-node"\nposition = {1 + 4 * k}\n'
        for k in range(1, 5)
    )
    feeds = ", ".join(
        f'{{ id = "{name}-{s.upper()}", side = "{s.upper()}", voltage = "415 V", phases = 3, '
        f'current = "125 A", source = "{source}-{s}" }}'
        for s in "ab"
    )
    return f'\n[[racks]]\nid = "{name}"\nrow = "A"\nslot = {slot}\nfeeds = [{feeds}]\n{nodes}'


def hall(
    *,
    gen_a: str = "100 kW",
    ups_a: str = "100 kW",
    ups_b: str = "100 kW",
    modules: str = "",
    capping: bool = False,
) -> Analysis:
    text = HEADER + NODE
    if capping:
        text += "\n[workload]\npower_capping = true\n"
    text += '\n[[power.elements]]\nid = "utility-1"\nkind = "utility"\ncapacity = "1 MW"\n'
    text += _side("a", gen_a, ups_a, modules)
    text += _side("b", "100 kW", ups_b, "")
    text += _rack("r1", 1, "rpp") + _rack("r2", 2, "busway")
    return Analysis(loads(text).layout)


def fails(*texts: str) -> list:
    return [parse_failure(t) for t in texts]


def _chain(impact: Impact) -> dict[str, tuple[str, float]]:
    return {c.id: (c.state, c.load) for c in impact.chain}


def test_a_ups_lost_puts_its_racks_on_their_other_side() -> None:
    """ups:ups-a: tx-a, rpp-a and busway-a are lost with it (nothing else feeds them), so
    r1-A and r2-A are dead; both racks run on side B: each node keeps its B PSU (1 of 2,
    needs 1): nothing down or degraded, 64 GPUs running without redundancy. Side B now carries
    both racks: ups-b 80 kW of its 100 kW (was 40 kW), rpp-b and busway-b 40 kW each (was
    20 kW); each B feed 40 kW of 71.88 kW usable: no trip."""
    impact = what_if(hall(), fails("ups:ups-a"), findings=False)
    assert (impact.gpus_down, impact.gpus_degraded, impact.gpus_one_path) == (0, 0, 64)
    assert [(p.rack, p.sides_lost, p.gpus) for p in impact.one_path] == [
        ("r1", ("A",), 32),
        ("r2", ("A",), 32),
    ]
    chain = _chain(impact)
    assert chain["ups-a"] == ("failed", 0.0)
    assert {k: v[0] for k, v in chain.items() if v[0] == "lost"} == {
        "tx-a": "lost",
        "rpp-a": "lost",
        "busway-a": "lost",
    }
    assert chain["ups-b"] == ("loaded", pytest.approx(80e3))
    assert chain["rpp-b"] == ("loaded", pytest.approx(40e3))
    assert chain["busway-b"] == ("loaded", pytest.approx(40e3))
    assert impact.power == [] and not impact.harmless
    text = impact_text(impact)
    assert "redundancy lost: 2 racks (64 GPUs running) run with side A lost: r1, r2" in text
    assert "ups ups-b 80 kW of 100 kW (was 40 kW)" in text


def test_each_kind_of_element_takes_what_hangs_on_it() -> None:
    """rpp:rpp-a only r1-A (r1 on one path, 32 GPUs); busway:busway-a only r2-A (r2, 32
    GPUs); transformer:tx-a and switchgear:swbd-a both racks' A feeds (64 GPUs); a
    generator lost with the utility up changes nothing (it carried 0 W) but itself."""
    analysis = hall()
    engine = WhatIf(analysis)
    one_path = {
        part: [p.rack for p in engine.run(fails(part), findings=False).one_path]
        for part in ("rpp:rpp-a", "busway:busway-a", "transformer:tx-a", "switchgear:swbd-a")
    }
    assert one_path == {
        "rpp:rpp-a": ["r1"],
        "busway:busway-a": ["r2"],
        "transformer:tx-a": ["r1", "r2"],
        "switchgear:swbd-a": ["r1", "r2"],
    }
    generator = engine.run(fails("generator:gen-a"), findings=False)
    assert _chain(generator) == {"gen-a": ("failed", 0.0)}
    assert generator.gpus_lost == 0 and generator.one_path == []


def test_the_utility_lost_moves_each_ats_to_its_generator() -> None:
    """utility:utility-1: ats-a draws from gen-a and ats-b from gen-b, each 40 kW of its
    100 kW: nothing lost, both sides up."""
    impact = what_if(hall(), fails("utility:utility-1"), findings=False)
    chain = {c.id: c for c in impact.chain}
    assert (chain["ats-a"].state, chain["ats-a"].source) == ("moved", "gen-a")
    assert (chain["ats-b"].state, chain["ats-b"].source) == ("moved", "gen-b")
    assert chain["gen-a"].load == pytest.approx(40e3)
    assert impact.gpus_lost == 0 and impact.one_path == []
    assert "ats ats-a draws from generator gen-a, its next source" in impact_text(impact)


def test_a_generator_too_small_trips_and_its_side_goes() -> None:
    """gen-a rated 30 kW: with the utility lost it must carry side A's 40 kW, 10 kW over:
    it trips; ats-a has no source left and is lost with swbd-a, ups-a, tx-a, rpp-a and
    busway-a. The racks run on side B (64 GPUs running without redundancy), which gen-b now
    carries whole: 80 kW of its 100 kW."""
    impact = what_if(hall(gen_a="30 kW"), fails("utility:utility-1"), findings=False)
    chain = {c.id: c for c in impact.chain}
    assert (chain["gen-a"].state, chain["gen-a"].load, chain["gen-a"].rating) == (
        "tripped",
        pytest.approx(40e3),
        pytest.approx(30e3),
    )
    assert chain["gen-a"].over == pytest.approx(10e3)
    assert {i for i, c in chain.items() if c.state == "lost"} == {
        "ats-a",
        "swbd-a",
        "ups-a",
        "tx-a",
        "rpp-a",
        "busway-a",
    }
    assert chain["gen-b"].load == pytest.approx(80e3)
    assert (impact.gpus_down, impact.gpus_one_path) == (0, 64)
    assert "generator gen-a must carry 40 kW on its 30 kW, 10 kW over: it trips" in (
        impact_text(impact)
    )


def test_the_surviving_ups_over_its_rating_trips_or_caps() -> None:
    """ups-b rated 60 kW: with ups-a lost it must carry 80 kW, 20 kW over: it trips, side
    B goes too, and both racks are down: 64 GPUs down (no powered PSU). With
    ``power_capping`` the GPUs it feeds are capped instead: 64 degraded, none down."""
    tripped = what_if(hall(ups_b="60 kW"), fails("ups:ups-a"), findings=False)
    assert (tripped.gpus_down, tripped.gpus_degraded) == (64, 0)
    assert {c.id: c.state for c in tripped.chain}["ups-b"] == "tripped"
    assert tripped.chain_over == pytest.approx(20e3)
    capped = what_if(hall(ups_b="60 kW", capping=True), fails("ups:ups-a"), findings=False)
    assert (capped.gpus_down, capped.gpus_degraded) == (0, 64)
    assert {c.id: c.state for c in capped.chain}["ups-b"] == "capped"
    assert capped.degraded[0].why == "power-capped: ups ups-b 80 kW on 60 kW"


def test_one_ups_module_lost() -> None:
    """ups-a of 4 modules, n+1: one module lost leaves 3/4 of its rating. At 100 kW that is
    75 kW for its 40 kW: derated, nothing lost. At 50 kW it is 37.5 kW for 40 kW: it
    trips, side A goes, both racks run on side B (64 GPUs running without redundancy)."""
    modules = 'modules = 4\nredundancy = "n+1"\n'
    fine = what_if(hall(modules=modules), fails("ups-module:ups-a"), findings=False)
    ((state, rating),) = [(c.state, c.rating) for c in fine.chain]
    assert (state, rating) == ("derated", pytest.approx(75e3))
    assert fine.gpus_lost == 0 and fine.one_path == []
    short = what_if(hall(ups_a="50 kW", modules=modules), fails("ups-module:ups-a"), findings=False)
    assert {c.id: c.state for c in short.chain}["ups-a"] == "tripped"
    assert short.gpus_one_path == 64


def test_the_false_2n_hall_loses_every_gpu_with_its_utility() -> None:
    """tests/rules/PWR024/fires.toml: ups-a and ups-b both behind ats-1 on utility-1, no
    generator. utility:utility-1 takes ats-1 and both UPSs: every feed is dead, the 8
    DGX H100 (64 GPUs) are down; so does ats:ats-1."""
    analysis = Analysis(load(ROOT / "tests" / "rules" / "PWR024" / "fires.toml").layout)
    for part in ("utility:utility-1", "ats:ats-1"):
        impact = what_if(analysis, fails(part), findings=False)
        assert impact.gpus_down == 64
        assert len(impact.down) == 8


def test_findings_are_the_rack_s_as_for_its_side_lost() -> None:
    """Losing ups-a kills exactly the A feeds, as side:A does: the failed layout's findings
    are the same, a PWR001 "redundancy lost" warning per rack."""
    analysis = hall()
    chain = what_if(analysis, fails("ups:ups-a")).findings
    side = what_if(analysis, fails("side:A")).findings
    assert chain is not None and side is not None
    assert [(d.code, d.entity, d.message) for d in chain] == [
        (d.code, d.entity, d.message) for d in side
    ]
    assert [(d.code, d.severity, d.entity) for d in chain] == [
        ("PWR001", "warning", "rack r1"),
        ("PWR001", "warning", "rack r2"),
    ]


def test_each_ups_ranks_the_one_whose_loss_trips_the_other_first() -> None:
    """ups-b at 60 kW: losing ups-a trips ups-b (64 GPUs down); losing ups-b leaves ups-a
    80 kW of its 100 kW (64 GPUs running without redundancy): ups-a's loss ranks first."""
    ranked = WhatIf(hall(ups_b="60 kW")).rank("ups")
    assert [(str(i.failures[0]), i.gpus_down, i.gpus_one_path) for i in ranked] == [
        ("ups:ups-a", 64, 0),
        ("ups:ups-b", 0, 64),
    ]


def test_a_part_not_in_the_chain_says_which_ids_there_are() -> None:
    analysis = hall()
    with pytest.raises(PartError, match=r"^no ups NOPE in the power chain; its ups ids: "):
        what_if(analysis, fails("ups:NOPE"))
    with pytest.raises(PartError, match="ups-a is a ups, not a busway"):
        what_if(analysis, fails("busway:ups-a"))
    with pytest.raises(PartError, match="has no modules to lose one of"):
        what_if(analysis, fails("ups-module:ups-a"))
    plain = Analysis(
        loads(
            HEADER
            + NODE
            + _rack("r1", 1, "x").replace(', source = "x-a"', "").replace(', source = "x-b"', "")
        ).layout
    )
    with pytest.raises(PartError, match="declares no power chain"):
        what_if(plain, fails("ats:ats-a"))


def test_the_report_s_single_failures_take_the_chain_and_the_loops() -> None:
    """tests/data/whatif/chain-and-loop.toml: 2 racks of 4 nodes (10 kW, 8 GPUs), each
    rack's A feed on ups-a and B on ups-b (2N), CDUs c1 + c2 (80 kW each) on loop fws for
    the racks' 64 kW of cold plates. The worst of each kind: a UPS (either) leaves both
    racks on one side, 64 GPUs running without redundancy; an ATS the same; the utility moves
    both ATSs to their generators, nothing lost; one CDU leaves 80 kW for 64 kW, nothing
    lost; the loop stops both CDUs: the 8 nodes trip, 64 GPUs down. The same as
    ``whatif --each`` and ``--fail`` say (one function)."""
    from rackdesigner.report.report import build, to_text

    analysis = Analysis(load(ROOT / "tests" / "data" / "whatif" / "chain-and-loop.toml").layout)
    report = build(analysis)
    worst = {e["kind"]: (e["worst"], e["impact"]) for e in report["single_failures"]}
    assert list(worst) == [
        "feed",
        "side",
        "cdu",
        "rack",
        "utility",
        "generator",
        "ats",
        "ups",
        "loop",
    ]
    assert worst["ups"][0] == "ups:ups-a" and worst["ups"][1]["gpus_one_path"] == 64
    assert worst["ats"][1]["gpus_one_path"] == 64
    assert worst["utility"][1]["gpus_lost"] == 0
    assert worst["cdu"][1]["gpus_lost"] == 0
    assert worst["loop"][0] == "loop:fws" and worst["loop"][1]["gpus_down"] == 64
    ups = what_if(analysis, fails("ups:ups-a"))
    from rackdesigner.whatif.render import impact_data

    assert worst["ups"][1] == impact_data(ups)
    text = to_text(report)
    assert "  ups        ups:ups-a: 0 GPUs lost; redundancy lost for 64 GPUs" in text
    assert "  loop       loop:fws: 64 GPUs lost (64 down, 0 degraded, 0 cut off)" in text
