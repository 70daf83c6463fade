"""A design as NetBox's bulk-import rows: plain data, in the order NetBox must import them.

:func:`bulk_rows` gives one ``(object type, rows)`` pair per import, each row a dict keyed
by the field names NetBox 4.7's import forms take (``netbox/dcim/forms/bulk_import.py``;
device types as the YAML/JSON of the device type import, with their component templates,
as ``dcim/views.py`` DeviceTypeImportView reads it). ``rackdesigner export --netbox DIR``
writes them as files; ``rackdesigner push`` sends them to a NetBox. docs/netbox.md says
what each field comes from.

Every value is a str, int, float or bool (device types also hold lists of dicts): the
rows read the analysis and never the TOML.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from rackdesigner.analysis.cords import NON_CORDED_KINDS, Cord, rack_cords
from rackdesigner.analysis.power_sides import pdu_feeds
from rackdesigner.model.layout import HARDWIRED, DeviceType, Feed, PortGroup, Rack
from rackdesigner.netbox.interface_types import for_port
from rackdesigner.netbox.power_panels import chain_panels, feed_description, feed_panel

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.analysis.facts import DeviceFacts, LinkFacts, RackFacts
    from rackdesigner.analysis.power_chain import PowerChain

__all__ = [
    "KIND_ROLES",
    "OBJECT_TYPES",
    "Rows",
    "bulk_rows",
    "cable_type",
    "device_type_row",
    "slugify",
]

Rows = list[tuple[str, list[dict[str, Any]]]]

# The import order: each object type names only objects of the types before it.
OBJECT_TYPES = (
    "manufacturers",
    "device-types",
    "device-roles",
    "sites",
    "racks",
    "power-panels",
    "power-feeds",
    "devices",
    "interfaces",
    "power-outlets",
    "cables",
)

# A device kind's NetBox device role: name and colour (hex, no '#').
KIND_ROLES: dict[str, tuple[str, str]] = {
    "gpu-node": ("GPU node", "4caf50"),
    "cpu-node": ("CPU node", "8bc34a"),
    "storage": ("Storage", "ff9800"),
    "switch": ("Switch", "2196f3"),
    "pdu": ("PDU", "f44336"),
    "cdu": ("CDU", "00bcd4"),
    "rear-door": ("Rear door", "009688"),
    "patch-panel": ("Patch panel", "9e9e9e"),
    "blank": ("Blank panel", "607d8b"),
    "other": ("Other", "795548"),
}
UNKNOWN_MANUFACTURER = "Generic"
STATUS = "planned"
RACK_WIDTH_IN = 19  # NetBox RackWidthChoices: rail-to-rail inches
PSU_INLETS = {"c14": "iec-60320-c14", "c13": "iec-60320-c14", "c20": "iec-60320-c20"}
PSU_INLETS["c19"] = "iec-60320-c20"
PSU_INLETS[HARDWIRED] = "hardwired"
OUTLET_TYPES = {"c13": "iec-60320-c13", "c19": "iec-60320-c19"}
# Power port names: a PSU's, a PDU's inlet, a power shelf's one AC input, a hardwired
# device's connection to its circuit.
PDU_INLET = "Inlet"
SHELF_INPUT = "AC input"
HARDWIRED_INPUT = "Input"
POWER_CABLE = "power"  # NetBox CableTypeChoices
AIRFLOWS = ("front-to-rear", "rear-to-front", "passive")  # the same slugs in NetBox
RACK_AIRFLOWS = ("front-to-rear", "rear-to-front")
NAME_MAX = 100  # NetBox's name and model fields
SLUG_MAX = 100


def slugify(text: str) -> str:
    """NetBox's slug alphabet: lower-case letters, digits, '-' and '_'."""
    slug = re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-")
    return slug[:SLUG_MAX] or "unnamed"


def _number(value: float) -> int | float:
    """An int where the value is whole (NetBox's IntegerFields), else the float rounded."""
    rounded = round(float(value), 2)
    return int(rounded) if rounded == int(rounded) else rounded


def _manufacturer(entry: DeviceType | None) -> str:
    return ((entry.vendor if entry else None) or UNKNOWN_MANUFACTURER)[:NAME_MAX]


def _role(kind: str | None) -> tuple[str, str]:
    return KIND_ROLES.get(kind or "other", KIND_ROLES["other"])


def _interface_names(group: PortGroup) -> list[str]:
    return [f"{group.name}{i}" for i in range(1, group.count + 1)]


