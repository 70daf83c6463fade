"""The v1.1 facts as pure functions: sides, PSU splits, PDU feeds, CDU groups, lateral
groups and rail groups (rules.md v1.1, Definitions)."""

from __future__ import annotations

import pytest

from rackdesigner.analysis.cdu_groups import cdu_groups, n_plus_one
from rackdesigner.analysis.lateral import crossed_rails, lateral_groups
from rackdesigner.analysis.power_sides import (
    feed_capacity,
    feed_power,
    feed_rating,
    pdu_feeds,
    psu_split,
    psus_kept,
    side_capacity,
    side_labels,
)
from rackdesigner.model.layout import Device, Feed


def feed(fid: str, side: str | None, amps: float = 32.0) -> Feed:
    return Feed(fid, voltage=415.0, phases=3, current=amps, side=side)


def test_psus_go_round_robin_over_the_sides() -> None:
    assert psu_split(6, 2) == [3, 3]
    assert psu_split(6, 3) == [2, 2, 2]
    assert psu_split(4, 3) == [2, 1, 1]
    assert psus_kept(6, 2) == 3  # DGX H100 on A + B: degraded
    assert psus_kept(6, 3) == 4  # NVIDIA's three-PDU rack: 4 of 6 left
    assert psus_kept(5, 2) == 2


def test_k_sides_keep_k_minus_one_times_the_smallest() -> None:
    feeds = [feed("a", "A"), feed("b", "B"), feed("c", "C")]
    got = side_capacity(feeds, [18.4e3, 18.4e3, 18.4e3])
    assert got.k == 3 and got.capacity == pytest.approx(36.8e3)
    unequal = side_capacity(feeds, [20e3, 10e3, 30e3])
    assert unequal.capacity == pytest.approx(20e3) and unequal.smallest == "B"
    two = side_capacity(feeds[:2], [20e3, 10e3])
    assert two.capacity == pytest.approx(10e3)


def test_feeds_without_sides_add_up_and_an_orphan_counts_for_none() -> None:
    assert side_capacity([feed("a", None), feed("b", None)], [1.0, 2.0]).capacity == 3.0
    got = side_capacity([feed("a", "A"), feed("b", "B"), feed("x", None)], [5.0, 5.0, 9.0])
    assert got.orphans == (2,) and got.capacity == 5.0
    one = side_capacity([feed("a", "A"), feed("x", None)], [5.0, 9.0])
    assert one.orphans == (1,) and one.capacity == 5.0 and not one.redundant


def test_labels_sort_and_rating_has_no_derate() -> None:
    assert side_labels([feed("1", "B"), feed("2", "A"), feed("3", "B")]) == ["A", "B"]
    assert feed_rating(feed("a", "A", 32.0), 1.0) == pytest.approx(23001.6, rel=1e-4)
    assert feed_rating(Feed("s", 208.0, 1, 30.0), 0.9) == pytest.approx(5616.0)


def test_feed_power_is_the_one_formula() -> None:
    """V × I × derate × PF, × √3 for 3-phase (rules.md, Definitions), by hand:

    - 415 V 3-phase 63 A, derate 0.8, PF 0.95: 415 × 63 = 26,145; × 0.8 = 20,916;
      × 0.95 = 19,870.2; × √3 (1.7320508) = 34,416.2 W.
    - the same circuit's breaker rating (no derate, PF 1): 26,145 × √3 = 45,284.5 VA.
    - 208 V single-phase 30 A, derate 0.8: 208 × 30 × 0.8 = 4,992 W (no √3).
    """
    assert feed_power(415.0, 63.0, 3, derate=0.8, power_factor=0.95) == pytest.approx(34416.2)
    assert feed_power(415.0, 63.0, 3) == pytest.approx(45284.5, abs=0.1)
    assert feed_power(208.0, 30.0, 1, derate=0.8) == pytest.approx(4992.0)
    thresholds = {"feed_derate": 0.8, "power_factor": 0.95}
    assert feed_capacity(feed("a", "A", 63.0), thresholds) == pytest.approx(34416.2)
    # A feed's own derate wins over the layout's: 26,145 × 1.0 × 0.95 × √3 = 43,020.2 W.
    own = Feed("b", 415.0, 3, 63.0, derate=1.0)
    assert feed_capacity(own, thresholds) == pytest.approx(43020.2, abs=0.1)


