"""Racks, feeds and cooling as the designer builds them: the defaults of a new rack, checking
what a person typed, and the edit commands that carry it out (designer.md, editing.md).

Pure functions over a layout and its :class:`~rackdesigner.edit.LayoutIndex`; nothing here
changes the layout. The commands returned go through ``Session.do`` (one undo step each).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rackdesigner.edit import (
    AddFeed,
    AddLink,
    AddRack,
    Batch,
    Command,
    EditError,
    LayoutIndex,
    UpdateRack,
)
from rackdesigner.edit.fields import coerce
from rackdesigner.edit.index import end_device, split_id
from rackdesigner.model.layout import Feed, Layout, Q, Rack

DEFAULT_ROW = "A"
DEFAULT_HEIGHT = "42 U"
DEFAULT_COOLING = "air"
DEFAULT_SIDES = ("A", "B")
DEFAULT_VOLTAGE = "415 V"
DEFAULT_PHASES = "3"
DEFAULT_CURRENT = "63 A"

# The Add rack form's fields, in the order the dialog shows them (and Tab walks them).
RACK_FIELDS = ("id", "row", "slot", "height", "cooling", "sides", "voltage", "phases", "current")
FEED_FIELDS = ("id", "side", "voltage", "phases", "current", "circuit")


def rack_prefix(row: str) -> str:
    """The id prefix of a row's racks: the row name in lower case (row "A" → ``a01``)."""
    stem = "".join(c for c in row.strip().lower() if c.isalnum() or c in "-_")
    return stem or "r"


def next_rack_id(index: LayoutIndex, row: str) -> str:
    """The next free rack id of a row (designer.md): the lowest unused number after the
    row's prefix, zero-padded to the widest existing id, at least two digits."""
    return index.next_id(rack_prefix(row), "rack")


def next_slot(layout: Layout, row: str) -> int:
    """The lowest slot of ``row`` no rack holds."""
    used = {rack.slot for rack in layout.racks if (rack.row or "") == row and rack.slot}
    slot = 1
    while slot in used:
        slot += 1
    return slot


def rack_defaults(layout: Layout, index: LayoutIndex, current_row: str | None) -> dict[str, str]:
    """The Add rack form as it opens (designer.md): row "A" in an empty layout, else the
    current row; the next free slot and id; 42 U; air; two 415 V 3-phase 63 A feeds
    ``<rack>-A`` / ``<rack>-B`` on sides A and B."""
    row = DEFAULT_ROW if not layout.racks else (current_row or "")
    return {
        "id": next_rack_id(index, row or DEFAULT_ROW),
        "row": row,
        "slot": str(next_slot(layout, row)),
        "height": DEFAULT_HEIGHT,
        "cooling": DEFAULT_COOLING,
        "sides": ", ".join(DEFAULT_SIDES),
        "voltage": DEFAULT_VOLTAGE,
        "phases": DEFAULT_PHASES,
        "current": DEFAULT_CURRENT,
    }


def sides_of(text: str) -> list[str]:
    """``"A, B"`` → ``["A", "B"]``: the sides of the new rack's feeds, one feed each."""
    return [part.strip() for part in text.replace(";", ",").split(",") if part.strip()]


@dataclass(slots=True)
class Checked:
    """A form checked: the command to run, or the message per field that refused; ``note``
    says what the command could not do on its own (a feed no catalog PDU is made for)."""

    command: Command | None = None
    errors: dict[str, str] = field(default_factory=dict)
    note: str = ""


def _field(errors: dict[str, str], kind: str, key: str, text: str, entity: str) -> object:
    try:
        return coerce(kind, key, text, entity)
    except EditError as error:
        errors.setdefault(key, error.message)
        return None


def _new_id(
    errors: dict[str, str], index: LayoutIndex, kind: str, entity_id: str, entity: str
) -> None:
    """A form's ``id``: one the loader reads, and no other entity's of its kind."""
    _field(errors, kind, "id", entity_id, entity)
    if "id" not in errors and index.has_id(kind, entity_id):
        errors["id"] = f"there is already a {kind} {entity_id}; ids are unique"


