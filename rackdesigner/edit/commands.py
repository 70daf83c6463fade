"""The edit commands of editing.md: racks, feeds, devices, links, fields, renames, batches.

Each command checks everything first and raises :class:`EditError` before it changes
anything; then it changes the layout and keeps the index current. Its ``revert`` puts back
exactly what it changed (the same objects, at the same places in their lists), so undoing
any sequence gives back an equal layout, and redo re-applies the same objects.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rackdesigner.edit.base import (
    Command,
    EditError,
    Effect,
    check_id,
    nearest,
    remove_identity,
    unit_span,
)
from rackdesigner.edit.fields import coerce
from rackdesigner.edit.index import FACES, LayoutIndex, end_device, port_key
from rackdesigner.layout_io.schema import ENDPOINT
from rackdesigner.model.layout import Device, DeviceType, Feed, Layout, Link, Rack, Site, Workload
from rackdesigner.model.refs import KindId

# Keys whose change can move a device or change what it occupies.
_PLACE_KEYS = ("model", "position", "face", "side")
# Device kinds the compute fabric is built from (NET rules read them even uncabled).
_FABRIC_KINDS = ("gpu-node", "switch")
# The id prefix a placed device gets after its rack's id, by kind.
ID_PREFIX = {
    "gpu-node": "n",
    "cpu-node": "c",
    "storage": "s",
    "switch": "sw",
    "pdu": "pdu",
    "cdu": "cdu",
    "rear-door": "door",
    "patch-panel": "pp",
    "blank": "blank",
    "other": "d",
}


class _Keep:
    """A parameter left as it is."""

    def __repr__(self) -> str:
        return "KEEP"


KEEP: Any = _Keep()


# -- shared checks ---------------------------------------------------------------------------


def _rack(index: LayoutIndex, rack_id: str) -> Rack:
    rack = index.rack(rack_id)
    if rack is None:
        raise EditError(f"there is no rack {rack_id}{nearest(rack_id, index.rack_ids())}")
    return rack


def _device(index: LayoutIndex, device_id: str) -> tuple[Device, Rack]:
    device = index.device(device_id)
    rack = index.rack_of(device_id)
    if device is None or rack is None:
        raise EditError(f"there is no device {device_id}{nearest(device_id, index.device_ids())}")
    return device, rack


def _feed(index: LayoutIndex, feed_id: str) -> tuple[Feed, Rack]:
    feed = index.feed(feed_id)
    rack = index.rack_of_feed(feed_id)
    if feed is None or rack is None:
        raise EditError(f"there is no feed {feed_id}")
    return feed, rack


def _link(index: LayoutIndex, ref: str | Link) -> Link:
    if isinstance(ref, Link):
        for link in index.links_on_port(ref.a):
            if link is ref:
                return link
        raise EditError(f"link {ref.name} is not in the layout")
    link = index.link(ref)
    if link is None:
        raise EditError(f"there is no link {ref}")
    return link


def _model(index: LayoutIndex, model: str) -> DeviceType:
    dtype = index.catalog.devices.get(model)
    if dtype is None:
        known = list(index.catalog.devices)
        raise EditError(
            f"unknown model {model}{nearest(model, known)} (`rackdesigner catalog` lists them)"
        )
    return dtype


def _free_id(index: LayoutIndex, kind: str, entity_id: str) -> str:
    check_id(kind, entity_id)
    if index.has_id(kind, entity_id):
        raise EditError(f"there is already a {kind} {entity_id}; ids are unique")
    return entity_id


def check_fit(
    index: LayoutIndex,
    rack: Rack,
    model: str,
    position: int | None,
    face: str | None,
    moving: Device | None = None,
) -> None:
    """Refuse a place where a device of ``model`` does not fit: unknown model, outside the
    rack, or over another device (``moving`` itself excepted)."""
    dtype = _model(index, model)
    height = dtype.height_u
    if height <= 0:
        if position is not None:
            raise EditError(
                f"{model} is a 0U device: it mounts on a side rail "
                '(side = "left" or "right"), not at a position'
            )
        return
    if position is None:
        raise EditError(f"{model} takes {height:g} U: give the position of its lowest unit")
    units = range(position, position + max(1, round(height)))
    if position < 1:
        raise EditError(
            f"position {position} is below U1 of rack {rack.id} (units count from 1 at the bottom)"
        )
    top = rack.height_u
    if units.stop - 1 > top:
        raise EditError(
            f"{model} ({height:g} U) at U{position} would occupy {unit_span(units)}, above "
            f"the top of rack {rack.id} (U{top:g}); the highest position for it is "
            f"{max(1, top - height + 1):g}"
        )
    faces = FACES if dtype.full_depth else (face or "front",)
    for other in index.occupants(rack, faces, units):
        if other is moving:
            continue
        shared = sorted(set(units) & set(index.units_of(other)))
        span = unit_span(range(shared[0], shared[-1] + 1))
        on = [f for f in faces if f in index.faces_of(other)]
        where = "" if len(on) == 2 else f" on the {on[0]} face"
        raise EditError(
            f"{span} of rack {rack.id}{where} is taken by device {other.id} "
            f"({other.model}); choose free units"
        )


def _in_fabric(index: LayoutIndex, device: Device) -> bool:
    dtype = index.type_of(device)
    return (dtype is not None and dtype.kind in _FABRIC_KINDS) or bool(index.links_of(device.id))


def _row_order(layout: Layout) -> list[str]:
    return list(dict.fromkeys(rack.row or "" for rack in layout.racks))


def _rows_moved(before: list[str], after: list[str]) -> bool:
    """Whether a rack added or removed changed the place of a row other racks are in: rows
    are placed in the order they first appear, so every cable between rows moves."""
    shorter, longer = (before, after) if len(before) <= len(after) else (after, before)
    return longer[: len(shorter)] != shorter


def _touch_device_links(effect: Effect, index: LayoutIndex, device_id: str) -> None:
    for link in index.links_of(device_id):
        effect.link(link)


def _ends_problem(index: LayoutIndex, end: str, what: str) -> str | None:
    """Why ``end`` names no port a cable can use (format checked before)."""
    found = ENDPOINT.match(end)
    if found is None:
        return f'{what} "{end}" is not a port reference "<device id>:<port group><index>"'
    device_id, group_name, number = found["device"], found["group"], int(found["index"])
    device = index.device(device_id)
    if device is None:
        return f"{what}: there is no device {device_id}{nearest(device_id, index.device_ids())}"
    dtype = index.type_of(device)
    if dtype is None:
        return f"{what}: device {device_id} has an unknown model ({device.model})"
    group = dtype.port_group(group_name)
    if group is None:
        names = ", ".join(g.name for g in dtype.ports or ()) or "none"
        return (
            f"{what}: {device.model} has no port group '{group_name}' (device {device_id}'s "
            f"groups: {names})"
        )
    if not 1 <= number <= group.count:
        return (
            f"{what}: {device.model} has ports {group.name}1..{group.name}{group.count}, not "
            f"{group.name}{number}"
        )
    return None


def check_link_ends(index: LayoutIndex, a: str, b: str, ignore: Link | None = None) -> None:
    """Refuse a cable between ``a`` and ``b``: an unknown port, a used port, a self-link."""
    for end, what in ((a, "end a"), (b, "end b")):
        problem = _ends_problem(index, end, what)
        if problem is not None:
            raise EditError(problem)
    # Each end's key once: a generated fabric checks 300,000 cables in one step.
    key_a, key_b = port_key(a), port_key(b)
    if key_a == key_b:
        raise EditError(f"both ends are port {key_a}: a cable needs two ports")
    if end_device(a) == end_device(b):
        raise EditError(
            f"both ends are on device {end_device(a)}: a cable joins two devices (self-link)"
        )
    for key in (key_a, key_b):
        for other in index.port_users(key):
            if other is not ignore:
                raise EditError(
                    f"port {key} is already used by link {other.name}; a port takes one cable"
                )


def _check_reference(index: LayoutIndex, rack: Rack, key: str, value: Any) -> None:
    """A rack's ``cdu`` or ``door`` must name an existing device of the right kind."""
    if value is None:
        return
    wanted, what = ("cdu", "a CDU") if key == "cdu" else ("rear-door", "a rear door")
    for name in [value] if isinstance(value, str) else list(value):
        device = index.device(name)
        if device is None:
            raise EditError(
                f"{key} names {name}, which is no device in the layout"
                f"{nearest(name, index.device_ids())}; name {what} placed in the layout",
                entity=f"rack {rack.id}",
                key=key,
            )
        dtype = index.type_of(device)
        if dtype is None or dtype.kind != wanted:
            kind = f"a {dtype.kind}" if dtype is not None and dtype.kind else "of unknown kind"
            raise EditError(
                f"{key} names device {name}, {kind} ({device.model}), not {what}",
                entity=f"rack {rack.id}",
                key=key,
            )