def test_pdus_without_feed_go_over_the_feeds_in_order() -> None:
    feeds = [feed("a", "A"), feed("b", "B")]
    pdus = [Device("p1", "x"), Device("p2", "x", feed="a"), Device("p3", "x"), Device("p4", "x")]
    assert pdu_feeds(pdus, feeds) == {"p1": "a", "p2": "a", "p3": "b", "p4": "a"}


def test_cdu_lists_that_share_a_cdu_join() -> None:
    groups = cdu_groups([["c1", "c2"], ["c2", "c3"], ["c4"], [], ["c4"]])
    assert [(g.cdus, g.racks) for g in groups] == [(["c1", "c2", "c3"], [0, 1]), (["c4"], [2, 4])]
    assert n_plus_one([80e3, 80e3, 80e3]) == 160e3
    assert n_plus_one([750e3]) == 0.0


def _adjacency(edges: list[tuple[str, str, float]]) -> dict[str, dict[str, dict[str, float]]]:
    adj: dict[str, dict[str, dict[str, float]]] = {}
    for a, b, bw in edges:
        adj.setdefault(a, {})[b] = {"bandwidth": bw}
        adj.setdefault(b, {})[a] = {"bandwidth": bw}
    return adj


def test_two_leaves_joined_by_one_cable_have_a_global_ratio_of_one_sixteenth() -> None:
    edges = [(f"n{i}", "L1" if i < 16 else "L2", 400e9) for i in range(32)]
    edges.append(("L1", "L2", 400e9))
    adj = _adjacency(edges)
    tier = {f"n{i}": 0 for i in range(32)} | {"L1": 1, "L2": 1}
    bandwidth = {f"n{i}": 400e9 for i in range(32)}
    groups = lateral_groups(list(tier), adj, tier, 1, bandwidth)
    assert [g.switches for g in groups] == [["L1"], ["L2"]]
    assert [g.ratio for g in groups] == [pytest.approx(1 / 16)] * 2
    # Without the lateral cable there are no lateral groups.
    edges.pop()
    assert lateral_groups(list(tier), _adjacency(edges), tier, 1, bandwidth) == []


def test_a_balanced_dragonfly_has_ratio_one() -> None:
    # Two groups: one leaf and one spine each; 2 x 400G down per leaf, spine k/2 global.
    edges = [("n1", "L1", 800e9), ("n2", "L2", 800e9), ("L1", "S1", 800e9), ("L2", "S2", 800e9)]
    edges.append(("S1", "S2", 800e9))
    tier = {"n1": 0, "n2": 0, "L1": 1, "L2": 1, "S1": 2, "S2": 2}
    groups = lateral_groups(list(tier), _adjacency(edges), tier, 2, {"n1": 800e9, "n2": 800e9})
    assert [g.ratio for g in groups] == [1.0, 1.0]


def test_a_crossed_rail_is_found_in_a_rail_optimised_group() -> None:
    cables = []
    for n in range(4):
        for port in range(1, 5):
            leaf = f"L{port}"
            if n == 3 and port in (1, 2):
                leaf = f"L{3 - port}"  # node 3 swaps rails 1 and 2
            cables.append((f"n{n}", f"ib{port}", leaf, (n, port)))
    crossed = crossed_rails(cables)
    assert [(c.node, c.port, c.leaf, c.rail_leaf) for c in crossed] == [
        ("n3", "ib1", "L2", "L1"),
        ("n3", "ib2", "L1", "L2"),
    ]
    assert crossed[0].nodes == 4 and crossed[0].on_rail == 3
    # Every port of every node on one leaf: not rail-optimised, nothing crossed.
    assert crossed_rails([(f"n{n}", f"ib{p}", "L1", None) for n in range(4) for p in (1, 2)]) == []
