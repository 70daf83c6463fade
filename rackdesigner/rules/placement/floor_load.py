"""A rack loads the floor beyond its rating.

Why it matters:
    A raised floor or slab is rated for a distributed load, in kg/m². A rack's floor
    load is its devices' weight plus its own (`weight`, 150 kg by default) over its
    footprint (`width` × `depth`, 600 mm × 1200 mm = 0.72 m² by default): eight GPU
    nodes of 130 kg with switches, PDUs and the rack are over 1,100 kg, 1,528 kg/m² on
    a standard footprint. The limit is `[site] floor_load_max` where given, else the
    `floor_load_max` threshold (1,500 kg/m²). Where a device's weight is unknown the
    load is a lower bound ("at least"). A rack-scale rack's declared `weight` is the
    built system's (an NVL72 rack is 1.36 t, trays included: 1,889 kg/m² on 0.72 m²),
    so its trays, shelves and busbar are not unknown.

Example:
    [site]
    floor_load_max = "1200 kg/m^2"

    [[racks]]
    id = "a01"
    width = "600 mm"
    depth = "1200 mm"      # 0.72 m²: 864 kg with the rack is the most it may hold
    # its devices weigh 1,000 kg: with the rack's 150 kg, 1,597 kg/m²

Fix:
    Spread the heavy devices over more racks, use a wider or deeper rack (a larger
    footprint), or have the floor rated and reinforced for the load.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.weight import rack_weight
from rackdesigner.rules.base import Finding, rule


@rule("PLC008", "error", scope="rack", thresholds=("floor_load_max",))
def floor_load(analysis: Analysis) -> Iterator[Finding]:
    from rackdesigner.model.units import AREAL_MASS, MASS, fmt, fmt_apart

    site = analysis.layout.site
    limit = analysis.thresholds["floor_load_max"]
    source = "floor_load_max"
    if site is not None and site.floor_load_max is not None:
        limit = float(site.floor_load_max)
        source = "[site] floor_load_max"
    for rack in analysis.racks:
        parts = rack_weight(rack)
        weight = parts.devices + parts.frame
        area = rack.rack.width_m * rack.rack.depth_m
        if area <= 0:
            continue
        load = weight / area
        if load <= limit * (1 + 1e-9):
            continue
        bound = "at least " if parts.unknown else ""
        load_text, limit_text = fmt_apart(load, limit, AREAL_MASS)
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"{bound}{fmt(weight, MASS)} on {area:.3g} m² is {bound}{load_text}, over the "
            f"{limit_text} floor rating ({source}; devices {fmt(parts.devices, MASS)} + "
            f"{'the rack-scale rack as built' if parts.integrated else 'rack'} "
            f"{fmt(parts.frame, MASS)})",
            hint="spread the heavy devices over more racks, use a larger footprint (width, "
            "depth), or have the floor rated for the load",
            values={"floor_load": load, "limit": limit, "weight": weight, "area": area},
        )
