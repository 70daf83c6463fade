"""Which catalog entries match what a person types, and where a placed device goes.

The designer's catalog picker and catalog panel, and its placing of devices at the cursor,
call these pure functions (designer.md): no Textual, no layout changes. The app turns a
:class:`Placement` into a :class:`~rackdesigner.edit.PlaceDevice` command.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rackdesigner.model.layout import DEVICE_KINDS, DeviceType, Gpu
from rackdesigner.model.units import BANDWIDTH, CURRENT, POWER, VOLTAGE, fmt

# The order kinds are grouped in: what a person builds a cluster from comes first.
KIND_ORDER = DEVICE_KINDS
# A group of its own for the parts of a rack-scale system (docs/rack-scale.md): its compute
# trays are GPU nodes and its switch trays, shelves and busbar "other" by kind, but a
# person building an NVL72 rack looks for them together.
RACK_SCALE = "rack-scale"
KIND_TITLES = {
    RACK_SCALE: "Rack-scale parts (NVL72 trays, power shelves, 0U busbar)",
    "gpu-node": "GPU nodes",
    "cpu-node": "CPU nodes",
    "storage": "Storage",
    "switch": "Switches",
    "pdu": "PDUs (0U, side rails)",
    "cdu": "CDUs",
    "rear-door": "Rear doors",
    "patch-panel": "Patch panels",
    "blank": "Blanking panels",
    "other": "Other",
    "gpu": "GPUs (carried by nodes; not placed)",
}


def match(entries: Mapping[str, DeviceType | Gpu], text: str) -> list[str]:
    """The keys that match ``text``, best first (designer.md): the exact key, then keys that
    start with the text, then keys and names that contain it, each group in key order.

    Case does not matter; surrounding blanks are ignored. Empty text matches everything,
    in key order.
    """
    wanted = text.strip().casefold()
    keys = sorted(entries)
    if not wanted:
        return keys
    exact: list[str] = []
    starts: list[str] = []
    contains: list[str] = []
    for key in keys:
        folded = key.casefold()
        if folded == wanted:
            exact.append(key)
        elif folded.startswith(wanted):
            starts.append(key)
        elif wanted in folded or wanted in (entries[key].name or "").casefold():
            contains.append(key)
    return [*exact, *starts, *contains]


def kind_of(entry: DeviceType | Gpu) -> str:
    if isinstance(entry, Gpu):
        return "gpu"
    if is_rack_scale(entry):
        return RACK_SCALE
    return entry.kind if entry.kind in KIND_ORDER else "other"


def is_rack_scale(entry: DeviceType) -> bool:
    """A part of a rack-scale system: an NVLink tray, a power shelf or a DC busbar."""
    return entry.nvl_domain is not None or entry.is_power_shelf or entry.is_busbar


def grouped(
    entries: Mapping[str, DeviceType | Gpu], keys: Iterable[str]
) -> list[tuple[str, list[str]]]:
    """``keys`` grouped by kind, kinds in :data:`KIND_ORDER` (the rack-scale parts after the
    GPU nodes; GPUs last), keys keeping their order inside a group; empty groups left
    out."""
    groups: dict[str, list[str]] = {}
    for key in keys:
        groups.setdefault(kind_of(entries[key]), []).append(key)
    first, *rest = KIND_ORDER  # (GPU nodes, then the rack-scale systems' parts)
    order = [first, RACK_SCALE, *rest, "gpu"]
    return [(kind, groups[kind]) for kind in order if kind in groups]


def summary(entry: DeviceType | Gpu) -> str:
    """One line of figures for a list: U height, power and ports (GPUs: memory, TDP)."""
    if isinstance(entry, Gpu):
        parts = []
        if entry.memory:
            parts.append(f"{entry.memory / 8e9:g} GB")
        if entry.tdp:
            parts.append(fmt(float(entry.tdp), POWER))
        return " · ".join(parts)
    parts = [f"{entry.height_u:g}U"]
    if entry.power is not None:
        estimate = " est." if entry.power_estimated else ""  # (v1.4) not a vendor figure
        parts.append(fmt(float(entry.power), POWER) + estimate)
    elif entry.kind == "gpu-node":
        parts.append("power est.")
    if entry.gpus:
        parts.append(f"{entry.gpus}×{entry.gpu or 'GPU'}")
    if entry.is_power_shelf:  # what it turns the rack's AC into
        rating = f"×{fmt(float(entry.psu_rating), POWER)}" if entry.psu_rating else " PSUs"
        parts.append(
            f"{entry.psus or '?'}{rating} → {fmt(float(entry.dc_voltage or 0), VOLTAGE)} DC"
        )
    if entry.is_busbar:
        parts.append(f"DC busbar {fmt(float(entry.busbar_current or 0), CURRENT)} · rear")
    if entry.nvl_tray_role == "switch":
        parts.append(f"NVLink switch ({entry.nvl_domain})")
    ports = _ports(entry)
    if ports:
        parts.append(ports)
    if not entry.full_depth:
        parts.append("half-depth")
    return " · ".join(parts)


def _ports(entry: DeviceType) -> str:
    out = []
    for group in entry.ports or ():
        speed = fmt(float(group.speed), BANDWIDTH).replace(" ", "") if group.speed else ""
        speed = speed.removesuffix("bps")  # 400G, 1G: the list has little room
        out.append(f"{group.count}×{speed}" if speed else f"{group.count}×{group.name}")
    return " ".join(out)


# -- placing ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Placement:
    """Where one device goes: ``position`` (lowest unit) for a mounted device, ``side`` for
    a 0U one on a rail (None for a 0U device without a rail, such as a rear door), ``face``
    for a half-depth one."""

    model: str
    position: int | None = None
    face: str | None = None
    side: str | None = None
    asked: int | None = None  # the unit asked for, when the device went elsewhere

    @property
    def moved(self) -> bool:
        return self.asked is not None and self.position != self.asked


class NoRoom(ValueError):
    """No free units in the rack fit the device; the message says so."""


def nearest_fit(
    taken: set[int], top: int, height: int, near: int, *, upward: bool = False
) -> int | None:
    """The position (lowest unit) nearest ``near`` whose ``height`` units from it are all
    free and inside units 1..``top``; ties go to the lower position (designer.md).

    ``upward``: the lowest such position at or above ``near``, else the highest below it,
    as a duplicated device goes into the next free units above its original."""
    if height < 1 or top < height:
        return None
    highest = top - height + 1
    near = min(max(near, 1), highest)

    def fits(position: int) -> bool:
        return not any(u in taken for u in range(position, position + height))

    if upward:
        order = (*range(near, highest + 1), *range(near - 1, 0, -1))
        return next((position for position in order if fits(position)), None)
    # Walk outwards from ``near``: the first fit found at distance d is the nearest, and
    # the lower candidate is tried first at each distance.
    for distance in range(0, highest):
        for position in (near - distance, near + distance) if distance else (near,):
            if 1 <= position <= highest and fits(position):
                return position
    return None


def rail_for(left: int, right: int) -> str:
    """The side rail a 0U device goes on when none was chosen: the emptier, else left."""
    return "right" if right < left else "left"


def is_rail_device(entry: DeviceType) -> bool:
    """0U devices that mount on a side rail (PDUs and such); a 0U rear door hangs on the
    rack's rear and takes no rail, and neither does a rack-scale DC busbar (it runs up the
    rear of the rack, behind the trays it feeds: docs/rack-scale.md)."""
    return entry.height_u <= 0 and entry.kind != "rear-door" and not entry.is_busbar


def rear_face(entry: DeviceType) -> str | None:
    """The face a 0U device without a rail is recorded on: ``rear`` for the busbar (as
    ``new --template gb200-superpod`` writes it), None for a rear door (its own kind says
    where it hangs)."""
    return "rear" if entry.height_u <= 0 and entry.is_busbar else None


def domain_note(entry: DeviceType, rack_domain: str | None, rack_id: str) -> str | None:
    """What to tell a person who places an NVLink tray: the domain it joins, or that the
    rack names none, so NVL002 (a tray outside any domain) will report it."""
    role = entry.nvl_tray_role
    if role is None:
        return None
    if rack_domain is None:
        return (
            f"rack {rack_id} has no nvlink_domain, so this {role} tray is in no NVLink "
            "domain (NVL002 will report it): set the rack's nvlink_domain in the inspector"
        )
    return f"it joins NVLink domain {rack_domain}"


def plan(
    types: Mapping[str, DeviceType],
    models: Sequence[str],
    *,
    top: int,
    taken: Mapping[str, set[int]],
    near: int,
    face: str = "front",
    rails: tuple[int, int] = (0, 0),
    side: str | None = None,
) -> list[Placement]:
    """Where ``models`` go in one rack, in order, the first at ``near`` (the cursor's U),
    each following one at the nearest free units above the one before it (stacked upward),
    as the designer places several devices picked together.

    ``taken`` holds the occupied units per face (``front``, ``rear``); full-depth devices
    need free units on both faces, half-depth ones on ``face``. 0U rail devices go on
    ``side`` when given, else on the emptier rail (``rails`` = devices on left, right).
    Raises :class:`NoRoom` naming the first device that does not fit.
    """
    busy = {f: set(taken.get(f, ())) for f in ("front", "rear")}
    left, right = rails
    out: list[Placement] = []
    want = near
    for model in models:
        entry = types[model]
        if entry.height_u <= 0:
            if not is_rail_device(entry):
                out.append(Placement(model, face=rear_face(entry)))
                continue
            chosen = side or rail_for(left, right)
            if chosen == "left":
                left += 1
            else:
                right += 1
            out.append(Placement(model, side=chosen))
            continue
        height = max(1, round(entry.height_u))
        faces = ("front", "rear") if entry.full_depth else (face,)
        occupied = set().union(*(busy[f] for f in faces))
        position = nearest_fit(occupied, top, height, want)
        if position is None:
            free = top - len(occupied & set(range(1, top + 1)))
            room = "no free unit" if height == 1 else f"no {height} free units in a row"
            raise NoRoom(f"{room} for {model} ({entry.height_u:g} U): {free} of {top} U are free")
        for f in faces:
            busy[f].update(range(position, position + height))
        out.append(
            Placement(
                model,
                position=position,
                face=None if entry.full_depth else face,
                asked=want,
            )
        )
        want = position + height
    return out


def where(placement: Placement, height: float) -> str:
    """``at U5-U14``, ``at U20 (rear)``, ``on the left rail``: where a device went."""
    if placement.position is None:
        return f"on the {placement.side} rail" if placement.side else "on the rack's rear (0U)"
    units = max(1, round(height))
    span = (
        f"U{placement.position}"
        if units == 1
        else f"U{placement.position}-U{placement.position + units - 1}"
    )
    return f"at {span} ({placement.face})" if placement.face else f"at {span}"
