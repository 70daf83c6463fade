"""Generators build the fabric asked: the ratio and tiers typed, redundancy by
default where one switch would split the nodes, or a refusal saying why; and the counts
NET004 quotes (topology/sizing.py) are the generators' own."""

from __future__ import annotations

import pytest

from rackdesigner.check.engine import check
from rackdesigner.design.generators import FabricRequest, GenerateError, generate
from rackdesigner.design.templates import NewOptions, build
from rackdesigner.topology.sizing import dragonfly_counts, fat_tree_counts

INFERENCE = NewOptions(
    gpus=32, node="dgx-b200", fabric="leaf-spine", oversubscription=2.0, leaf="qm8700",
    workload="inference",
)  # fmt: skip


def test_the_issues_inference_cluster_is_two_leaves_two_spines_at_2_to_1() -> None:
    built = build(INFERENCE)
    counts = built.plan.counts
    assert (counts["leaves"], counts["spines"]) == (2, 2)
    assert counts["node_leaf_cables"] == 32 and counts["leaf_spine_cables"] == 16  # 8 up each
    _, diagnostics = check(built.layout)
    codes = {d.code for d in diagnostics}
    assert "NET005" not in codes  # no single point of failure
    assert "CAB004" not in codes  # the ConnectX-7 ports set to the QM8700's 200G
    assert not [d for d in diagnostics if d.severity == "error"]
    ib = next(g for g in built.layout.catalog["dgx-b200"].ports or () if g.name == "ib")
    assert ib.speed == 200e9
    # Every node on both leaves: rails 1-4 on one, 5-8 on the other.
    leaf_of = {link.a: link.b.partition(":")[0] for link in built.layout.links if "-n" in link.a}
    for node in {a.partition(":")[0] for a in leaf_of}:
        assert len({leaf_of[f"{node}:ib{r}"] for r in range(1, 9)}) == 2


def test_without_redundancy_one_switch_or_a_refusal_never_a_dropped_ratio() -> None:
    layout = build(NewOptions(gpus=32, fabric="leaf-spine", redundant=False)).layout
    assert sum(1 for _, d in layout.devices() if d.model == "qm9700") == 1
    layout.links.clear()
    request = FabricRequest("leaf-spine", oversubscription=2.0, redundant=False, replace=True)
    with pytest.raises(GenerateError, match=r"1:1\), not the 2:1 asked"):
        generate(layout, request)


def test_redundant_needs_two_ports_a_node() -> None:
    with pytest.raises(GenerateError, match="one compute port"):
        FabricRequest(redundant=True).wants_redundancy(4, 1)
    assert FabricRequest().wants_redundancy(4, 1) is False
    assert FabricRequest().wants_redundancy(1, 8) is False
    assert FabricRequest().wants_redundancy(2, 8) is True


@pytest.mark.parametrize("gpus", [256, 1024])
def test_net004s_counts_are_the_generators(gpus: int) -> None:
    nodes = gpus // 8
    tree = build(NewOptions(gpus=gpus, fabric="rail", node="dgx-h100")).plan
    dragonfly = build(NewOptions(gpus=gpus, fabric="dragonfly", node="dgx-h100")).plan

    def switches(plan) -> int:  # type: ignore[no-untyped-def]
        return sum(plan.counts.get(k, 0) for k in ("leaves", "spines", "cores"))

    want_tree, want_dragonfly = fat_tree_counts(nodes, 8, 64), dragonfly_counts(nodes, 8, 64)
    assert (switches(tree), len(tree.links)) == (want_tree.switches, want_tree.cables)
    assert (switches(dragonfly), len(dragonfly.links)) == (
        want_dragonfly.switches,
        want_dragonfly.cables,
    )
    if gpus == 256:  # the issue's figures: a fat tree is the leaner build here
        assert (want_tree.switches, want_tree.cables) == (12, 512)
        assert (want_dragonfly.switches, want_dragonfly.cables) == (16, 640)


def test_net004_is_silent_within_two_tiers() -> None:
    for gpus in (256, 1024, 2048):
        layout = build(NewOptions(gpus=gpus, fabric="rail", node="dgx-h100")).layout
        _, diagnostics = check(layout)
        assert "NET004" not in {d.code for d in diagnostics}, gpus
