"""Semantic diffs with hand-computed expectations (rackdesigner.diff)."""

from __future__ import annotations

import copy

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.check.engine import check
from rackdesigner.diff import diff
from rackdesigner.diff.render import diff_data, diff_markdown, diff_text
from rackdesigner.layout_io.document import load
from rackdesigner.model.layout import Layout, Q
from tests.conftest import ROOT

LAYOUT = ROOT / "layouts" / "inference-32-b200.toml"


def _layout() -> Layout:
    return load(LAYOUT).layout


def _diff(old: Layout, new: Layout):
    a, old_findings = check(old)
    b, new_findings = check(new)
    return diff(a, b, old_findings=old_findings, new_findings=new_findings)


def test_a_layout_against_itself_is_empty() -> None:
    result = _diff(_layout(), _layout())
    assert result.empty
    assert "no change" in diff_text(result, "a", "a")
    assert diff_data(result, "a", "a")["changed"] is False


def test_a_moved_node_is_reported_as_moved() -> None:
    old, new = _layout(), _layout()
    node = next(d for d in new.racks[0].devices if d.id == "a01-n02")
    node.position = node.position - 1
    result = _diff(old, new)
    assert [(c.kind, c.id, c.what) for c in result.devices] == [("device", "a01-n02", "moved")]
    assert result.racks == [] and result.links == []
    (change,) = result.devices
    assert change.fields[0][0] == "position"


def test_an_added_rack_is_reported_as_added() -> None:
    old, new = _layout(), _layout()
    rack = copy.deepcopy(new.racks[1])
    rack.id, rack.slot, rack.devices = "a03", 3, []
    for feed in rack.feeds:
        feed.id = feed.id.replace("a02", "a03")
    new.racks.append(rack)
    result = _diff(old, new)
    assert [(c.kind, c.id, c.what) for c in result.racks] == [("rack", "a03", "added")]
    assert result.devices == [] and result.links == []
    (figures,) = result.rack_figures
    assert figures.id == "a03" and figures.before is None
    assert result.totals["racks"] == (2.0, 3.0)


def test_a_changed_feed_is_reported_as_a_rack_change() -> None:
    old, new = _layout(), _layout()
    new.racks[1].feeds[1].current = Q(32.0, "32 A")
    result = _diff(old, new)
    assert [(c.kind, c.id, c.what) for c in result.racks] == [("rack", "a02", "changed")]
    (change,) = result.racks
    assert change.fields == [("feed a02-B current", "63 A", "32 A")]
    assert result.devices == [] and result.links == []
    assert "PWR001" in {d.code for d in result.new_errors}
    assert result.findings_fixed == []


def test_a_renamed_device_is_a_rename_not_remove_and_add() -> None:
    old, new = _layout(), _layout()
    node = next(d for d in new.racks[0].devices if d.id == "a01-n01")
    node.id = "a01-node1"
    for link in new.links:
        for end in ("a", "b"):
            text = getattr(link, end)
            if text.partition(":")[0] == "a01-n01":
                setattr(link, end, "a01-node1:" + text.partition(":")[2])
    result = _diff(old, new)
    assert [(c.id, c.what) for c in result.devices] == [("a01-n01", "renamed")]
    assert result.links == []
    assert result.findings_new == [] and result.findings_fixed == []


def test_a_rerouted_and_a_remediaed_link() -> None:
    old, new = _layout(), _layout()
    compute = [link for link in new.links if ":ib" in link.a or ":ib" in link.b]
    first, second = compute[0], compute[1]
    first.media = "aoc" if first.media != "aoc" else "dac"
    device = second.b.partition(":")
    second.b = f"{device[0]}:p60"
    result = _diff(old, new)
    whats = sorted(c.what for c in result.links)
    assert whats == ["re-mediaed", "rerouted"]


def test_fabric_figures_follow_a_lost_cable() -> None:
    old, new = _layout(), _layout()
    new.links = new.links[1:]
    result = _diff(old, new)
    assert [c.what for c in result.links] == ["removed"]
    assert result.fabric_figures and "cables" in result.fabric_figures[0].changed()


def test_markdown_puts_the_summary_table_first() -> None:
    old, new = _layout(), _layout()
    new.racks[1].feeds[1].current = Q(32.0, "32 A")
    text = diff_markdown(_diff(old, new), "old", "new")
    assert text.index("| | before | after |") < text.index("<details>")
    assert "| errors **Δ** | 0 | 3 |" in text


def test_analysis_only_diff_has_no_findings() -> None:
    result = diff(Analysis(_layout()), Analysis(_layout()))
    assert result.empty


def test_a_rack_scale_racks_weight_is_the_one_the_rules_judge() -> None:
    """An NVL72 rack declares its weight as built (1.36 t, trays included): the per-rack
    figure is that plus its door and ToRs, as PLC004 counts it, not its devices alone."""
    old = load(ROOT / "layouts" / "gb200-nvl72-su.toml").layout
    new = copy.deepcopy(old)
    rack = next(r for r in new.racks if r.nvlink_domain)
    rack.weight = Q(1460.0, "1460 kg")
    figures = diff_data(_diff(old, new), "a", "b")["rack_figures"]
    (row,) = [f for f in figures if f["id"] == rack.id]
    assert row["changed"] == ["weight"]
    before, after = row["before"]["weight"], row["after"]["weight"]
    assert 1460 < before < 1470 and after == pytest.approx(before + 100)


def test_the_diffs_busbw_is_the_reports_whole_fabric_figure() -> None:
    """``diff`` compares a fabric's busbw: for the GB200 SU it is the report's whole-fabric
    acceptance figure, across the 8 NVLink domains, 900 GB/s x 85 % = 765 GB/s (capped at
    the figure inside a domain), not a 4-GPU tray's 4 x 400 Gbps x 85 % = 170 GB/s."""
    from rackdesigner.analysis import Analysis
    from rackdesigner.diff.compare import _fabric_numbers
    from rackdesigner.layout_io import load_path
    from tests.conftest import ROOT

    numbers = _fabric_numbers(Analysis(load_path(ROOT / "layouts" / "gb200-nvl72-su.toml")))
    (fabric,) = numbers.values()
    assert fabric["busbw"] == pytest.approx(900e9 * 8 * 0.85)