def _check_feed_reference(index: LayoutIndex, rack: Rack, device: Device, value: Any) -> None:
    """A PDU's ``feed`` (format v1.1) must name a feed of its own rack."""
    if value is None:
        return
    if not any(feed.id == value for feed in rack.feeds):
        names = [feed.id for feed in rack.feeds]
        raise EditError(
            f"feed names {value}, which is no feed of rack {rack.id}"
            f"{nearest(str(value), names)} (its feeds: {', '.join(names) or 'none'})",
            entity=f"device {device.id}",
            key="feed",
        )


def _slot_taken(layout: Layout, rack: Rack | None, row: str | None, slot: int | None) -> None:
    if slot is None:
        return
    for other in layout.racks:
        if other is not rack and (other.row or "") == (row or "") and other.slot == slot:
            raise EditError(
                f"slot {slot} of row {row or '(none)'} is taken by rack {other.id}; one rack "
                "per slot"
            )


# -- racks ------------------------------------------------------------------------------------


class AddRack(Command):
    """Add a rack (with the feeds and devices it holds), at the end or at ``at``.

    ``rack`` is a :class:`Rack` or a new rack's id; ``fields`` set its keys as text or values
    (``row="A", slot=3, height="48 U"``), checked as the loader checks them.
    """

    def __init__(self, rack: Rack | str, *, at: int | None = None, **fields: Any):
        super().__init__()
        self._where = 0  # its place in layout.racks, once applied
        self._given = rack
        self._fields = fields
        self._rack: Rack | None = rack if isinstance(rack, Rack) else None
        self._at = at
        rack_id = rack.id if isinstance(rack, Rack) else rack
        self.label = f"Add rack {rack_id}"

    def _build(self, index: LayoutIndex) -> Rack:
        if self._rack is not None:
            return self._rack
        rack_id = self._given if isinstance(self._given, str) else ""
        entity = f"rack {rack_id}"
        values = {}
        for key, value in self._fields.items():
            if key == "id":
                raise EditError("give the id as the first argument", entity=entity)
            values[key] = coerce("rack", key, value, entity)
        return Rack(rack_id, **values)

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        rack = self._build(index)
        _free_id(index, "rack", rack.id)
        _slot_taken(layout, None, rack.row, rack.slot)
        seen: set[str] = set()
        for feed in rack.feeds:
            _free_id(index, "feed", feed.id)
            if feed.id in seen:
                raise EditError(f"rack {rack.id} has two feeds {feed.id}; ids are unique")
            seen.add(feed.id)
        seen.clear()
        for device in rack.devices:
            _free_id(index, "device", device.id)
            if device.id in seen:
                raise EditError(f"rack {rack.id} has two devices {device.id}; ids are unique")
            seen.add(device.id)
            _model(index, device.model)
        # Fit the devices one by one against a scratch index of the new rack.
        scratch = LayoutIndex(Layout(name="", racks=[]), index.catalog)
        scratch.add_rack(Rack(rack.id, height=rack.height), with_contents=False)
        probe = scratch.rack(rack.id)
        assert probe is not None
        for device in rack.devices:
            try:
                check_fit(scratch, probe, device.model, device.position, device.face)
            except EditError as error:
                raise EditError(f"device {device.id}: {error}") from None
            scratch.add_device(device, probe)
        inside = {d.id for d in rack.devices}
        for key in ("cdu", "door"):
            value = getattr(rack, key)
            names = [] if value is None else [value] if isinstance(value, str) else list(value)
            outside = [name for name in names if name not in inside]
            if outside:
                _check_reference(index, rack, key, outside)
        rows = _row_order(layout)
        at = len(layout.racks) if self._at is None else max(0, min(self._at, len(layout.racks)))
        layout.racks.insert(at, rack)
        index.add_rack(rack)
        self._rack, self._where = rack, at
        self.refs = [("rack", rack.id)]
        self.effect.rack(rack)
        self.effect.fabric = any(_in_fabric(index, d) for d in rack.devices)
        self.effect.everything = _rows_moved(rows, _row_order(layout))

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        rack = self._rack
        assert rack is not None
        rows = _row_order(layout)
        self.effect.fabric = any(_in_fabric(index, d) for d in rack.devices)
        index.remove_rack(rack)
        remove_identity(layout.racks, rack)
        self.effect.rack(rack)
        self.effect.everything = _rows_moved(rows, _row_order(layout))


