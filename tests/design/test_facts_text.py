"""The inspector's fact lines, made from a checked session without the app."""

from __future__ import annotations

import pytest

from rackdesigner.design.facts_text import facts_lines, kilowatts, layout_lines
from rackdesigner.edit import Session
from rackdesigner.layout_io import load_path
from rackdesigner.model.layout import Layout
from tests.conftest import ROOT


def test_kilowatts_keeps_fixed_decimals() -> None:
    assert kilowatts(39_500) == "39.5 kW"
    assert kilowatts(0, 2) == "0.00 kW"
    assert kilowatts(1_234_000) == "1,234.0 kW"


def test_layout_lines_invite_the_first_rack() -> None:
    assert layout_lines(Layout(name="x"))[0] == "x: no racks yet."


def test_facts_of_a_rack_a_device_a_feed_and_a_link() -> None:
    session = Session(load_path(ROOT / "layouts" / "training-128.toml"))
    rack = session.layout.racks[0]
    lines = facts_lines(session, ("rack", rack.id))
    assert lines[0].startswith("load ") and " kW of " in lines[0]
    assert lines[1].startswith("heat ") and " kW air) · cooling " in lines[1]
    assert lines[2].endswith(f" · {len(rack.feeds)} feeds")
    assert f" of {rack.height_u:g} U used · " in lines[2]
    device = next(d for d in rack.devices if session.index.links_of(d.id))
    lines = facts_lines(session, ("device", device.id))
    assert " U · " in lines[0] and lines[1] == f"in rack {rack.id}"
    assert lines[2].startswith("cables: ")
    feed = rack.feeds[0]
    lines = facts_lines(session, ("feed", feed.id))
    assert lines[0].startswith(f"in rack {rack.id} · usable ") and lines[0].endswith(" kW")
    link = session.layout.links[0]
    assert facts_lines(session, ("link", link.a))[0] == f"{link.a} → {link.b}"
    assert facts_lines(Session(Layout(name="x"), check=False), ("rack", "r")) == []


def test_a_rack_scale_rack_and_its_trays_show_their_nvlink_domain() -> None:
    """Issue 24: the rack's page names its domain with its trays against the NVL72's 18
    compute and 9 switch trays and its GPUs; a tray's page names its domain; a tray in a
    rack without ``nvlink_domain`` says NVL002."""
    from rackdesigner.edit import EditError, RemoveDevice, SetField

    session = Session(load_path(ROOT / "layouts" / "gb200-nvl72-su.toml"))
    rack = next(r for r in session.layout.racks if r.nvlink_domain)
    lines = facts_lines(session, ("rack", rack.id))
    at = lines.index(f"NVLink domain {rack.nvlink_domain}")
    assert lines[at + 1 : at + 3] == ["NVL72 · 72 GPUs", "compute 18/18 · switch 9/9"]
    tray = next(d for d in rack.devices if d.model == "gb200-compute-tray")
    lines = facts_lines(session, ("device", tray.id))
    at = lines.index(f"in NVLink domain {rack.nvlink_domain}")
    assert lines[at + 1] == "27 trays · 72 GPUs in it"
    switch = next(d for d in rack.devices if d.model == "nvl72-switch-tray")
    assert "27 trays · 72 GPUs in it" in facts_lines(session, ("device", switch.id))
    session.do(RemoveDevice(tray.id))
    lines = facts_lines(session, ("rack", rack.id))
    assert "NVL72 · 68 GPUs" in lines and "compute 17/18 · switch 9/9" in lines
    # The field as the inspector commits it (the loader's conversion: a bad id is refused).
    with pytest.raises(EditError):
        session.do(SetField(("rack", rack.id), "nvlink_domain", "nvl a01"))
    session.do(SetField(("rack", rack.id), "nvlink_domain", ""))
    assert rack.nvlink_domain is None
    lines = facts_lines(session, ("rack", rack.id))
    assert "26 NVLink trays, no domain:" in lines and "set nvlink_domain (NVL002)" in lines
    lines = facts_lines(session, ("device", switch.id))
    assert "switch tray in no NVLink" in lines and "domain (NVL002): the rack" in lines
    # Not rack-scale: no domain line.
    plain = Session(load_path(ROOT / "layouts" / "training-128.toml"))
    first = plain.layout.racks[0]
    assert not any("NVLink" in line for line in facts_lines(plain, ("rack", first.id)))
