"""Cabling rule cases the one-fires-one-silent fixtures cannot express."""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.check.engine import check
from rackdesigner.layout_io.document import loads
from rackdesigner.model.layout import Device, Layout, Link, Rack
from rackdesigner.model.refs import Ref
from tests.builders import HEADER, findings, links_text
from tests.builders import rack_text as _rack

# -- cabling ----------------------------------------------------------------------------


def test_cab001_and_cab003_silent_without_a_slot_for_the_route() -> None:
    text = (
        _rack("a01", ["dgx-h100"], slot=None)
        + _rack("b01", ["qm9700"], slot=None, row="B")
        + links_text(("a01-d1:ib1", "b01-d1:p1", 'media = "dac"'))
    )
    assert findings("CAB001", text) == []
    assert findings("CAB003", text) == []
    assert findings("CAB002", text) == []


def test_cab001_declared_length_counts_without_a_route() -> None:
    text = (
        _rack("a01", ["dgx-h100"], slot=None)
        + _rack("b01", ["qm9700"], slot=None, row="B")
        + links_text(("a01-d1:ib1", "b01-d1:p1", 'length = "8 m"'))
    )
    found = findings("CAB001", text)
    # v1.2: a warning (latency: about 5 ns per metre past the limit); CAB003 judges reach
    assert [(d.severity, d.values) for d in found] == [
        ("warning", {"length": 8.0, "limit": 5.0, "added_latency_ns": 15.0})
    ]
    assert "declared length 8 m from GPU node a01-d1" in found[0].message


def test_cab003_hint_names_the_cheapest_media_that_reaches() -> None:
    text = (
        _rack("a01", ["qm9700"])
        + _rack("a02", ["qm9700"], slot=2)
        + links_text(("a01-d1:p1", "a02-d1:p1", 'media = "dac"\nlength = "30 m"'))
    )
    found = findings("CAB003", text)
    assert found[0].hint is not None and found[0].hint.startswith("use mmf")


def test_cab004_both_speed_and_technology() -> None:
    text = (
        '[catalog.g493-sb0]\ngpu = "h100-pcie"\n\n'
        + _rack("a01", ["g493-sb0", "qm9700"])
        + links_text(("a01-d1:eth1", "a01-d2:p1", ""))
    )
    found = findings("CAB004", text)
    assert len(found) == 1
    assert "technology: ethernet" in found[0].message and "speed: 200 Gbps" in found[0].message


def test_cab005_both_ends_of_one_link_and_a_malformed_reference() -> None:
    layout = Layout(
        "t",
        racks=[Rack("a01", row="A", slot=1, devices=[Device("a01-n01", "dgx-h100", position=2)])],
        links=[Link("nowhere:ib1", "a01-n01:ib9"), Link("a01-n01", "a01-n01:ib1")],
    )
    _, diagnostics = check(layout, select=["CAB005"])  # in memory: no source map, no lines
    found = sorted((d.subject, d.line, d.message) for d in diagnostics if d.code == "CAB005")
    assert [(subject, line) for subject, line, _ in found] == [
        (Ref("link", "a01-n01"), 0),
        (Ref("link", "nowhere:ib1"), 0),
        (Ref("link", "nowhere:ib1"), 0),
    ]
    assert "is not a port reference" in found[0][2]
    messages = {found[1][2], found[2][2]}
    assert any("end a (nowhere:ib1): unknown device nowhere" in m for m in messages)
    assert any("end b (a01-n01:ib9): dgx-h100 has ports ib1..ib8, not ib9" in m for m in messages)


def test_cab005_a_device_with_more_links_than_ports() -> None:
    text = _rack("a01", ["cpu-node-1u", "sn2201"]) + links_text(
        ("a01-d1:bmc1", "a01-d2:mgmt1", ""), ("a01-d1:bmc1", "a01-d2:mgmt2", "")
    )
    found = findings("CAB005", text)
    assert (
        len(found) == 1 and "already used by link a01-d1:bmc1 -> a01-d2:mgmt1" in found[0].message
    )


def test_cab005_a_cable_from_a_port_to_itself() -> None:
    text = _rack("a01", ["dgx-h100"]) + '[[links]]\na = "a01-d1:ib1"\nb = "a01-d1:ib1"\n'
    found = findings("CAB005", text)
    assert len(found) == 1 and "both ends are port a01-d1:ib1" in found[0].message


# -- CAB003 / CAB004 -------------------------------------------------------------------------------


def _cable(media: str, length: str, node: str = "dgx-h100", extra: str = "") -> str:
    return (
        f'[[racks]]\nid = "a01"\n\n[[racks.devices]]\nid = "n"\nmodel = "{node}"\n'
        'position = 2\n\n[[racks.devices]]\nid = "s"\nmodel = "qm9700"\nposition = 20\n\n'
        f'[[links]]\na = "n:ib1"\nb = "s:p1"\nmedia = "{media}"\nlength = "{length}"\n{extra}'
    )


def test_400g_splitter_copper_reaches_3_m_and_om3_30_m() -> None:
    # v1.2: node to switch is a splitter DAC (MCP7Y00, 1 to 3 m; v1.1: 2 m for every DAC)
    (dac,) = findings("CAB003", _cable("dac", "3.5 m"))
    assert dac.values["reach"] == 3.0
    assert findings("CAB003", _cable("dac", "2.5 m")) == []
    (om3,) = findings("CAB003", _cable("mmf", "40 m", extra='grade = "om3"\n'))  # v1: 50 m
    assert om3.values["reach"] == 30.0
    assert findings("CAB003", _cable("mmf", "40 m")) == []  # OM4 by default: 50 m


def test_an_ndr_port_on_an_hdr_switch_is_a_warning_and_counts_at_200g() -> None:
    text = _cable("dac", "1 m").replace('model = "qm9700"', 'model = "qm8700"')
    (found,) = findings("CAB004", text)
    assert found.severity == "warning"  # v1: an error
    assert "the link runs at 200 Gbps" in found.message
    analysis = Analysis(loads(HEADER + text).layout)
    assert analysis.links[0].speed == 200e9


def test_cab001_latency_of_a_short_overrun_is_not_rounded_to_zero() -> None:
    """5.05 m against the 5 m cable_max: 0.05 m × 5 ns/m = 0.25 ns, "about 250 ps", where
    the message read "about 0 ns more latency" (JUnit's failure message is this text)."""
    text = (
        _rack("a01", ["dgx-h100"], slot=None)
        + _rack("b01", ["qm9700"], slot=None, row="B")
        + links_text(("a01-d1:ib1", "b01-d1:p1", 'length = "5.05 m"'))
    )
    (found,) = findings("CAB001", text)
    assert found.values["added_latency_ns"] == pytest.approx(0.25)
    assert "about 250 ps more latency than a 5 m run" in found.message
    assert " 0 ns" not in found.message


def test_latency_figures_keep_two_digits_at_every_scale() -> None:
    """One helper formats times: 24.37 ns, 104 ns, 1.5 µs, 0.25 ns."""
    from rackdesigner.model.units import DURATION, fmt

    assert fmt(24.37e-9, DURATION, 2) == "24 ns"
    assert fmt(104e-9, DURATION, 2) == "104 ns"
    assert fmt(1.5e-6, DURATION, 2) == "1.5 µs"
    assert fmt(0.25e-9, DURATION, 2) == "250 ps"