class RemoveRack(Command):
    """Remove a rack, its feeds, its devices and every link to them: one undo step."""

    def __init__(self, rack_id: str):
        super().__init__()
        self._rack: Rack | None = None  # what _apply removed, and where
        self._where = 0
        self.rack_id = rack_id
        self.label = f"Remove rack {rack_id}"
        self._removed: list[tuple[int, Link]] = []

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        rack = _rack(index, self.rack_id)
        rows = _row_order(layout)
        fabric = any(_in_fabric(index, d) for d in rack.devices)
        doomed: dict[int, Link] = {}
        for device in rack.devices:
            for link in index.links_of(device.id):
                doomed[id(link)] = link
        self._removed = _remove_links(layout, index, doomed)
        for _, link in self._removed:
            self.effect.link(link)
        index.remove_rack(rack)
        self._where = remove_identity(layout.racks, rack)
        self._rack = rack
        self.refs = [("rack", rack.id)] + [("device", d.id) for d in rack.devices]
        self.effect.rack(rack)
        self.effect.fabric = fabric or bool(doomed)
        self.effect.everything = _rows_moved(rows, _row_order(layout))

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self._rack is not None
        rows = _row_order(layout)
        layout.racks.insert(self._where, self._rack)
        index.add_rack(self._rack)
        _restore_links(layout, index, self._removed)
        for _, link in self._removed:
            self.effect.link(link)
        self.effect.rack(self._rack)
        self.effect.fabric = True
        self.effect.everything = _rows_moved(rows, _row_order(layout))


def _remove_links(layout: Layout, index: LayoutIndex, doomed: dict[int, Link]) -> list:  # type: ignore[type-arg]
    """Remove these links from the layout in one pass; return (position, link) pairs."""
    if not doomed:
        return []
    removed: list[tuple[int, Link]] = []
    kept: list[Link] = []
    for number, link in enumerate(layout.links):
        if id(link) in doomed:
            removed.append((number, link))
            index.remove_link(link)
        else:
            kept.append(link)
    layout.links[:] = kept
    return removed


def _restore_links(layout: Layout, index: LayoutIndex, removed: list[tuple[int, Link]]) -> None:
    for number, link in removed:  # ascending: each goes back where it was
        layout.links.insert(number, link)
        index.add_link(link)


