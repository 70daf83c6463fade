"""Power cords: which PSU of which device plugs into which PDU, on which outlet.

One home for the cord assignment that the power-cord schedule (``export --power``), the
report's cord summary and the NetBox export (power cables) all read. PSU j of a device
goes to side ((j − 1) mod k) + 1 of the rack's k feed sides, and to the next of that
side's PDUs in turn (rules.md v1.1, PSUs and PDUs).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, NamedTuple

from rackdesigner.model.layout import HARDWIRED

if TYPE_CHECKING:
    from rackdesigner.analysis import DeviceFacts, RackFacts

# IEC 60320, as a power cord joins a PSU to a PDU: the PSU's inlet (C14, 10 A; C20, 16 A)
# takes the cord's connector (C13; C19), and the cord's plug (C14; C20) goes into the
# PDU's outlet (C13; C19). So a C14 inlet is on a C13 outlet through a C13-C14 cord, a
# C20 inlet on a C19 outlet through a C19-C20 cord. A layout may name the outlet instead
# of the inlet (psu_inlet = "c13" / "c19": the same PSU).
INLET_OF = {"c14": "c14", "c13": "c14", "c20": "c20", "c19": "c20"}
OUTLET_FOR_INLET = {"c14": "c13", "c20": "c19"}
MATE = {"c14": "C13", "c20": "C19", "c13": "C14", "c19": "C20"}
NON_CORDED_KINDS = ("pdu", "blank", "patch-panel")


class Cord(NamedTuple):  # a tuple: a 100,000-GPU hall has 75,000 cords
    device: DeviceFacts
    psu: int | None  # 1-based; None where the type does not say how many PSUs it has
    side: str
    feed: str
    pdu: str
    outlet: str  # the PDU outlet the cord plugs into: c13 | c19 | "" (no psu_inlet)
    inlet: str  # the PSU's inlet: c14 | c20 | "" (no psu_inlet)

    @property
    def cord(self) -> str:
        """The cord, device end first: ``C13-C14`` (a C14 inlet on a C13 outlet)."""
        return cord_name(self.inlet, self.outlet)


def cord_name(inlet: str, outlet: str) -> str:
    """A cord by its two ends, the device's first: its connector mates with the PSU inlet,
    its plug with the PDU outlet (IEC 60320: C13 into C14, C19 into C20). "" if unknown."""
    if not inlet or not outlet:
        return ""
    return f"{MATE[inlet]}-{MATE[outlet]}"


def _pdu_feeds(rack: RackFacts) -> list[tuple[DeviceFacts, str]]:
    """The rack's PDUs and the feed each is on (its ``feed`` key, else round-robin)."""
    feeds = [f.feed.id for f in rack.feeds]
    found: list[tuple[DeviceFacts, str]] = []
    unassigned = 0
    for dev in rack.devices:
        if dev.kind != "pdu":
            continue
        named = dev.device.feed
        if named:
            found.append((dev, named))
        elif feeds:
            found.append((dev, feeds[unassigned % len(feeds)]))
            unassigned += 1
        else:
            found.append((dev, ""))
    return found


def _draws_power(dev: DeviceFacts, dc_only: bool) -> bool:
    """Whether the device has PSU cords to a PDU. Not: PDUs and passive furniture; a power
    shelf (its AC input is wired to the feed) or a busbar; a rack-scale tray (DC from the
    busbar, PWR017); a type wired to its circuit (``hardwired``); and, in a rack whose
    only distribution is a DC busbar (``dc_only``: shelves and busbar, no PDU), every
    device: the NVL72's power shelves supply all its trays and switches, the management
    switches included (DGX GB200 user guide, Hardware)."""
    dtype = dev.type
    if dtype is None or dev.kind in NON_CORDED_KINDS:
        return False
    if dtype.is_power_shelf or dtype.is_busbar or dtype.psu_inlet == HARDWIRED:
        return False
    if dc_only or (dtype.nvl_domain is not None and dtype.psus is None):
        return False
    return dev.power is None or dev.power > 0