def check_rack_form(layout: Layout, index: LayoutIndex, values: Mapping[str, str]) -> Checked:
    """The Add rack form's values checked as the loader checks a file (each bad value gets
    the loader's own message, by field), and the one-step command that adds the rack with
    its feeds."""
    errors: dict[str, str] = {}
    rack_id = values.get("id", "").strip()
    entity = f"rack {rack_id}"
    _new_id(errors, index, "rack", rack_id, entity)
    row = values.get("row", "").strip()
    slot = _field(errors, "rack", "slot", values.get("slot", ""), entity)
    if slot is not None and "slot" not in errors:
        for other in layout.racks:
            if (other.row or "") == row and other.slot == slot:
                errors["slot"] = (
                    f"slot {slot} of row {row or '(none)'} is taken by rack {other.id}; "
                    f"the next free one is {next_slot(layout, row)}"
                )
                break
    for key in ("height", "cooling"):
        _field(errors, "rack", key, values.get(key, ""), entity)
    sides = sides_of(values.get("sides", ""))
    feed_ids = [f"{rack_id}-{side}" for side in sides]
    if len(set(sides)) != len(sides):
        errors["sides"] = "each side gets one feed: name a side once"
    for side, feed_id in zip(sides, feed_ids, strict=True):
        _field(errors, "feed", "side", side, f"feed {feed_id}")
        if "sides" not in errors and index.has_id("feed", feed_id):
            errors["sides"] = f"there is already a feed {feed_id}; ids are unique"
    if sides:
        for key in ("voltage", "phases", "current"):
            _field(errors, "feed", key, values.get(key, ""), f"feed {feed_ids[0]}")
    if errors:
        return Checked(errors=errors)
    fields = {key: values.get(key, "") for key in ("row", "slot", "height", "cooling")}
    given: dict[str, Any] = {k: v for k, v in fields.items() if v.strip()}  # rack keys, as text
    commands: list[Command] = [AddRack(rack_id, **given)]
    feeds = []
    for side, feed_id in zip(sides, feed_ids, strict=True):
        entity = f"feed {feed_id}"
        electrical = {
            key: coerce("feed", key, values[key], entity)
            for key in ("voltage", "phases", "current")
        }
        feed = Feed(feed_id, side=side, **electrical)
        commands.append(AddFeed(rack_id, feed))
        feeds.append(feed)
    pdus, note = feed_pdus(layout, index, rack_id, feeds)
    commands += pdus
    command = commands[0] if len(commands) == 1 else Batch(commands, f"Add rack {rack_id}")
    return Checked(command=command, note=note)


def feed_pdus(
    layout: Layout, index: LayoutIndex, rack_id: str, feeds: list[Feed]
) -> tuple[list[Command], str]:
    """A PDU on each feed, the largest catalog model made for it (its inlet the feed's
    voltage and breaker, rated within the feed: PWR014, PWR011), on the side rail of its
    side (A, C left; B, D right), named ``<rack>-pdu-<side>``: a rack's feeds reach its
    devices through PDUs. The commands, and a note naming the feeds no model is made for."""
    from rackdesigner.design.fixes import pdus_for_feed
    from rackdesigner.edit import PlaceDevice
    from rackdesigner.model.thresholds import resolve

    power_factor = resolve(layout.rules.thresholds if layout.rules else None)["power_factor"]
    commands: list[Command] = []
    taken: set[str] = set()
    without = []
    for number, feed in enumerate(feeds):
        models = pdus_for_feed(index.catalog.devices, feed, power_factor)
        if not models:
            without.append(feed.id)
            continue
        stem = f"{rack_id}-pdu-{(feed.side or str(number + 1)).lower()}"
        pdu_id = stem
        while pdu_id in taken or index.has_id("device", pdu_id):
            pdu_id = f"{stem}{len(taken) + 2}"
        taken.add(pdu_id)
        rail = "left" if number % 2 == 0 else "right"
        commands.append(
            PlaceDevice(rack_id, models[0].key, None, side=rail, id=pdu_id, feed=feed.id)
        )
    note = ""
    if without:
        which = f"feed {without[0]}" if len(without) == 1 else f"feeds {', '.join(without)}"
        note = (
            f"no catalog PDU is made for {which} (voltage and breaker): place one (a) or "
            "define one in [catalog]"
        )
    return commands, note


# -- feeds ------------------------------------------------------------------------------------