class _SetFields(Command):
    """Set fields of one entity; the common core of the Update commands and SetField."""

    kind = ""

    def __init__(self, entity_id: str, fields: dict[str, Any]):
        super().__init__()
        if not fields:
            raise EditError("nothing to change")
        self.entity_id = entity_id
        self.fields = dict(fields)
        self._old: dict[str, Any] = {}
        shown = ", ".join(self.fields)
        self.label = f"Edit {self.kind} {entity_id} ({shown})"

    def _target(self, layout: Layout, index: LayoutIndex) -> Any:
        raise EditError(f"cannot edit {self.kind} fields")  # overridden by each kind

    def _entity(self, target: Any) -> str:
        return f"{self.kind} {self.entity_id}"

    def _values(self, target: Any) -> dict[str, Any]:
        entity = self._entity(target)
        values = {}
        for key, value in self.fields.items():
            if key == "id":
                raise EditError(
                    "the id changes by renaming (RenameEntity), which also rewrites every "
                    "reference",
                    entity=entity,
                    key=key,
                )
            values[key] = coerce(self.kind, key, value, entity)
        return values

    def _check(self, layout: Layout, index: LayoutIndex, target: Any, values: dict) -> None:  # type: ignore[type-arg]
        """Refuse values that break the layout beyond one key (overridden by kinds)."""

    def _set(self, target: Any, values: dict[str, Any]) -> None:
        for key, value in values.items():
            setattr(target, key, value)

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        target = self._target(layout, index)
        values = self._values(target)
        self._check(layout, index, target, values)
        self._old = {key: getattr(target, key) for key in values}
        self._change(layout, index, target, values)
        self._note(layout, index, target, values)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        target = self._target(layout, index)
        self._change(layout, index, target, self._old)
        self._note(layout, index, target, self._old)

    def _change(self, layout: Layout, index: LayoutIndex, target: Any, values: dict) -> None:  # type: ignore[type-arg]
        self._set(target, values)

    def _note(self, layout: Layout, index: LayoutIndex, target: Any, values: dict) -> None:  # type: ignore[type-arg]
        self.effect.everything = True
        self.refs = [(self.kind, self.entity_id)]


class UpdateRack(_SetFields):
    """Set a rack's fields (``row``, ``slot``, ``height``, ``cooling``, ``cdu``, ...)."""

    kind = "rack"

    def __init__(self, rack_id: str, fields: dict[str, Any] | None = None, /, **more: Any):
        super().__init__(rack_id, {**(fields or {}), **more})

    def _target(self, layout: Layout, index: LayoutIndex) -> Rack:
        return _rack(index, self.entity_id)

    def _check(self, layout: Layout, index: LayoutIndex, target: Rack, values: dict) -> None:  # type: ignore[type-arg]
        if "row" in values or "slot" in values:
            row = values.get("row", target.row)
            slot = values.get("slot", target.slot)
            _slot_taken(layout, target, row, slot)
        if "height" in values:
            height = values["height"] if values["height"] is not None else 42.0
            for device in target.devices:
                units = index.units_of(device)
                if units and units.stop - 1 > height:
                    raise EditError(
                        f"height: device {device.id} occupies {unit_span(units)}, above "
                        f"U{height:g}; move it first",
                        entity=f"rack {target.id}",
                        key="height",
                    )
        for key in ("cdu", "door"):
            if key in values:
                _check_reference(index, target, key, values[key])

    def _note(self, layout: Layout, index: LayoutIndex, target: Rack, values: dict) -> None:  # type: ignore[type-arg]
        self.refs = [("rack", target.id)]
        self.effect.rack(target)
        # The site rules that read these fields run again, the others' findings stand; an
        # id or an ignore list reaches every rule's findings about the rack.
        if not values.keys() & {"id", "ignore"}:
            self.effect.site_keys = {f"rack.{key}" for key in values}
        if values.keys() & {"row", "slot", "height"}:
            # The rack's place moves every cable to it; a new row order moves every rack.
            self.effect.everything = "row" in values
            for device in target.devices:
                _touch_device_links(self.effect, index, device.id)


class UpdateFeed(_SetFields):
    """Set a feed's fields (``voltage``, ``current``, ``phases``, ``side``, ...)."""

    kind = "feed"

    def __init__(self, feed_id: str, fields: dict[str, Any] | None = None, /, **more: Any):
        super().__init__(feed_id, {**(fields or {}), **more})

    def _target(self, layout: Layout, index: LayoutIndex) -> Feed:
        return _feed(index, self.entity_id)[0]

    def _note(self, layout: Layout, index: LayoutIndex, target: Feed, values: dict) -> None:  # type: ignore[type-arg]
        self.refs = [("feed", target.id)]
        self.effect.rack(index.rack_of_feed(target.id))


class UpdateDevice(_SetFields):
    """Set a device's fields; a new model, position, face or side must fit where it is."""

    kind = "device"

    def __init__(self, device_id: str, fields: dict[str, Any] | None = None, /, **more: Any):
        super().__init__(device_id, {**(fields or {}), **more})
        self._fabric_before = False  # whether it was in the fabric before the change

    def _target(self, layout: Layout, index: LayoutIndex) -> Device:
        return _device(index, self.entity_id)[0]

    def _check(self, layout: Layout, index: LayoutIndex, target: Device, values: dict) -> None:  # type: ignore[type-arg]
        rack = index.rack_of(target.id)
        assert rack is not None
        if values.keys() & set(_PLACE_KEYS):
            model = values.get("model", target.model)
            position = values.get("position", target.position)
            face = values.get("face", target.face)
            try:
                check_fit(index, rack, model, position, face, moving=target)
            except EditError as error:
                key = next(k for k in _PLACE_KEYS if k in values)
                raise EditError(str(error), entity=f"device {target.id}", key=key) from None
        if "feed" in values:
            _check_feed_reference(index, rack, target, values["feed"])

    def _change(self, layout: Layout, index: LayoutIndex, target: Device, values: dict) -> None:  # type: ignore[type-arg]
        rack = index.rack_of(target.id)
        assert rack is not None
        self._fabric_before = _in_fabric(index, target)
        index.remove_device(target, rack)
        self._set(target, values)
        index.add_device(target, rack)

    def _note(self, layout: Layout, index: LayoutIndex, target: Device, values: dict) -> None:  # type: ignore[type-arg]
        self.refs = [("device", target.id)]
        self.effect.rack(index.rack_of(target.id))
        # A place matters to site rules only where the id is shared: PLC005 says where the
        # other device with it is.
        self.effect.site = index.is_shared("device", target.id) or not values.keys() <= {
            "position",
            "face",
            "side",
            "label",
            "notes",
        }
        if values.keys() & set(_PLACE_KEYS):
            _touch_device_links(self.effect, index, target.id)
        if "model" in values:
            self.effect.fabric = self._fabric_before or _in_fabric(index, target)


