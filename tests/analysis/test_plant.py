"""The cable plant (analysis/plant.py): fill at the busiest point, physical cables, channels,
transceivers by cage, loss. Every figure worked by hand in the docstrings.

Heights as in test_pathways.py: QM9700 ports at 0.911225 m, DGX H100 (8U at U2) ports at
(2 - 1 + 4) x 44.45 mm = 0.22225 m, rack top 1.8669 m, slack 0.5 m.
"""

from __future__ import annotations

import math

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.layout_io import load_text
from tests.analysis.test_pathways import hall, link, tray

FIBRE = math.pi * 0.003**2 / 4  # m², a 3.0 mm cord: 7.0686 mm²


def test_fill_is_counted_at_the_busiest_point() -> None:
    """Tray over row A, 300 x 100 mm = 30,000 mm². Two cords a01->a03 and one a02->a03:
    between slots 1 and 2 two cords, between 2 and 3 three. The busiest point carries
    3 x 7.0686 = 21.2 mm² (0.0707 %), 0.6 m from the tray's start (slot 1), not the
    whole tray's 3 cords plus... every cord counted once where it runs."""
    analysis = hall(
        tray("tray-a", 'row = "A"'),
        link("a01", "a03") + link("a01", "a03", port=2) + link("a02", "a03", port=3),
    )
    (fill,) = analysis.plant.fills(0.4)
    assert fill.cables == 3
    assert fill.area == pytest.approx(3 * FIBRE)
    assert fill.at == pytest.approx(0.6)
    assert fill.capacity == pytest.approx(0.03)
    assert fill.ratio == pytest.approx(3 * FIBRE / 0.03)


def test_a_twin_port_copper_cable_carries_two_links() -> None:
    """Two 400G passive copper links from one QM9700 cage (p1 and p2: the cage's two
    halves) to the same cage of another switch (p33, p34) are one MCP4Y10 twin-port cable;
    a third from p3 to p35 is a second cable. In a tray each link counts half a 9.43 mm
    cable: 3 x 69.84 / 2 = 104.8 mm². The run, 0.6 + 2 x 1.255675 + 0.5 = 3.61 m, is longer
    than MCP4Y10's longest (2 m): no stock length and no part (CAB003 says the DAC does not
    reach)."""
    analysis = hall(
        tray("tray-a", 'row = "A"'),
        link("a01", "a02", "dac") + link("a01", "a02", "dac", 2) + link("a01", "a02", "dac", 3),
    )
    cables = analysis.plant.cables()
    assert sorted(len(c.links) for c in cables) == [1, 2]
    assert {(c.part, c.stock) for c in cables} == {(None, None)}
    assert {round(c.length or 0, 6) for c in cables} == {3.61135}
    (fill,) = analysis.plant.fills(0.4)
    assert fill.area == pytest.approx(3 * math.pi * 0.00943**2 / 4 / 2)


def test_cable_stock_is_the_parts_own() -> None:
    """A 400G DAC between two switches in one rack, U21 and U25: 4 x 44.45 mm = 0.1778 m
    + 0.5 m slack = 0.6778 m; MCP4Y10 comes in 0.5, 1, 1.5 and 2 m: the 1 m part,
    MCP4Y10-N001 (the generic series would also say 1 m; a 2.3 m run would be no part)."""
    text = (
        'format = 1\nname = "r"\n[[racks]]\nid = "a01"\n'
        '[[racks.devices]]\nid = "s1"\nmodel = "qm9700"\nposition = 21\n'
        '[[racks.devices]]\nid = "s2"\nmodel = "qm9700"\nposition = 25\n'
        '[[links]]\na = "s1:p1"\nb = "s2:p1"\nmedia = "dac"\n'
    )
    analysis = Analysis(load_text(text))
    (run,) = analysis.plant.route(analysis.links[0]).runs
    assert run.length == pytest.approx(0.6778)
    assert (run.stock, run.part, run.how) == (1.0, "MCP4Y10-N001", "rack")


CHANNEL = """
[[racks]]
id = "a01"
row = "A"
slot = 1

[[racks.devices]]
id = "a01-n01"
model = "dgx-h100"
position = 2

[[racks.devices]]
id = "a01-pp1"
model = "fibre-panel-lc-1u"
position = 40

[[racks]]
id = "a03"
row = "A"
slot = 3

[[racks.devices]]
id = "a03-leaf1"
model = "qm9700"
position = 21

[[racks.devices]]
id = "a03-pp1"
model = "fibre-panel-lc-1u"
position = 40

[[pathways]]
id = "tray-a"
row = "A"
width = "300 mm"
depth = "100 mm"

[[trunks]]
id = "t1"
a = "a01-pp1"
b = "a03-pp1"
fibres = 24
media = "mmf"
splices = 1

[[links]]
a = "a01-n01:ib1"
b = "a03-leaf1:p1"
media = "mmf"
via = ["a01-pp1:p1", "a03-pp1:p1"]
"""


