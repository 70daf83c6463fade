"""``rackdesigner pull``: a NetBox site back into a layout, so an existing hall can be
checked by the rules.

Racks, devices, power feeds and cables are read through the REST API. A device type maps to
a catalog entry (the one ``push`` named in its description, else the entry whose key is the
slug, else the one with the same vendor and model); a type the catalog does not know becomes
an entry of the layout's own ``[catalog]``, from what NetBox knows of it (height, depth,
airflow, weight, power ports, interfaces); what it does not know (GPUs, liquid cooling) stays
unset, and a note says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from rackdesigner.layout_io.catalog import Catalog, for_layout
from rackdesigner.model.layout import (
    Device,
    Feed,
    Layout,
    Link,
    Rack,
)
from rackdesigner.netbox.bulk import KIND_ROLES
from rackdesigner.netbox.client import Backend, NetBoxError
from rackdesigner.netbox.records import (
    choice,
    items,
    number,
    related_id,
    related_name,
    required,
    text,
    where,
    whole,
)

_PUSHED = re.compile(r"^rackdesigner catalog entry (\S+)$")
_CIRCUIT = re.compile(r"^circuit (.+)$")
# A feed on a chain element's panel says its side (and position) first (power_panels.py).
_SIDE = re.compile(r"^side ([^ ·]+)(?: · |$)")
_POSITION = re.compile(r"^position \d+(?: · |$)")
DEFAULT_MAX_UTILIZATION = 80  # NetBox's default, and the layout's default derate
# NetBox cable types back to the layout's media (and fibre grade).
_MEDIA = {
    "dac-passive": ("dac", None),
    "dac-active": ("acc", None),
    "aoc": ("aoc", None),
    "mmf": ("mmf", None),
    "mmf-om3": ("mmf", "om3"),
    "mmf-om4": ("mmf", "om4"),
    "mmf-om5": ("mmf", "om5"),
    "smf": ("smf", None),
    "smf-os2": ("smf", "os2"),
}


@dataclass
class Pulled:
    layout: Layout
    notes: list[str] = field(default_factory=list)


class _Types:
    """NetBox device types to catalog keys, importing those the catalog lacks."""

    def __init__(self, catalog: Catalog, backend: Backend) -> None:
        self.catalog = catalog
        self.backend = backend
        self.by_id: dict[int, str] = {}
        self.imported: dict[str, Any] = {}
        self.notes: list[str] = []

    def key_for(self, record: dict[str, Any], role: str | None = None) -> str:
        if record["id"] in self.by_id:
            return self.by_id[record["id"]]
        kind = _KIND_OF_ROLE.get((role or "").casefold())
        key = self._match(record) or self._import(record, kind)
        self.by_id[record["id"]] = key
        return key

    def _match(self, record: dict[str, Any]) -> str | None:
        devices = self.catalog.devices
        place = where("device type", record)
        pushed = _PUSHED.match(text(record, "description", place) or "")
        if pushed and pushed.group(1) in devices:
            return pushed.group(1)
        slug = text(record, "slug", place)
        if slug in devices:
            return slug
        vendor = (related_name(record.get("manufacturer")) or "").casefold()
        model = (text(record, "model", place) or "").casefold()
        for key, entry in devices.items():
            if (entry.name or "").casefold() == model and (entry.vendor or "").casefold() == vendor:
                return key
        return None

    def _import(self, record: dict[str, Any], kind: str | None) -> str:
        """The type as the devicetype-library would list it, read by the library import."""
        from rackdesigner.netbox.devicetypes import Flags, device_type

        place = where("device type", record)
        data: dict[str, Any] = {
            "manufacturer": related_name(record.get("manufacturer")),
            "model": text(record, "model", place),
            "slug": text(record, "slug", place),
            "u_height": whole(record, "u_height", place),
            "is_full_depth": record.get("is_full_depth"),
        }
        for name in ("airflow", "weight_unit"):
            if choice(record, name, place):
                data[name] = choice(record, name, place)
        if record.get("weight") is not None:
            data["weight"] = whole(record, "weight", place)
        for component, template_kind, fields in _TEMPLATES:
            templates = self.backend.list(template_kind, device_type_id=record["id"])
            rows = [
                {f: _plain(t.get(f)) for f in fields if t.get(f) is not None} for t in templates
            ]
            if rows:
                data[component] = rows
        named = f"NetBox device type {data['model']!r}"
        entry, notes, problems = device_type(data, named, Flags(kind=kind))
        if entry is None:
            raise NetBoxError(f"{named} cannot be read: {'; '.join(problems)}")
        notes = [*problems, *notes]  # a half-unit height, say: the rest still holds
        entry.source = f"NetBox device type {data['model']} (pulled)"
        self.imported[entry.key] = entry
        said = f"; {'; '.join(notes)}" if notes else ""
        self.notes.append(f"{named} is not in the catalog: imported as {entry.key!r}{said}")
        return entry.key


def _plain(value: Any) -> Any:
    """A choice's value (``{"value", "label"}``) or the value itself: the library import
    checks what the template fields hold, as it checks a YAML file's."""
    if isinstance(value, dict) and "value" in value:
        return value["value"]
    return value


