"""A PSU draws more current than its inlet (C14, C20) is rated for.

Why it matters:
    An IEC 60320 appliance inlet has a rated current: 10 A for a C14 (its cord's C13) and
    16 A for a C20 (its cord's C19) under IEC 60320-1; 15 A and 20 A in North America
    under UL 498 / CSA 60320-1 (Interpower, "One IEC 60320 C13 and two amperage
    ratings?"; IEC 60320 charts list both). A PSU whose draw passes its inlet's rating
    overheats the coupler and the cord, the failure that shows weeks later as a browned
    connector. The PSUs a device keeps carry its whole draw: on a rack with redundant
    sides, those left when the side holding most of them is lost (PWR008's count; its
    rating caps what each can draw), else all of them. Each draws its share ÷ the rack's
    lowest outlet voltage (V_LL ÷ √3 on a wye feed: 415 V gives 240 V; V_LL on 208 V
    delta). The inlet's region follows the feed's supply (circuits.toml: IEC or North
    America); where no region names it, IEC's lower rating. PDUs, power shelves and
    hardwired inputs are not judged (they have no IEC 60320 inlet to overload).

Example:
    [[racks]]
    id = "a01"
    feeds = [
      { id = "a01-A", side = "A", voltage = "415 V", phases = 3, current = "32 A" },
      { id = "a01-B", side = "B", voltage = "415 V", phases = 3, current = "32 A" },
    ]

    [[racks.devices]]
    id = "a01-n01"
    model = "sys-421ge-tnhr2-lcc"   # 9 kW on 4 PSUs with C20 inlets, 2 a side
    position = 2
    # a side lost: 2 PSUs carry 9 kW, 4.5 kW each, 4,500 W / 240 V = 18.8 A > 16 A

Fix:
    Order the PSUs with the inlet the vendor rates for that draw (a C20 at 20 A in North
    America, or a higher-current or hardwired input) and set `psu_inlet` to it, feed
    the rack at a higher outlet voltage, cap the device's power, or give it PSUs on a
    third side so each carries less when one side is lost.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts, RackFacts
from rackdesigner.analysis.cords import INLET_OF, MATE
from rackdesigner.analysis.power_sides import INLET_RATING, psu_draw, psus_kept
from rackdesigner.layout_io.catalog import standard_circuits
from rackdesigner.model.units import CURRENT, POWER, VOLTAGE, fmt
from rackdesigner.rules.base import Finding, rule


def _region(rack: RackFacts) -> str:
    """IEC unless every feed's supply is a North American one (the lower rating where
    they differ or none is known)."""
    regions = set()
    for facts in rack.feeds:
        row = standard_circuits(float(facts.feed.voltage or 0.0), facts.feed.phases)
        regions.add(row.region if row is not None else "IEC")
    return "North America" if regions == {"North America"} else "IEC"


def _draw(dev: DeviceFacts, rack: RackFacts) -> tuple[float, int, bool] | None:
    """(W a PSU draws, the PSUs carrying the device, whether a side is lost), or None
    where the device's draw or PSUs are unknown."""
    dtype = dev.type
    if dtype is None or not dtype.psus or not dev.power:
        return None
    sides = len(rack.side_capacity)
    carrying = psus_kept(dtype.psus, sides) if rack.redundant else dtype.psus
    if carrying < 1:
        return None
    rating = float(dtype.psu_rating) if dtype.psu_rating else None
    return psu_draw(dev.power, carrying, rating), carrying, rack.redundant


@rule("PWR030", "warning", scope="rack")
def psu_inlet_current(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        if not rack.feeds:
            continue
        volts = min(f.outlet_voltage for f in rack.feeds)
        if volts <= 0:
            continue
        region = _region(rack)
        for dev in rack.devices:
            dtype = dev.type
            inlet = INLET_OF.get(str(dtype.psu_inlet or "").lower()) if dtype else None
            if dtype is None or inlet is None or dtype.kind == "pdu" or dtype.is_power_shelf:
                continue
            found = _draw(dev, rack)
            if found is None:
                continue
            each, carrying, lost = found
            amps, rating = each / volts, INLET_RATING[region][inlet]
            if amps <= rating + 1e-9:
                continue
            when = "with a side lost" if lost else "at its full draw"
            load = fmt(dev.power or 0.0, POWER)
            share = (
                f"1 PSU carries {load}"
                if carrying == 1
                else f"{carrying} PSUs carry {load}, {fmt(each, POWER)} each"
            )
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"{dev.device.model} {when}: {share}, "
                f"{fmt(amps, CURRENT)} at {fmt(volts, VOLTAGE)}: over its "
                f"{inlet.upper()} inlet's {rating:g} A ({region} rating)",
                hint=f"order the inlet the vendor rates for {fmt(amps, CURRENT)} and set "
                f"psu_inlet to it, feed the rack at a higher outlet voltage, or cap the "
                f"device's power ({MATE[inlet]} cords carry {rating:g} A)",
                values={"current": amps, "rating": rating, "psus": float(carrying)},
            )