class UpdateLink(_SetFields):
    """Set a link's fields; new ends must be free, known ports."""

    kind = "link"

    def __init__(self, link: str | Link, fields: dict[str, Any] | None = None, /, **more: Any):
        self._ref = link
        super().__init__(link.a if isinstance(link, Link) else link, {**(fields or {}), **more})
        self._before = ("", "")  # its ends before the change
        self._link: Link | None = link if isinstance(link, Link) else None

    def _target(self, layout: Layout, index: LayoutIndex) -> Link:
        if self._link is None:
            self._link = _link(index, self._ref)
        return self._link

    def _check(self, layout: Layout, index: LayoutIndex, target: Link, values: dict) -> None:  # type: ignore[type-arg]
        if "a" in values or "b" in values:
            check_link_ends(
                index, values.get("a", target.a), values.get("b", target.b), ignore=target
            )

    def _change(self, layout: Layout, index: LayoutIndex, target: Link, values: dict) -> None:  # type: ignore[type-arg]
        self._before = (target.a, target.b)
        index.remove_link(target)
        self._set(target, values)
        index.add_link(target)

    def _note(self, layout: Layout, index: LayoutIndex, target: Link, values: dict) -> None:  # type: ignore[type-arg]
        self.refs = [("link", index.link_ref(target))]
        self.effect.link(target)
        self.effect.site = False  # no site rule reads cables
        if values.keys() & {"a", "b"}:
            self.effect.fabric = True


class UpdateSection(_SetFields):
    """Set a field of the layout itself (``kind`` "layout"), of ``[site]`` or of
    ``[workload]``; a missing section is created, and removed again on undo."""

    def __init__(self, section: str, fields: dict[str, Any] | None = None, /, **more: Any):
        if section not in ("layout", "site", "workload"):
            raise EditError(f"there is no section {section}")
        self.kind = section
        super().__init__("", {**(fields or {}), **more})
        self.label = f"Edit {section} ({', '.join(self.fields)})"
        self._created = False

    def _entity(self, target: Any) -> str:
        return "layout" if self.kind == "layout" else f"[{self.kind}]"

    def _target(self, layout: Layout, index: LayoutIndex) -> Any:
        if self.kind == "layout":
            return layout
        return getattr(layout, self.kind) or (Site() if self.kind == "site" else Workload())

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        self._created = self.kind != "layout" and getattr(layout, self.kind) is None
        target = self._target(layout, index)
        values = self._values(target)
        if self.kind == "layout" and "name" in values and not (values["name"] or "").strip():
            raise EditError("a layout needs a name", entity="layout", key="name")
        self._old = {key: getattr(target, key) for key in values}
        self._set(target, values)
        if self._created:
            setattr(layout, self.kind, target)
        self.effect.everything = True
        self.refs = [(self.kind, "")]

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        target = self._target(layout, index)
        self._set(target, self._old)
        if self._created:
            setattr(layout, self.kind, None)
        self.effect.everything = True


# -- feeds ------------------------------------------------------------------------------------


class AddFeed(Command):
    """Add a feed to a rack: a :class:`Feed`, or an id and its fields as text or values
    (``voltage="415 V", phases=3, current="63 A", side="A"``)."""

    def __init__(self, rack_id: str, feed: Feed | str, *, at: int | None = None, **fields: Any):
        super().__init__()
        self._rack: Rack | None = None  # where _apply put it
        self._where = 0
        self.rack_id = rack_id
        self._given = feed
        self._fields = fields
        self._feed: Feed | None = feed if isinstance(feed, Feed) else None
        self._at = at
        self.label = f"Add feed {feed.id if isinstance(feed, Feed) else feed} to {rack_id}"

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        rack = _rack(index, self.rack_id)
        if self._feed is None:
            feed_id = str(self._given)
            entity = f"rack {rack.id} feed {feed_id}"
            values = {key: coerce("feed", key, v, entity) for key, v in self._fields.items()}
            for key in ("voltage", "phases", "current"):
                if values.get(key) is None:
                    coerce("feed", key, None, entity)  # the loader's "missing key" message
            self._feed = Feed(feed_id, **values)
        feed = self._feed
        _free_id(index, "feed", feed.id)
        at = len(rack.feeds) if self._at is None else max(0, min(self._at, len(rack.feeds)))
        rack.feeds.insert(at, feed)
        index.add_feed(feed, rack)
        self._rack, self._where = rack, at
        self.refs = [("feed", feed.id), ("rack", rack.id)]
        self.effect.rack(rack)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self._rack is not None
        assert self._feed is not None
        index.remove_feed(self._feed, self._rack)
        remove_identity(self._rack.feeds, self._feed)
        self.effect.rack(self._rack)


