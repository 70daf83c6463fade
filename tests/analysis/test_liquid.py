"""The liquid loop's analysis (v1.4, docs/liquid-cooling.md): CDU capacity at approach,
flows and temperatures per CDU group and loop, and what failures and warmer water do.
Every figure is worked by hand in the test's docstring."""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.liquid import (
    AT_LEAST,
    FLUIDS,
    NOMINAL,
    NOT_RATED,
    TABLE,
    cdu_rating,
    liquid_plant,
    loop_impacts,
    loops_by_id,
)
from rackdesigner.layout_io.reader import load_text

NODE = """
[catalog.cp-10k]
kind = "cpu-node"
height = "4 U"
power = "10 kW"
liquid_fraction = 0.8
"""


def _layout(
    *,
    cdu: str = "coolit-chx80",
    setpoint: str | None = None,
    nodes: int = 8,
    loop: str = 'supply_temperature = "30 °C"',
    cdus: int = 1,
    extra: str = "",
    max_supply: str | None = None,
) -> Analysis:
    node = NODE
    if max_supply is not None:
        node += f'max_supply_temperature = "{max_supply}"\n'
    ids = [f"c{i + 1}" for i in range(cdus)]
    racks = "\n".join(
        f'[[racks.devices]]\nid = "n{k}"\nmodel = "cp-10k"\nposition = {1 + 4 * k}\n'
        for k in range(nodes)
    )
    cdu_devices = "\n".join(
        f'[[racks.devices]]\nid = "{c}"\nmodel = "{cdu}"\nposition = {1 + 4 * k}\n'
        + (f'supply_setpoint = "{setpoint}"\n' if setpoint else "")
        for k, c in enumerate(ids)
    )
    named = "[" + ", ".join(f'"{c}"' for c in ids) + "]"
    text = f"""format = 1
name = "t"
{node}
{extra}
[[racks]]
id = "r01"
cooling = "liquid"
cdu = {named}

{racks}

[[racks]]
id = "c01"

{cdu_devices}

[[cooling.loops]]
id = "fws"
{loop}
devices = {named}
"""
    return Analysis(load_text(text))


def test_a_cdu_at_its_rated_approach_has_its_rated_capacity_and_above_it_at_least():
    """A CHx80 is 80 kW at 5 K. On 30 °C water with no setpoint it makes 30 + 5 = 35 °C at
    its rating; set to 40 °C it runs at 10 K, above its rating: 80 kW is a floor ("at
    least"); set to 33 °C it runs at 3 K, below: not rated, no capacity."""
    rated = _layout()
    loops = loops_by_id(rated.layout)
    cdu = rated.device_by_id["c1"]
    assert cdu_rating(cdu, loops).capacity == 80e3
    above = _layout(setpoint="40 °C")
    rating = cdu_rating(above.device_by_id["c1"], loops_by_id(above.layout))
    assert (rating.capacity, rating.basis, rating.approach) == (80e3, AT_LEAST, 10.0)
    below = _layout(setpoint="33 °C")
    rating = cdu_rating(below.device_by_id["c1"], loops_by_id(below.layout))
    assert (rating.capacity, rating.basis, rating.approach) == (None, NOT_RATED, 3.0)


def test_a_capacity_table_is_interpolated_between_its_points():
    """A table [3 K: 500 kW, 5 K: 750 kW]: at 4 K (34 °C setpoint on 30 °C water) the
    capacity is 500 + (750 - 500) x (4 - 3) / (5 - 3) = 625 kW."""
    extra = """
[catalog.tab-cdu]
kind = "cdu"
height = "4 U"
capacity_table = [["3 K", "500 kW"], ["5 K", "750 kW"]]
"""
    analysis = _layout(cdu="tab-cdu", setpoint="34 °C", extra=extra)
    rating = cdu_rating(analysis.device_by_id["c1"], loops_by_id(analysis.layout))
    assert rating.capacity == pytest.approx(625e3)
    assert rating.basis == TABLE


def test_without_loops_every_cdu_keeps_its_capacity_as_given():
    analysis = Analysis(
        load_text(
            'format = 1\nname = "t"\n[[racks]]\nid = "c01"\n\n[[racks.devices]]\n'
            'id = "c1"\nmodel = "coolit-chx750"\nposition = 1\n'
        )
    )
    rating = cdu_rating(analysis.device_by_id["c1"], loops_by_id(analysis.layout))
    assert (rating.capacity, rating.basis) == (750e3, NOMINAL)


