"""What the commands share: looking entities up, the checks that refuse an edit, and the
links a removal takes along and puts back."""

from __future__ import annotations

from typing import Any

from rackdesigner.edit.base import Command, EditError, Effect, check_id, nearest, unit_span
from rackdesigner.edit.index import FACES, LayoutIndex, end_device, port_key
from rackdesigner.layout_io.schema import ENDPOINT
from rackdesigner.model.layout import Device, DeviceType, Feed, Layout, Link, Rack

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
    found = index.link(ref)
    if found is None:
        raise EditError(f"there is no link {ref}")
    return found


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


def _remove_links(
    layout: Layout, index: LayoutIndex, doomed: dict[int, Link]
) -> list[tuple[int, Link]]:
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


def cables_read(command: Command, index: LayoutIndex) -> None:
    """Whether a cable's edit re-runs the site rules: only the cable plant's read cables
    (v1.4: pathway fill, unrouted racks, trunks), so only in a layout that declares one."""
    layout = index.layout
    command.effect.site = bool(layout.pathways or layout.trunks)
    command.effect.site_keys = None  # no rack field: every site rule may read them
