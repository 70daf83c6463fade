"""``rackdesigner push``: the design into a NetBox through its REST API, idempotently.

The objects are the bulk-import rows of :func:`rackdesigner.netbox.bulk.bulk_rows` (the same
ones ``export --netbox`` writes), in import order. Each row has a natural key (a rack is its
site and name, a cable its two ends); push looks every key up in NetBox first, then creates
what is missing and updates only the fields that differ, so a second push changes nothing and
says so. ``dry_run`` computes the same plan and changes nothing. Objects in NetBox that the
layout does not name are left alone (push never deletes).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from rackdesigner.netbox.client import Backend, NetBoxError
from rackdesigner.netbox.records import items, related_id, related_name, required, text, where

Key = tuple[Any, ...]

# What each kind is called in the plan (one object).
NOUNS = {
    "manufacturers": "manufacturer",
    "device-types": "device type",
    "device-roles": "device role",
    "interface-templates": "interface template",
    "power-port-templates": "power port template",
    "sites": "site",
    "locations": "location",
    "racks": "rack",
    "power-panels": "power panel",
    "power-feeds": "power feed",
    "devices": "device",
    "interfaces": "interface",
    "cables": "cable",
}

# Device-type components (the YAML lists) and the template endpoints they become.
COMPONENTS = {"interfaces": "interface-templates", "power-ports": "power-port-templates"}
_OTHER_COMPONENTS = (
    "console-ports",
    "console-server-ports",
    "power-outlets",
    "front-ports",
    "rear-ports",
    "module-bays",
    "device-bays",
    "inventory-items",
)


@dataclass(frozen=True)
class Ref:
    """A related object by its natural key; resolved to an id when the data is sent."""

    kind: str
    key: Key


@dataclass
class Change:
    """One step of the plan: create, update (with the fields that differ) or unchanged."""

    verb: str
    kind: str
    label: str
    fields: list[tuple[str, Any, Any]] = field(default_factory=list)

    def line(self, dry_run: bool) -> str:
        verb = {"create": "would create", "update": "would update"}.get(self.verb, self.verb)
        verb = verb if dry_run else self.verb
        text = f"{verb} {NOUNS.get(self.kind, self.kind)} {self.label}"
        if self.fields:
            text += ": " + ", ".join(
                f"{name} {_shown(old)} -> {_shown(new)}" for name, old, new in self.fields
            )
        return text


@dataclass
class Plan:
    changes: list[Change] = field(default_factory=list)
    dry_run: bool = False

    def count(self, verb: str) -> int:
        return sum(1 for change in self.changes if change.verb == verb)

    def lines(self) -> list[str]:
        lines = [c.line(self.dry_run) for c in self.changes if c.verb != "unchanged"]
        created, updated = self.count("create"), self.count("update")
        unchanged = self.count("unchanged")
        if not created and not updated:
            lines.append(
                f"NetBox already matches the layout: nothing to change ({unchanged} objects)"
            )
        else:
            would = "would be " if self.dry_run else ""
            lines.append(
                f"{created} {would}created, {updated} {would}updated, {unchanged} unchanged"
                + (" (dry run: nothing was changed)" if self.dry_run else "")
            )
        return lines


def _shown(value: Any) -> str:
    if isinstance(value, Ref):
        return "/".join(str(part) for part in value.key)
    if value is None or value == "":
        return "(none)"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# --- Natural keys of the records NetBox returns --------------------------------------


class Index:
    """The records of one NetBox site (and the shared types) by natural key, both ways."""

    def __init__(self) -> None:
        self.by_key: dict[str, dict[Key, dict[str, Any]]] = {}
        self.keys: dict[str, dict[int, Key]] = {}
        self._fake = itertools.count(-1, -1)

    def add(self, kind: str, key: Key, record: dict[str, Any]) -> None:
        self.by_key.setdefault(kind, {})[key] = record
        if record.get("id") is not None:
            self.keys.setdefault(kind, {})[record["id"]] = key

    def get(self, kind: str, key: Key) -> dict[str, Any] | None:
        return self.by_key.get(kind, {}).get(key)

    def key_of(self, kind: str, value: Any) -> Key | None:
        id_ = related_id(value)
        return None if id_ is None else self.keys.get(kind, {}).get(id_)

    def placeholder(self, kind: str, key: Key) -> dict[str, Any]:
        """A record that a dry run would create: a negative id, for its dependents."""
        record = {"id": next(self._fake)}
        self.add(kind, key, record)
        return record

    def termination_key(self, term: dict[str, Any]) -> Key | None:
        if term.get("object_type") != "dcim.interface":
            return None
        return self.key_of("interfaces", term.get("object_id"))

    def key_from_record(self, kind: str, record: dict[str, Any]) -> Key | None:
        """The natural key of a record NetBox returned (its parents already indexed), or
        ``None`` for one push does not manage (a device without a name); a record without
        the fields that make its key is :class:`NetBoxError`."""
        place = where(NOUNS[kind], record)

        def name() -> str | None:
            return text(record, "name", place, required=kind != "devices")

        if kind in {"manufacturers", "device-roles", "sites"}:
            return (name(),)
        if kind == "device-types":
            return (
                _related_name(record, "manufacturer", place),
                text(record, "model", place, True),
            )
        if kind in COMPONENTS.values():
            parent = self.key_of("device-types", record.get("device_type"))
            return None if parent is None else (*parent, name())
        if kind in {"racks", "power-panels", "locations", "devices"}:
            own = name()
            return None if own is None else (_related_name(record, "site", place), own)
        if kind == "power-feeds":
            panel = self.key_of("power-panels", record.get("power_panel"))
            return None if panel is None else (*panel, name())
        if kind == "interfaces":
            device = self.key_of("devices", record.get("device"))
            return None if device is None else (*device, name())
        if kind == "cables":
            ends = [
                [self.termination_key(t) for t in items(record, side, place)]
                for side in ("a_terminations", "b_terminations")
            ]
            a, b = (end[0] if len(end) == 1 else None for end in ends)
            return None if a is None or b is None else _cable_key(a, b)
        raise KeyError(kind)


def _related_name(record: dict[str, Any], key: str, place: str) -> str:
    """The name of the related object ``key`` (a device type's manufacturer, a rack's site)."""
    name = related_name(record.get(key))
    if name is None:
        raise NetBoxError(f"NetBox's {place} has no {key} with a name")
    return name


def _cable_key(a: Key, b: Key) -> Key:
    return tuple(sorted((a, b)))


# --- Reading what NetBox holds --------------------------------------------------------


def read_index(backend: Backend, site: str, device_types: Iterable[Key] = ()) -> Index:
    """Every record push compares against: the shared types, and the site's objects."""
    index = Index()

    def load(kind: str, **filters: Any) -> None:
        for record in backend.list(kind, **filters):
            key = index.key_from_record(kind, record)
            if key is not None:
                index.add(kind, key, record)

    load("manufacturers")
    load("device-types")
    load("device-roles")
    found = (index.get("device-types", key) for key in device_types)
    wanted = [record["id"] for record in found if record is not None]
    if wanted:
        load("interface-templates", device_type_id=wanted)
        load("power-port-templates", device_type_id=wanted)
    load("sites", name=site)
    record = index.get("sites", (site,))
    if record is not None:
        for kind in ("locations", "racks", "power-panels", "power-feeds", "devices"):
            load(kind, site_id=record["id"])
        load("interfaces", site_id=record["id"])
        load("cables", site_id=record["id"])
    return index