def test_a_group_s_flow_and_temperatures():
    """8 nodes x 8 kW of cold plates = 64 kW need 64 x 1.5 = 96 L/min (0.0016 m³/s). A
    CHx80 (no pump flow given) on 30 °C water makes 35 °C; PG25 (4.006 MJ/m³K) warms
    64,000 / (0.0016 x 4.006e6) = 9.985 K: back at 44.985 °C. The loop takes the 64 kW."""
    plant = liquid_plant(_layout())
    (group,) = plant.groups
    assert group.heat == pytest.approx(64e3)
    assert group.flow_needed == pytest.approx(96 / 60000)
    assert group.supply == 35.0
    assert group.delta_t == pytest.approx(64e3 / (0.0016 * FLUIDS["pg25"]))
    assert group.return_temperature == pytest.approx(44.985, abs=1e-3)
    assert plant.loop("fws") is not None and plant.loop("fws").heat == pytest.approx(64e3)


def test_a_lost_cdu_trips_the_racks_its_group_cannot_carry():
    """Two CHx80 (80 kW each) carry 8 x 8 = 64 kW; with c1 lost c2 alone carries it (no
    racks lost); with both lost the rack's 8 nodes trip: every CDU of its group is lost.
    The nodes are CPU nodes (no GPUs): 0 GPUs down, 1 rack."""
    analysis = _layout(cdus=2)
    one = loop_impacts(analysis, failed_cdus=["c1"])
    assert one.shortfalls == [] and one.racks == []
    both = loop_impacts(analysis, failed_cdus=["c1", "c2"])
    assert [r.rack.rack.id for r in both.racks] == ["r01"]
    assert both.racks[0].state == "trip" and "every CDU" in both.racks[0].why


def test_a_lost_loop_loses_every_cdu_on_it():
    analysis = _layout(cdus=2)
    impacts = loop_impacts(analysis, failed_loops=["fws"])
    assert [r.state for r in impacts.racks] == ["trip"]
    assert impacts.plant.loop("fws") is not None and impacts.plant.loop("fws").failed


def test_too_little_capacity_trips_and_warmer_water_unrates_a_cdu():
    """10 nodes: 80 kW on one CHx80 (80 kW) carries it; 11 nodes: 88 kW > 80 kW: the rack
    trips. 5 K warmer water on a CDU held at 35 °C leaves it a 0 K approach: not rated, so
    its group is listed as not judged, its rack in neither count."""
    assert loop_impacts(_layout(nodes=10)).racks == []
    over = loop_impacts(_layout(nodes=11))
    assert [r.state for r in over.racks] == ["trip"] and "80 kW of 88 kW" in over.racks[0].why
    warm = loop_impacts(_layout(), warmer=5.0)
    assert warm.racks == [] and len(warm.unrated) == 1


def test_coolant_above_a_node_s_limit_throttles_its_rack():
    """Nodes take at most 34 °C; the CDU makes 30 + 5 = 35 °C: they throttle."""
    impacts = loop_impacts(_layout(max_supply="34 °C"))
    assert [(r.state, r.rack.rack.id) for r in impacts.racks] == [("throttle", "r01")]
    assert "35.0 °C above cp-10k's 34 °C" in impacts.racks[0].why


def test_the_analysis_reads_the_loops_once_and_a_failed_layout_shares_them() -> None:
    """``Analysis.loops`` is :func:`loops_by_id` of the layout (its loop by id, and by
    each device it lists: c1 and c2 on fws), worked out once: a second read is the very
    object, a new list of loops is read anew, and a failed layout's analysis (c1 down,
    the layout's very loops) reads its layout's. COOL003 and COOL009 run on each rack and
    CDU group of a what-if or an edit: each reading the hall's loops anew was racks ×
    CDUs."""
    from dataclasses import replace

    from rackdesigner.analysis import Like
    from rackdesigner.analysis.failures import Failed
    from rackdesigner.model.layout import CoolingLoop

    analysis = _layout(cdus=2)
    loops = analysis.loops
    expected = loops_by_id(analysis.layout)
    assert loops.by_id == expected.by_id and loops.by_device == expected.by_device
    assert sorted(loops.by_device) == ["c1", "c2"] and list(loops.by_id) == ["fws"]
    assert analysis.loops is loops
    failed = Analysis(
        analysis.layout,
        failed=Failed(frozenset(), frozenset({"c1"})),
        like=Like(analysis, frozenset({"c01"})),
    )
    assert failed.loops is loops
    analysis.layout.cooling_loops = [CoolingLoop("cw", devices=["c2"])]
    assert list(analysis.loops.by_id) == ["cw"] and list(analysis.loops.by_device) == ["c2"]
    other = Analysis(replace(analysis.layout, cooling_loops=[]), like=Like(analysis, frozenset()))
    assert not other.loops
