"""`new --template inference-32` is the field guide's inference cluster; `--link-speed`
picks the leaf that runs the rate; `new` places switches by the same measure as the
designer's Generate fabric (one placement code: the generator's floor over racks with
their feeds and PDUs)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.check.engine import check
from rackdesigner.design.generators import FabricRequest, GenerateError, generate
from rackdesigner.design.generators.apply import apply_plan
from rackdesigner.design.templates import NewOptions, build
from rackdesigner.layout_io.catalog import for_layout


def _switches(layout) -> dict[str, tuple[str, int | None]]:  # type: ignore[no-untyped-def]
    catalog = for_layout(layout)
    return {
        d.id: (rack.id, d.position)
        for rack in layout.racks
        for d in rack.devices
        if catalog.devices[d.model].kind == "switch"
    }


def test_inference_32_is_the_guides_cluster() -> None:
    """layouts/inference-32-b200.toml: 4 DGX B200 (14.3 kW each), two a rack, on four
    QM8700 (HDR 200 Gb/s): a leaf and a spine in each rack, each leaf 16 ports down
    (4 nodes x rails 1-4 or 5-8) and 8 up (16 x 200 / 8 x 200 = 2:1), 16 x 2 + 8 x 2 = 48
    cables. A rack draws 2 x 14.3 + 2 x 0.5 (switches) + 2 x 0.02 (PDUs) = 29.64 kW, so
    one 415 V 63 A feed a side carries it (415 x 63 x 0.8 x sqrt 3 = 36.2 kW); the node
    ports run at 200 Gbps in the layout's own catalog, so no link is a speed mismatch."""
    built = build(NewOptions(template="inference-32"))
    layout = built.layout
    switches = _switches(layout)
    assert sorted(switches) == ["a01-leaf1", "a01-spine1", "a02-leaf1", "a02-spine1"]
    assert {layout.racks[0].id, layout.racks[1].id} == {"a01", "a02"} and len(layout.racks) == 2
    models = {d.model for r in layout.racks for d in r.devices if d.id in switches}
    assert models == {"qm8700"}
    nodes = [[d.id for d in r.devices if d.model == "dgx-b200"] for r in layout.racks]
    assert [len(n) for n in nodes] == [2, 2]
    assert len(layout.links) == 48
    assert built.plan.counts["leaves"] == 2 and built.plan.counts["spines"] == 2
    assert "2:1" in built.plan.notes[0] and "16 ports down, 8 up" in built.plan.notes[0]
    ib = next(g for g in layout.catalog["dgx-b200"].ports or () if g.name == "ib")
    assert ib.speed == 200e9
    assert layout.workload is not None and layout.workload.kind == "inference"
    for rack in layout.racks:
        assert rack.cooling == "rear-door"
        assert [(f.side, f.current) for f in rack.feeds] == [("A", 63.0), ("B", 63.0)]
    _, diagnostics = check(layout)
    assert [d.code for d in diagnostics if d.severity == "error"] == []
    assert not [d for d in diagnostics if d.code in ("CAB001", "CAB004", "NET002")]


def test_link_speed_picks_the_leaf_that_runs_it() -> None:
    """200 Gbps on InfiniBand nodes: the QM8700 (40 x HDR 200G); 400 Gbps: the QM9700."""
    slow = build(
        NewOptions(gpus=32, gpu="b200", link_speed=200e9, fabric="leaf-spine", storage=False)
    )
    assert {m for _, m in _models(slow.layout)} == {"qm8700"}
    fast = build(
        NewOptions(gpus=32, gpu="b200", link_speed=400e9, fabric="leaf-spine", storage=False)
    )
    assert {m for _, m in _models(fast.layout)} == {"qm9700"}
    assert "dgx-b200" not in fast.layout.catalog  # the ports run at their own rate


def _models(layout) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    switches = _switches(layout)
    return [(d.id, d.model) for r in layout.racks for d in r.devices if d.id in switches]


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (NewOptions(gpus=32, gpu="b200", link_speed=800e9), "run at most 400 Gbps"),
        (NewOptions(gpus=32, gpu="b200", link_speed=100e9), "they run 200, 400, 800 Gbps"),
        (
            NewOptions(gpus=32, gpu="b200", link_speed=200e9, leaf="qm9700"),
            "--leaf qm9700 runs 400 Gbps, not --link-speed 200 Gbps",
        ),
        (NewOptions(template="gb200-superpod", link_speed=200e9), "clusters of servers"),
    ],
)
def test_a_link_speed_nothing_runs_is_refused(options: NewOptions, said: str) -> None:
    with pytest.raises(GenerateError, match=said):
        build(options)


def test_new_puts_switches_where_the_designer_would() -> None:
    """32 B200 on air: one DGX B200 a rack (14.3 kW of the 15 kW air takes), four racks.
    A QM8700 draws 0.5 kW and two 20 W PDUs 0.04 kW: 14.3 + 0.04 + 0.5 = 14.84 kW, inside
    15 kW, so each node rack takes one switch: no network rack, and no node-to-leaf run
    crosses more than two racks (no CAB001). Generating the same fabric again on what
    `new` wrote (the designer's `g`) puts the switches in the same racks."""
    options = NewOptions(
        gpus=32,
        gpu="b200",
        cooling="air",
        fabric="leaf-spine",
        oversubscription=2.0,
        storage=False,
    )
    built = build(replace(options, leaf="qm8700"))
    layout = built.layout
    assert len(layout.racks) == 4
    assert not any("network rack" in note for note in built.plan.notes)
    placed = _switches(layout)
    assert sorted(rack for rack, _ in placed.values()) == ["a01", "a02", "a03", "a04"]
    _, diagnostics = check(layout)
    assert [d for d in diagnostics if d.code == "CAB001"] == []
    # The designer's Generate fabric on the same racks, the fabric taken away.
    for rack in layout.racks:
        rack.devices = [d for d in rack.devices if d.id not in placed]
    layout.links = []
    again = generate(layout, FabricRequest("leaf-spine", leaf="qm8700", oversubscription=2.0))
    apply_plan(layout, again)
    assert sorted(r for r, _ in _switches(layout).values()) == ["a01", "a02", "a03", "a04"]
    assert Analysis(layout).racks  # still a layout the analysis reads
