"""The comparison: known faults in captured scans are reported as exactly those faults."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.asbuilt import read_scan
from rackdesigner.asbuilt.compare import compare
from rackdesigner.asbuilt.ibnetdiscover import parse_node_name_map
from rackdesigner.asbuilt.scan import Scan, SeenLink
from tests.asbuilt.helpers import DATA, INFERENCE, TRAINING, design
from tests.strategies import examples

SCAN = read_scan(DATA / "training-128.scan", "ibnetdiscover")
DESIGN = design(TRAINING)


def _scan() -> Scan:
    return copy.deepcopy(SCAN)


def _guid_of(scan: Scan, name: str) -> str:
    return next(k for k, n in scan.nodes.items() if f";{name}:" in n.description)


def _kinds(findings: list) -> list[str]:
    return sorted(f.kind for f in findings)


def test_the_captured_fabric_matches() -> None:
    assert compare(DESIGN, SCAN, speed=False) == []
    # ibsim reports SDR: with the rate compared, every cable is slow.
    slow = compare(DESIGN, SCAN)
    assert len(slow) == 256 and {f.kind for f in slow} == {"speed"}
    assert "4xSDR" in slow[0].message and slow[0].should == "4xNDR"


def test_swap_move_drop_add_rename() -> None:
    scan = _scan()
    leaf = _guid_of(scan, "a01-leaf1")
    links = scan.links
    on_leaf = [i for i, link in enumerate(links) if link.a[0] == leaf or link.b[0] == leaf]

    # swap the far ends of two node cables on a01-leaf1 (ports 1 and 2)
    def at(port: int) -> int:
        return next(i for i in on_leaf if (leaf, port) in (links[i].a, links[i].b))

    one, two = links[at(1)], links[at(2)]
    far1 = one.b if one.a == (leaf, 1) else one.a
    far2 = two.b if two.a == (leaf, 2) else two.a
    links[at(1)] = SeenLink((leaf, 1), far2, 4, "SDR")
    links[at(2)] = SeenLink((leaf, 2), far1, 4, "SDR")
    # move the leaf end of port 3's cable to the free port 40
    three = at(3)
    far3 = links[three].b if links[three].a == (leaf, 3) else links[three].a
    links[three] = SeenLink((leaf, 40), far3, 4, "SDR")
    # drop port 4's cable; add one between free ports 41 and 42 of a02-leaf1
    del links[at(4)]
    other = _guid_of(scan, "a02-leaf1")
    links.append(SeenLink((leaf, 41), (other, 42), 4, "SDR"))
    # rename a03-spine1
    spine = _guid_of(scan, "a03-spine1")
    scan.nodes[spine].description = "MF0;a03-spine-1:MQM9700/U1"
    findings = compare(DESIGN, scan, speed=False)
    assert _kinds(findings) == ["extra", "missing", "miswired", "swapped", "unknown-device"]
    by = {f.kind: f for f in findings}
    assert by["swapped"].ends[0].device == "a01-leaf1"
    assert {p.port for p in by["swapped"].ends} == {"p1", "p2"}
    assert by["miswired"].at.port == "p3" and "a01-leaf1:p40" in by["miswired"].found
    assert by["missing"].cable and by["missing"].at.rack == "a01"
    assert "a01-leaf1:p41" in by["extra"].found and "a02-leaf1:p42" in by["extra"].found
    assert "cabled like a03-spine1" in by["unknown-device"].message
    assert by["missing"].at.unit is not None and by["missing"].at.face == "rear"


def test_twin_port_labels_read_as_the_panel() -> None:
    port = DESIGN.port("a01-leaf1", "p18")
    assert port.label == "9/2"
    assert DESIGN.port("a01-leaf1", "p17").label == "9/1"


def test_unmanaged_switches_need_the_node_name_map() -> None:
    inference = design(INFERENCE)
    names = parse_node_name_map((DATA / "inference-32-b200.node-name-map").read_text())
    plain = read_scan(DATA / "unmanaged.scan", "ibnetdiscover")
    assert compare(inference, plain, names, speed=False) == []
    mapped = read_scan(DATA / "unmanaged-mapped.scan", "ibnetdiscover")
    assert compare(inference, mapped, speed=False) == []
    # Without the map the generic descriptions name no device; each switch is still
    # recognised by its cables, and said to be unknown.
    found = compare(inference, plain, speed=False)
    assert _kinds(found) == ["unknown-device"] * 4


def test_a_lane_down_is_a_width_finding() -> None:
    scan = _scan()
    scan.links[0] = SeenLink(scan.links[0].a, scan.links[0].b, 1, "SDR")
    findings = compare(DESIGN, scan, speed=False)
    assert _kinds(findings) == ["speed"] and "1xSDR" in findings[0].message


def test_lldp_faults() -> None:
    ethernet = design(TRAINING, "ethernet")
    scan = read_scan(DATA / "lldp", "lldp")
    assert compare(ethernet, scan) == []
    broken = copy.deepcopy(scan)
    del broken.links[0]
    assert _kinds(compare(ethernet, broken)) == ["missing"]


@settings(max_examples=examples(40), deadline=None)
@given(st.data())
def test_any_permutation_of_k_cable_ends_is_k_faults(data: st.DataObject) -> None:
    """Permute the far ends (one end per cable) of k cables: the findings name exactly
    those k cables, and count k moved ends (a swapped pair counts two)."""
    scan = _scan()
    k = data.draw(st.integers(2, 6), label="k")
    chosen = data.draw(
        st.lists(st.integers(0, len(scan.links) - 1), min_size=k, max_size=k, unique=True),
        label="cables",
    )
    order = data.draw(st.permutations(range(k)), label="permutation")
    if all(order[i] == i for i in range(k)):
        order = [*order[1:], order[0]]
    moved = [i for i in range(k) if order[i] != i]
    originals = [scan.links[c] for c in chosen]
    for position, cable in enumerate(chosen):
        source = originals[order[position]]
        scan.links[cable] = SeenLink(originals[position].a, source.b, 4, "SDR")
    findings = compare(DESIGN, scan, speed=False)
    ends = sum(2 if f.kind == "swapped" else 1 for f in findings)
    assert {f.kind for f in findings} <= {"miswired", "swapped"}
    assert ends == len(moved)
    named = {f.cable for f in findings} | {f.other for f in findings if f.other}
    changed = {c for position, c in enumerate(chosen) if order[position] != position}
    assert len(named) == len(changed)