def feed_defaults(rack: Rack) -> dict[str, str]:
    """The Add feed form as it opens: the next side letter not used (A, B → C), the id
    ``<rack>-<side>``, and the electrical values of the rack's last feed (else 415 V
    3-phase 63 A)."""
    used = {feed.side for feed in rack.feeds if feed.side}
    ids = {feed.id for feed in rack.feeds}
    side = next(
        (c for c in "ABCDEFGHJKLMNPQRSTUVWXYZ" if c not in used and f"{rack.id}-{c}" not in ids),
        "X",
    )
    last = rack.feeds[-1] if rack.feeds else None

    def text(value: float | None, unit: str, fallback: str) -> str:
        """As the last feed has it: its text as read, else the number in ``unit``."""
        if value is None:
            return fallback
        return value.text if isinstance(value, Q) else f"{float(value):g} {unit}"

    voltage = text(last.voltage, "V", DEFAULT_VOLTAGE) if last else DEFAULT_VOLTAGE
    current = text(last.current, "A", DEFAULT_CURRENT) if last else DEFAULT_CURRENT
    return {
        "id": f"{rack.id}-{side}",
        "side": side,
        "voltage": voltage,
        "phases": str(last.phases) if last and last.phases else DEFAULT_PHASES,
        "current": current,
        "circuit": "",
    }


def check_feed_form(index: LayoutIndex, rack_id: str, values: Mapping[str, str]) -> Checked:
    errors: dict[str, str] = {}
    feed_id = values.get("id", "").strip()
    entity = f"rack {rack_id} feed {feed_id}"
    _new_id(errors, index, "feed", feed_id, entity)
    for key in FEED_FIELDS[1:]:
        _field(errors, "feed", key, values.get(key, ""), entity)
    if errors:
        return Checked(errors=errors)
    given: dict[str, Any] = {
        key: values[key] for key in FEED_FIELDS[1:] if values.get(key, "").strip()
    }
    return Checked(command=AddFeed(rack_id, feed_id, **given))


# -- duplicating a rack -------------------------------------------------------------------------


def _renamed(
    old: str, old_rack: str, new_rack: str, taken: set[str], index: LayoutIndex, kind: str
) -> str:
    """A copied entity's id: the old rack's id swapped for the new one's where it starts
    with it (``a01-n03`` → ``a02-n03``), else the next free id of its stem."""
    if old.startswith(old_rack):
        candidate = new_rack + old[len(old_rack) :]
        if candidate not in taken and not index.has_id(kind, candidate):
            return candidate
    stem, _ = split_id(old)
    number = 1
    while True:
        candidate = f"{stem}{number:02d}"
        if candidate not in taken and not index.has_id(kind, candidate):
            return candidate
        number += 1


def duplicate_rack(layout: Layout, index: LayoutIndex, rack_id: str) -> tuple[Command, str]:
    """A copy of a rack, its feeds and devices under new ids, in the next free slot of its
    row, with the cables that run inside it; the command (one step) and the new rack's id.

    References inside the rack follow the copy (a door or CDU in it, a PDU's feed); a CDU
    elsewhere that serves the rack serves the copy too. Hostnames are not copied (they
    name one machine each); labels are.
    """
    rack = index.rack(rack_id)
    if rack is None:
        raise EditError(f"there is no rack {rack_id}")
    stem, _ = split_id(rack.id)
    new_id = index.next_id(stem, "rack")
    new = copy.deepcopy(rack)
    new.id = new_id
    new.slot = next_slot(layout, rack.row or "")
    feed_ids: dict[str, str] = {}
    taken_feeds: set[str] = set()
    for feed in new.feeds:
        fresh = _renamed(feed.id, rack.id, new_id, taken_feeds, index, "feed")
        feed_ids[feed.id], feed.id = fresh, fresh
        feed.circuit = None  # a circuit feeds one rack (PWR rules): the copy needs its own
        taken_feeds.add(fresh)
    device_ids: dict[str, str] = {}
    taken: set[str] = set()
    for device in new.devices:
        fresh = _renamed(device.id, rack.id, new_id, taken, index, "device")
        device_ids[device.id], device.id = fresh, fresh
        device.hostname = None
        taken.add(fresh)
        if device.feed is not None:
            device.feed = feed_ids.get(device.feed, device.feed)
    if new.door is not None:
        new.door = device_ids.get(new.door, new.door)
    if isinstance(new.cdu, str):
        new.cdu = device_ids.get(new.cdu, new.cdu)
    elif isinstance(new.cdu, list):
        new.cdu = [device_ids.get(name, name) for name in new.cdu]
    commands: list[Command] = [AddRack(new)]
    inside = set(device_ids)
    seen: set[int] = set()
    for device_id in inside:
        for link in index.links_of(device_id):
            if id(link) in seen:
                continue
            seen.add(id(link))
            ends = (end_device(link.a), end_device(link.b))
            if ends[0] in inside and ends[1] in inside:
                commands.append(
                    AddLink(
                        _swap(link.a, device_ids),
                        _swap(link.b, device_ids),
                        link.media,
                        length=link.length,
                        grade=link.grade,
                    )
                )
    label = f"Duplicate rack {rack.id} as {new_id}"
    return (commands[0] if len(commands) == 1 else Batch(commands, label)), new_id


