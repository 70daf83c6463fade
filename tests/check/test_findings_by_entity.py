"""Findings name entities, not lines: they stay right after an edit in memory."""

from __future__ import annotations

import re

import pytest

from rackdesigner.check.engine import check, check_document
from rackdesigner.layout_io.document import load
from rackdesigner.model.layout import Device, Link
from rackdesigner.model.refs import Ref, link_refs
from tests.conftest import ROOT

LAYOUTS = sorted((ROOT / "layouts").rglob("*.toml"))
LINE_NUMBER = re.compile(r"line \d+")


def test_an_edit_in_memory_keeps_fabric_names_and_reports_new_entities_at_their_rack() -> None:
    document = load(ROOT / "layouts" / "training-128.toml")
    before = check_document(document).analysis
    assert before is not None
    names = [fabric.name for fabric in before.fabrics]
    assert names == ["a01-leaf1"]
    # A new spine in the network rack, cabled to a free port of the first leaf, placed over
    # a device that is already there (PLC001).
    network = next(r for r in document.layout.racks if r.id == "a03")
    taken = next(d for d in network.devices if d.position is not None)
    network.devices.append(Device("a03-spine9", "qm9700", taken.position))
    leaf = before.device_by_id["a01-leaf1"]
    used = {link.a.key for link in before.links} | {link.b.key for link in before.links}
    group = leaf.ports["p"]
    free = next(
        f"a01-leaf1:p{n}" for n in range(1, group.count + 1) if f"a01-leaf1:p{n}" not in used
    )
    document.layout.links.append(Link(free, "a03-spine9:p1", "aoc"))

    analysis, diagnostics = check(document.layout, source_map=document.source_map)
    assert [fabric.name for fabric in analysis.fabrics] == names
    assert "a03-spine9" in {d.id for d in analysis.fabrics[0].devices}
    rack_line = document.line(Ref("rack", "a03"))
    assert rack_line
    new = [d for d in diagnostics if d.subject == Ref("device", "a03-spine9")]
    assert any(d.code == "PLC001" for d in new)
    assert {d.line for d in new} == {rack_line}
    # A new link is reported at its a end's device.
    on_link = [d for d in diagnostics if d.subject == Ref("link", free)]
    assert all(d.line == document.line(Ref("device", "a01-leaf1")) for d in on_link)
    assert not [d.message for d in diagnostics if LINE_NUMBER.search(d.message)]


@pytest.mark.parametrize("path", LAYOUTS, ids=lambda p: p.name)
def test_no_message_names_a_line_and_every_finding_has_a_subject(path) -> None:
    result = check_document(load(path))
    for d in result.diagnostics:
        assert d.subject is not None, d
        assert not LINE_NUMBER.search(d.message), d.message
        assert not LINE_NUMBER.search(d.hint or ""), d.hint
        assert d.line == result.document.source_map.locate(d.subject, result.analysis.enclosing)


def test_link_references_use_the_a_end_and_both_ends_where_it_is_shared() -> None:
    links = [Link("n1:ib1", "s1:p1"), Link("n1:ib2", "s1:p2"), Link("n1:ib2", "s1:p3")]
    assert link_refs(links) == [
        Ref("link", "n1:ib1"),
        Ref("link", "n1:ib2 -> s1:p2"),
        Ref("link", "n1:ib2 -> s1:p3"),
    ]
    twice = [Link("n1:ib1", "s1:p1"), Link("n1:ib1", "s1:p1")]
    assert link_refs(twice) == [
        Ref("link", "n1:ib1 -> s1:p1"),
        Ref("link", "n1:ib1 -> s1:p1", 1),
    ]


def test_duplicate_ids_are_told_apart_and_name_each_other() -> None:
    result = check_document(load(ROOT / "tests" / "rules" / "PLC005" / "fires.toml"))
    duplicate = next(d for d in result.diagnostics if "duplicate device id" in d.message)
    assert duplicate.subject == Ref("device", "a01-n01", 1)
    assert duplicate.related == (Ref("device", "a01-n01"),)
    assert duplicate.line == result.document.line(duplicate.subject)
    assert duplicate.line != result.document.line(duplicate.related[0])