class RemoveFeed(Command):
    """Remove a feed; PDUs plugged into it (their ``feed``) are unplugged with it."""

    def __init__(self, feed_id: str):
        super().__init__()
        self._feed: Feed | None = None  # what _apply removed, and where
        self._rack: Rack | None = None
        self._where = 0
        self.feed_id = feed_id
        self.label = f"Remove feed {feed_id}"
        self._unplugged: list[Device] = []

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        feed, rack = _feed(index, self.feed_id)
        self._unplugged = [d for d in rack.devices if d.feed == feed.id]
        for device in self._unplugged:
            device.feed = None
        index.remove_feed(feed, rack)
        self._where = remove_identity(rack.feeds, feed)
        self._feed, self._rack = feed, rack
        self.refs = [("feed", feed.id), ("rack", rack.id)]
        self.effect.rack(rack)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self._feed is not None and self._rack is not None
        self._rack.feeds.insert(self._where, self._feed)
        index.add_feed(self._feed, self._rack)
        for device in self._unplugged:
            device.feed = self._feed.id
        self.effect.rack(self._rack)


# -- devices ----------------------------------------------------------------------------------


class PlaceDevice(Command):
    """Place a device of ``model`` in a rack at ``position`` (its lowest unit), on ``face``
    (half-depth devices) or ``side`` (0U devices). Without ``id`` it gets the next free
    ``<rack>-<prefix>NN`` (``a01-n05``; the prefix by kind, :data:`ID_PREFIX`)."""

    def __init__(
        self,
        rack_id: str,
        model: str,
        position: int | None = None,
        face: str | None = None,
        side: str | None = None,
        *,
        id: str | None = None,
        at: int | None = None,
        **fields: Any,
    ):
        super().__init__()
        self._rack: Rack | None = None  # where _apply put it
        self.rack_id = rack_id
        self.model = model
        self.position = position
        self.face = face
        self.side = side
        self.device_id = id
        self._fields = fields
        self._at = at
        self._device: Device | None = None
        where = f" at U{position}" if position is not None else ""
        self.label = f"Place {model} in {rack_id}{where}"

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        rack = _rack(index, self.rack_id)
        if self._device is None:
            dtype = _model(index, self.model)
            device_id = self.device_id
            if device_id is None:
                prefix = f"{rack.id}-{ID_PREFIX.get(dtype.kind or 'other', 'd')}"
                device_id = index.next_id(prefix, "device")
            entity = f"device {device_id}"
            values: dict[str, Any] = {}
            for key, value in (
                ("position", self.position),
                ("face", self.face),
                ("side", self.side),
                *self._fields.items(),
            ):
                if key in ("id", "model"):
                    raise EditError(f"give the {key} as its own argument", entity=entity)
                values[key] = coerce("device", key, value, entity)
            device = Device(device_id, self.model, **values)
        else:
            device = self._device
        _free_id(index, "device", device.id)
        check_fit(index, rack, device.model, device.position, device.face)
        if device.feed is not None:
            _check_feed_reference(index, rack, device, device.feed)
        at = len(rack.devices) if self._at is None else max(0, min(self._at, len(rack.devices)))
        rack.devices.insert(at, device)
        index.add_device(device, rack)
        self._device, self._rack = device, rack
        self.device_id = device.id
        self.label = f"Place {device.id} ({device.model}) in {rack.id}" + (
            f" at U{device.position}" if device.position is not None else ""
        )
        self.refs = [("device", device.id), ("rack", rack.id)]
        self.effect.rack(rack)
        self.effect.fabric = _in_fabric(index, device)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self._rack is not None
        assert self._device is not None
        self.effect.fabric = _in_fabric(index, self._device)
        index.remove_device(self._device, self._rack)
        remove_identity(self._rack.devices, self._device)
        self.effect.rack(self._rack)

    @property
    def device(self) -> Device | None:
        """The device placed (after the first apply)."""
        return self._device


class MoveDevice(Command):
    """Move a device within its rack or to another one; what is not given stays."""

    def __init__(
        self,
        device_id: str,
        rack_id: str | None = None,
        position: int | None = KEEP,
        face: str | None = KEEP,
        side: str | None = KEEP,
    ):
        super().__init__()
        # What _apply changed: the device, its racks before and after, its old values and
        # its place in the rack it left.
        self._device: Device | None = None
        self._source: Rack | None = None
        self._target: Rack | None = None
        self._old: dict[str, Any] = {}
        self._where = 0
        self.device_id = device_id
        self.rack_id = rack_id
        self.values = {
            key: value
            for key, value in (("position", position), ("face", face), ("side", side))
            if value is not KEEP
        }
        where = [rack_id] if rack_id else []
        if position is not KEEP and position is not None:
            where.append(f"U{position}")
        self.label = f"Move {device_id} to {' '.join(where)}" if where else f"Move {device_id}"

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        device, source = _device(index, self.device_id)
        target = _rack(index, self.rack_id) if self.rack_id else source
        entity = f"device {device.id}"
        values = {key: coerce("device", key, v, entity) for key, v in self.values.items()}
        position = values.get("position", device.position)
        face = values.get("face", device.face)
        check_fit(index, target, device.model, position, face, moving=device)
        feed = device.feed
        if (
            target is not source
            and feed is not None
            and not any(f.id == feed for f in target.feeds)
        ):
            values["feed"] = None  # a PDU leaves its feed behind in the other rack
        self._old = {key: getattr(device, key) for key in values}
        self._source, self._target, self._device = source, target, device
        self.effect.fabric = target is not source and _in_fabric(index, device)
        index.remove_device(device, source)
        for key, value in values.items():
            setattr(device, key, value)
        if target is not source:
            self._where = remove_identity(source.devices, device)
            target.devices.append(device)
        index.add_device(device, target)
        self._note(index)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self._device is not None and self._source is not None and self._target is not None
        device, source, target = self._device, self._source, self._target
        self.effect.fabric = target is not source and _in_fabric(index, device)
        index.remove_device(device, target)
        for key, value in self._old.items():
            setattr(device, key, value)
        if target is not source:
            remove_identity(target.devices, device)
            source.devices.insert(self._where, device)
        index.add_device(device, source)
        self._note(index)

    def _note(self, index: LayoutIndex) -> None:
        self.refs = [("device", self._device.id), ("rack", self._source.id)]
        if self._target is not self._source:
            self.refs.append(("rack", self._target.id))
        self.effect.rack(self._source)
        self.effect.rack(self._target)
        self.effect.site = self._target is not self._source or index.is_shared(
            "device", self._device.id
        )
        _touch_device_links(self.effect, index, self._device.id)