# --- Rows into REST data --------------------------------------------------------------


@dataclass
class Desired:
    kind: str
    key: Key
    label: str
    data: dict[str, Any]  # REST fields; Ref values become ids
    compare: tuple[str, ...] | None = None  # fields to compare (None: all of data)


def _clean(row: dict[str, Any], *drop: str) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in drop and v is not None and v != ""}


def _slug(text: str) -> str:
    out = "".join(ch.lower() if ch.isalnum() else "-" for ch in text)
    return "-".join(part for part in out.split("-") if part)[:100] or "x"


def desired_objects(rows: list[tuple[str, list[dict[str, Any]]]]) -> list[Desired]:
    """The rows as REST objects with natural keys, in an order that creates parents first
    (device roles, which the import files assume exist, are added before the devices)."""
    out: list[Desired] = []
    by_kind = dict(rows)
    site_of_device: dict[str, str] = {}
    for row in by_kind.get("devices", []):
        site_of_device[row["name"]] = row.get("site", "")
    type_of_model: dict[str, Key] = {}
    for row in by_kind.get("device-types", []):
        type_of_model.setdefault(row["model"], (row["manufacturer"], row["model"]))
    roles_done: set[str] = set()

    for kind, kind_rows in rows:
        if kind in EXPORT_ONLY:
            continue
        for row in kind_rows:
            if kind == "cables" and not _between_interfaces(row):
                continue
            out.extend(_desired(kind, row, site_of_device, type_of_model, roles_done))
    return out


# What the export files hold and push does not send (yet): the power outlets of PDUs whose
# type has none, and the power cables (PSU to outlet, feed to PDU).
EXPORT_ONLY = ("power-outlets",)


def _between_interfaces(row: dict[str, Any]) -> bool:
    return row.get("side_a_type") == row.get("side_b_type") == "dcim.interface"


