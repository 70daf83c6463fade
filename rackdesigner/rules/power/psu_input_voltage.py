"""A device's PSUs do not accept its rack's outlet voltage.

Why it matters:
    A PSU accepts a range of input voltage (`input_voltage`, e.g. 200-240 V). A rack's
    outlets give the feed's `outlet_voltage` where a PDU steps down, else V_LL / √3 on
    a wye feed (415 V → 240 V, 480 V → 277 V) and V_LL on a delta or single-phase feed
    (208 V). A 200-240 V PSU on a 480 V wye feed sees 277 V and fails; on 120 V it
    does not start.

Example:
    [[racks]]
    id = "a01"
    feeds = [ { id = "a01-A", voltage = "480 V", phases = 3, current = "60 A" } ]

    [[racks.devices]]
    id = "a01-n01"
    model = "dgx-h100"   # 200-240 V PSUs on 277 V outlets
    position = 2

Fix:
    Feed the rack at a voltage whose outlets suit the PSUs (415 V wye for 240 V, 208 V
    delta), use a step-down PDU (`outlet_voltage` on the feed), or order PSUs rated for
    the outlet voltage.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, FeedFacts
from rackdesigner.model.units import VOLTAGE, fmt
from rackdesigner.model.wording import name_list
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import VOLTAGE_SLACK, outlet_source


def _outlets(feeds: list[FeedFacts]) -> str:
    """``the 277 V outlets of feeds a01-A and a01-B (480 V 3-phase wye)``, grouped by voltage."""
    groups: dict[tuple[str, str], list[str]] = {}
    for facts in feeds:
        key = (fmt(facts.outlet_voltage, VOLTAGE), outlet_source(facts))
        groups.setdefault(key, []).append(facts.feed.id)
    return "; ".join(
        f"the {volts} outlets of feed{'s' if len(ids) > 1 else ''} {name_list(ids)} ({source})"
        for (volts, source), ids in groups.items()
    )


def _range(low: float, high: float) -> str:
    """``200-240 V``."""
    a, b = fmt(low, VOLTAGE), fmt(high, VOLTAGE)
    unit_a, unit_b = a.rpartition(" ")[2], b.rpartition(" ")[2]
    return f"{a.rpartition(' ')[0]}-{b}" if unit_a == unit_b else f"{a}-{b}"


@rule("PWR010", "error", scope="rack")
def input_voltage_mismatch(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        if not rack.feeds:
            continue
        for dev in rack.devices:
            dtype = dev.type
            if dtype is None or dtype.input_voltage is None or dtype.kind == "pdu":
                continue  # a PDU's input_voltage is its inlet's: PWR014 checks it
            low, high = (float(v) for v in dtype.input_voltage)
            bad = [
                f
                for f in rack.feeds
                if f.outlet_voltage < low - VOLTAGE_SLACK or f.outlet_voltage > high + VOLTAGE_SLACK
            ]
            if not bad:
                continue
            rng = _range(low, high)
            examples = (
                " (415 V wye gives 240 V, 208 V delta 208 V)"
                if low <= 208.0 and high >= 240.0
                else ""
            )
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"{dev.device.model} PSUs accept {rng}, not {_outlets(bad)}",
                hint=f"feed the rack so its outlets give {rng}{examples}, use a "
                "step-down PDU (outlet_voltage on the feed), or PSUs rated for "
                "the outlet voltage",
                values={"outlet_voltage": bad[0].outlet_voltage, "low": low, "high": high},
            )
