"""(v1.4) Media by route through a trunk: the channels of one trunk share its fibre, so when
their routes outgrow multimode the trunk and every channel through it turn single-mode
together (before, the channels turned and the trunk stayed multimode: CAB013's error on
every long channel of a 16,384-GPU structured hall from ``new``)."""

from __future__ import annotations

from rackdesigner.check.engine import check
from rackdesigner.design.cable_plant import route_media
from rackdesigner.layout_io.reader import load_text

HALL = """
format = 1
name = "far"
"""
for rack in ("a001", "a100"):
    slot = int(rack[1:])
    HALL += f"""
[[racks]]
id = "{rack}"
row = "A"
slot = {slot}

[[racks.devices]]
id = "{rack}-sw"
model = "qm9700"
position = 21

[[racks.devices]]
id = "{rack}-pp1"
model = "fibre-panel-mpo-1u"
position = 42
face = "rear"
"""
HALL += """
[[pathways]]
id = "tray-a"
row = "A"
slots = [0, 101]
width = "300 mm"
depth = "100 mm"

[[trunks]]
id = "t1"
a = "a001-pp1"
b = "a100-pp1"
fibres = 144
media = "mmf"
"""
for port in (1, 2):
    HALL += f"""
[[links]]
a = "a001-sw:p{port}"
b = "a100-sw:p{port}"
media = "mmf"
via = ["a001-pp1:p{port}", "a100-pp1:p{port}"]
trunk = "t1"
"""


def test_a_trunk_and_its_channels_turn_single_mode_together() -> None:
    """Slots 1 and 100 of one row: 99 x 0.6 m = 59.4 m along the tray before the drops and
    cords, past the 50 m that 400G multimode reaches (analysis/reach.py; NDR SR4 on OM4),
    short of single-mode's 500 m. Both channels and their trunk become smf, and CAB013 has
    nothing to say."""
    layout = load_text(HALL)
    assert route_media(layout) == 2
    assert [link.media for link in layout.links] == ["smf", "smf"]
    assert layout.trunks[0].media == "smf"
    _, diagnostics = check(layout)
    assert [d.code for d in diagnostics if d.code == "CAB013"] == []


def test_a_trunk_whose_channels_reach_keeps_its_fibre() -> None:
    """Slots 1 and 60 would be 35.4 m along the tray: multimode reaches, nothing changes."""
    layout = load_text(HALL.replace('"a100', '"a060').replace("slot = 100", "slot = 60"))
    assert route_media(layout) == 0
    assert layout.trunks[0].media == "mmf"
    assert [link.media for link in layout.links] == ["mmf", "mmf"]


def test_a_trunk_of_mixed_channels_takes_the_farthest_reaching_fibre() -> None:
    """A generator may give the channels of one rack pair different media (by their rows'
    lengths), and a trunk takes its first channel's: an mmf channel and an smf one through
    an mmf trunk. Both channels and the trunk become smf (the one that needs it decides),
    one change counted."""
    layout = load_text(HALL.replace('"a100', '"a060').replace("slot = 100", "slot = 60"))
    layout.links[1].media = "smf"
    assert route_media(layout) == 1
    assert [link.media for link in layout.links] == ["smf", "smf"]
    assert layout.trunks[0].media == "smf"
