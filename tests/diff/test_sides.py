"""The old side of a diff checked in a child process gives the same diff as one process
(rackdesigner.diff.sides)."""

from __future__ import annotations

import os

import pytest

from rackdesigner.check.engine import check
from rackdesigner.diff import diff
from rackdesigner.diff.render import diff_data, diff_markdown, diff_text
from rackdesigner.diff.sides import PARALLEL_FROM, OldSide, check_pair
from rackdesigner.edit.checker import finding_order
from rackdesigner.layout_io.document import load
from rackdesigner.model.layout import Layout
from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")

TRAINING = ROOT / "layouts" / "training-128.toml"


def _layout() -> Layout:
    return load(TRAINING).layout


def _changed() -> Layout:
    """A node moved, a cable re-routed and one removed (the fabric figures are asked),
    a switch renamed, a feed's circuit changed: every part of the diff has something."""
    layout = _layout()
    rack = layout.racks[0]
    node = next(d for d in rack.devices if d.id.endswith("-n02"))
    node.position = (node.position or 0) + 1
    leaf = next(d for r in layout.racks for d in r.devices if "leaf" in d.id)
    old_id, leaf.id = leaf.id, leaf.id + "x"
    for link in layout.links:
        for end in ("a", "b"):
            device, colon, port = getattr(link, end).partition(":")
            if device == old_id:
                setattr(link, end, f"{leaf.id}{colon}{port}")
    moved = next(link for link in layout.links if link.a.startswith(node.id))
    moved.b = moved.b.rsplit(":", 1)[0] + ":p64"
    layout.links.remove(next(link for link in layout.links if "spine" in link.b))
    rack.feeds[0].circuit = "RPP-moved"
    return layout


def _result(old: Layout, new: Layout, parallel: bool):
    a, b, old_findings, new_findings = check_pair(
        old, new, "old.toml", "new.toml", parallel=parallel
    )
    return diff(a, b, old_findings=old_findings, new_findings=new_findings)


def _full(layout: Layout, file: str):
    """A full check, its findings in the order the diff's sides give them."""
    analysis, findings = check(layout, file=file)
    return analysis, sorted(findings, key=finding_order)


def test_the_child_checks_the_old_side() -> None:
    with OldSide(_layout(), "old.toml", parallel=True) as pending:
        assert pending.pid != 0
        side, grouped = pending.result()
    assert grouped.findings(side.layout) == _full(_layout(), "old.toml")[1]


@pytest.mark.parametrize("changed", [False, True], ids=["same", "changed"])
def test_a_child_process_gives_the_same_diff(changed: bool) -> None:
    new = _changed() if changed else _layout()
    one = _result(_layout(), new, parallel=False)
    two = _result(_layout(), new, parallel=True)
    assert two == one
    assert diff_data(two, "a", "b") == diff_data(one, "a", "b")
    assert diff_text(two, "a", "b") == diff_text(one, "a", "b")
    assert diff_markdown(two, "a", "b") == diff_markdown(one, "a", "b")
    assert one.empty is not changed
    if changed:
        assert one.links and one.devices and one.racks and one.fabric_figures


def test_serial_and_one_process_diff_agree_with_analyses() -> None:
    """diff() of two analyses, each checked in full, equals diff() of the sides
    check_pair gives (the new one checked incrementally)."""
    a, old_findings = _full(_layout(), "old.toml")
    b, new_findings = _full(_changed(), "new.toml")
    direct = diff(a, b, old_findings=old_findings, new_findings=new_findings)
    assert _result(_layout(), _changed(), parallel=False) == direct


def test_small_layouts_stay_in_one_process() -> None:
    layout = _layout()
    assert len(layout.links) < PARALLEL_FROM
    with OldSide(layout, "old.toml") as pending:
        assert pending.pid == 0
        pending.result()


def test_a_failing_child_falls_back_to_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """The child's check raises: the parent checks the old layout itself, same result."""
    import rackdesigner.diff.sides as sides

    real = sides._side
    parent = os.getpid()

    def failing(layout: Layout, file: str):
        if os.getpid() != parent:
            raise RuntimeError("broken in the child")
        return real(layout, file)

    monkeypatch.setattr(sides, "_side", failing)
    new = _changed()
    expected = _result(_layout(), new, parallel=False)
    with OldSide(_layout(), "old.toml", parallel=True) as pending:
        a, grouped = pending.result()
        assert pending.pid == 0  # the child was reaped
    b, new_findings = _full(new, "new.toml")
    got = diff(a, b, old_findings=grouped.findings(a.layout), new_findings=new_findings)
    assert got == expected


@pytest.mark.parametrize("name", ["training-128", "gb200-nvl72-su", "inference-32-b200"])
def test_the_cost_is_the_whole_bill_of_materials(name: str) -> None:
    """The diff prices a layout by its devices alone: that is the bill's whole total
    (cables and optics carry no price), and a device taken out takes its price off."""
    from rackdesigner.analysis import Analysis
    from rackdesigner.diff.compare import _cost
    from rackdesigner.export.tables import bom_items

    layout = load(ROOT / "layouts" / f"{name}.toml").layout
    analysis = Analysis(layout)
    items = bom_items(analysis)
    assert all(item["total"] is None for item in items if item["item"] != "device")
    total = sum(item["total"] for item in items if item["total"] is not None)
    assert total > 0
    assert _cost(analysis) == total
    priced = next(d for d in analysis.devices if d.type is not None and d.type.cost)
    priced.rack.devices.remove(priced.device)
    assert _cost(Analysis(layout)) == total - float(priced.type.cost)


@pytest.mark.parametrize(("load", "forks"), [(0.0, True), (64.0, False)])
def test_a_large_layout_forks_only_with_a_core_free(
    load: float, forks: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import rackdesigner.diff.sides as sides

    monkeypatch.setattr(sides, "PARALLEL_FROM", 0)
    monkeypatch.setattr(sides.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(sides.os, "cpu_count", lambda: 2)
    with OldSide(_layout(), "old.toml") as pending:
        assert (pending.pid != 0) is forks
        pending.result()