def _interfaces(entry: DeviceType) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for group in entry.ports or ():
        slug = for_port(group.speed, group.tech)
        mgmt = group.effective_role(entry.kind) == "management"
        for name in _interface_names(group):
            row: dict[str, Any] = {"name": name, "type": slug}
            if mgmt:
                row["mgmt_only"] = True
            rows.append(row)
    return rows


def psu_port(psu: int | None) -> str:
    """The power port of PSU ``psu`` (1-based; None: a type that does not say, one PSU)."""
    return f"PSU{psu or 1}"


def _corded(entry: DeviceType) -> bool:
    """A type whose PSUs take cords from PDUs (analysis.cords, per type): not a PDU or
    passive furniture, a power shelf, a busbar, a hardwired type or a rack-scale tray that
    takes DC from the busbar; a type without a draw of its own (0 W) neither."""
    if entry.kind in NON_CORDED_KINDS or entry.is_power_shelf or entry.is_busbar:
        return False
    if entry.psu_inlet == HARDWIRED or (entry.nvl_domain is not None and entry.psus is None):
        return False
    return entry.power is None or entry.power > 0


def _power_ports(entry: DeviceType) -> list[dict[str, Any]]:
    """A PSU's power port per PSU (one where the type does not say how many), typed by
    its inlet. maximum_draw: the device's draw over the PSUs that carry it (psus_required,
    else all); allocated_draw: its draw shared by every PSU. A PDU has one inlet, a power
    shelf one AC input, a hardwired type one connection to its circuit."""
    if entry.kind == "pdu":
        return [{"name": PDU_INLET}]
    if entry.is_power_shelf:
        return [{"name": SHELF_INPUT}]
    if entry.psu_inlet == HARDWIRED:
        row: dict[str, Any] = {"name": HARDWIRED_INPUT, "type": PSU_INLETS[HARDWIRED]}
        if entry.power:
            row["maximum_draw"] = round(float(entry.power))
        return [row]
    if not _corded(entry):
        return []
    psus = entry.psus or 1
    inlet = PSU_INLETS.get(entry.psu_inlet or "")
    rows: list[dict[str, Any]] = []
    for i in range(1, psus + 1):
        row = {"name": psu_port(i)}
        if inlet:
            row["type"] = inlet
        if entry.power:
            row["maximum_draw"] = round(float(entry.power) / (entry.psus_required or psus))
            row["allocated_draw"] = round(float(entry.power) / psus)
        rows.append(row)
    return rows


def outlet_name(kind: str, number: int) -> str:
    """A PDU outlet's name: its type and its number among that type's (``C13-4``)."""
    return f"{kind.upper()}-{number}"


def _power_outlets(entry: DeviceType) -> list[dict[str, Any]]:
    """A PDU's outlets from its ``outlets`` counts, all fed by its inlet."""
    rows: list[dict[str, Any]] = []
    for kind, count in sorted((entry.outlets or {}).items()):
        for number in range(1, count + 1):
            rows.append(
                {
                    "name": outlet_name(kind, number),
                    "type": OUTLET_TYPES.get(kind, "other"),
                    "power_port": PDU_INLET,
                }
            )
    return rows


def device_type_row(entry: DeviceType, model: str | None = None) -> dict[str, Any]:
    """One device type as NetBox's device type import takes it (the devicetype-library's
    YAML shape): the DeviceTypeImportForm fields, ``interfaces`` and ``power-ports``."""
    row: dict[str, Any] = {
        "manufacturer": _manufacturer(entry),
        "model": (model or entry.name or entry.key)[:NAME_MAX],
        "slug": slugify(entry.key),
        "u_height": _number(entry.height_u),
        "is_full_depth": entry.full_depth,
    }
    if entry.airflow in AIRFLOWS:
        row["airflow"] = entry.airflow
    if entry.weight is not None:
        row["weight"] = _number(entry.weight)
        row["weight_unit"] = "kg"
    description = f"rackdesigner catalog entry {entry.key}"
    row["description"] = description[:200]
    if entry.source:
        row["comments"] = f"Source: {entry.source}"
    interfaces = _interfaces(entry)
    if interfaces:
        row["interfaces"] = interfaces
    power_ports = _power_ports(entry)
    if power_ports:
        row["power-ports"] = power_ports
    power_outlets = _power_outlets(entry) if entry.kind == "pdu" else []
    if power_outlets:
        row["power-outlets"] = power_outlets
    return row


