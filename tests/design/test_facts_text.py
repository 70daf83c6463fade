"""The inspector's fact lines, made from a checked session without the app."""

from __future__ import annotations

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