def _desired(
    kind: str,
    row: dict[str, Any],
    site_of_device: dict[str, str],
    type_of_model: dict[str, Key],
    roles_done: set[str],
) -> Iterable[Desired]:
    if kind in {"manufacturers", "sites", "device-roles"}:
        if kind == "device-roles":
            roles_done.add(row["name"])
        yield Desired(kind, (row["name"],), repr(row["name"]), _clean(row))
    elif kind == "device-types":
        yield from _desired_type(row)
    elif kind in {"racks", "power-panels", "locations"}:
        data = _clean(row, "site", "location")
        data["site"] = Ref("sites", (row["site"],))
        if row.get("location"):
            data["location"] = Ref("locations", (row["site"], row["location"]))
        yield Desired(kind, (row["site"], row["name"]), repr(row["name"]), data)
    elif kind == "power-feeds":
        data = _clean(row, "site", "power_panel", "rack", "location")
        data["power_panel"] = Ref("power-panels", (row["site"], row["power_panel"]))
        if row.get("rack"):
            data["rack"] = Ref("racks", (row["site"], row["rack"]))
        feed: Key = (row["site"], row["power_panel"], row["name"])
        yield Desired(kind, feed, repr(row["name"]), data)
    elif kind == "devices":
        yield from _desired_device(row, type_of_model, roles_done)
    elif kind == "interfaces":
        device = row["device"]
        site = site_of_device.get(device, row.get("site", ""))
        data = _clean(row, "device", "site")
        data["device"] = Ref("devices", (site, device))
        yield Desired(kind, (site, device, row["name"]), f"{device}:{row['name']}", data)
    elif kind == "cables":
        yield _desired_cable(row, site_of_device)
    else:
        raise ValueError(f"unknown NetBox object type {kind!r} in the rows")


def _desired_type(row: dict[str, Any]) -> Iterable[Desired]:
    """A device type, then its component templates (interfaces, power ports, ...)."""
    key = (row["manufacturer"], row["model"])
    data = _clean(row, *COMPONENTS, *_OTHER_COMPONENTS, "manufacturer")
    data["manufacturer"] = Ref("manufacturers", (row["manufacturer"],))
    yield Desired("device-types", key, repr(row["model"]), data)
    for component, template_kind in COMPONENTS.items():
        for item in row.get(component) or []:
            data = _clean(item)
            data["device_type"] = Ref("device-types", key)
            yield Desired(
                template_kind,
                (*key, item["name"]),
                f"{item['name']!r} of {row['model']!r}",
                data,
            )


def _desired_device(
    row: dict[str, Any], type_of_model: dict[str, Key], roles_done: set[str]
) -> Iterable[Desired]:
    """A device (after its role, where no row gave that role), referring to its type,
    role, site and rack."""
    role = row.get("role")
    if role and role not in roles_done:
        roles_done.add(role)
        yield Desired("device-roles", (role,), repr(role), {"name": role, "slug": _slug(role)})
    data = _clean(row, "site", "rack", "device_type", "manufacturer", "role", "location")
    model = row["device_type"]
    type_key = (row["manufacturer"], model) if row.get("manufacturer") else None
    data["device_type"] = Ref("device-types", type_key or type_of_model.get(model, ("", model)))
    if role:
        data["role"] = Ref("device-roles", (role,))
    data["site"] = Ref("sites", (row["site"],))
    if row.get("rack"):
        data["rack"] = Ref("racks", (row["site"], row["rack"]))
    yield Desired("devices", (row["site"], row["name"]), repr(row["name"]), data)


def _desired_cable(row: dict[str, Any], site_of_device: dict[str, str]) -> Desired:
    """A cable between two interfaces, compared on its own fields (not its ends)."""
    ends = []
    for side in ("a", "b"):
        device = row[f"side_{side}_device"]
        site = row.get(f"side_{side}_site") or site_of_device.get(device, "")
        ends.append((site, device, row[f"side_{side}_name"]))
    ends_fields = (f"side_{s}_{f}" for s in "ab" for f in ("device", "type", "name", "site"))
    data = _clean(row, *ends_fields)
    data["a_terminations"] = [Ref("interfaces", ends[0])]
    data["b_terminations"] = [Ref("interfaces", ends[1])]
    compare = tuple(k for k in data if not k.endswith("_terminations"))
    label = f"{ends[0][1]}:{ends[0][2]} - {ends[1][1]}:{ends[1][2]}"
    return Desired("cables", _cable_key(ends[0], ends[1]), label, data, compare)


# --- Comparing and applying -----------------------------------------------------------


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        if "value" in value and "label" in value:
            return value["value"]
        if "id" in value:
            return value["id"]
    return value


