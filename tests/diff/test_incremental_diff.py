"""The diff of a layout and a changed copy is the same whether the new side is checked
incrementally and its fabric figures computed lean (``check_pair``, what the command
runs) or both layouts are analysed and checked in full; and the cables of the two lists
pair as the plain greedy pairing pairs them (rackdesigner.diff.compare), on random
small changes."""

from __future__ import annotations

import copy
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rackdesigner.check.engine import check
from rackdesigner.diff import diff
from rackdesigner.diff.compare import Side, _fabric_numbers, _pair_links
from rackdesigner.diff.render import diff_data
from rackdesigner.diff.sides import check_pair
from rackdesigner.edit.checker import finding_order
from rackdesigner.model.layout import Layout, Link
from rackdesigner.topology.figures import all_fabric_figures
from tests.whatif.test_incremental import CHANGE, LAYOUTS, _apply, _layout

# A change the whatif test has not: a device renamed with its cables.
EXTRA = st.tuples(
    st.sampled_from(["rename"]),
    st.integers(0, 1000),
    st.integers(0, 1000),
    st.integers(-6, 6),
)


def _change(layout: Layout, change: tuple[str, int, int, int]) -> None:
    kind, r, d, _n = change
    if kind == "rename":
        rack = layout.racks[r % len(layout.racks)]
        if not rack.devices:
            return
        device = rack.devices[d % len(rack.devices)]
        old, device.id = device.id, device.id + "-renamed"
        for link in layout.links:
            for end in ("a", "b"):
                name, colon, port = getattr(link, end).partition(":")
                if name == old:
                    setattr(link, end, f"{device.id}{colon}{port}")
    else:
        _apply(layout, change)


def _full_side(layout: Layout, file: str) -> tuple[Side, list]:
    """A side from a full analysis, its fabric figures the full ones (with detail)."""
    analysis, findings = check(layout, file=file)
    side = Side.of(analysis)

    def fabric() -> dict:
        full = {f.fabric.name: f for f in all_fabric_figures(analysis)}
        lean = _fabric_numbers(analysis)
        assert full.keys() == lean.keys()
        for name, numbers in lean.items():
            figures = full[name]
            assert numbers["oversubscription"] == figures.oversubscription
            assert numbers["bisection"] == figures.bisection.bandwidth
            assert numbers["busbw"] == figures.inter
        return lean

    side.fabric = fabric
    return side, sorted(findings, key=finding_order)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    st.sampled_from(LAYOUTS),
    st.lists(st.one_of(CHANGE, EXTRA), max_size=2),
    st.lists(st.one_of(CHANGE, EXTRA), min_size=1, max_size=3),
)
def test_the_incremental_diff_is_the_full_diff(path: Path, before: list, changes: list) -> None:
    old = _layout(path)
    for change in before:
        _change(old, change)
    new = copy.deepcopy(old)
    for change in changes:
        _change(new, change)
    a, b, old_findings, new_findings = check_pair(
        copy.deepcopy(old), copy.deepcopy(new), "old.toml", "new.toml", parallel=False
    )
    fast = diff(a, b, old_findings=old_findings, new_findings=new_findings)
    (sa, fa), (sb, fb) = _full_side(old, "old.toml"), _full_side(new, "new.toml")
    full = diff(sa, sb, old_findings=fa, new_findings=fb)
    assert fast == full
    assert diff_data(fast, "old", "new") == diff_data(full, "old", "new")


def _greedy(old: list[Link], new: list[Link]) -> tuple[list, list, list]:
    """The plain pairing: each old cable, in order, takes the first new one left with
    its two ends."""
    left: dict[frozenset[str], list[int]] = {}
    for j, link in enumerate(new):
        left.setdefault(frozenset((link.a, link.b)), []).append(j)
    pairs, left_old = [], []
    for i, link in enumerate(old):
        found = left.get(frozenset((link.a, link.b)))
        if found:
            pairs.append((i, found.pop(0)))
        else:
            left_old.append(i)
    return pairs, left_old, sorted(j for ids in left.values() for j in ids)


ENDS = st.sampled_from(["n1:p1", "n1:p2", "n2:p1", "n2:p2", "s1:p1", "s1:p2", "s2:p1"])
LINK = st.tuples(ENDS, ENDS, st.sampled_from([None, 1.0, 3.0]))
EDIT = st.tuples(st.sampled_from(["insert", "delete", "replace"]), st.integers(0, 50), LINK)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINK, max_size=12), st.lists(EDIT, max_size=4))
def test_cables_pair_as_the_greedy_pairing(links: list, edits: list) -> None:
    """Few distinct ends, so that keys repeat in the head, the tail and between."""
    old = [Link(a=a, b=b, length=length) for a, b, length in links]
    new = [copy.copy(link) for link in old]
    for kind, at, (a, b, length) in edits:
        link = Link(a=a, b=b, length=length)
        if kind == "insert":
            new.insert(at % (len(new) + 1), link)
        elif new and kind == "delete":
            del new[at % len(new)]
        elif new:
            new[at % len(new)] = link
    pairs, left_old, left_new, _, _ = _pair_links(old, new, {})
    assert (pairs, left_old, left_new) == _greedy(old, new)