class RemoveDevice(Command):
    """Remove a device and the links to it: one undo step."""

    def __init__(self, device_id: str):
        super().__init__()
        self._device: Device | None = None  # what _apply removed, and where
        self._rack: Rack | None = None
        self._where = 0
        self.device_id = device_id
        self.label = f"Remove device {device_id}"
        self._removed: list[tuple[int, Link]] = []

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        device, rack = _device(index, self.device_id)
        fabric = _in_fabric(index, device)
        doomed = {id(link): link for link in index.links_of(device.id)}
        self._removed = _remove_links(layout, index, doomed)
        index.remove_device(device, rack)
        self._where = remove_identity(rack.devices, device)
        self._device, self._rack = device, rack
        self.refs = [("device", device.id), ("rack", rack.id)]
        self.effect.rack(rack)
        for _, link in self._removed:
            self.effect.link(link)
        self.effect.fabric = fabric

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self._device is not None and self._rack is not None
        self._rack.devices.insert(self._where, self._device)
        index.add_device(self._device, self._rack)
        _restore_links(layout, index, self._removed)
        self.effect.rack(self._rack)
        for _, link in self._removed:
            self.effect.link(link)
        self.effect.fabric = _in_fabric(index, self._device)


# -- renames ----------------------------------------------------------------------------------


class RenameEntity(Command):
    """Give a rack, feed or device a new id and rewrite every reference to it: links' ends,
    racks' ``cdu`` and ``door``, PDUs' ``feed``."""

    def __init__(self, kind: str, old: str, new: str):
        super().__init__()
        if kind not in ("rack", "feed", "device"):
            raise EditError(f"only racks, feeds and devices have ids to rename, not {kind}s")
        self.kind, self.old, self.new = kind, old, new
        self.label = f"Rename {kind} {old} to {new}"
        self._changes: list[tuple[Any, str, Any, Any]] = []  # (object, attribute, old, new)

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        kind, old, new = self.kind, self.old, self.new
        if kind == "rack":
            entity: Any = _rack(index, old)
        elif kind == "feed":
            entity = _feed(index, old)[0]
        else:
            entity = _device(index, old)[0]
        check_id(kind, new)
        if new == old:
            raise EditError(f"{kind} {old} is already called {new}")
        _free_id(index, kind, new)
        changes: list[tuple[Any, str, Any, Any]] = [(entity, "id", old, new)]
        if kind == "device":
            for link in index.links_of(old):
                for end in ("a", "b"):
                    text = getattr(link, end)
                    if end_device(text) == old:
                        changes.append((link, end, text, new + text[len(old) :]))
            for rack in layout.racks:
                for key in ("cdu", "door"):
                    value = getattr(rack, key)
                    if value == old:
                        changes.append((rack, key, value, new))
                    elif isinstance(value, list) and old in value:
                        renamed = [new if name == old else name for name in value]
                        changes.append((rack, key, value, renamed))
        elif kind == "feed":
            rack = index.rack_of_feed(old)
            for device in rack.devices if rack is not None else ():
                if device.feed == old:
                    changes.append((device, "feed", old, new))
        self._changes = changes
        self._run(index, forward=True)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        self._run(index, forward=False)

    def _run(self, index: LayoutIndex, forward: bool) -> None:
        entity = self._changes[0][0]
        links = [obj for obj, _, _, _ in self._changes if isinstance(obj, Link)]
        unique_links = list({id(link): link for link in links}.values())
        fabric = False
        for link in unique_links:
            index.remove_link(link)
        if self.kind == "device":
            rack = index.rack_of(entity.id)
            fabric = _in_fabric(index, entity)
            index.remove_device(entity, rack)
        elif self.kind == "feed":
            rack = index.rack_of_feed(entity.id)
            index.remove_feed(entity, rack)
        else:
            rack = entity
            index.remove_rack(entity, with_contents=False)
        for obj, key, old, new in self._changes:
            setattr(obj, key, new if forward else old)
        if self.kind == "device":
            index.add_device(entity, rack)
        elif self.kind == "feed":
            index.add_feed(entity, rack)
        else:
            index.add_rack(entity, with_contents=False)
        for link in unique_links:
            index.add_link(link)
            self.effect.link(link)
        for obj, key, _, _ in self._changes:
            if isinstance(obj, Rack) and key in ("cdu", "door"):
                self.effect.rack(obj)
        self.effect.rack(rack)
        self.effect.fabric = fabric or bool(unique_links)
        # A rack's id names its findings and a CDU's serves other racks: the site rules
        # (duplicate ids, shared circuits, CDU loads) read them all.
        self.refs = [(self.kind, self.new if forward else self.old)]


# -- links ------------------------------------------------------------------------------------


