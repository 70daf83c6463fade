"""A failure's fabric figures derived from the fabric before (rackdesigner.whatif.
fabric_fast) are those of the fabric built again without what failed: switches lost,
cables lost, nodes cut off or with a rail cut, the bisection and the expected bus
bandwidth left. Each fabric is failed a device at a time and in random sets; where the
derivation declines (a tier or a half changes shape, a node is cut off), the fabric is
built again, and the test counts how often it did not decline, so that it tests something.
"""

from __future__ import annotations

import random
from dataclasses import asdict

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.layout_io import load_text
from rackdesigner.whatif.fabric import FabricLosses
from rackdesigner.whatif.results import FabricImpact
from tests.topology.test_topology import fat_tree, layout_text

FLOATS = ("bisection", "bisection_left", "bus", "bus_left")


def rail_fabric(
    groups: int, nodes: int, rails: int, spines: int, uplinks: int, *, odd: bool = False
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Rail-optimised: node port k of every node of a group on the group's rail-k leaf;
    each leaf's ``uplinks`` cables round-robin over the spines. ``odd``: the first node of
    each group cables rail 1 twice (twins cabled unlike, and a leaf count that moves the
    halves)."""
    devices: list[tuple[str, str]] = []
    links: list[tuple[str, str]] = []
    port = {}
    for g in range(1, groups + 1):
        for n in range(1, nodes + 1):
            node = f"g{g}n{n}"
            devices.append((node, "dgx-h100"))
            for rail in range(1, rails + 1):
                leaf = f"g{g}l{rail}"
                port[leaf] = port.get(leaf, 0) + 1
                links.append((f"{node}:ib{rail}", f"{leaf}:p{port[leaf]}"))
            if odd and n == 1:
                leaf = f"g{g}l1"
                port[leaf] += 1
                links.append((f"{node}:ib{rails + 1}", f"{leaf}:p{port[leaf]}"))
        devices += [(f"g{g}l{rail}", "qm9700") for rail in range(1, rails + 1)]
    for g in range(1, groups + 1):
        for rail in range(1, rails + 1):
            leaf = f"g{g}l{rail}"
            for up in range(uplinks):
                spine = f"s{up % spines + 1}"
                port[leaf] += 1
                port[spine] = port.get(spine, 0) + 1
                links.append((f"{leaf}:p{port[leaf]}", f"{spine}:p{port[spine]}"))
    devices += [(f"s{s}", "qm9700") for s in range(1, spines + 1)]
    return devices, links


FABRICS = {
    "rail 1:1": rail_fabric(groups=3, nodes=3, rails=4, spines=4, uplinks=4),
    "rail 2:1, odd leaves": rail_fabric(groups=5, nodes=4, rails=3, spines=3, uplinks=2),
    "twins cabled unlike": rail_fabric(groups=3, nodes=3, rails=2, spines=2, uplinks=3, odd=True),
    "single-homed": fat_tree(
        nodes_per_leaf=3, leaves=5, cables_per_node=4, uplinks_per_leaf=8, spines=3
    ),
}


def _same(fast: FabricImpact, full: FabricImpact) -> None:
    a, b = asdict(fast), asdict(full)
    for key in FLOATS:
        x, y = a.pop(key), b.pop(key)
        assert (x is None) == (y is None), key
        if x is not None:
            assert x == pytest.approx(y, rel=1e-9, abs=1e-3), key
    assert a == b


@pytest.mark.parametrize("name", FABRICS)
def test_derived_figures_are_the_rebuilt_fabrics(name: str) -> None:
    analysis = Analysis(load_text(layout_text(*FABRICS[name])))
    (fabric,) = analysis.fabrics
    losses = FabricLosses(analysis)
    base = losses._base(fabric)
    assert base.ok
    ids = [d.id for d in fabric.devices]
    rng = random.Random(name)
    sets = [{i} for i in ids] + [set(rng.sample(ids, rng.randint(2, 5))) for _ in range(40)]
    derived = 0
    for removed in sets:
        fast = base.impact(removed)
        if fast is None:
            continue
        derived += 1
        full = losses._rebuilt(removed, set(), {fabric.index})[fabric.index]
        _same(fast, full)
    # Every single switch or node is derived, and most sets of several.
    assert derived >= len(ids) - sum(1 for i in ids if i.startswith("leaf"))
    assert derived >= len(sets) // 2


@pytest.mark.slow
def test_every_switch_and_rack_of_the_bench_fabric() -> None:
    """The 1,024-GPU bench layout, every switch and every rack: derived, every one, and
    the same as built again."""
    from tests.whatif.test_whatif import _generated

    analysis = Analysis(load_text(_generated(1024)))
    losses = FabricLosses(analysis)
    (fabric,) = analysis.fabrics
    base = losses._base(fabric)
    members = {d.id for d in fabric.devices}
    failures = [{s} for s in fabric.switches]
    failures += [{d.id for d in r.devices} & members for r in analysis.racks]
    for removed in (f for f in failures if f):
        fast = base.impact(removed)
        assert fast is not None, removed
        _same(fast, losses._rebuilt(removed, set(), {fabric.index})[fabric.index])