def _dc_only(rack: RackFacts) -> bool:
    """A rack fed through power shelves and a busbar, with no PDU."""
    kinds = [d.type for d in rack.devices if d.type is not None]
    return (
        any(t.is_busbar for t in kinds)
        and any(t.is_power_shelf for t in kinds)
        and not any(t.kind == "pdu" for t in kinds)
    )


def rack_cords(rack: RackFacts) -> list[Cord]:
    """Every PSU cord of a rack: PSU j on side ((j − 1) mod k) + 1 (sides in label order),
    each cord to the next of its side's PDUs in turn (rules.md v1.1, PSUs and PDUs), on
    the outlet its inlet takes (:func:`_outlets`)."""
    feed_side = {f.feed.id: f.group for f in rack.feeds}
    sides = sorted({f.group for f in rack.feeds if f.group})
    pdus = _pdu_feeds(rack)
    pdus_of: dict[str, list[tuple[DeviceFacts, str]]] = defaultdict(list)
    feeds_of: dict[str, list[str]] = defaultdict(list)
    for facts in rack.feeds:
        feeds_of[facts.group if sides else ""].append(facts.feed.id)
    for pdu, on in pdus:
        side = feed_side.get(on, "") if sides else ""
        pdus_of[side].append((pdu, on))
    turn: dict[str, int] = defaultdict(int)
    cords: list[Cord] = []
    lanes = sides or [""]
    dc_only = _dc_only(rack)
    for dev in rack.devices:
        if not _draws_power(dev, dc_only):
            continue
        assert dev.type is not None
        count = dev.type.psus
        inlet = INLET_OF.get(str(dev.type.psu_inlet or "").lower(), "")
        outlet = OUTLET_FOR_INLET.get(inlet, "")
        for j in range(1, (count or 1) + 1):
            side = lanes[(j - 1) % len(lanes)]
            choices = pdus_of.get(side)
            number = turn[side]
            turn[side] += 1
            if choices:
                pdu, feed = choices[number % len(choices)]
                pdu_id = pdu.id
            else:
                side_feeds = feeds_of.get(side) or []
                feed = side_feeds[number % len(side_feeds)] if side_feeds else ""
                pdu_id = ""
            cords.append(Cord(dev, j if count else None, side, feed, pdu_id, outlet, inlet))
    return _outlets(cords, {pdu.id: pdu for pdu, _ in pdus})


def _outlets(cords: list[Cord], pdus: dict[str, DeviceFacts]) -> list[Cord]:
    """Each cord on an outlet its PDU has (``outlets``, where given): a C20 inlet on a C19
    outlet; a C14 inlet on a C13 outlet, and once the PDU's C13s are taken on a C19 left
    over by the C20 inlets, with a C13-C20 cord (as PWR012 counts). A PDU short of
    outlets keeps the outlet the inlet takes: PWR012 says so."""
    spare_c19: dict[str, int] = {}
    spare_c13: dict[str, int] = {}
    for pdu_id, pdu in pdus.items():
        outlets = pdu.type.outlets if pdu.type is not None else None
        if outlets is not None:
            spare_c13[pdu_id] = outlets.get("c13", 0)
            spare_c19[pdu_id] = outlets.get("c19", 0)
    for cord in cords:
        if cord.outlet == "c19" and cord.pdu in spare_c19:
            spare_c19[cord.pdu] -= 1
    out = []
    for cord in cords:
        if cord.outlet == "c13" and cord.pdu in spare_c13:
            if spare_c13[cord.pdu] > 0:
                spare_c13[cord.pdu] -= 1
            elif spare_c19[cord.pdu] > 0:
                spare_c19[cord.pdu] -= 1
                cord = cord._replace(outlet="c19")
        out.append(cord)
    return out
