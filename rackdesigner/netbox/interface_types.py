"""NetBox interface types: every Ethernet and InfiniBand slug of NetBox 4.7's
``InterfaceTypeChoices`` (``netbox/dcim/choices.py``) with the per-port speed and the
technology it names.

Speed comes from the slug (``400gbase-…`` is 400 Gbit/s; InfiniBand by its data rate on
a 4x port: SDR 10, DDR 20, QDR and FDR10 40, FDR 56, EDR 100, HDR 200, NDR 400, XDR 800
Gbit/s). Technology: ``ethernet`` for the Ethernet PHYs (BASE-T, -SR, -CR, …) and for the
SFP, CFP and other Ethernet-only cages; ``infiniband`` for the InfiniBand types; **None**
for QSFP and OSFP cages (``…-x-qsfp28``, ``…-x-osfp``), which carry either (the
devicetype-library lists the InfiniBand QM9700's ports as ``400gbase-x-osfp``): the
import leaves it unset unless ``--tech`` says which.

:func:`for_port` goes the other way, for the export: the slug a port group of a given
speed and technology is written as.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["INTERFACE_TYPES", "NOT_PHYSICAL", "InterfaceType", "for_port", "lookup"]


@dataclass(frozen=True, slots=True)
class InterfaceType:
    slug: str
    speed: float  # bit/s per port
    tech: str | None  # "ethernet", "infiniband", or None (a QSFP/OSFP cage carries either)
    form: str  # rj45, sfp, qsfp, osfp, cfp, …, copper, optical, backplane, infiniband


def _t(slug: str, speed: float, tech: str | None, form: str) -> InterfaceType:
    return InterfaceType(slug, speed, tech, form)


# NetBox 4.7 (branch feature, d7f79bd5), plus 100gbase-x-sfp112 (PR #23004).
_TABLE = (
    _t("100base-fx", 100e6, "ethernet", "optical"),
    _t("100base-lfx", 100e6, "ethernet", "optical"),
    _t("100base-tx", 100e6, "ethernet", "rj45"),
    _t("100base-t1", 100e6, "ethernet", "single-pair"),
    _t("1000base-bx10-d", 1e9, "ethernet", "optical"),
    _t("1000base-bx10-u", 1e9, "ethernet", "optical"),
    _t("1000base-cwdm", 1e9, "ethernet", "copper"),
    _t("1000base-cx", 1e9, "ethernet", "copper"),
    _t("1000base-dwdm", 1e9, "ethernet", "optical"),
    _t("1000base-ex", 1e9, "ethernet", "optical"),
    _t("1000base-sx", 1e9, "ethernet", "optical"),
    _t("1000base-lsx", 1e9, "ethernet", "optical"),
    _t("1000base-lx", 1e9, "ethernet", "optical"),
    _t("1000base-lx10", 1e9, "ethernet", "optical"),
    _t("1000base-t", 1e9, "ethernet", "rj45"),
    _t("1000base-tx", 1e9, "ethernet", "rj45"),
    _t("1000base-zx", 1e9, "ethernet", "optical"),
    _t("2.5gbase-t", 2.5e9, "ethernet", "rj45"),
    _t("5gbase-t", 5e9, "ethernet", "rj45"),
    _t("10gbase-br-d", 10e9, "ethernet", "optical"),
    _t("10gbase-br-u", 10e9, "ethernet", "optical"),
    _t("10gbase-cu", 10e9, "ethernet", "copper"),
    _t("10gbase-cx4", 10e9, "ethernet", "copper"),
    _t("10gbase-er", 10e9, "ethernet", "optical"),
    _t("10gbase-lr", 10e9, "ethernet", "optical"),
    _t("10gbase-lrm", 10e9, "ethernet", "optical"),
    _t("10gbase-lx4", 10e9, "ethernet", "optical"),
    _t("10gbase-sr", 10e9, "ethernet", "optical"),
    _t("10gbase-t", 10e9, "ethernet", "rj45"),
    _t("10gbase-zr", 10e9, "ethernet", "optical"),
    _t("25gbase-cr", 25e9, "ethernet", "copper"),
    _t("25gbase-er", 25e9, "ethernet", "optical"),
    _t("25gbase-lr", 25e9, "ethernet", "optical"),
    _t("25gbase-sr", 25e9, "ethernet", "optical"),
    _t("25gbase-t", 25e9, "ethernet", "rj45"),
    _t("40gbase-cr4", 40e9, "ethernet", "copper"),
    _t("40gbase-er4", 40e9, "ethernet", "optical"),
    _t("40gbase-fr4", 40e9, "ethernet", "optical"),
    _t("40gbase-lr4", 40e9, "ethernet", "optical"),
    _t("40gbase-sr4", 40e9, "ethernet", "optical"),
    _t("40gbase-sr4-bd", 40e9, "ethernet", "optical"),
    _t("50gbase-cr", 50e9, "ethernet", "copper"),
    _t("50gbase-er", 50e9, "ethernet", "optical"),
    _t("50gbase-fr", 50e9, "ethernet", "optical"),
    _t("50gbase-lr", 50e9, "ethernet", "optical"),
    _t("50gbase-sr", 50e9, "ethernet", "optical"),
    _t("100gbase-cr1", 100e9, "ethernet", "copper"),
    _t("100gbase-cr2", 100e9, "ethernet", "copper"),
    _t("100gbase-cr4", 100e9, "ethernet", "copper"),
    _t("100gbase-cr10", 100e9, "ethernet", "copper"),
    _t("100gbase-cwdm4", 100e9, "ethernet", "copper"),
    _t("100gbase-dr", 100e9, "ethernet", "optical"),
    _t("100gbase-fr1", 100e9, "ethernet", "optical"),
    _t("100gbase-er4", 100e9, "ethernet", "optical"),
    _t("100gbase-lr1", 100e9, "ethernet", "optical"),
    _t("100gbase-lr4", 100e9, "ethernet", "optical"),
    _t("100gbase-sr1", 100e9, "ethernet", "optical"),
    _t("100gbase-sr1.2", 100e9, "ethernet", "optical"),
    _t("100gbase-sr2", 100e9, "ethernet", "optical"),
    _t("100gbase-sr4", 100e9, "ethernet", "optical"),
    _t("100gbase-sr10", 100e9, "ethernet", "optical"),
    _t("100gbase-zr", 100e9, "ethernet", "optical"),
    _t("200gbase-cr2", 200e9, "ethernet", "copper"),
    _t("200gbase-cr4", 200e9, "ethernet", "copper"),
    _t("200gbase-sr2", 200e9, "ethernet", "optical"),
    _t("200gbase-sr4", 200e9, "ethernet", "optical"),
    _t("200gbase-dr4", 200e9, "ethernet", "optical"),
    _t("200gbase-fr4", 200e9, "ethernet", "optical"),
    _t("200gbase-lr4", 200e9, "ethernet", "optical"),
    _t("200gbase-er4", 200e9, "ethernet", "optical"),
    _t("200gbase-vr2", 200e9, "ethernet", "optical"),
    _t("400gbase-cr4", 400e9, "ethernet", "copper"),
    _t("400gbase-dr4", 400e9, "ethernet", "optical"),
    _t("400gbase-er8", 400e9, "ethernet", "optical"),
    _t("400gbase-fr4", 400e9, "ethernet", "optical"),
    _t("400gbase-fr8", 400e9, "ethernet", "optical"),
    _t("400gbase-lr4", 400e9, "ethernet", "optical"),
    _t("400gbase-lr8", 400e9, "ethernet", "optical"),
    _t("400gbase-sr4", 400e9, "ethernet", "optical"),
    _t("400gbase-sr4_2", 400e9, "ethernet", "optical"),
    _t("400gbase-sr8", 400e9, "ethernet", "optical"),
    _t("400gbase-sr16", 400e9, "ethernet", "optical"),
    _t("400gbase-vr4", 400e9, "ethernet", "optical"),
    _t("400gbase-zr", 400e9, "ethernet", "optical"),
    _t("800gbase-cr8", 800e9, "ethernet", "copper"),
    _t("800gbase-dr8", 800e9, "ethernet", "optical"),
    _t("800gbase-sr8", 800e9, "ethernet", "optical"),
    _t("800gbase-vr8", 800e9, "ethernet", "optical"),
    _t("1.6tbase-cr8", 1.6e12, "ethernet", "copper"),
    _t("1.6tbase-dr8", 1.6e12, "ethernet", "optical"),
    _t("1.6tbase-dr8-2", 1.6e12, "ethernet", "optical"),
    _t("100base-x-sfp", 100e6, "ethernet", "sfp"),
    _t("1000base-x-gbic", 1e9, "ethernet", "gbic"),
    _t("1000base-x-sfp", 1e9, "ethernet", "sfp"),
    _t("2.5gbase-x-sfp", 2.5e9, "ethernet", "sfp"),
    _t("10gbase-x-sfpp", 10e9, "ethernet", "sfp"),
    _t("10gbase-x-xfp", 10e9, "ethernet", "xfp"),
    _t("10gbase-x-xenpak", 10e9, "ethernet", "xenpak"),
    _t("10gbase-x-x2", 10e9, "ethernet", "x2"),
    _t("25gbase-x-sfp28", 25e9, "ethernet", "sfp"),
    _t("50gbase-x-sfp56", 50e9, "ethernet", "sfp"),
    _t("40gbase-x-qsfpp", 40e9, None, "qsfp"),
    _t("50gbase-x-sfp28", 50e9, "ethernet", "sfp"),
    _t("100gbase-x-cfp", 100e9, "ethernet", "cfp"),
    _t("100gbase-x-cfp2", 100e9, "ethernet", "cfp"),
    _t("100gbase-x-cfp4", 100e9, "ethernet", "cfp"),
    _t("100gbase-x-cxp", 100e9, "ethernet", "cxp"),
    _t("100gbase-x-cpak", 100e9, "ethernet", "cpak"),
    _t("100gbase-x-dsfp", 100e9, "ethernet", "sfp"),
    _t("100gbase-x-sfpdd", 100e9, "ethernet", "sfp"),
    _t("100gbase-x-qsfp28", 100e9, None, "qsfp"),
    _t("100gbase-x-qsfpdd", 100e9, None, "qsfp"),
    _t("200gbase-x-cfp2", 200e9, "ethernet", "cfp"),
    _t("200gbase-x-qsfp56", 200e9, None, "qsfp"),
    _t("200gbase-x-qsfpdd", 200e9, None, "qsfp"),
    _t("400gbase-x-cfp2", 400e9, "ethernet", "cfp"),
    _t("400gbase-x-qsfp112", 400e9, None, "qsfp"),
    _t("400gbase-x-qsfpdd", 400e9, None, "qsfp"),
    _t("400gbase-x-osfp", 400e9, None, "osfp"),
    _t("400gbase-x-osfp-rhs", 400e9, None, "osfp"),
    _t("400gbase-x-cdfp", 400e9, "ethernet", "cdfp"),
    _t("400gbase-x-cfp8", 400e9, "ethernet", "cfp"),
    _t("800gbase-x-qsfpdd", 800e9, None, "qsfp"),
    _t("800gbase-x-osfp", 800e9, None, "osfp"),
    _t("1.6tbase-x-osfp1600", 1.6e12, None, "osfp"),
    _t("1.6tbase-x-osfp1600-rhs", 1.6e12, None, "osfp"),
    _t("1.6tbase-x-qsfpdd1600", 1.6e12, None, "qsfp"),
    _t("1000base-kx", 1e9, "ethernet", "backplane"),
    _t("2.5gbase-kx", 2.5e9, "ethernet", "backplane"),
    _t("5gbase-kr", 5e9, "ethernet", "backplane"),
    _t("10gbase-kr", 10e9, "ethernet", "backplane"),
    _t("10gbase-kx4", 10e9, "ethernet", "backplane"),
    _t("25gbase-kr", 25e9, "ethernet", "backplane"),
    _t("40gbase-kr4", 40e9, "ethernet", "backplane"),
    _t("50gbase-kr", 50e9, "ethernet", "backplane"),
    _t("100gbase-kp4", 100e9, "ethernet", "backplane"),
    _t("100gbase-kr2", 100e9, "ethernet", "backplane"),
    _t("100gbase-kr4", 100e9, "ethernet", "backplane"),
    _t("1.6tbase-kr8", 1.6e12, "ethernet", "backplane"),
    _t("100gbase-x-sfp112", 100e9, "ethernet", "sfp"),
    _t("infiniband-sdr", 10e9, "infiniband", "infiniband"),
    _t("infiniband-ddr", 20e9, "infiniband", "infiniband"),
    _t("infiniband-qdr", 40e9, "infiniband", "infiniband"),
    _t("infiniband-fdr10", 40e9, "infiniband", "infiniband"),
    _t("infiniband-fdr", 56e9, "infiniband", "infiniband"),
    _t("infiniband-edr", 100e9, "infiniband", "infiniband"),
    _t("infiniband-hdr", 200e9, "infiniband", "infiniband"),
    _t("infiniband-ndr", 400e9, "infiniband", "infiniband"),
    _t("infiniband-xdr", 800e9, "infiniband", "infiniband"),
)

INTERFACE_TYPES: dict[str, InterfaceType] = {t.slug: t for t in _TABLE}

# Interface types that are no physical port: skipped on import, without a complaint.
NOT_PHYSICAL = frozenset({"virtual", "bridge", "lag", "channel"})

# The slug the export writes for a port group, by technology and speed (bit/s). Ethernet
# (and an unset tech): the cage a GPU cluster's NICs and switches use at that speed.
_ETHERNET_BY_SPEED = {
    100e6: "100base-tx",
    1e9: "1000base-t",
    2.5e9: "2.5gbase-t",
    5e9: "5gbase-t",
    10e9: "10gbase-x-sfpp",
    25e9: "25gbase-x-sfp28",
    40e9: "40gbase-x-qsfpp",
    50e9: "50gbase-x-sfp56",
    100e9: "100gbase-x-qsfp28",
    200e9: "200gbase-x-qsfp56",
    400e9: "400gbase-x-osfp",
    800e9: "800gbase-x-osfp",
    1.6e12: "1.6tbase-x-osfp1600",
}
_INFINIBAND_BY_SPEED = {
    10e9: "infiniband-sdr",
    20e9: "infiniband-ddr",
    40e9: "infiniband-qdr",
    56e9: "infiniband-fdr",
    100e9: "infiniband-edr",
    200e9: "infiniband-hdr",
    400e9: "infiniband-ndr",
    800e9: "infiniband-xdr",
}


def lookup(slug: str) -> InterfaceType | None:
    """The table's row for a NetBox interface type slug, or None (unknown to the import)."""
    return INTERFACE_TYPES.get(slug)


def _near(table: dict[float, str], speed: float) -> str | None:
    for value, slug in table.items():
        if abs(value - speed) <= 1e-6 * value:
            return slug
    return None


def for_port(speed: float | None, tech: str | None) -> str:
    """The NetBox interface type a port of ``speed`` (bit/s) and ``tech`` is exported as:
    InfiniBand by its data rate, Ethernet (or unset tech) by the usual cage at that speed,
    ``other`` where the speed is unknown or none matches."""
    if speed is None:
        return "other"
    if tech == "infiniband":
        return _near(_INFINIBAND_BY_SPEED, speed) or "other"
    return _near(_ETHERNET_BY_SPEED, speed) or "other"
