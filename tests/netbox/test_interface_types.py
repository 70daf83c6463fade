"""The interface-type table, entry by entry: every slug is NetBox 4.7's, its speed is the
one its name states, its technology follows its kind (PHY, cage or InfiniBand)."""

from __future__ import annotations

import re

import pytest

from rackdesigner.netbox.interface_types import (
    INTERFACE_TYPES,
    NOT_PHYSICAL,
    for_port,
    lookup,
)
from tests.conftest import ROOT

NETBOX_SLUGS = [
    line
    for line in (ROOT / "tests/data/netbox/interface-types.txt")
    .read_text(encoding="utf-8")
    .splitlines()
    if line and not line.startswith("#")
]
ETHERNET = [s for s in NETBOX_SLUGS if re.match(r"^[0-9.]+[gt]?base-", s)]
INFINIBAND = [s for s in NETBOX_SLUGS if s.startswith("infiniband-")]
# InfiniBand data rates of a 4x port (Gbit/s), as the InfiniBand Trade Association's
# roadmap names them.
IB_RATES = {
    "sdr": 10,
    "ddr": 20,
    "qdr": 40,
    "fdr10": 40,
    "fdr": 56,
    "edr": 100,
    "hdr": 200,
    "ndr": 400,
    "xdr": 800,
}


def test_the_table_covers_every_ethernet_and_infiniband_type_and_nothing_else() -> None:
    assert set(INTERFACE_TYPES) == set(ETHERNET) | set(INFINIBAND)
    assert set(NETBOX_SLUGS) >= NOT_PHYSICAL


@pytest.mark.parametrize("slug", ETHERNET)
def test_ethernet_entry(slug: str) -> None:
    entry = lookup(slug)
    assert entry is not None and entry.slug == slug
    number, prefix = re.match(r"^([0-9.]+)([gt]?)base-", slug).groups()  # type: ignore[union-attr]
    assert entry.speed == pytest.approx(float(number) * {"": 1e6, "g": 1e9, "t": 1e12}[prefix])
    cage = slug.partition("-x-")[2]
    if cage.startswith(("qsfp", "osfp")):
        assert entry.tech is None, "a QSFP/OSFP cage carries Ethernet or InfiniBand"
        assert entry.form == cage[:4]
    else:
        assert entry.tech == "ethernet"
    if slug.endswith(("base-t", "base-tx")):
        assert entry.form == "rj45"


@pytest.mark.parametrize("slug", INFINIBAND)
def test_infiniband_entry(slug: str) -> None:
    entry = lookup(slug)
    assert entry is not None
    assert entry.tech == "infiniband"
    assert entry.speed == IB_RATES[slug.removeprefix("infiniband-")] * 1e9


@pytest.mark.parametrize(
    ("speed", "tech", "slug"),
    [
        (400e9, "infiniband", "infiniband-ndr"),
        (200e9, "infiniband", "infiniband-hdr"),
        (800e9, "infiniband", "infiniband-xdr"),
        (400e9, "ethernet", "400gbase-x-osfp"),
        (400e9, None, "400gbase-x-osfp"),
        (100e9, "ethernet", "100gbase-x-qsfp28"),
        (1e9, "ethernet", "1000base-t"),
        (25e9, None, "25gbase-x-sfp28"),
        (None, "ethernet", "other"),
        (3e9, "ethernet", "other"),
        (123e9, "infiniband", "other"),
    ],
)
def test_for_port(speed: float | None, tech: str | None, slug: str) -> None:
    assert for_port(speed, tech) == slug


def test_every_exported_slug_is_netbox_s() -> None:
    for speed in (100e6, 1e9, 2.5e9, 5e9, 10e9, 25e9, 40e9, 50e9, 100e9, 200e9, 400e9, 800e9):
        for tech in ("ethernet", "infiniband", None):
            assert for_port(speed, tech) in NETBOX_SLUGS