def _swap(end: str, ids: dict[str, str]) -> str:
    device, _, port = end.partition(":")
    return f"{ids.get(device, device)}:{port}"


# -- cooling --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CoolingChoices:
    """What the Set cooling dialog offers for a rack."""

    cdus: list[str]  # CDU devices in the layout (kind cdu), in layout order
    doors: list[str]  # rear-door devices free for this rack: its own first, unused by others
    door_models: list[str]  # rear-door catalog types a new door can be placed from
    chosen_cdus: list[str]  # the CDU list the dialog opens with
    chosen_door: str | None  # the door it opens with (None: a new one)


def cooling_choices(layout: Layout, index: LayoutIndex, rack_id: str) -> CoolingChoices:
    """Only devices of the right kind: CDUs for liquid, rear doors for a rear door (one
    door cools one rack, so doors named by another rack are left out)."""
    rack = index.rack(rack_id)
    if rack is None:
        raise EditError(f"there is no rack {rack_id}")
    cdus: list[str] = []
    doors_here: list[str] = []
    doors_free: list[str] = []
    used_doors = {other.door for other in layout.racks if other is not rack and other.door}
    for owner, device in layout.devices():
        dtype = index.type_of(device)
        kind = dtype.kind if dtype is not None else None
        if kind == "cdu":
            cdus.append(device.id)
        elif kind == "rear-door" and device.id not in used_doors:
            (doors_here if owner is rack else doors_free).append(device.id)
    door_models = sorted(k for k, t in index.catalog.devices.items() if t.kind == "rear-door")
    chosen_cdus = [c for c in rack.cdus if c in cdus] or _cdus_of_neighbours(layout, rack, cdus)
    doors = [*doors_here, *doors_free]
    chosen_door = rack.door if rack.door in doors else (doors_here[0] if doors_here else None)
    return CoolingChoices(cdus, doors, door_models, chosen_cdus, chosen_door)


def _cdus_of_neighbours(layout: Layout, rack: Rack, cdus: list[str]) -> list[str]:
    """A new liquid rack joins the CDU group of the liquid racks in its row (else of any
    liquid rack); with none, every CDU in the layout."""
    for same_row in (True, False):
        for other in layout.racks:
            if other is rack or other.cooling != "liquid" or not other.cdus:
                continue
            if same_row and (other.row or "") != (rack.row or ""):
                continue
            named = [c for c in other.cdus if c in cdus]
            if named:
                return named
    return list(cdus)


def set_cooling(
    index: LayoutIndex,
    rack_id: str,
    mode: str,
    *,
    cdus: list[str] | None = None,
    door: str | None = None,
    new_door_model: str | None = None,
) -> Command:
    """The one-step command that sets a rack's cooling: ``cdu`` only for liquid, ``door``
    only for a rear door (the keys that no longer apply are removed); ``new_door_model``
    places a new rear door in the rack first and names it."""
    from rackdesigner.edit import PlaceDevice

    rack = index.rack(rack_id)
    if rack is None:
        raise EditError(f"there is no rack {rack_id}")
    fields: dict[str, object] = {"cooling": mode}
    commands: list[Command] = []
    if mode == "liquid":
        if not cdus:
            raise EditError(
                "a liquid-cooled rack needs a CDU: place one (a, then a CDU type such as "
                "coolit-chx80) and choose it here",
                entity=f"rack {rack_id}",
                key="cdu",
            )
        fields["cdu"] = cdus[0] if len(cdus) == 1 else list(cdus)
    else:
        fields["cdu"] = None
    if mode == "rear-door":
        if new_door_model is not None:
            door = index.next_id(f"{rack_id}-door", "device")
            commands.append(PlaceDevice(rack_id, new_door_model, id=door))
        if not door:
            raise EditError(
                "a rear-door rack needs its door: choose one or a new one",
                entity=f"rack {rack_id}",
                key="door",
            )
        fields["door"] = door
    else:
        fields["door"] = None
    changed = {k: v for k, v in fields.items() if getattr(rack, k) != v}
    if not changed and not commands:
        raise EditError(f"rack {rack_id} is already cooled that way")
    if changed:
        commands.append(UpdateRack(rack_id, changed))
    label = f"Set cooling of {rack_id} to {mode}"
    if len(commands) == 1:
        commands[0].label = label
        return commands[0]
    return Batch(commands, label)