def channel() -> Analysis:
    return Analysis(load_text('format = 1\nname = "c"\n' + CHANNEL))


def test_a_channel_is_cord_trunk_cord() -> None:
    """Cord a: DGX port 0.22225 m to the panel at U40, (40 - 1 + 0.5) x 44.45 mm =
    1.755775 m: 1.533525 m + 0.5 slack = 2.033525 m. Trunk a01-a03 over the tray:
    2 x (1.8669 - 1.755775 + 0.3) = 0.82225 m of drops + 2 x 0.6 = 1.2 m along: 2.02225 m
    + 0.5 = 2.52225 m. Cord b: panel 1.755775 to the leaf 0.911225 = 0.84455 + 0.5 =
    1.34455 m. The channel: 2.033525 + 2.52225 + 1.34455 = 5.900325 m."""
    analysis = channel()
    (facts,) = analysis.links
    runs = analysis.plant.route(facts).runs
    assert [r.kind for r in runs] == ["cord", "trunk", "cord"]
    assert [r.length for r in runs] == pytest.approx([2.033525, 2.52225, 1.34455])
    assert facts.length == pytest.approx(5.900325)
    assert runs[1].route_text == "tray-a"


def test_channel_loss_through_lc_cassettes() -> None:
    """At each LC panel on an MPO trunk a cassette: two mated connections, LC 0.25 dB and
    MPO 0.35 dB (NVIDIA's low-loss requirement): 4 connections, 1.2 dB. Fibre 5.900325 m x
    3 dB/km = 0.0177 dB; one multimode splice 0.3 dB (FOA typical): 1.5177 dB. The budget
    is the smaller of the ends': MMA4Z00-NS-FLT at the DGX H100 (its flat twin-port cage)
    and MMA4Z00-NS at the QM9700, both 4 x 0.35 + 0.05 x 3 = 1.55 dB."""
    analysis = channel()
    (facts,) = analysis.links
    loss = analysis.plant.loss(facts)
    assert loss is not None
    assert (loss.connections, loss.splices) == (4, 1)
    assert loss.connection_loss == pytest.approx(1.2)
    assert loss.total == pytest.approx(1.2 + 5.900325 * 0.003 + 0.3)
    assert loss.budget == pytest.approx(1.55)
    optics = analysis.plant.optics(facts)
    assert [o.part for o in optics if o] == ["MMA4Z00-NS-FLT", "MMA4Z00-NS"]
    assert [o.cage for o in optics if o] == ["osfp-flat", "osfp-finned"]


def test_twin_port_modules_are_counted_by_cage() -> None:
    """Eight DGX H100 fibre links from ib1..ib8 of one node take its four flat-top cages
    (two ports each): four MMA4Z00-NS-FLT; at the QM9700 (p1..p8) four twin-port finned
    MMA4Z00-NS. 8 links, 8 cables, 8 modules: kept apart (a BasePOD's 64 node links are 32
    node modules, NVIDIA BasePOD RA Core Components: 'Four OSFP ports serving eight
    single-port NVIDIA ConnectX-7')."""
    from rackdesigner.export.tables import bom_rows

    text = (
        'format = 1\nname = "n"\n[[racks]]\nid = "a01"\n'
        '[[racks.devices]]\nid = "n1"\nmodel = "dgx-h100"\nposition = 2\n'
        '[[racks.devices]]\nid = "s1"\nmodel = "qm9700"\nposition = 21\n'
    )
    for port in range(1, 9):
        text += f'[[links]]\na = "n1:ib{port}"\nb = "s1:p{port}"\nmedia = "mmf"\n'
    rows = bom_rows(Analysis(load_text(text)))
    optics = {r[1]: r[4] for r in rows if r[0] == "optic"}
    assert optics == {"MMA4Z00-NS-FLT": 4, "MMA4Z00-NS": 4}
    assert sum(r[4] for r in rows if r[0] == "cable") == 8
    assert sum(r[4] for r in rows if r[0] == "links") == 8


def test_the_bill_counts_trunks_and_cassettes() -> None:
    """One 24-fibre OM4 trunk with MPO-12 ends between two LC panels: a cassette at each
    panel for each of its two 12-fibre legs, four; the channel's two cords."""
    from rackdesigner.export.tables import bom_rows

    rows = bom_rows(channel())
    kinds = {(r[0], r[1]): r[4] for r in rows if r[0] in ("trunk", "cassette")}
    assert kinds == {
        ("trunk", "trunk-mmf-24f-mpo-12-3m"): 1,
        ("cassette", "cassette-mpo-12-lc"): 4,
    }
    cords = [r for r in rows if r[0] == "cable"]
    assert sum(r[4] for r in cords) == 2 and all("(channel)" in r[2] for r in cords)