def same(want: Any, have: Any) -> bool:
    """Whether NetBox's value ``have`` already is ``want`` (choices by value, related
    objects by id, numbers by value: NetBox answers 10.0 for a position of 10)."""
    have = _plain(have)
    if want in (None, "") and have in (None, ""):
        return True
    if isinstance(want, bool) or isinstance(have, bool):
        return want == have
    if isinstance(want, int | float) and isinstance(have, int | float | str):
        try:
            return abs(float(want) - float(have)) < 1e-9
        except ValueError:
            return False
    if isinstance(want, list) and isinstance(have, list):
        return len(want) == len(have) and all(same(w, h) for w, h in zip(want, have, strict=True))
    return want == have


class _Unresolved(Exception):
    pass


def _resolve(value: Any, index: Index) -> Any:
    if isinstance(value, Ref):
        record = index.get(value.kind, value.key)
        if record is None:
            raise _Unresolved(f"{NOUNS.get(value.kind, value.kind)} {_shown(value)}")
        return record["id"]
    if isinstance(value, list):
        out = []
        for item in value:
            if isinstance(item, Ref) and item.kind == "interfaces":
                out.append({"object_type": "dcim.interface", "object_id": _resolve(item, index)})
            else:
                out.append(_resolve(item, index))
        return out
    return value


def push_rows(
    backend: Backend,
    rows: list[tuple[str, list[dict[str, Any]]]],
    *,
    dry_run: bool = False,
    progress: Callable[[Change], None] | None = None,
) -> Plan:
    """Create or update the rows' objects in NetBox (``dry_run``: only plan it)."""
    objects = desired_objects(rows)
    sites = [o.key[0] for o in objects if o.kind == "sites"]
    if len(sites) != 1:
        raise ValueError(f"the rows name {len(sites)} sites; push takes one")
    types = [o.key for o in objects if o.kind == "device-types"]
    index = read_index(backend, sites[0], types)
    templates: dict[Key, list[str]] = {}
    for obj in objects:
        if obj.kind == "interface-templates":
            templates.setdefault(obj.key[:-1], []).append(obj.key[-1])
    plan = Plan(dry_run=dry_run)
    for obj in objects:
        change = _step(backend, index, obj, dry_run, templates)
        plan.changes.append(change)
        if progress is not None and change.verb != "unchanged":
            progress(change)
    return plan


def _step(
    backend: Backend, index: Index, obj: Desired, dry_run: bool, templates: dict[Key, list[str]]
) -> Change:
    existing = index.get(obj.kind, obj.key)
    try:
        data = {name: _resolve(value, index) for name, value in obj.data.items()}
    except _Unresolved as missing:
        raise ValueError(
            f"{NOUNS[obj.kind]} {obj.label} names {missing}, which is not in the rows"
        ) from None
    if existing is None:
        if dry_run:
            record = index.placeholder(obj.kind, obj.key)
        else:
            record = backend.create(obj.kind, data)
            index.add(obj.kind, obj.key, record)
        if obj.kind == "devices":
            _index_components(backend, index, obj, record, templates, dry_run)
        return Change("create", obj.kind, obj.label)
    if existing["id"] < 0:  # a dry run's object, planned twice: nothing more to do
        return Change("unchanged", obj.kind, obj.label)
    fields = obj.compare if obj.compare is not None else tuple(data)
    differ = [
        (name, _plain(existing.get(name)), obj.data[name])
        for name in fields
        if not same(data[name], existing.get(name))
    ]
    if not differ:
        return Change("unchanged", obj.kind, obj.label)
    if not dry_run:
        backend.update(obj.kind, existing["id"], {name: data[name] for name, _, _ in differ})
    shown = [(name, _old(old, index, want), want) for name, old, want in differ]
    return Change("update", obj.kind, obj.label, shown)


def _index_components(
    backend: Backend,
    index: Index,
    device: Desired,
    record: dict[str, Any],
    templates: dict[Key, list[str]],
    dry_run: bool,
) -> None:
    """The interfaces NetBox made for a new device from its type's templates (a dry run:
    the ones it would make), for the cables to name."""
    if dry_run:
        type_ref = device.data["device_type"]
        for name in templates.get(type_ref.key, []):
            index.placeholder("interfaces", (*device.key, name))
        return
    for interface in backend.list("interfaces", device_id=record["id"]):
        name = required(interface, "name", where("interface", interface))
        index.add("interfaces", (*device.key, name), interface)


def _old(value: Any, index: Index, want: Any) -> Any:
    """An old related object by its natural key (not its id), as the plan prints it."""
    if isinstance(want, Ref):
        key = index.key_of(want.kind, value)
        return Ref(want.kind, key) if key is not None else value
    return value
