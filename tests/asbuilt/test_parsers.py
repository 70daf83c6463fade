"""The scan parsers on captured scans (ibsim + ibnetdiscover, lldpctl -f json form)."""

from __future__ import annotations

import pytest

from rackdesigner.asbuilt import ScanError, read_scan
from rackdesigner.asbuilt.ibnetdiscover import parse_ibnetdiscover, parse_node_name_map
from rackdesigner.asbuilt.lldp import parse_lldp
from tests.asbuilt.helpers import DATA


def test_a_captured_scan_keeps_every_cable_once() -> None:
    scan = read_scan(DATA / "training-128.scan", "ibnetdiscover")
    assert len(scan.links) == 256  # each listed from both ends in the file
    assert sum(n.kind == "switch" for n in scan.nodes.values()) == 10
    assert sum(n.kind == "ca" for n in scan.nodes.values()) == 128
    assert {(link.width, link.rate) for link in scan.links} == {(4, "SDR")}  # ibsim: SDR only
    leaf = next(n for n in scan.nodes.values() if "a01-leaf1" in n.description)
    assert leaf.description == "MF0;a01-leaf1:MQM9700/U1" and leaf.ports == 65


def test_the_exported_net_file_reads_as_a_scan_too() -> None:
    """ibnetdiscover's output is a net file, and the net file parses like its output."""
    net = parse_ibnetdiscover((DATA / "inference-32-b200.net").read_text())
    scan = read_scan(DATA / "inference-32-b200.scan", "ibnetdiscover")
    pairs = {frozenset((link.a, link.b)) for link in scan.links}
    assert pairs == {frozenset((link.a, link.b)) for link in net.links}


def test_node_name_maps() -> None:
    names = parse_node_name_map((DATA / "inference-32-b200.node-name-map").read_text())
    assert len(names) == 4 and all(key.startswith("0x") for key in names)
    assert parse_node_name_map('# comment\n\n0xABC "x" # trailing\n') == {"0x0000000000000abc": "x"}
    with pytest.raises(ScanError, match=r":2: expected"):
        parse_node_name_map('0x1 "a"\nnot a map line\n', "map")


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('Switch 65 "S-01" # "x"\n[1] "H-02"[1]\ngarbage\n', 3),
        ('[1] "H-02"[1]\n', 1),  # a port outside a record
        ('Switch 65 "S-01" # "x"\n[1] "H-02', 2),  # truncated
        ('{"lldp": {}}\n', 1),  # a wrong format
        ("", 0),
        ("Switch 65 \x00\x01\n", 1),
    ],
)
def test_unreadable_scans_name_the_line(text: str, line: int) -> None:
    with pytest.raises(ScanError) as caught:
        parse_ibnetdiscover(text, "scan.txt")
    assert caught.value.line == line
    assert str(caught.value).startswith("scan.txt")


def test_lldp_folder_and_concatenated_file_agree() -> None:
    folder = read_scan(DATA / "lldp", "lldp")
    joined = read_scan(DATA / "lldp-all.txt", "lldp")
    assert (
        folder.collected
        == joined.collected
        == {
            "a01-n01",
            "a01-n02",
            "a03-sw-stor1",
            "a03-sw-stor2",
        }
    )
    pairs = {frozenset((link.a, link.b)) for link in folder.links}
    assert pairs == {frozenset((link.a, link.b)) for link in joined.links}
    assert (("a01-n01", "eth1") in {link.a for link in folder.links}) or any(
        ("a01-n01", "eth1") in (link.a, link.b) for link in folder.links
    )


def test_lldp_single_interface_object_and_errors() -> None:
    one = (
        '{"lldp": {"interface": {"eth0": {"chassis": {"sw1": {"id": {"type": "mac", '
        '"value": "x"}}}, "port": {"id": {"type": "ifname", "value": "swp3"}}}}}}'
    )
    scan = parse_lldp(one, "n1.json", host="n1")
    assert [(link.a, link.b) for link in scan.links] == [(("n1", "eth0"), ("sw1", "swp3"))]
    with pytest.raises(ScanError, match=r"x.json:3: not JSON"):
        parse_lldp("# host: n1\n{\n  oops\n", "x.json")
    with pytest.raises(ScanError, match="which host"):
        parse_lldp(one, "x.json")
    with pytest.raises(ScanError, match='no "lldp"'):
        parse_lldp("[1, 2]", "x.json", host="n1")
