"""A cable's port pair: what its two ends' port groups and device types decide (speed,
each end's role, the media table's technology and form), worked out once per kind of pair
and shared by its cables; the rules that read it judge every cable as before."""

from __future__ import annotations

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.links import derive_links
from rackdesigner.analysis.optics import link_shape
from rackdesigner.analysis.storage import is_storage_link
from rackdesigner.check.engine import check
from rackdesigner.layout_io.reader import load_text

LAYOUT = """
format = 1
name = "port pairs"

[catalog.stor-400g]
kind = "switch"
name = "400 GbE storage switch"
height = "1 U"
power = "800 W"
airflow = "front-to-rear"
ports = [{ name = "p", count = 32, speed = "400 Gbps", tech = "ethernet", role = "storage" }]

[catalog.hdr-200g]
kind = "switch"
name = "200 Gbps HDR switch"
height = "1 U"
power = "500 W"
airflow = "front-to-rear"
ports = [{ name = "p", count = 40, speed = "200 Gbps", tech = "infiniband" }]

[[racks]]
id = "a01"
row = "A"
slot = 1

[[racks.devices]]
id = "a01-n01"
model = "dgx-h100"
position = 2

[[racks.devices]]
id = "a01-n02"
model = "dgx-h100"
position = 10

[[racks.devices]]
id = "a01-leaf1"
model = "qm9700"
position = 21

[[racks.devices]]
id = "a01-hdr1"
model = "hdr-200g"
position = 23

[[racks.devices]]
id = "a01-stor1"
model = "stor-400g"
position = 25

[[links]]
a = "a01-n01:ib1"
b = "a01-leaf1:p1"

[[links]]
a = "a01-n02:ib1"
b = "a01-leaf1:p2"

[[links]]
a = "a01-n01:ib2"
b = "a01-hdr1:p1"

[[links]]
a = "a01-n02:ib2"
b = "a01-hdr1:p2"

[[links]]
a = "a01-n01:eth1"
b = "a01-stor1:p1"

[[links]]
a = "a01-n02:eth1"
b = "a01-stor1:p1"

[[links]]
a = "a01-n02:eth2"
b = "a01-stor9:p1"
"""


def _analysis() -> Analysis:
    return Analysis(load_text(LAYOUT))


def test_cables_between_the_same_kinds_of_port_share_one_pair() -> None:
    """Two DGX H100 ib ports to the QM9700 (NDR, 400G both ends): one pair, speed 400 Gbit/s,
    both compute, InfiniBand, split (switch to adapter). To the HDR switch (200G): the slower
    end's 200 Gbit/s. The storage ports to the storage switch: both roles storage, Ethernet."""
    links = _analysis().links
    leaf = [lf.pair for lf in links[:2]]
    assert leaf[0] is leaf[1] and leaf[0] is not None
    assert leaf[0].speed == 400e9
    assert leaf[0].roles == ("compute", "compute")
    assert leaf[0].shape == ("infiniband", "split")
    hdr = links[2].pair
    assert hdr is links[3].pair and hdr is not None and hdr is not leaf[0]
    assert hdr.speed == 200e9 and links[2].speed == 200e9
    storage = links[4].pair
    assert storage is not None and storage.roles == ("storage", "storage")
    assert storage.shape == ("ethernet", "split")
    assert [lf.compute for lf in links] == [True, True, True, True, False, False, False]


def test_a_ports_second_cable_keeps_its_pair_but_leaves_the_fabric() -> None:
    """a01-stor1:p1 takes two cables: the second has a CAB005 problem on that end and is no
    storage cable (nor in any fabric), though its ends' pair says storage."""
    links = _analysis().links
    second = links[5]
    assert second.b.problem is not None and second.pair is links[4].pair
    assert is_storage_link(links[4]) and not is_storage_link(second)


def test_an_end_that_does_not_resolve_has_no_pair_and_its_shape_from_the_other() -> None:
    """a01-stor9 does not exist: no pair, no speed; the shape is still read off the end that
    resolved (a DGX's Ethernet port; the unknown end is no switch: straight)."""
    lost = _analysis().links[6]
    assert lost.pair is None and lost.speed is None
    assert link_shape(lost) == ("ethernet", "straight")


def test_derived_links_keep_their_pairs() -> None:
    """What-if's derived links (the same devices) carry the pairs of the links they keep."""
    analysis = _analysis()
    before = analysis.links
    kept = [0, 2, 4]
    derived = derive_links(
        before,
        kept,
        [before[i].link for i in kept],
        analysis.device_by_id,
        analysis.geometry,
    )
    assert derived is not None
    assert [lf.pair for lf in derived[0]] == [before[i].pair for i in kept]


def test_every_mismatched_cable_of_a_pair_is_reported() -> None:
    """CAB004 passes over the cables of a pair whose ends agree, and reports each cable of a
    pair that does not: both DGX ib ports on the HDR switch (400 vs 200 Gbps)."""
    _, diagnostics = check(load_text(LAYOUT), select=["CAB004"])
    assert sorted(d.entity for d in diagnostics) == [
        "link a01-n01:ib2 -> a01-hdr1:p1",
        "link a01-n02:ib2 -> a01-hdr1:p2",
    ]
