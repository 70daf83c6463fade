"""``rackdesigner new`` and the templates write a power chain sized for what they build
(design/power_chain.py): silent under PWR021-PWR029 from 32 to 8,192 GPUs, in each
redundancy, at a declared transient peak, and for the GB200/GB300 SuperPOD templates."""

from __future__ import annotations

import math

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.power_failures import impact, shared_elements
from rackdesigner.check.engine import check
from rackdesigner.design.generators import GenerateError
from rackdesigner.design.templates import NewOptions, build

CHAIN_RULES = [f"PWR02{n}" for n in range(1, 10)]


def chain_findings(options: NewOptions) -> tuple[Analysis, list[str]]:
    layout = build(options).layout
    _, found = check(layout, select=CHAIN_RULES)
    return Analysis(layout), [f"{d.code} {d.entity}: {d.message}" for d in found]


@pytest.mark.parametrize(
    "gpus",
    [32, 128, 1024, pytest.param(8192, marks=pytest.mark.slow)],  # 8,192: seconds
)
def test_new_writes_a_valid_2n_chain_at_every_size(gpus: int) -> None:
    """Every rack's feeds hang on the chain, no finding of the chain's rules, and no
    element whose loss takes a redundant rack down (2N: sides meet nowhere)."""
    from rackdesigner.layout_io.assets import builtin_power_models
    from rackdesigner.layout_io.power_checks import chain_problems

    analysis, found = chain_findings(NewOptions(gpus=gpus))
    assert found == []
    assert chain_problems(analysis.layout, builtin_power_models()) == []
    chain = analysis.power_chain
    assert all(f.source for r in analysis.layout.racks for f in r.feeds)
    assert shared_elements(chain) == {}
    assert chain.element("utility-1").load == pytest.approx(analysis.site_load)  # type: ignore[union-attr]


@pytest.mark.parametrize("redundancy", ["n+1", "block"])
def test_the_other_redundancies_are_valid_at_their_worst_single_failure(redundancy: str) -> None:
    analysis, found = chain_findings(NewOptions(gpus=1024, power_redundancy=redundancy))
    assert found == []
    chain = analysis.power_chain
    ups = [e for e in chain.elements if e.kind == "ups"]
    if redundancy == "n+1":
        # 4 modules, 3 carry the block: the rating is 4/3 of the block's worst load.
        assert all(e.modules == 4 and e.redundancy == "n+1" for e in ups)
    else:
        # The reserve carries nothing until a block's UPS is lost, then that block.
        reserve = chain.element("ups-reserve")
        assert reserve is not None and reserve.load == 0.0
        first = next(e for e in ups if e.id == "ups-b1")
        after = impact(chain, ["ups-b1"])
        assert after.load(chain, reserve.index) == pytest.approx(first.load)
        assert after.gpus_down == 0


def test_the_chain_is_sized_for_a_declared_transient_peak() -> None:
    """At peak factor 1.4 the GPU nodes' draw peaks at 1.4 × (switches and PDUs at 1 ×), so
    the utility's peak is a little under 1.4 × its steady load; new rates it for the peak
    (1.4 × is within 5 %), the chain rules stay silent and the workload keeps the factor."""
    analysis, found = chain_findings(NewOptions(gpus=1024, peak_factor=1.4))
    assert found == []
    assert analysis.layout.workload is not None
    assert analysis.layout.workload.peak_factor == 1.4
    chain = analysis.power_chain
    utility = chain.element("utility-1")
    assert utility is not None
    assert utility.peak == pytest.approx(utility.load * 1.4, rel=0.05)
    assert (utility.rating or 0) >= utility.peak


@pytest.mark.parametrize("template", ["gb200-superpod", "gb300-superpod"])
def test_the_rack_scale_templates_write_a_valid_chain(template: str) -> None:
    """One SU: 8 NVL72 racks of about 132-142 kW and the network racks; 1.2 MW blocks."""
    analysis, found = chain_findings(NewOptions(template=template))
    assert found == []
    chain = analysis.power_chain
    blocks = {e.id.split("-")[1] for e in chain.elements if e.id.startswith("ups-b")}
    assert len(blocks) == math.ceil(analysis.site_load / 1.2e6 - 1e-9)


def test_gb300_smoothing_caps_the_trays_peak_at_their_steady_draw() -> None:
    """GB300 trays smooth 30 % of their peak: at factor 1.4 a tray peaks at max(1, 1.4 ×
    0.7) = 1 × its draw, so the utility's peak is the hall's steady load plus 40 % of the
    network racks' GPU-less draw (none: switches take no factor)."""
    analysis, found = chain_findings(NewOptions(template="gb300-superpod", peak_factor=1.4))
    assert found == []
    utility = analysis.power_chain.element("utility-1")
    assert utility is not None and utility.peak == pytest.approx(utility.load)


def test_an_unknown_redundancy_is_refused() -> None:
    with pytest.raises(GenerateError, match="choose 2n, n\\+1, block"):
        build(NewOptions(gpus=32, power_redundancy="3n"))


def test_a_block_of_two_sided_racks_gets_no_ups_for_the_halls_other_sides(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A hall of four-sided node racks and two-sided network racks, cut into blocks small
    enough that a block holds only network racks (as a 100,000-GPU hall's spine rows do at
    1.2 MW a block): that block's chain has UPSs for sides A and B only. It used to get
    one for C and D too, feeding nothing, which the loader refuses (E001) though `new`
    said the file was clean."""
    from rackdesigner.design import power_chain
    from rackdesigner.layout_io.assets import builtin_power_models
    from rackdesigner.layout_io.power_checks import chain_problems

    monkeypatch.setattr(power_chain, "BLOCK_MAX", 1.0)  # a block a rack
    layout = build(NewOptions(gpus=1024)).layout
    assert chain_problems(layout, builtin_power_models()) == []
    first = layout.racks[0]  # a01, a network rack on sides A and B, a block of its own
    assert sorted({f.side for f in first.feeds}) == ["A", "B"]
    ups = {e.id for e in layout.power_elements if e.kind == "ups" and e.id.startswith("ups-b1-")}
    assert ups == {"ups-b1-a", "ups-b1-b"}
    assert {e.id for e in layout.power_elements if e.id.startswith("ups-b3-")} == {
        f"ups-b3-{side}" for side in "abcd"
    }  # a03, a node rack on four sides


def test_new_reports_a_chain_that_would_not_load() -> None:
    """`new` checks the chain it wrote as the loader will (one E001 with its line), not only
    with the rules: an element that feeds nothing is an error in its report."""
    from rackdesigner.cli.fabric import _check
    from rackdesigner.layout_io import dumps
    from rackdesigner.layout_io.linemap import scan
    from rackdesigner.layout_io.sources import source_map
    from rackdesigner.model.layout import PowerElement

    layout = build(NewOptions(gpus=32)).layout
    layout.power_elements.append(PowerElement("ups-orphan", "ups", ["utility-1"]))
    text = dumps(layout)
    found = [
        d for d in _check(layout, "x.toml", source_map(layout, scan(text))) if d.code == "E001"
    ]
    assert [d.entity for d in found] == ["power element ups-orphan"]
    lines = text.splitlines()[found[0].line - 1 : found[0].line + 1]
    assert lines == ["[[power.elements]]", 'id = "ups-orphan"']
