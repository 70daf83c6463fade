"""The LLDP parser on output captured from a real lldpd (Debian's lldpd 1.0.16).

Captured on this project's machines: two network namespaces joined by a veth pair, lldpd in
each (`ip netns exec ... lldpd -u SOCKET -I IFACE`), hostnames `a01-n01` and `a03-sw-stor1`
set with `lldpcli configure system hostname`, then `lldpcli -u SOCKET -f json show
neighbors` on each side. A real lldpd gives the neighbour's port id as its MAC address and
the interface name in the port description, unlike the samples made from the design
(tests/asbuilt/helpers.py), which give the name as the id.
"""

from __future__ import annotations

from rackdesigner.asbuilt.lldp import parse_lldp
from tests.conftest import ROOT

DATA = ROOT / "tests" / "asbuilt" / "data" / "lldpd-captured"


def test_a_hosts_capture_names_the_switch_port_it_is_cabled_to() -> None:
    path = DATA / "a01-n01.json"
    scan = parse_lldp(path.read_text(encoding="utf-8"), str(path), host="a01-n01")
    assert [(link.a, link.b) for link in scan.links] == [
        (("a01-n01", "eth1"), ("a03-sw-stor1", "swp1"))
    ]
    assert scan.collected == {"a01-n01"}


def test_the_switchs_capture_sees_the_same_cable_from_its_side() -> None:
    path = DATA / "a03-sw-stor1.json"
    scan = parse_lldp(path.read_text(encoding="utf-8"), str(path), host="a03-sw-stor1")
    assert [(link.a, link.b) for link in scan.links] == [
        (("a03-sw-stor1", "swp1"), ("a01-n01", "eth1"))
    ]
