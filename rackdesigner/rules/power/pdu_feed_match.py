"""A PDU and its feed disagree: inlet voltage, rated current below the breaker, or two PDUs.

Why it matters:
    A rack PDU's inlet is made for one supply: its `input_voltage` (line-to-line for
    3-phase, e.g. 380-415 V) and its plug's rated current (`input_current`). A plug and
    its receptacle carry one rating and mate with no other (IEC 60309: 16, 32, 63,
    125 A; NEMA L21-30 is 30 A), and a cord must sit on a breaker no larger than its
    rating (NEC 240.4, IEC 60364-4-43): a 32 A PDU on a 40 A circuit is unprotected
    between 32 and 40 A. A 400 V PDU on a 480 V feed sees the wrong voltage on every
    outlet. One circuit ends in one receptacle, so it takes one PDU: two PDUs on one
    feed share a breaker that neither plug was chosen for, unless the feed is a busway
    tap-off box (`tap_off = true` on the feed), whose receptacles share the tap's
    breaker by design. A PDU sits on the feed its `feed` names; PDUs without one go over
    the rack's feeds in order. A PDU type without `input_voltage` or `input_current` is
    not judged on that point.

Example:
    [[racks]]
    id = "a01"
    feeds = [ { id = "a01-A", circuit = "RPP-A-01", voltage = "415 V", phases = 3,
                current = "40 A" } ]

    [[racks.devices]]
    id = "a01-pdu-a"
    model = "pdu-3ph-415v-32a"   # APC AP8886: a 32 A plug on a 40 A breaker
    feed = "a01-A"

Fix:
    Give each PDU a circuit of its own whose breaker equals its plug's rating (a 32 A
    AP8886 on a 32 A circuit, a 63 A PDU on a 63 A one), at a voltage its inlet takes;
    mark a busway tap-off feed with `tap_off = true`.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts
from rackdesigner.model.units import CURRENT, VOLTAGE, fmt
from rackdesigner.model.wording import name_list
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import (
    VOLTAGE_SLACK,
    pdus_by_feed,
    supply,
    voltage_range,
)

CURRENT_SLACK = 1e-6  # A


@rule("PWR014", "error", scope="rack")
def pdu_feed_mismatch(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        pdus = pdus_by_feed(rack)
        on_feed: dict[str, list[DeviceFacts]] = {}
        for dev, facts in pdus:
            feed = facts.feed
            on_feed.setdefault(feed.id, []).append(dev)
            dtype = dev.type
            if dtype is None:
                continue
            voltage = float(feed.voltage or 0.0)
            if dtype.input_voltage is not None:
                low, high = (float(v) for v in dtype.input_voltage)
                if not low - VOLTAGE_SLACK <= voltage <= high + VOLTAGE_SLACK:
                    rng = voltage_range(low, high)
                    yield Finding(
                        f"device {dev.id}",
                        dev.ref,
                        f"{dev.device.model} takes {rng} at its inlet, not the "
                        f"{supply(feed)} of feed {feed.id}",
                        hint=f"use a PDU made for {fmt(voltage, VOLTAGE)}, or feed it at {rng}",
                        values={"voltage": voltage, "low": low, "high": high},
                        related=(facts.ref,),
                    )
            if dtype.input_current is not None and feed.current is not None:
                rated, breaker = float(dtype.input_current), float(feed.current)
                if rated < breaker - CURRENT_SLACK:
                    yield Finding(
                        f"device {dev.id}",
                        dev.ref,
                        f"{dev.device.model} is rated {fmt(rated, CURRENT)}, below the "
                        f"{fmt(breaker, CURRENT)} breaker of feed {feed.id}: its cord is not "
                        "protected (NEC 240.4, IEC 60364-4-43) and its plug does not fit the "
                        "circuit's receptacle",
                        hint=f"put it on a {fmt(rated, CURRENT)} circuit, or use a PDU rated "
                        f"{fmt(breaker, CURRENT)}",
                        values={"input_current": rated, "breaker": breaker},
                        related=(facts.ref,),
                    )
        for facts in rack.feeds:
            members = on_feed.get(facts.feed.id, [])
            if len(members) < 2 or facts.feed.tap_off:
                continue
            feed = facts.feed
            circuit = f" (circuit {feed.circuit.strip()})" if feed.circuit else ""
            yield Finding(
                f"rack {rack.rack.id} feed {feed.id}",
                facts.ref,
                f"feed {feed.id}{circuit} carries {len(members)} PDUs, "
                f"{name_list([d.id for d in members])}: one circuit ends in one receptacle "
                "and takes one PDU",
                hint="give each PDU a circuit of its own (a feed each), or mark the feed "
                "tap_off = true where it is a busway tap-off box",
                values={"pdus": float(len(members))},
                related=tuple(d.ref for d in members),
            )