def cable_type(media: str | None, grade: str | None) -> str | None:
    """NetBox's CableTypeChoices slug for a link's media and fibre grade, or None (unset)."""
    if media == "dac":
        return "dac-passive"
    if media == "acc":
        return "dac-active"
    if media == "aoc":
        return "aoc"
    if media == "mmf":
        return f"mmf-{grade}" if grade in ("om3", "om4", "om5") else "mmf"
    if media == "smf":
        return "smf-os2" if grade == "os2" else "smf"
    return None  # copper-rj45: the category is not in the layout


def _models(analysis: Analysis) -> dict[str, str]:
    """The NetBox model name of each catalog key used: its display name, made unique per
    manufacturer with the key where two entries share one."""
    seen: set[tuple[str, str]] = set()
    out: dict[str, str] = {}
    for key in analysis.types_used:
        entry = analysis.catalog.devices[key]
        model = (entry.name or key)[:NAME_MAX]
        if (_manufacturer(entry), model) in seen:
            model = f"{model} ({key})"[:NAME_MAX]
        seen.add((_manufacturer(entry), model))
        out[key] = model
    return out


def _site(analysis: Analysis) -> str:
    return (analysis.layout.name or "rackdesigner")[:NAME_MAX]


def bulk_rows(analysis: Analysis) -> Rows:
    """The design's NetBox import rows, one entry per :data:`OBJECT_TYPES`, in that order
    (an object type with nothing to import has an empty list)."""
    layout = analysis.layout
    site = _site(analysis)
    models = _models(analysis)
    used = [analysis.catalog.devices[key] for key in models]

    manufacturers = sorted({_manufacturer(e) for e in used})
    device_types = [device_type_row(e, models[e.key]) for e in used]
    kinds = list(dict.fromkeys(e.kind or "other" for e in used))
    roles = [
        {"name": _role(kind)[0], "slug": slugify(_role(kind)[0]), "color": _role(kind)[1]}
        for kind in kinds
    ]
    sites: list[dict[str, Any]] = [{"name": site, "slug": slugify(site), "status": STATUS}]
    if layout.description:
        sites[0]["description"] = layout.description[:200]

    racks: list[dict[str, Any]] = []
    panels = {row["name"]: row for row in chain_panels(analysis, site)}
    feeds: list[dict[str, Any]] = []
    devices: list[dict[str, Any]] = []
    interfaces: list[dict[str, Any]] = []
    for rack in analysis.racks:
        racks.append(_rack_row(rack.rack, site))
        for out in _feed_rows(analysis, rack, site):
            if out["power_panel"] not in panels:
                panels[out["power_panel"]] = {"site": site, "name": out["power_panel"]}
            feeds.append(out)
        for dev in rack.devices:
            devices.append(_device_row(dev, site, models))
            interfaces.extend(_extra_interfaces(dev))
    cables = [
        _cable_row(link)
        for link in analysis.links
        # An unresolved cable: CAB005 reports it; NetBox could not terminate it either.
        if link.resolved and link.a.device is not None and link.b.device is not None
    ]
    outlets, power_cables = power_rows(analysis, site)
    cables.extend(power_cables)

    return [
        ("manufacturers", [{"name": m, "slug": slugify(m)} for m in manufacturers]),
        ("device-types", device_types),
        ("device-roles", roles),
        ("sites", sites),
        ("racks", racks),
        ("power-panels", list(panels.values())),
        ("power-feeds", feeds),
        ("devices", devices),
        ("interfaces", interfaces),
        ("power-outlets", outlets),
        ("cables", cables),
    ]


def _rack_row(r: Rack, site: str) -> dict[str, Any]:
    """A rack's row: its size in mm, airflow, weights (kg) and label."""
    row: dict[str, Any] = {
        "site": site,
        "name": r.id[:NAME_MAX],
        "status": STATUS,
        "width": RACK_WIDTH_IN,
        "u_height": _number(r.height_u),
        "outer_width": round(r.width_m * 1000),
        "outer_depth": round(r.depth_m * 1000),
        "outer_unit": "mm",
    }
    if r.airflow in RACK_AIRFLOWS:
        row["airflow"] = r.airflow
    if r.weight is not None:
        row["weight"] = _number(r.weight)
    if r.max_weight is not None:
        row["max_weight"] = round(float(r.max_weight))
    if "weight" in row or "max_weight" in row:
        row["weight_unit"] = "kg"
    if r.label:
        row["description"] = r.label[:200]
    return row