class AddLink(Command):
    """Cable two ports (``"a01-n01:ib1"``, ``"a01-leaf1:p1"``)."""

    def __init__(
        self, a: str, b: str, media: str | None = None, *, at: int | None = None, **fields: Any
    ):
        super().__init__()
        self._where = 0  # its place in layout.links, once applied
        self.a, self.b, self.media = a, b, media
        self._fields = fields
        self._at = at
        self._link: Link | None = None
        self.label = f"Connect {a} to {b}"

    @classmethod
    def of(cls, link: Link, *, at: int | None = None) -> AddLink:
        """Add this model link itself (a generator's, its values typed already; the layout
        takes the object): its fields are not read again as text, about a third of the
        cost of each of a fabric's 300,000 cables. Its ends are checked as any link's are."""
        command = cls(link.a, link.b, link.media, at=at)
        command._link = link
        return command

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        if self._link is None:
            entity = f"link {self.a} -> {self.b}"
            values = {
                key: coerce("link", key, value, entity)
                for key, value in (
                    ("a", self.a),
                    ("b", self.b),
                    ("media", self.media),
                    *self._fields.items(),
                )
            }
            link = Link(**values)
        else:
            link = self._link
        check_link_ends(index, link.a, link.b)
        at = len(layout.links) if self._at is None else max(0, min(self._at, len(layout.links)))
        layout.links.insert(at, link)
        index.add_link(link)
        self._link, self._where = link, at
        self._note(index)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self._link is not None
        index.remove_link(self._link)
        if layout.links and layout.links[-1] is self._link:
            layout.links.pop()  # the common case, without a scan of 200,000 links
        else:
            remove_identity(layout.links, self._link)
        self._note(index)

    def _note(self, index: LayoutIndex) -> None:
        assert self._link is not None
        self.refs = [("link", index.link_ref(self._link))]
        self.effect.link(self._link)
        self.effect.site = False  # no site rule reads cables
        self.effect.fabric = True

    @property
    def link(self) -> Link | None:
        return self._link


class RemoveLink(Command):
    """Remove a cable, named by its reference id (its ``a`` end, or ``a -> b``) or itself."""

    def __init__(self, link: str | Link):
        super().__init__()
        self._where = 0  # its place in layout.links, before _apply removed it
        self._ref = link
        self._link: Link | None = link if isinstance(link, Link) else None
        self.label = f"Disconnect {link.name if isinstance(link, Link) else link}"

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        link = _link(index, self._link if self._link is not None else self._ref)
        index.remove_link(link)
        self._where = remove_identity(layout.links, link)
        self._link = link
        self._note(index)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self._link is not None
        layout.links.insert(self._where, self._link)
        index.add_link(self._link)
        self._note(index)

    def _note(self, index: LayoutIndex) -> None:
        assert self._link is not None
        self.refs = [("link", index.link_ref(self._link))]
        self.effect.link(self._link)
        self.effect.site = False  # no site rule reads cables
        self.effect.fabric = True


# -- fields by reference, batches ---------------------------------------------------------------


class SetField(Command):
    """Set one field of the entity a reference names, from the text a person typed.

    The text is parsed as the loader parses the same value in a file (unit, dimension,
    limits), so a bad value gets the loader's message; empty text removes an optional key.
    ``id`` renames (every reference follows); a device's ``model``, ``position``, ``face``
    and ``side`` must fit; a rack's ``cdu`` and ``door`` must name such a device.
    """

    def __init__(self, ref: KindId, key: str, text: str):
        super().__init__()
        kind, entity_id = ref
        self.ref, self.key, self.text = ref, key, text
        self.inner: Command
        if key == "id" and kind in ("rack", "feed", "device"):
            self.inner = RenameEntity(kind, entity_id, text.strip())
        elif kind == "rack":
            self.inner = UpdateRack(entity_id, {key: text})
        elif kind == "feed":
            self.inner = UpdateFeed(entity_id, {key: text})
        elif kind == "device":
            self.inner = UpdateDevice(entity_id, {key: text})
        elif kind == "link":
            self.inner = UpdateLink(entity_id, {key: text})
        elif kind in ("layout", "site", "workload"):
            self.inner = UpdateSection(kind, {key: text})
        else:
            raise EditError(f"{kind} fields cannot be edited here")
        name = f"{kind} {entity_id}" if entity_id else kind
        self.label = f"Set {name} {key} to {text.strip() or '(none)'}"

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        self.inner.apply(layout, index)
        self.effect, self.refs = self.inner.effect, self.inner.refs

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        self.inner.revert(layout, index)
        self.effect, self.refs = self.inner.effect, self.inner.refs


class Batch(Command):
    """Several commands as one step (a generated fabric, a template): all or none."""

    def __init__(self, commands: Iterable[Command], label: str):
        super().__init__()
        self.commands: Sequence[Command] = list(commands)
        self.label = label

    @property
    def size(self) -> int:
        return sum(command.size for command in self.commands)

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        done: list[Command] = []
        try:
            for command in self.commands:
                command.apply(layout, index)
                done.append(command)
        except EditError as error:
            for command in reversed(done):
                command.revert(layout, index)
            where = f"step {len(done) + 1} of {len(self.commands)}"
            raise EditError(
                f"{self.label}: {where} ({self.commands[len(done)].label}): {error}"
            ) from None
        self._collect(done)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        for command in reversed(self.commands):
            command.revert(layout, index)
        self._collect(self.commands)

    def _collect(self, commands: Sequence[Command]) -> None:
        self.effect.site = False  # as any of its commands says
        refs: dict[KindId, None] = {}
        for command in commands:
            self.effect.merge(command.effect)
            refs.update(dict.fromkeys(command.refs))
        self.refs = list(refs)
