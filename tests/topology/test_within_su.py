"""NET007 and the report on rail-optimised fabrics: within a scalable unit the leaves' ratio
does not apply (DGX H100 SuperPOD RA: a rail is "always one hop away from the other 31
nodes in a SU"); across SUs it does."""

from __future__ import annotations

from typing import cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.facts import DeviceFacts
from rackdesigner.design.templates import NewOptions, build
from rackdesigner.report.fabric import fabric_section
from rackdesigner.topology.collectives import fabric_bus_bandwidth, scalable_units

GB = 8e9  # bit/s in a GB/s


@pytest.mark.parametrize("ratio", [1.0, 2.0])
def test_one_su_gives_340_gb_s_at_any_leaf_ratio(ratio: float) -> None:
    layout = build(NewOptions(template="superpod", sus=1, oversubscription=ratio)).layout
    analysis = Analysis(layout)
    (fabric,) = [f for f in analysis.fabrics if f.nodes]
    assert [len(unit) for unit in scalable_units(fabric)] == [32]
    bus = fabric_bus_bandwidth(fabric, 0.85)
    assert bus.within is not None and bus.within.covers
    assert bus.inter == pytest.approx(340 * GB)
    (section,) = fabric_section(analysis)
    assert section["allreduce_within_su"] == pytest.approx(340 * GB)
    assert section["allreduce_across_su"] is None
    assert section["nccl_test"]["expected_busbw"] == pytest.approx(340 * GB)


def test_two_sus_at_2_to_1_give_340_within_and_170_across() -> None:
    layout = build(NewOptions(template="superpod", sus=2, oversubscription=2.0)).layout
    analysis = Analysis(layout)
    (fabric,) = [f for f in analysis.fabrics if f.nodes]
    assert [len(unit) for unit in scalable_units(fabric)] == [32, 32]
    bus = fabric_bus_bandwidth(fabric, 0.85)
    assert bus.within is not None and bus.within.units == 2 and not bus.within.covers
    assert bus.within.figure == pytest.approx(340 * GB)
    assert bus.inter == bus.across == pytest.approx(170 * GB)
    (section,) = fabric_section(analysis)
    assert section["scalable_units"] == 2
    assert section["allreduce_within_su"] == pytest.approx(340 * GB)
    assert section["allreduce_across_su"] == pytest.approx(170 * GB)
    assert section["nccl_test"]["expected_busbw"] == pytest.approx(170 * GB)


def test_one_switch_and_crossed_cabling_are_no_scalable_unit() -> None:
    layout = build(NewOptions(gpus=32, fabric="leaf-spine", redundant=False)).layout
    (fabric,) = [f for f in Analysis(layout).fabrics if f.nodes]
    assert scalable_units(fabric) == []  # one leaf: one rail leaf, not rail-optimised
    layout = build(NewOptions(template="superpod", sus=1, oversubscription=2.0)).layout
    # n01:ib1 to rail 1's leaf and n01:ib2 to rail 2's: swapped, two crossed rails.
    first, second = (next(k for k in layout.links if k.a == f"a01-n01:ib{r}") for r in (1, 2))
    first.b, second.b = second.b, first.b
    (fabric,) = [f for f in Analysis(layout).fabrics if f.nodes]
    assert scalable_units(fabric) == []  # a crossed rail goes through the spines
    assert fabric_bus_bandwidth(fabric, 0.85).inter == pytest.approx(170 * GB)


PORTS = ("ib0", "ib1", "ib2")


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 2),
            st.lists(st.tuples(st.integers(0, 2), st.none() | st.integers(0, 8)), max_size=2),
        ),
        max_size=8,
    )
)
def test_units_of_matches_the_definition(
    nodes: list[tuple[int, list[tuple[int, int | None]]]],
) -> None:
    """``units_of`` gathers each rail group's rail leaves once; that is the definition
    (a clean group of two or more nodes whose rails land on two or more leaves), worked
    here group by group over every rail. Up to eight nodes, each of three units (leaves
    3u, 3u+1, 3u+2 are its rails for ib0 to ib2), with up to two changes: a port
    uncabled (None) or cabled to any of the nine leaves (crossed where not its rail)."""
    from rackdesigner.topology.collectives import _rail_groups, _rails, units_of

    by_id = {f"n{i}": cast(DeviceFacts, f"facts-{i}") for i in range(len(nodes))}
    cables = []
    for i, (unit, changes) in enumerate(nodes):
        leaves: list[int | None] = [3 * unit + k for k in range(3)]
        for k, leaf in changes:
            leaves[k] = leaf
        cables += [(f"n{i}", f"ib{k}", f"leaf{x}") for k, x in enumerate(leaves) if x is not None]
    root_of, members = _rail_groups(cables, by_id)
    rail = _rails(cables, root_of, members)
    expected = []
    for root, group in members.items():
        crossed = any(rail.get((root_of[n], p)) != leaf for n, p, leaf in cables if n in group)
        rail_leaves = {leaf for (r, _), leaf in rail.items() if r == root}
        if len(group) >= 2 and not crossed and len(rail_leaves) >= 2:
            expected.append([by_id[node] for node in group])
    assert units_of(cables, by_id) == expected
