"""800G XDR fabrics cabled the way NVIDIA sells them: `new --node dgx-b300` and the GB300
template choose linear active copper and single-mode fibre for their Q3400 links (no DAC,
multimode or AOC at XDR), validate without errors, and the BOM names XDR's transceivers."""

from __future__ import annotations

import copy

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.check.engine import check
from rackdesigner.design.connect import propose_media
from rackdesigner.design.templates import NewOptions, build
from rackdesigner.export.tables import bom_rows
from rackdesigner.rules.cabling._common import link_tech


@pytest.mark.parametrize(
    "options",
    [
        NewOptions(gpus=576, node="dgx-b300"),
        NewOptions(template="gb300-superpod", sus=1),
    ],
    ids=["dgx-b300", "gb300-superpod"],
)
def test_xdr_fabrics_get_xdr_parts(options: NewOptions) -> None:
    layout = build(options).layout
    analysis = Analysis(layout)
    xdr = [
        link
        for link in analysis.links
        if link.speed is not None and link.speed >= 800e9 and link_tech(link) == "infiniband"
    ]
    assert len(xdr) == 1152  # 576 node-leaf and 576 leaf-spine cables
    assert {link.link.media for link in xdr} <= {"acc", "smf"}
    assert any(link.link.media == "smf" for link in xdr)
    _, diagnostics = check(layout)
    assert [d for d in diagnostics if d.severity == "error"] == []
    # The XDR cables' own bill: the GB300 hall's Ethernet storage spines (800GbE) rightly
    # take 800GbE optics (MMS4X00), which must not be counted against the XDR links.
    only_xdr = copy.copy(layout)
    only_xdr.links = [link.link for link in xdr]
    optics = {row[1]: row[4] for row in bom_rows(Analysis(only_xdr)) if row[0] == "optic"}
    smf_adapter_ends = sum(
        1
        for link in xdr
        for end in (link.a, link.b)
        if link.link.media == "smf" and end.device is not None and end.device.kind == "gpu-node"
    )
    assert smf_adapter_ends > 0
    # one single-port XDR module at each ConnectX-8 end, twin-port ones at the switches
    assert optics["MMS4A20-XM800"] == smf_adapter_ends
    assert optics["MMS4A00-XM"] > 0
    assert not any(part.startswith(("MMA4Z00", "MMS4X00")) for part in optics)


def test_connect_ports_proposes_xdr_parts() -> None:
    split, straight = "split", "straight"
    assert propose_media(1.5, 800e9, None, split, "infiniband").media == "acc"  # MCA7K10
    assert propose_media(2.5, 800e9, None, split, "infiniband").media == "smf"
    assert propose_media(2.5, 800e9, None, straight, "infiniband").media == "acc"  # MCA4K50
    assert propose_media(30.0, 800e9, None, straight, "infiniband").media == "smf"  # no mmf
    assert propose_media(1.5, 800e9, None, split, "infiniband").reason.endswith("2 m at XDR")
    # 800GbE (SN5600) keeps the 100G-PAM4 parts
    assert propose_media(1.5, 800e9, None, split, "ethernet").media == "dac"
