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

_PUSHED = re.compile(r"^rackdesigner catalog entry (\S+)$")
_CIRCUIT = re.compile(r"^circuit (.+)$")
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


def _value(value: Any) -> Any:
    """A choice's value ({"value", "label"}) or the value itself."""
    if isinstance(value, dict) and "value" in value:
        return value["value"]
    return value


def _name(value: Any) -> str | None:
    return value.get("name") if isinstance(value, dict) else None


def _id(value: Any) -> int | None:
    return value.get("id") if isinstance(value, dict) else value


def _number(value: Any) -> float | None:
    if value in (None, ""):
        return None
    return float(value)


def _whole(value: Any) -> int | float | None:
    number = _number(value)
    if number is None:
        return None
    return int(number) if number.is_integer() else number


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
        pushed = _PUSHED.match(record.get("description") or "")
        if pushed and pushed.group(1) in devices:
            return pushed.group(1)
        if record.get("slug") in devices:
            return record["slug"]
        vendor = (_name(record.get("manufacturer")) or "").casefold()
        model = (record.get("model") or "").casefold()
        for key, entry in devices.items():
            if (entry.name or "").casefold() == model and (entry.vendor or "").casefold() == vendor:
                return key
        return None

    def _import(self, record: dict[str, Any], kind: str | None) -> str:
        """The type as the devicetype-library would list it, read by the library import."""
        from rackdesigner.netbox.devicetypes import Flags, device_type

        data: dict[str, Any] = {
            "manufacturer": _name(record.get("manufacturer")),
            "model": record.get("model"),
            "slug": record.get("slug"),
            "u_height": _whole(record.get("u_height")),
            "is_full_depth": record.get("is_full_depth"),
        }
        for name in ("airflow", "weight_unit"):
            if _value(record.get(name)):
                data[name] = _value(record[name])
        if record.get("weight") is not None:
            data["weight"] = _whole(record["weight"])
        for component, template_kind, fields in _TEMPLATES:
            items = self.backend.list(template_kind, device_type_id=record["id"])
            rows = [{f: _value(i.get(f)) for f in fields if i.get(f) is not None} for i in items]
            if rows:
                data[component] = rows
        where = f"NetBox device type {record.get('model')!r}"
        entry, notes, problems = device_type(data, where, Flags(kind=kind))
        if entry is None:
            raise NetBoxError(f"{where} cannot be read: {'; '.join(problems)}")
        notes = [*problems, *notes]  # a half-unit height, say: the rest still holds
        entry.source = f"NetBox device type {record.get('model')} (pulled)"
        self.imported[entry.key] = entry
        said = f"; {'; '.join(notes)}" if notes else ""
        self.notes.append(f"{where} is not in the catalog: imported as {entry.key!r}{said}")
        return entry.key


# Device-type components the library import reads, from their template endpoints.
_TEMPLATES = (
    ("interfaces", "interface-templates", ("name", "type", "mgmt_only")),
    ("power-ports", "power-port-templates", ("name", "type", "maximum_draw", "allocated_draw")),
    ("power-outlets", "power-outlet-templates", ("name", "type")),
)
# The device kind a role names (push's roles, rackdesigner.netbox.bulk.KIND_ROLES).
_KIND_OF_ROLE = {name.casefold(): kind for kind, (name, _) in KIND_ROLES.items()}