def _feed_rows(analysis: Analysis, rack: RackFacts, site: str) -> list[dict[str, Any]]:
    """A rack's feeds as power feeds, each on the panel it hangs on (power_panels.py): its
    source element's, else its side's. A feed from an 800 VDC power rack is ``dc``."""
    chain = analysis.power_chain
    sides = sorted({f.feed.side for f in rack.feeds if f.feed.side})
    rows: list[dict[str, Any]] = []
    for facts in rack.feeds:
        feed = facts.feed
        element = chain.element(feed.source) if feed.source else None
        dc = element is not None and element.kind == "power-rack"
        out: dict[str, Any] = {
            "site": site,
            "power_panel": feed_panel(chain, feed),
            "rack": rack.rack.id[:NAME_MAX],
            "name": feed.id[:NAME_MAX],
            "status": STATUS,
            "type": "redundant" if sides and feed.side != sides[0] else "primary",
            "supply": "dc" if dc else "ac",
            "phase": "three-phase" if feed.phases == 3 and not dc else "single-phase",
            "max_utilization": round(facts.derate * 100),
        }
        if feed.voltage is not None:
            out["voltage"] = round(float(feed.voltage))
        if feed.current is not None:
            out["amperage"] = round(float(feed.current))
        description = feed_description(feed, element is not None)
        if description:
            out["description"] = description
        rows.append(out)
    return rows


def _cable_row(link: LinkFacts) -> dict[str, Any]:
    """A resolved cable between two devices' interfaces: its type and length (m)."""
    assert link.a.device is not None and link.b.device is not None
    cable: dict[str, Any] = {
        "side_a_device": link.a.device.id,
        "side_a_type": "dcim.interface",
        "side_a_name": link.a.port,
        "side_b_device": link.b.device.id,
        "side_b_type": "dcim.interface",
        "side_b_name": link.b.port,
        "status": STATUS,
    }
    kind = cable_type(link.link.media, link.link.grade)
    if kind:
        cable["type"] = kind
    length = link.length
    if length is not None:
        cable["length"] = round(float(length), 2)
        cable["length_unit"] = "m"
    return cable


def _device_row(dev: DeviceFacts, site: str, models: dict[str, str]) -> dict[str, Any]:
    entry = dev.type
    model = dev.device.model
    row: dict[str, Any] = {
        "name": dev.id[:64],
        "role": _role(entry.kind if entry else None)[0],
        "manufacturer": _manufacturer(entry),
        "device_type": models.get(model, model)[:NAME_MAX],
        "status": STATUS,
        "site": site,
        "rack": dev.rack.id[:NAME_MAX],
    }
    if dev.device.position is not None and dev.height_u > 0:
        row["position"] = dev.device.position
        row["face"] = dev.device.face or "front"
    if entry is not None and entry.airflow in AIRFLOWS:
        row["airflow"] = entry.airflow
    if dev.device.label:
        row["description"] = dev.device.label[:200]
    if dev.device.notes:
        row["comments"] = dev.device.notes
    return row


def _extra_interfaces(dev: DeviceFacts) -> list[dict[str, Any]]:
    """Interfaces of port groups the device has but its type's templates do not create
    (none while a device's ports are its type's)."""
    templated = {g.name for g in (dev.type.ports or ())} if dev.type else set()
    rows: list[dict[str, Any]] = []
    for name, group in dev.ports.items():
        if name in templated:
            continue
        slug = for_port(group.speed, group.tech)
        for port in _interface_names(group):
            rows.append({"device": dev.id[:64], "name": port, "type": slug})
    return rows


# -- power: the PSU cords to the PDUs' outlets, and the feeds to what they feed ----------


