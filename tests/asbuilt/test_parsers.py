"""The scan parsers on captured scans (ibsim + ibnetdiscover, lldpctl -f json form)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.asbuilt import ScanError, read_scan
from rackdesigner.asbuilt.ibnetdiscover import parse_ibnetdiscover, parse_node_name_map
from rackdesigner.asbuilt.lldp import parse_lldp
from tests.asbuilt.helpers import DATA
from tests.strategies import examples


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


# --- Malformed scans: one ScanError naming the file and line, never another exception ---


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('Switch 65 "S-01" # "x"\n[1] "H-02"[' + "9" * 4301 + "]\n", "2: a port number of 999"),
        ('Switch 65 "S-01" # "x"\n[' + "1" * 5000 + '] "H-02"[1]\n', "(5000 digits)"),
        ('Switch 256 "S-01" # "x"\n', "1: a port count of 256: InfiniBand ports are 0 to 255"),
        ('Ca 2 "H-01" # "x"\n[1] "S-02"[300]\n', "2: a port number of 300"),
    ],
)
def test_port_numbers_beyond_infiniband_s_are_refused(text: str, said: str) -> None:
    with pytest.raises(ScanError) as caught:
        parse_ibnetdiscover(text, "scan.txt")
    assert said in str(caught.value)
    assert len(str(caught.value)) < 200


def test_a_lane_count_of_many_digits_is_no_speed_not_a_crash() -> None:
    scan = parse_ibnetdiscover('Ca 2 "H-01" # "x"\n[1] "S-02"[3] # ' + "4" * 5000 + "xNDR\n")
    assert [(link.width, link.rate) for link in scan.links] == [(None, None)]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"lldp": [1]}', '"lldp" holds no object'),
        ('{"lldp": ["x"]}', '"lldp" holds no object'),
        ('{"lldp": [[]]}', '"lldp" holds no object'),
        ('{"lldp": {"interface": [1]}}', "an interface that is not an object"),
        ('{"lldp": {"interface": {"eth0": 5}}}', "interface 'eth0' is not an object"),
        ('{"lldp": {"interface": {"eth0": {"chassis": {"s": {}}, "port": 1}}}}', "without a port"),
        ("[" * 100_000 + "]" * 100_000, "JSON nested too deeply"),
    ],
)
def test_malformed_lldp_shapes_are_one_error(text: str, said: str) -> None:
    with pytest.raises(ScanError, match=re.escape(said)) as caught:
        parse_lldp(text, "n1.json", host="n1")
    assert str(caught.value).startswith("n1.json:1: ")


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(
        st.sampled_from(["lldp", "interface", "chassis", "port", "id", "name", "value", "type",
                         "descr", "eth0", "sw1"]),
        inner,
        max_size=4,
    ),
    max_leaves=12,
)  # fmt: skip


@settings(max_examples=examples(400), deadline=None)
@given(_JSON)
def test_any_json_shape_is_a_scan_or_one_scan_error(value: object) -> None:
    """lldpctl's JSON in any shape, at any level: a scan, or a ScanError naming the file."""
    for document in (value, {"lldp": value}, {"lldp": {"interface": value}}):
        try:
            parse_lldp(json.dumps(document), "n1.json", host="n1")
        except ScanError as error:
            assert str(error).startswith("n1.json")


_IB_LINE = st.one_of(
    st.builds(
        lambda kind, n, guid, desc: f'{kind} {n} "{guid}" # "{desc}"',
        st.sampled_from(["Switch", "Ca", "Rt"]),
        st.integers(0, 10**6).map(str) | st.just("9" * 4400),
        st.sampled_from(["S-0002c90300a10001", "H-01", "x", ""]),
        st.text(max_size=5),
    ),
    st.builds(
        lambda a, guid, b, tail: f'[{a}](0x1) "{guid}"[{b}] # {tail}',
        st.integers(0, 10**6).map(str) | st.just("9" * 4400),
        st.sampled_from(["S-0002c90300a10001", "H-01"]),
        st.integers(0, 10**6),
        st.sampled_from(["4xNDR", "44444xHDR", "", '"desc" lid 1 4xSDR']),
    ),
    st.sampled_from(["", "# comment", "vendid=0x2c9", "caguid=0x1", "garbage", "[1"]),
    st.text(max_size=10),
)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(_IB_LINE, max_size=8))
def test_any_ibnetdiscover_lines_are_a_scan_or_one_scan_error(lines: list[str]) -> None:
    try:
        parse_ibnetdiscover("\n".join(lines), "scan.txt")
    except ScanError as error:
        assert str(error).startswith("scan.txt")