def pull_site(backend: Backend, site: str, catalog: Catalog | None = None) -> Pulled:
    """The layout of NetBox site ``site``."""
    sites = [s for s in backend.list("sites", name=site) if s.get("name") == site]
    if not sites:
        raise NetBoxError(f"NetBox has no site named {site!r}")
    record = sites[0]
    site_id = record["id"]
    layout = Layout(name=site, description=record.get("description") or None)
    types = _Types(catalog or for_layout(layout), backend)

    racks: dict[int, Rack] = {}
    for r in backend.list("racks", site_id=site_id):
        rack = Rack(id=r["name"], height=_number(r.get("u_height")))
        if _value(r.get("airflow")):
            rack.airflow = _value(r["airflow"])
        if r.get("max_weight") is not None and _value(r.get("weight_unit")) == "kg":
            rack.max_weight = float(r["max_weight"])
        if r.get("description"):
            rack.label = r["description"]
        racks[r["id"]] = rack
        layout.racks.append(rack)

    panels = {p["id"]: p["name"] for p in backend.list("power-panels", site_id=site_id)}
    for f in backend.list("power-feeds", site_id=site_id):
        rack = racks.get(_id(f.get("rack")) or -1)
        if rack is None:
            continue  # a feed to no rack of this site: nothing in the layout to hang it on
        panel = panels.get(_id(f.get("power_panel")) or -1, "")
        feed = Feed(
            id=f["name"],
            voltage=_number(f.get("voltage")),
            phases=3 if _value(f.get("phase")) == "three-phase" else 1,
            current=_number(f.get("amperage")),
        )
        if panel.startswith("Panel ") and len(panel) > len("Panel "):
            feed.side = panel[len("Panel ") :]
        circuit = _CIRCUIT.match(f.get("description") or "")
        if circuit:
            feed.circuit = circuit.group(1)
        utilization = f.get("max_utilization")
        if utilization is not None and int(utilization) != DEFAULT_MAX_UTILIZATION:
            feed.derate = int(utilization) / 100
        rack.feeds.append(feed)

    type_records = {t["id"]: t for t in backend.list("device-types")}
    devices: dict[int, Device] = {}
    for d in backend.list("devices", site_id=site_id):
        rack = racks.get(_id(d.get("rack")) or -1)
        if rack is None:
            layout_notes = f"device {d['name']!r} is in no rack: left out"
            types.notes.append(layout_notes)
            continue
        type_record = type_records.get(_id(d.get("device_type")) or -1) or d["device_type"]
        device = Device(
            id=d["name"] or f"device-{d['id']}",
            model=types.key_for(type_record, _name(d.get("role"))),
        )
        if d.get("position") is not None:
            device.position = int(float(d["position"]))
            if _value(d.get("face")) == "rear":
                device.face = "rear"
        if d.get("description"):
            device.label = d["description"]
        if d.get("comments"):
            device.notes = d["comments"]
        devices[d["id"]] = device
        rack.devices.append(device)

    interfaces = {
        i["id"]: (_id(i.get("device")), i["name"])
        for i in backend.list("interfaces", site_id=site_id)
    }
    for c in backend.list("cables", site_id=site_id):
        if _power_cable(c):
            continue  # a power cord or a feed's cable: the layout's feeds and PDUs say those
        ends = []
        for side in ("a_terminations", "b_terminations"):
            terms = c.get(side) or []
            if len(terms) != 1 or terms[0].get("object_type") != "dcim.interface":
                break
            device_id, port = interfaces.get(terms[0].get("object_id"), (None, None))
            if device_id not in devices:
                break
            ends.append(f"{devices[device_id].id}:{port}")
        if len(ends) != 2:
            types.notes.append(f"cable {c.get('id')} is not between two interfaces here: left out")
            continue
        media, grade = _MEDIA.get(_value(c.get("type")) or "", (None, None))
        link = Link(a=ends[0], b=ends[1], media=media, grade=grade)
        length = _number(c.get("length"))
        if length is not None:
            unit = _value(c.get("length_unit")) or "m"
            factor = {"m": 1.0, "cm": 0.01, "km": 1000.0, "ft": 0.3048, "in": 0.0254}
            link.length = length * factor.get(unit, 1.0)
        layout.links.append(link)

    layout.catalog = dict(types.imported)
    return Pulled(layout, types.notes)


_POWER_TERMINATIONS = ("dcim.powerport", "dcim.poweroutlet", "dcim.powerfeed")


def _power_cable(cable: dict[str, Any]) -> bool:
    terms = [*(cable.get("a_terminations") or []), *(cable.get("b_terminations") or [])]
    return bool(terms) and all(t.get("object_type") in _POWER_TERMINATIONS for t in terms)


__all__ = ["Pulled", "pull_site"]
