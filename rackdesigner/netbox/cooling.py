"""The liquid loop as NetBox 4.7's cooling objects: bulk-import rows, added to
:func:`rackdesigner.netbox.bulk.bulk_rows`' when the target NetBox is 4.7 or later
(``export --netbox DIR --netbox-version``; docs/netbox.md, "Cooling").

NetBox 4.7 (``dcim/models/cooling.py``, ``dcim/models/device_components.py``, the import
forms in ``dcim/forms/bulk_import.py``) models the plant as a **cooling source** per site
(a chiller, cooling tower or dry cooler, its fluid and capacity in kW), a **cooling feed**
from a source to a rack (its capacity in kW, its maximum flow), and on devices **cooling
intakes** (each supplied by an upstream **cooling outflow**, usually on another device)
and outflows (each fed by a local intake). It traces nothing and judges nothing: the
figures written here are rackdesigner's (:mod:`rackdesigner.analysis.liquid`).

- each ``[[cooling.loops]]`` loop is a cooling source (its ``plant``, else a chiller for a
  chilled loop and a cooling tower for a facility loop, said in its comments);
- each rack holding a CDU, rear door or in-row cooler on a loop gets a cooling feed from
  that loop's source, with their capacity;
- each CDU an intake ``Facility water in`` and an outflow ``Secondary out`` fed by it;
  each rear door and in-row cooler an intake; each device with cold plates an intake
  ``Coolant in`` supplied by its rack's first CDU's outflow, its ``max_flow`` the flow its
  cold plates need at full load;
- device types say their ``cooling_method`` (liquid, hybrid or air) and racks their
  ``cooling_capability``.

The intakes come in two files: the CDUs', doors' and in-row coolers' before the CDUs'
outflows (which name them), the cold plates' after (they name the outflows).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rackdesigner.analysis.liquid import (
    cdu_rating,
    device_flow,
    is_in_row_cooler,
    loops_by_id,
    plant_of,
    secondary_supply,
)
from rackdesigner.netbox.bulk import NAME_MAX, STATUS, Rows, slugify

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.analysis.facts import DeviceFacts, RackFacts
    from rackdesigner.analysis.liquid import Loops
    from rackdesigner.model.layout import CoolingLoop, DeviceType

# The first NetBox with cooling objects (its migration dcim 0250_cooling_infrastructure).
COOLING_SINCE = (4, 7)
COOLING_TYPES = ("cooling-sources", "cooling-feeds", "cooling-intakes", "cooling-outflows")
FLUID_TYPES = {"water": "water", "pg25": "water-glycol"}  # NetBox FluidTypeChoices
DEFAULT_PLANT = {"chilled": "chiller", "facility": "cooling-tower"}
FACILITY_IN = "Facility water in"
SECONDARY_OUT = "Secondary out"
CHILLED_IN = "Chilled water in"
WATER_IN = "Water in"
COOLANT_IN = "Coolant in"
DEVICE_NAME_MAX = 64
TEXT_MAX = 200
LPM = 60_000  # L/min in one m³/s


def _kw(watts: float) -> float:
    return round(watts / 1000, 2)


def _lpm(flow: float) -> float:
    return round(flow * LPM, 2)


def _degrees(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f} °C"


def with_cooling(rows: Rows, analysis: Analysis) -> Rows:
    """``rows`` (bulk_rows') with NetBox 4.7's cooling: the device types' cooling method,
    the racks' cooling capability, and the cooling objects' files after the rest."""
    by_kind = dict(rows)
    site = by_kind["sites"][0]["name"] if by_kind.get("sites") else ""
    _type_methods(by_kind.get("device-types", []), analysis)
    _rack_capabilities(by_kind.get("racks", []), analysis)
    return [*rows, *cooling_rows(analysis, site)]


def cooling_method(entry: DeviceType) -> str | None:
    """A type's NetBox cooling method: liquid where its cold plates take all its heat,
    hybrid where they take part, air for compute, storage and switches without any; none
    for the rest (PDUs, CDUs, doors: cooling equipment or passive)."""
    fraction = float(entry.liquid_fraction or 0.0)
    if fraction >= 1.0:
        return "liquid"
    if fraction > 0:
        return "hybrid"
    if entry.kind in ("gpu-node", "cpu-node", "storage", "switch"):
        return "air"
    return None


def _type_methods(types: list[dict[str, Any]], analysis: Analysis) -> None:
    by_slug = {slugify(key): analysis.catalog.devices[key] for key in analysis.types_used}
    for row in types:
        entry = by_slug.get(row.get("slug", ""))
        method = cooling_method(entry) if entry is not None else None
        if method is not None:
            row["cooling_method"] = method


def rack_capability(rack: RackFacts) -> str:
    """A rack's NetBox cooling capability: liquid-only for immersion and for cold plates
    with no air heat left, hybrid for cold plates with air heat or a rear door's water
    coil, air-only else."""
    if rack.cooling == "immersion":
        return "liquid-only"
    if rack.cooling == "liquid":
        return "hybrid" if rack.air_heat + rack.door_heat > 0 else "liquid-only"
    return "hybrid" if rack.cooling == "rear-door" else "air-only"


def _rack_capabilities(racks: list[dict[str, Any]], analysis: Analysis) -> None:
    by_name = {rack.rack.id[:NAME_MAX]: rack for rack in analysis.racks}
    for row in racks:
        rack = by_name.get(row.get("name", ""))
        if rack is not None:
            row["cooling_capability"] = rack_capability(rack)


def cooling_rows(analysis: Analysis, site: str) -> Rows:
    """The cooling objects' rows, in import order (an empty list where a type has none)."""
    loops = loops_by_id(analysis.layout)
    cdus = [d for d in analysis.devices if d.kind == "cdu"]
    waters = [d for d in analysis.devices if d.kind == "rear-door" or is_in_row_cooler(d)]
    return [
        ("cooling-sources", [_source(loop, site) for loop in loops.by_id.values()]),
        ("cooling-feeds", _feeds(analysis, loops, site)),
        ("cooling-intakes", [_cdu_intake(d, loops) for d in cdus] + _water_intakes(waters, loops)),
        ("cooling-outflows", [_cdu_outflow(d, loops) for d in cdus]),
        ("cooling-intakes", _cold_plates(analysis)),
    ]


def plant_type(loop: CoolingLoop) -> str:
    """The loop's cooling source type: its ``plant``, else a chiller for chilled water
    and a cooling tower for facility water (NetBox needs one; the comments say so)."""
    return loop.plant or DEFAULT_PLANT[loop.loop_kind]


def _source(loop: CoolingLoop, site: str) -> dict[str, Any]:
    kind = "chilled water" if loop.loop_kind == "chilled" else "facility water"
    grade = f" {loop.ashrae_class}" if loop.ashrae_class else ""
    flow = f", {_lpm(float(loop.flow)):,.0f} L/min" if loop.flow is not None else ""
    row: dict[str, Any] = {
        "site": site,
        "name": loop.id[:NAME_MAX],
        "type": plant_type(loop),
        "status": STATUS,
        "fluid_type": FLUID_TYPES.get(loop.loop_fluid, "water"),
    }
    if loop.capacity is not None:
        row["cooling_capacity"] = _kw(float(loop.capacity))
    description = f"{loop.label}: " if loop.label else ""
    description += f"{kind}{grade}, supply {_degrees(loop.supply)}{flow}"
    row["description"] = description[:TEXT_MAX]
    comments = (
        []
        if loop.plant
        else [f"type {plant_type(loop)}: the layout's loop does not say its plant (set plant)"]
    )
    if loop.notes:
        comments.append(loop.notes)
    if comments:
        row["comments"] = "\n\n".join(comments)
    return row


def _feeds(analysis: Analysis, loops: Loops, site: str) -> list[dict[str, Any]]:
    """A feed from each loop to each rack holding a device on it, with their capacity."""
    found: dict[tuple[str, str], list[DeviceFacts]] = {}
    for dev in analysis.devices:
        loop = loops.of(dev)
        if loop is not None:
            found.setdefault((loop.id, dev.rack.id), []).append(dev)
    rows = []
    for (loop_id, rack_id), devices in found.items():
        capacities = [_capacity(d, loops) for d in devices]
        row: dict[str, Any] = {
            "site": site,
            "cooling_source": loop_id[:NAME_MAX],
            "rack": rack_id[:NAME_MAX],
            "name": f"{loop_id}/{rack_id}"[:NAME_MAX],
            "status": STATUS,
        }
        if all(c is not None for c in capacities):
            row["cooling_capacity"] = _kw(sum(c or 0.0 for c in capacities))
        row["description"] = ("to " + ", ".join(d.id for d in devices))[:TEXT_MAX]
        rows.append(row)
    return rows


def _capacity(dev: DeviceFacts, loops: Loops) -> float | None:
    """A CDU's capacity at the approach it runs at; a door's or in-row cooler's own."""
    if dev.kind == "cdu":
        return cdu_rating(dev, loops).capacity
    capacity = dev.type.capacity if dev.type is not None else None
    return None if capacity is None else float(capacity)


def _device(dev: DeviceFacts) -> str:
    return dev.id[:DEVICE_NAME_MAX]


def _cdu_intake(cdu: DeviceFacts, loops: Loops) -> dict[str, Any]:
    loop = loops.of(cdu)
    where = f"from loop {loop.id} at {_degrees(loop.supply)}" if loop else "on no loop"
    return {"device": _device(cdu), "name": FACILITY_IN, "description": where[:TEXT_MAX]}


def _water_intakes(devices: list[DeviceFacts], loops: Loops) -> list[dict[str, Any]]:
    rows = []
    for dev in devices:
        loop = loops.of(dev)
        name = CHILLED_IN if loop is None or loop.loop_kind == "chilled" else WATER_IN
        where = f"from loop {loop.id} at {_degrees(loop.supply)}" if loop else "on no loop"
        rows.append({"device": _device(dev), "name": name, "description": where[:TEXT_MAX]})
    return rows


def _cdu_outflow(cdu: DeviceFacts, loops: Loops) -> dict[str, Any]:
    dtype = cdu.type
    fluid = dtype.coolant if dtype is not None and dtype.coolant else "pg25"
    pumps = dtype.pump_flow if dtype is not None else None
    said = f"{fluid} at {_degrees(secondary_supply(cdu, loops))}"
    said += f", pumps {_lpm(float(pumps)):,.0f} L/min" if pumps is not None else ""
    return {
        "device": _device(cdu),
        "name": SECONDARY_OUT,
        "cooling_intake": FACILITY_IN,
        "description": said[:TEXT_MAX],
    }


def _cold_plates(analysis: Analysis) -> list[dict[str, Any]]:
    """An intake on each device with cold plates, supplied by its rack's first CDU (its
    group's others in the description: NetBox gives an intake one upstream outflow)."""
    per_kw = analysis.thresholds["coolant_flow_per_kw"]
    groups = {rack.index: group for group in plant_of(analysis).groups for rack in group.racks}
    rows = []
    for rack in analysis.racks:
        cdu = next((c for c in rack.cdus if c is not None and c.kind == "cdu"), None)
        group = groups.get(rack.index)
        for dev in rack.devices:
            if dev.liquid_heat <= 0 or dev.kind in ("cdu", "rear-door"):
                continue
            row: dict[str, Any] = {"device": _device(dev), "name": COOLANT_IN}
            flow = device_flow(dev, per_kw)
            if flow > 0:
                row["max_flow"] = _lpm(flow)
                row["max_flow_unit"] = "lpm"
            if cdu is not None:
                row["cooling_outflow_device"] = _device(cdu)
                row["cooling_outflow"] = SECONDARY_OUT
            if group is not None:
                names = ", ".join(c.id for c in group.load.cdus)
                row["description"] = f"CDU group {names}"[:TEXT_MAX]
            rows.append(row)
    return rows
