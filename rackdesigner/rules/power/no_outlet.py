"""A powered device has nothing in its rack to plug into.

Why it matters:
    A device that draws power needs a supply in its rack: an AC device (a PSU cord)
    plugs into a PDU's outlet, or, in a rack that lists no PDU, into the rack's feeds;
    a DC device (a rack-scale tray, or a type with `dc_input`) blind-mates onto the
    rack's busbar. A feed that carries a power shelf is the shelf's AC whip, not an
    outlet: in an NVL72 rack whose feeds all go to its shelves and that holds no PDU,
    an AC device such as a management switch with its usual PSUs has nowhere to plug in
    (NVIDIA's racks power their ToRs from the busbar: the built-in `sn2201-dc`). A DC
    device in a rack without a busbar has nothing to blind-mate onto (a rack without
    power shelves is PWR017's). Not judged: racks without feeds (PWR001), PDUs, power
    shelves and busbars themselves, devices that draw nothing (blanking panels, patch
    panels, `passive` devices) and CDUs and rear doors, which are wired to facility
    circuits of their own.

Example:
    [[racks]]
    id = "a01"
    feeds = [
      { id = "a01-A", side = "A", voltage = "415 V", phases = 3, current = "125 A" },
      { id = "a01-B", side = "B", voltage = "415 V", phases = 3, current = "125 A" },
    ]
    # 8 nvl72-power-shelf on a01-A and a01-B, no PDU, and two sn2201 (AC PSUs) at U41-42

Fix:
    Power the device from the busbar (a DC-input model, `dc_input = true`), give the rack
    a PDU on a circuit of its own, or move the device to a rack with outlets.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts, RackFacts
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.power._common import shelves_by_feed

# Kinds that take no outlet of the rack: they draw nothing, or are wired to a facility
# circuit of their own (a floor-standing CDU; a rear door's fans).
_NO_OUTLET = frozenset({"pdu", "blank", "patch-panel", "cdu", "rear-door"})


def _powered(dev: DeviceFacts) -> bool:
    """Draws power from the rack: a draw, PSUs or a PSU inlet (a GPU node always)."""
    dtype = dev.type
    if dtype is None or dtype.kind in _NO_OUTLET or dtype.airflow == "passive":
        return False
    if dtype.is_power_shelf or dtype.is_busbar:
        return False
    return (
        (dev.power or 0.0) > 0
        or bool(dtype.psus)
        or dtype.psu_inlet is not None
        or (dev.is_gpu_node)
    )


def _ac_outlets(rack: RackFacts) -> bool:
    """The rack has somewhere for a cord: a PDU, or (listing none) a feed no shelf takes."""
    if any(d.kind == "pdu" for d in rack.devices):
        return True
    whips = {id(facts) for _, facts in shelves_by_feed(rack)}
    return any(id(facts) not in whips for facts in rack.feeds)


@rule("PWR020", "error", scope="rack")
def no_outlet(analysis: Analysis) -> Iterator[Finding]:
    for rack in analysis.racks:
        if not rack.feeds:
            continue  # PWR001: a rack with powered devices and no feed
        busbar = any(d.type is not None and d.type.is_busbar for d in rack.devices)
        outlets: bool | None = None  # worked out for the first AC device only
        for dev in rack.devices:
            if not _powered(dev):
                continue
            assert dev.type is not None
            if dev.type.on_busbar:
                if busbar:
                    continue
                why = "it takes DC from a busbar and the rack has no busbar"
                hint = "fit the rack's busbar (nvl72-busbar), or use an AC model of the device"
            else:
                if outlets is None:
                    outlets = _ac_outlets(rack)
                if outlets:
                    continue
                why = (
                    "it takes AC cords and the rack has no outlet: no PDU, and every feed is "
                    "a power shelf's whip"
                )
                hint = (
                    "power it from the busbar (a dc_input model, e.g. sn2201-dc), or give the "
                    "rack a PDU on a circuit of its own"
                )
            yield Finding(
                f"device {dev.device.id}",
                dev.ref,
                f"{dev.device.model} has nothing to plug into: {why}",
                hint=hint,
                related=(rack.ref,),
            )