# Device-type components the library import reads, from their template endpoints.
_TEMPLATES = (
    ("interfaces", "interface-templates", ("name", "type", "mgmt_only")),
    ("power-ports", "power-port-templates", ("name", "type", "maximum_draw", "allocated_draw")),
    ("power-outlets", "power-outlet-templates", ("name", "type")),
)
# The device kind a role names (push's roles, rackdesigner.netbox.bulk.KIND_ROLES).
_KIND_OF_ROLE = {name.casefold(): kind for kind, (name, _) in KIND_ROLES.items()}


def pull_site(backend: Backend, site: str, catalog: Catalog | None = None) -> Pulled:
    """The layout of NetBox site ``site``. A record the layout cannot be made from (a rack
    without a name, a position of ``Infinity``) is :class:`NetBoxError` naming it."""
    sites = [s for s in backend.list("sites", name=site) if s.get("name") == site]
    if not sites:
        raise NetBoxError(f"NetBox has no site named {site!r}")
    record = sites[0]
    site_id = record["id"]
    layout = Layout(name=site, description=text(record, "description", where("site", record)))
    types = _Types(catalog or for_layout(layout), backend)
    racks = {r["id"]: _rack(r) for r in backend.list("racks", site_id=site_id)}
    layout.racks.extend(racks.values())
    _pull_feeds(backend, site_id, racks)
    devices = _pull_devices(backend, site_id, racks, types)
    _pull_cables(backend, site_id, devices, layout, types.notes)
    layout.catalog = dict(types.imported)
    return Pulled(layout, types.notes)


def _pull_feeds(backend: Backend, site_id: int, racks: dict[int, Rack]) -> None:
    """The site's power feeds onto their racks, each named after its panel's side."""
    panels = {
        p["id"]: text(p, "name", where("power panel", p)) or ""
        for p in backend.list("power-panels", site_id=site_id)
    }
    for f in backend.list("power-feeds", site_id=site_id):
        rack = racks.get(related_id(f.get("rack")) or -1)
        if rack is not None:  # a feed to no rack of this site: nothing to hang it on
            rack.feeds.append(_feed(f, panels.get(related_id(f.get("power_panel")) or -1, "")))


def _pull_devices(
    backend: Backend, site_id: int, racks: dict[int, Rack], types: _Types
) -> dict[int, Device]:
    """The site's devices into their racks, each of its type's catalog key (a device in no
    rack is left out, with a note); returns them by NetBox id."""
    type_records = {t["id"]: t for t in backend.list("device-types")}
    devices: dict[int, Device] = {}
    for d in backend.list("devices", site_id=site_id):
        place = where("device", d)
        rack = racks.get(related_id(d.get("rack")) or -1)
        if rack is None:
            types.notes.append(f"{place} is in no rack: left out")
            continue
        nested = d.get("device_type")
        type_record = type_records.get(related_id(nested) or -1)
        if type_record is None and related_id(nested) is not None and isinstance(nested, dict):
            type_record = nested  # a type the listing lacked: its brief form, nested here
        if type_record is None:
            raise NetBoxError(f"NetBox's {place} has no device type")
        model = types.key_for(type_record, related_name(d.get("role")))
        devices[d["id"]] = _device(d, model, types.notes)
        rack.devices.append(devices[d["id"]])
    return devices