def power_rows(analysis: Analysis, site: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The power outlets of PDUs whose type has none (their ``outlets`` unknown: as many as
    the cords need), and the power cables: every PSU cord of analysis.cords to its PDU's
    next free outlet of the type it takes, and each feed to the PDU, power shelf or
    hardwired device on it (NetBox: a feed takes one cable, so the first on each feed).
    A cord without a PDU, an inlet type or a free outlet (PWR012) gets no cable."""
    outlets: list[dict[str, Any]] = []
    cables: list[dict[str, Any]] = []
    for rack in analysis.racks:
        cords = rack_cords(rack)
        outlets.extend(_device_outlets(rack.devices, cords))
        cables.extend(_cord_cables(rack.devices, cords))
        cables.extend(_feed_cables(rack, site, analysis.power_chain))
    return outlets, cables


def _device_outlets(devices: list[DeviceFacts], cords: list[Cord]) -> list[dict[str, Any]]:
    needed: dict[str, dict[str, int]] = {}
    for cord in cords:
        if cord.pdu and cord.outlet:
            counts = needed.setdefault(cord.pdu, {})
            counts[cord.outlet] = counts.get(cord.outlet, 0) + 1
    rows: list[dict[str, Any]] = []
    for dev in devices:
        if dev.kind != "pdu" or dev.id not in needed or (dev.type and dev.type.outlets):
            continue
        for row in _power_outlets(_with_outlets(dev.type, needed[dev.id])):
            rows.append({"device": dev.id[:64], **row})
    return rows


def _with_outlets(entry: DeviceType | None, counts: dict[str, int]) -> DeviceType:
    from dataclasses import replace

    base = entry if entry is not None else DeviceType(key="pdu", kind="pdu")
    return replace(base, outlets=dict(counts))


def _cord_cables(devices: list[DeviceFacts], cords: list[Cord]) -> list[dict[str, Any]]:
    available: dict[str, dict[str, int]] = {}
    for dev in devices:
        if dev.kind == "pdu" and dev.type is not None and dev.type.outlets:
            available[dev.id] = dict(dev.type.outlets)
    used: dict[tuple[str, str], int] = {}
    rows: list[dict[str, Any]] = []
    for cord in cords:
        if not cord.pdu or not cord.outlet:
            continue
        number = used.get((cord.pdu, cord.outlet), 0) + 1
        limit = available.get(cord.pdu, {}).get(cord.outlet) if cord.pdu in available else None
        if limit is not None and number > limit:
            continue  # no free outlet of that type: PWR012
        used[cord.pdu, cord.outlet] = number
        rows.append(
            {
                "side_a_device": cord.device.id[:64],
                "side_a_type": "dcim.powerport",
                "side_a_name": psu_port(cord.psu),
                "side_b_device": cord.pdu[:64],
                "side_b_type": "dcim.poweroutlet",
                "side_b_name": outlet_name(cord.outlet, number),
                "status": STATUS,
                "type": POWER_CABLE,
            }
        )
    return rows


def _feed_cables(rack: Any, site: str, chain: PowerChain) -> list[dict[str, Any]]:
    feeds = [f.feed for f in rack.feeds]
    if not feeds:
        return []
    by_id = {feed.id: feed for feed in feeds}
    ends = _feed_ends(rack, feeds)
    rows: list[dict[str, Any]] = []
    cabled: set[str] = set()
    for dev, port, feed_id in ends:
        feed = by_id.get(feed_id)
        if feed is None or feed_id in cabled:
            continue  # a feed takes one cable in NetBox: the first device on it
        cabled.add(feed_id)
        rows.append(
            {
                "side_a_site": site,
                "side_a_power_panel": feed_panel(chain, feed),
                "side_a_type": "dcim.powerfeed",
                "side_a_name": feed.id[:NAME_MAX],
                "side_b_device": dev.id[:64],
                "side_b_type": "dcim.powerport",
                "side_b_name": port,
                "status": STATUS,
                "type": POWER_CABLE,
            }
        )
    return rows


def _feed_ends(rack: Any, feeds: list[Feed]) -> list[tuple[DeviceFacts, str, str]]:
    """What each feed powers, as (device, its power port, the feed's id): the PDUs and
    power shelves on their feeds (``feed``, else in order), then hardwired devices on
    the feeds left, one each."""
    pdus = [d for d in rack.devices if d.kind == "pdu"]
    shelves = [d for d in rack.devices if d.type is not None and d.type.is_power_shelf]
    ends: list[tuple[DeviceFacts, str, str]] = []
    for group, port in ((pdus, PDU_INLET), (shelves, SHELF_INPUT)):
        where = pdu_feeds([d.device for d in group], feeds)
        ends += [(d, port, where[d.id]) for d in group if d.id in where]
    taken = {feed for _, _, feed in ends}
    spare = [feed.id for feed in feeds if feed.id not in taken]
    for dev in rack.devices:
        if dev.type is not None and dev.type.psu_inlet == HARDWIRED and spare:
            ends.append((dev, HARDWIRED_INPUT, spare.pop(0)))
    return ends
