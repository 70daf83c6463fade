"""The power chain in NetBox's terms (netbox/power_panels.py): which elements are power
panels, each rack feed on the panel it hangs on, what a panel says of the chain above it,
and push and pull of a chained layout (against the in-memory stand-in; the real NetBox
test imports and pushes one too)."""

from __future__ import annotations

from rackdesigner.analysis import Analysis
from rackdesigner.layout_io.reader import load_path, load_text
from rackdesigner.layout_io.writer import dumps
from rackdesigner.netbox.bulk import bulk_rows
from rackdesigner.netbox.pull import pull_site
from rackdesigner.netbox.push import push_rows
from tests.conftest import ROOT
from tests.netbox.fake import FakeNetBox
from tests.netbox.test_bulk import FORM_FIELDS, REQUIRED

CHAIN = ROOT / "tests" / "data" / "render" / "chain.toml"
GB200 = ROOT / "layouts" / "gb200-nvl72-su.toml"


def _rows(path) -> dict[str, list[dict]]:
    return dict(bulk_rows(Analysis(load_path(path))))


def test_the_panels_are_the_elements_feeds_hang_on_and_the_distribution_gear() -> None:
    """chain.toml: the switchboard (a panel kind, though it feeds no rack), rpp-a1 and
    busway-b1 (the racks' feeds name them), and Panel A for b02's feed without a source;
    not the utility, generator, ATS or UPSs (they feed no rack)."""
    rows = _rows(CHAIN)
    assert [r["name"] for r in rows["power-panels"]] == ["swbd-1", "rpp-a1", "busway-b1", "Panel A"]
    for kind in ("power-panels", "power-feeds"):
        for row in rows[kind]:
            assert set(row) <= FORM_FIELDS[kind] and REQUIRED[kind] <= set(row)
    panel = {f["name"]: f["power_panel"] for f in rows["power-feeds"]}
    assert panel == {
        "a01-A": "rpp-a1",
        "a01-B": "busway-b1",
        "a02-A": "rpp-a1",
        "a02-B": "busway-b1",
        "b01-A": "rpp-a1",
        "b01-B": "busway-b1",
        "b02-A": "Panel A",
    }


def test_a_panel_says_its_rating_and_its_path_up_the_chain() -> None:
    """rpp-a1: 415 V × 100 A × √3 × 0.8 = 57.5 kW continuous, 42 positions, its label
    first; above it ups-a, swbd-1, ats-1, whose normal source is the utility, else the
    generator."""
    rows = {r["name"]: r for r in _rows(CHAIN)["power-panels"]}
    rpp = rows["rpp-a1"]
    assert rpp["description"] == (
        "floor panel A1 · rpp · 415 V 3-phase 100 A × 0.8 = 57.5 kW continuous · 42 positions"
    )
    assert rpp["comments"].startswith(
        "Fed by ups-a (ups, 80 kW continuous), fed by swbd-1 (switchgear, no rating), fed by "
        "ats-1 (ats, 230 kW continuous), fed by utility-1 (utility, 200 kW continuous), else "
        "by gen-1 (generator, 150 kW continuous). From rackdesigner's power chain"
    )
    assert rows["swbd-1"]["description"] == "switchgear · no rating"
    assert "comments" not in rows["Panel A"]


def test_a_feed_on_an_element_says_its_side_position_and_circuit() -> None:
    feeds = {f["name"]: f for f in _rows(GB200)["power-feeds"]}
    feed = feeds["a01-B"]
    assert feed["power_panel"] == "busway-a1-b" and feed["type"] == "redundant"
    assert feed["description"] == "side B · position 1 · circuit RPP-A-B-a01"
    assert feed["supply"] == "ac" and feed["phase"] == "three-phase"


def test_every_feed_cable_starts_at_the_feed_on_its_panel() -> None:
    """GB200 SU: each rack's feeds on its busways, and each feed's cable (to a power
    shelf's AC input or a PDU's inlet) names that panel, so NetBox finds the feed."""
    rows = _rows(GB200)
    feeds = {(f["power_panel"], f["name"]) for f in rows["power-feeds"]}
    ends = [
        (c["side_a_power_panel"], c["side_a_name"])
        for c in rows["cables"]
        if c["side_a_type"] == "dcim.powerfeed"
    ]
    assert ends and set(ends) <= feeds
    assert {panel for panel, _ in ends} <= {r["name"] for r in rows["power-panels"]}
    assert all(panel.startswith("busway-") for panel, _ in ends)


def test_an_800_vdc_feed_is_dc() -> None:
    text = CHAIN.read_text().replace(
        'kind = "busway"\nfed_by = ["ups-b"]\nvoltage = "415 V"\ncurrent = "60 A"\npositions = 8',
        'kind = "power-rack"\nfed_by = ["ups-b"]\nvoltage = "800 V"\ncurrent = "60 A"',
    )
    assert 'kind = "power-rack"' in text
    rows = dict(bulk_rows(Analysis(load_text(text))))
    feed = next(f for f in rows["power-feeds"] if f["name"] == "a01-B")
    assert feed["power_panel"] == "busway-b1"
    assert feed["supply"] == "dc" and feed["phase"] == "single-phase"


def test_a_layout_without_a_chain_keeps_a_panel_per_side() -> None:
    rows = _rows(ROOT / "layouts" / "starter-4x-a6000.toml")
    assert {r["name"] for r in rows["power-panels"]} <= {"Panel A", "Panel B", "Panel"}
    assert all("comments" not in r for r in rows["power-panels"])


def test_push_makes_the_chains_panels_and_pull_gives_back_the_feeds_sides() -> None:
    """Pushed, the panels carry their description and path; pushed again nothing changes;
    pulled, every feed has its side and circuit again (the panel's name no longer says
    it), and no source (pull does not bring the chain back)."""
    netbox = FakeNetBox()
    original = load_path(GB200)
    rows = bulk_rows(Analysis(original))
    push_rows(netbox, rows)
    panels = {r["name"]: r for r in netbox.records["power-panels"].values()}
    assert panels["busway-a1-a"]["comments"].startswith("Fed by ups-b1-a (ups, ")
    assert push_rows(netbox, rows).count("create") == 0
    pulled = pull_site(netbox, original.name).layout
    want = sorted((f.id, f.side, f.circuit) for r in original.racks for f in r.feeds)
    assert sorted((f.id, f.side, f.circuit) for r in pulled.racks for f in r.feeds) == want
    assert all(f.source is None for r in pulled.racks for f in r.feeds)
    load_text(dumps(pulled))  # a layout that loads