def _pull_cables(
    backend: Backend, site_id: int, devices: dict[int, Device], layout: Layout, notes: list[str]
) -> None:
    """The site's cables between two interfaces of its devices into the layout's links;
    power cables are the feeds' and PDUs' business, any other is left out with a note."""
    interfaces = {
        i["id"]: (related_id(i.get("device")), required(i, "name", where("interface", i)))
        for i in backend.list("interfaces", site_id=site_id)
    }
    for c in backend.list("cables", site_id=site_id):
        if _power_cable(c):
            continue  # a power cord or a feed's cable: the layout's feeds and PDUs say those
        link = _link(c, interfaces, devices)
        if link is None:
            notes.append(f"cable {c['id']} is not between two interfaces here: left out")
        else:
            layout.links.append(link)


_POWER_TERMINATIONS = ("dcim.powerport", "dcim.poweroutlet", "dcim.powerfeed")


def _power_cable(cable: dict[str, Any]) -> bool:
    place = where("cable", cable)
    terms = [*items(cable, "a_terminations", place), *items(cable, "b_terminations", place)]
    return bool(terms) and all(t.get("object_type") in _POWER_TERMINATIONS for t in terms)


def _rack(record: dict[str, Any]) -> Rack:
    place = where("rack", record)
    rack = Rack(id=required(record, "name", place), height=number(record, "u_height", place))
    rack.airflow = choice(record, "airflow", place)
    max_weight = number(record, "max_weight", place)
    if max_weight is not None and choice(record, "weight_unit", place) == "kg":
        rack.max_weight = max_weight
    rack.label = text(record, "description", place)
    return rack


def _feed(record: dict[str, Any], panel: str) -> Feed:
    place = where("power feed", record)
    feed = Feed(
        id=required(record, "name", place),
        voltage=number(record, "voltage", place),
        phases=3 if choice(record, "phase", place) == "three-phase" else 1,
        current=number(record, "amperage", place),
    )
    if panel.startswith("Panel ") and len(panel) > len("Panel "):
        feed.side = panel[len("Panel ") :]
    described = text(record, "description", place) or ""
    side = _SIDE.match(described)
    if side:
        feed.side = feed.side or side.group(1)
        described = described[side.end() :]
    position = _POSITION.match(described)
    if position:
        described = described[position.end() :]
    circuit = _CIRCUIT.match(described)
    if circuit:
        feed.circuit = circuit.group(1)
    utilization = number(record, "max_utilization", place)
    if utilization is not None and utilization != DEFAULT_MAX_UTILIZATION:
        feed.derate = utilization / 100
    return feed


def _device(record: dict[str, Any], model: str, notes: list[str]) -> Device:
    place = where("device", record)
    device = Device(id=text(record, "name", place) or f"device-{record['id']}", model=model)
    position = number(record, "position", place)
    if position is not None:
        device.position = int(position)
        if position != device.position:
            notes.append(
                f"{place} is at U{position:g}: placed at U{device.position} (a layout "
                "places whole units)"
            )
        if choice(record, "face", place) == "rear":
            device.face = "rear"
    device.label = text(record, "description", place)
    device.notes = text(record, "comments", place)
    return device


def _link(
    record: dict[str, Any],
    interfaces: dict[int, tuple[int | None, str]],
    devices: dict[int, Device],
) -> Link | None:
    """The cable as a link, or ``None`` when it is not between two interfaces of devices
    the layout holds."""
    place = where("cable", record)
    ends = []
    for side in ("a_terminations", "b_terminations"):
        terms = items(record, side, place)
        if len(terms) != 1 or terms[0].get("object_type") != "dcim.interface":
            return None
        device_id, port = interfaces.get(related_id(terms[0].get("object_id")) or -1, (None, None))
        if device_id not in devices:
            return None
        ends.append(f"{devices[device_id].id}:{port}")
    media, grade = _MEDIA.get(choice(record, "type", place) or "", (None, None))
    link = Link(a=ends[0], b=ends[1], media=media, grade=grade)
    length = number(record, "length", place)
    if length is not None:
        unit = choice(record, "length_unit", place) or "m"
        factor = {"m": 1.0, "cm": 0.01, "km": 1000.0, "ft": 0.3048, "in": 0.0254}
        link.length = length * factor.get(unit, 1.0)
    return link


__all__ = ["Pulled", "pull_site"]
