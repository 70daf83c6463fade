"""Mechanical fixes: the edit that makes a finding go away, where one can be stated exactly.

``fix_for(layout, finding)`` returns a :class:`~rackdesigner.edit.Batch` (one undoable step)
or None when the finding has no mechanical fix (a node to move, a model to buy: a person's
choice). Every fix is tried first on a copy of the finding's rack: it is offered only when
the finding is gone afterwards and no error appears that was not there before (a rear door
draws power, a blanking panel weighs something, a new feed changes which feed a PDU is on).

    from rackdesigner.design.fixes import fix_for
    batch = fix_for(session.layout, finding, session.index)
    if batch is not None:
        session.do(batch)        # the problem leaves; undo brings it back

Which rules have one (each a function below, registered in :data:`FIXERS`):

========= ================================================================================
COOL001   an air rack over the air limit: a rear door (an existing unnamed one, else the
          catalog's smallest that carries the rack), ``cooling = "rear-door"``, ``door``
COOL002   the same, for a rack past the liquid threshold on air
COOL007   a rear-door rack without a working door: name the rack's own door, else hang one
PLC006    open front units of an air rack: ``blanking = true`` on the rack (a rack that
          lists its panels as devices: 2U and 1U panels over each gap, named as its own)
PLC007    a half-depth device blowing against the rack's airflow: the other face, where its
          units there are free
PWR001    feeds too small, or none: another feed like the side's own on each short side
          (none: two 415 V 3-phase 63 A feeds on sides A and B, designer.md's defaults)
PWR008    a device that runs degraded on two sides: a third side, a copy of the strongest
          side's feeds (and PDUs, where the rack has them), so any side lost keeps enough
PWR013    a feed without a side: the side that makes the rack strongest (the weakest
          existing side, or a side of its own)
PWR011    a PDU rated above its feed: to a free feed of its side rated for it, else the
          largest catalog model made for its circuit (its inlet's voltage and current, rated
          within the feed); sides whose PDUs are rated below their load: the largest models
          made for their feeds, else another PDU on a new feed of its own per short side
PWR012    more PSU cords than a side's outlets: PDUs made for the same feeds with more
          outlets of the short kind, else more PDUs of the side's model on new feeds
CAB003    a cable whose media does not reach its length: OM4 for OM3 fibre where that
          reaches, else the first medium of the generators' preference that does; an
          optical (or active) cable where copper reaches (info): the copper medium
CAB004    ends of one technology at two speeds: the faster end's port group (on its model,
          in the layout's ``[catalog]``) at the slower end's speed, the rate the link runs
          at already; offered only when no other cable on that group runs faster
COOL003   a liquid rack naming no CDU (or a device that is not one): the nearest CDU (its
          rack, its row, then any) whose group has spare capacity for the rack's liquid heat
========= ================================================================================

Codes with no mechanical fix, and why: COOL003 on an overloaded CDU group (which racks
move, or which CDU to buy, is a plant decision); CAB004 across technologies (a different
switch or adapter); PWR011 and PWR012 where no catalog PDU is made for the circuit and a
new feed would itself be overloaded (larger circuits are the building's, a person's call;
moving a PDU to another side moves a shortfall, it does not remove it); PWR018 and PWR019
(power shelves on the wrong feeds: which circuits a rack-scale rack gets is the hall's
electrical design, and the shelves' order over the feeds follows the feeds' order).

No Textual here: the designer calls it, and so can scripts.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from rackdesigner.analysis.power_sides import feed_capacity, feed_rating, pdu_feeds
from rackdesigner.analysis.reach import choose_media, link_tech, reach
from rackdesigner.check.engine import rules_for, run_rules
from rackdesigner.edit import (
    AddFeed,
    Batch,
    Command,
    EditError,
    LayoutIndex,
    MoveDevice,
    PlaceDevice,
    SetPortGroup,
    UpdateDevice,
    UpdateFeed,
    UpdateLink,
    UpdateRack,
)
from rackdesigner.edit.index import end_device, port_key
from rackdesigner.layout_io.schema import ENDPOINT
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.layout import Device, DeviceType, Feed, Layout, Link, PortGroup, Rack
from rackdesigner.model.refs import KindId, Ref
from rackdesigner.model.thresholds import resolve
from rackdesigner.model.units import BANDWIDTH, POWER, canonical_text, fmt

# The feeds a rack without any gets (designer.md's Add rack defaults).
DEFAULT_FEED = {"voltage": 415.0, "phases": 3, "current": 63.0}
DEFAULT_SIDES = ("A", "B")
# A fix adds at most this many feeds to one side; more is a new circuit, a person's call.
MAX_FEEDS_PER_SIDE = 4
# The rules a trial on one rack re-runs: what the rack's own contents decide.
TRIAL_SCOPES = ("rack", "device", "link")

Builder = Callable[[], list[Command]]


@dataclass(slots=True)
class Plan:
    """One candidate fix: what it says it does, and how to build its commands afresh."""

    label: str
    build: Builder
    # Racks the trial copies besides the finding's: those the commands name (a CDU's).
    racks: tuple[Rack, ...] = ()


@dataclass(slots=True)
class Context:
    """What a fixer reads: the layout, its index, the finding, and the finding's rack (a
    cable's: the rack of its ``a`` end, and ``link`` the cable)."""

    layout: Layout
    index: LayoutIndex
    finding: Diagnostic
    rack: Rack
    link: Link | None = None

    @property
    def racks(self) -> list[Rack]:
        """The racks a trial copies: the finding's, and a cable's other end's."""
        racks = [self.rack]
        if self.link is not None:
            other = self.index.rack_of(end_device(self.link.b))
            if other is not None and other is not self.rack:
                racks.append(other)
        return racks

    @property
    def catalog(self) -> dict[str, DeviceType]:
        return self.index.catalog.devices

    @property
    def thresholds(self) -> dict[str, float]:
        rules = self.layout.rules
        return resolve(rules.thresholds if rules else None)

    def value(self, key: str, default: float = 0.0) -> float:
        return float(self.finding.values.get(key, default))


Fixer = Callable[[Context], Iterator[Plan]]
FIXERS: dict[str, Fixer] = {}


def fixer(*codes: str) -> Callable[[Fixer], Fixer]:
    def register(function: Fixer) -> Fixer:
        for code in codes:
            FIXERS[code] = function
        return function

    return register


def has_fixer(code: str) -> bool:
    """Whether findings of ``code`` can have a mechanical fix (a given one may still not)."""
    return code in FIXERS


def fix_for(layout: Layout, finding: Diagnostic, index: LayoutIndex | None = None) -> Batch | None:
    """The mechanical fix of ``finding`` as one Batch, or None. ``index`` (the session's)
    saves building one; the layout is not changed."""
    function = FIXERS.get(finding.code)
    if function is None or finding.suppressed:
        return None
    context = _context(layout, finding, index or LayoutIndex(layout))
    if context is None:
        return None
    for plan in function(context):
        if _works(context, plan):
            return Batch(plan.build(), plan.label)
    return None


def _context(layout: Layout, finding: Diagnostic, index: LayoutIndex) -> Context | None:
    """What a fixer reads about ``finding``; None where it names no rack (or cable)."""
    if finding.subject is None:
        return None
    link = index.link(finding.subject[1]) if finding.subject[0] == "link" else None
    rack = index.rack_of(end_device(link.a)) if link is not None else _rack_of(index, finding)
    if rack is None:
        return None
    return Context(layout, index, finding, rack, link)


def fix_all(
    layout: Layout, findings: list[Diagnostic], index: LayoutIndex | None = None
) -> tuple[Batch | None, int]:
    """The mechanical fixes of ``findings`` as one Batch (one undoable step), and how many
    of the findings are gone after it; None when none has a fix. Each fix is found on a
    copy of the layout with the fixes before it applied: two findings of one rack do not
    both add its feeds, and a finding an earlier fix already took away (one port group's
    speed for 32 cables) gets none. The Batch then applies to ``layout`` step by step as
    it did to the copy. The layout is not changed."""
    if not any(has_fixer(f.code) for f in findings):
        return None, 0
    trial = copy.deepcopy(layout)
    trial_index = LayoutIndex(trial)
    steps: list[Batch] = []
    gone = 0
    for finding in findings:
        context = _context(trial, finding, trial_index) if has_fixer(finding.code) else None
        if context is None:
            continue
        if steps and not _found(context):
            gone += 1  # an earlier fix took it away
            continue
        try:
            fix = fix_for(trial, finding, trial_index)
        except Exception:  # a fix is an offer: one that cannot be found is left out
            fix = None
        if fix is None:
            continue
        fresh = copy.deepcopy(fix)  # commands keep state: the layout gets its own copy
        try:
            fix.apply(trial, trial_index)
        except EditError:
            continue
        steps.append(fresh)
        gone += 1
    if not steps:
        return None, 0
    if len(steps) == 1:
        return steps[0], gone
    codes = sorted({f.code for f in findings})
    return Batch(steps, f"Fix {gone} {', '.join(codes)} findings"), gone


def _rack_of(index: LayoutIndex, finding: Diagnostic) -> Rack | None:
    assert finding.subject is not None
    kind, ident = finding.subject[0], finding.subject[1]
    if kind == "rack":
        return index.rack(ident)
    if kind == "device":
        return index.rack_of(ident)
    if kind == "feed":
        return index.rack_of_feed(ident)
    return None


# -- the trial ---------------------------------------------------------------------------------


def _works(context: Context, plan: Plan) -> bool:
    """Apply the plan to a copy of the rack alone (a cable's: both its racks and the cable):
    the finding must be gone and no error new. Rack, device and cable rules decide what a
    rack's contents and a cable do; the copy costs a rack or two."""
    trial = _trial(context, plan.racks)
    rules = [rule for rule in rules_for(context.layout) if rule.scope in TRIAL_SCOPES]
    before = _keys(_check(trial, rules), errors=True)
    try:
        Batch(plan.build(), plan.label).apply(trial)
    except EditError:
        return False
    after = _check(trial, rules)
    if _names(after, context.finding):
        return False
    return not (_keys(after, errors=True) - before)


def _found(context: Context) -> bool:
    """Whether the finding's rule still finds it, on a copy of its rack (and cable)."""
    code = context.finding.code
    rules = [r for r in rules_for(context.layout) if r.scope in TRIAL_SCOPES and r.code == code]
    return not rules or _names(_check(_trial(context, ()), rules), context.finding)


def _names(found: list[Diagnostic], finding: Diagnostic) -> bool:
    target = (finding.code, _plain(finding.subject))
    return any((d.code, _plain(d.subject)) == target for d in found if not d.suppressed)


def _trial(context: Context, extra: tuple[Rack, ...]) -> Layout:
    """A layout of copies of the context's racks (and ``extra``) and its cable."""
    layout = context.layout
    racks = context.racks
    racks += [r for r in extra if all(r is not other for other in racks)]
    return Layout(
        name=layout.name,
        site=layout.site,
        workload=layout.workload,
        rules=layout.rules,
        # A copy of the dict: a fix may set a [catalog] entry (CAB004), never in place.
        catalog=dict(layout.catalog),
        gpus=layout.gpus,
        racks=copy.deepcopy(racks),
        links=[_trial_link(context)] if context.link is not None else [],
    )


def _trial_link(context: Context) -> Link:
    """The cable, copied with the length the finding measured: the trial holds only its
    two racks, not the rows between them that its route runs past."""
    assert context.link is not None
    link = copy.deepcopy(context.link)
    if link.length is None and "length" in context.finding.values:
        link.length = float(context.finding.values["length"])
    return link


def _check(layout: Layout, rules: list) -> list[Diagnostic]:  # type: ignore[type-arg]
    from rackdesigner.analysis import Analysis

    return run_rules(rules, Analysis(layout))


def _plain(subject: Ref | None) -> KindId | None:
    return subject.kind_id if subject is not None else None


def _keys(found: list[Diagnostic], *, errors: bool) -> set[tuple[str, object]]:
    return {
        (d.code, _plain(d.subject))
        for d in found
        if not d.suppressed and (not errors or d.severity == "error")
    }


# -- cooling -----------------------------------------------------------------------------------


def door_models(catalog: dict[str, DeviceType]) -> list[DeviceType]:
    """Rear doors of the catalog with a known capacity, smallest first."""
    doors = [t for t in catalog.values() if t.kind == "rear-door" and t.capacity]
    return sorted(doors, key=lambda t: (float(t.capacity or 0), t.key))


def door_for(catalog: dict[str, DeviceType], heat: float) -> DeviceType | None:
    """The smallest rear door that removes ``heat`` and its own fans' draw."""
    for door in door_models(catalog):
        if float(door.capacity or 0) >= heat + float(door.power or 0):
            return door
    return None


def _rack_heat(context: Context) -> float:
    """The rack's heat as the finding measured it (COOL001: on air, all of it)."""
    values = context.finding.values
    for key in ("heat", "air_heat"):
        if key in values:
            return float(values[key])
    return 0.0


def _free_device_id(index: LayoutIndex, preferred: str) -> str:
    return _free_id(index, set(), preferred)


def _free_id(index: LayoutIndex, taken: set[str], base: str, kind: str = "device") -> str:
    """``base`` if no entity of ``kind`` has it (nor one this fix names), else ``base2``,
    ``base3``…"""
    for candidate in (base, *(f"{base}{n}" for n in range(2, 1000))):
        if candidate not in taken and not index.has_id(kind, candidate):
            taken.add(candidate)
            return candidate
    return index.next_id(base, kind)


def _rear_door_plans(context: Context) -> Iterator[Plan]:
    rack = context.rack
    index = context.index
    heat = _rack_heat(context)
    # A door already hanging on the rack, not named: name it.
    for device in rack.devices:
        dtype = context.catalog.get(device.model)
        if dtype is not None and dtype.kind == "rear-door":
            door_id = device.id

            def name_it(door_id: str = door_id) -> list[Command]:
                return [UpdateRack(rack.id, cooling="rear-door", door=door_id)]

            yield Plan(f"Cool rack {rack.id} with its rear door {door_id}", name_it)
    door = door_for(context.catalog, heat)
    if door is None:
        return
    new_id = _free_device_id(index, f"{rack.id}-door")

    def hang_door() -> list[Command]:
        return [
            PlaceDevice(rack.id, door.key, None, id=new_id),
            UpdateRack(rack.id, cooling="rear-door", door=new_id),
        ]

    capacity = float(door.capacity or 0)
    yield Plan(
        f"Cool rack {rack.id} with rear door {new_id} ({door.key}, {capacity / 1000:g} kW)",
        hang_door,
    )


@fixer("COOL001", "COOL002")
def cool_air_rack(context: Context) -> Iterator[Plan]:
    """An air rack over the air limit (or past the liquid threshold) gets a rear door: it
    suits every chassis, with cold plates or without (COOL001's hint offers liquid only
    where the nodes have cold plates; a liquid loop also needs a CDU with room to spare, a
    plant decision this does not take). A liquid rack's residual air heat has no such fix:
    its air-only devices must move."""
    if context.rack.cooling_mode != "air":
        return
    yield from _rear_door_plans(context)


@fixer("COOL007")
def name_or_hang_door(context: Context) -> Iterator[Plan]:
    """A rear-door rack that names no door (or a device that is not one) gets its own
    door named, or a new one; a door too small for the rack is a person's choice."""
    rack = context.rack
    if rack.cooling_mode != "rear-door":
        return
    if rack.door:
        door = context.index.device(rack.door)
        dtype = context.index.type_of(door) if door is not None else None
        if dtype is not None and dtype.kind == "rear-door":
            return  # the door is there and too small
    yield from _rear_door_plans(context)


# -- placement ---------------------------------------------------------------------------------


def blank_models(catalog: dict[str, DeviceType]) -> dict[int, DeviceType]:
    """Blanking panels by height (1U, 2U): the built-in keys first, else any of the kind."""
    found: dict[int, DeviceType] = {}
    for key in ("blank-2u", "blank-1u"):
        dtype = catalog.get(key)
        if dtype is not None and dtype.kind == "blank":
            found.setdefault(round(dtype.height_u), dtype)
    for dtype in sorted(catalog.values(), key=lambda t: t.key):
        if dtype.kind == "blank" and round(dtype.height_u) in (1, 2):
            found.setdefault(round(dtype.height_u), dtype)
    return found


def open_runs(index: LayoutIndex, rack: Rack, full_depth: bool) -> list[range]:
    """Runs of units no device covers on the front face (PLC006's open units); a panel that
    is full depth also needs the rear face free."""
    taken = set(index.occupied(rack.id, "front"))
    if full_depth:
        taken |= set(index.occupied(rack.id, "rear"))
    runs: list[range] = []
    start: int | None = None
    height = int(rack.height_u)
    for unit in range(1, height + 2):
        free = unit <= height and unit not in taken
        if free and start is None:
            start = unit
        elif not free and start is not None:
            runs.append(range(start, unit))
            start = None
    return runs


@fixer("PLC006")
def blank_open_units(context: Context) -> Iterator[Plan]:
    """The rack declares its blanking (``blanking = true``: panels fitted over whatever
    units its devices leave, so moves need no panel moved); a rack that already lists
    its panels as devices gets more devices instead, named as its own are."""
    rack = context.rack
    if rack.cooling_mode != "air":
        return
    rack_id = rack.id
    declare = Plan(
        f"Declare blanking panels on rack {rack_id} (blanking = true: every open unit)",
        lambda: [UpdateRack(rack_id, blanking=True)],
    )
    listed = any(context.catalog.get(d.model, _NO_TYPE).kind == "blank" for d in rack.devices)
    if not listed:
        yield declare
    yield from _panel_plans(context)
    if listed:
        yield declare


_NO_TYPE = DeviceType("")


def _panel_plans(context: Context) -> Iterator[Plan]:
    """Every open front unit gets a blanking panel device: 2U panels, and a 1U one where a
    gap is odd (only 1U panels where the catalog has no 2U one)."""
    rack = context.rack
    blanks = blank_models(context.catalog)
    one = blanks.get(1)
    if one is None:
        return
    two = blanks.get(2)
    full_depth = any(b.full_depth for b in blanks.values())
    places: list[tuple[str, int]] = []
    for run in open_runs(context.index, rack, full_depth):
        unit = run.start
        while unit < run.stop:
            if two is not None and unit + 1 < run.stop:
                places.append((two.key, unit))
                unit += 2
            else:
                places.append((one.key, unit))
                unit += 1
    if not places:
        return
    count = len(places)

    def fill() -> list[Command]:
        return [
            PlaceDevice(rack.id, model, unit, face=None if full_depth else "front")
            for model, unit in places
        ]

    units = sum(round(context.catalog[m].height_u) for m, _ in places)
    yield Plan(
        f"Blank {units} open units of rack {rack.id} ({count} blanking panels)",
        fill,
    )


@fixer("PLC007")
def turn_around(context: Context) -> Iterator[Plan]:
    """A half-depth device blowing the wrong way is mounted on the other face (which
    reverses its airflow), where those units are free; a full-depth one needs the other
    airflow variant of its model, a purchase."""
    subject = context.finding.subject
    device = context.index.device(subject[1]) if subject else None
    dtype = context.index.type_of(device) if device is not None else None
    if device is None or dtype is None or dtype.full_depth or device.position is None:
        return
    face = "front" if device.face == "rear" else "rear"
    device_id = device.id
    yield Plan(
        f"Mount {device_id} on the {face} face (its airflow then runs with the rack's)",
        lambda: [MoveDevice(device_id, face=face)],
    )


# -- power ---------------------------------------------------------------------------------------


def _free_feed_id(index: LayoutIndex, taken: set[str], base: str) -> str:
    return _free_id(index, taken, base, "feed")


def _copy_feed(template: Feed, feed_id: str, side: str | None) -> Feed:
    # A circuit is the building's: a copy on the same one would be PWR003's error.
    return replace(template, id=feed_id, side=side, circuit=None, notes=None)


def _sides(rack: Rack) -> dict[str, list[Feed]]:
    sides: dict[str, list[Feed]] = {}
    for feed in rack.feeds:
        if feed.side:
            sides.setdefault(feed.side, []).append(feed)
    return sides


def _default_feeds(context: Context) -> Iterator[Plan]:
    rack, index = context.rack, context.index
    template = Feed("", **DEFAULT_FEED)  # type: ignore[arg-type]
    one = feed_capacity(template, context.thresholds)
    per_side = max(1, math.ceil(context.value("load") / one)) if one > 0 else 1
    if per_side > MAX_FEEDS_PER_SIDE:
        return
    taken: set[str] = set()
    names = [
        (side, _free_feed_id(index, taken, f"{rack.id}-{side}"))
        for _ in range(per_side)
        for side in DEFAULT_SIDES
    ]

    def add() -> list[Command]:
        return [AddFeed(rack.id, _copy_feed(template, name, side)) for side, name in names]

    listed = ", ".join(name for _, name in names)
    yield Plan(
        f"Feed rack {rack.id}: {listed} (415 V 3-phase 63 A, sides {' and '.join(DEFAULT_SIDES)})",
        add,
    )


@fixer("PWR001")
def add_feeds(context: Context) -> Iterator[Plan]:
    """A rack without feeds gets designer.md's two; a rack whose feeds are too small gets
    copies of a side's own feed on every side short of the load (k ≥ 2 sides: each must
    carry load ÷ (k − 1)); feeds without sides add up, so one more like the first."""
    rack = context.rack
    if not rack.feeds:
        yield from _default_feeds(context)
        return
    thresholds = context.thresholds
    load = context.value("load")
    sides = _sides(rack)
    additions: list[tuple[Feed, str | None]] = []  # (template, side)
    if len(sides) >= 2:
        need = load / (len(sides) - 1)
        for side, feeds in sorted(sides.items()):
            have = sum(feed_capacity(f, thresholds) for f in feeds)
            one = feed_capacity(feeds[0], thresholds)
            if one <= 0:
                return
            more = max(0, math.ceil((need - have) / one - 1e-9))
            additions.extend((feeds[0], side) for _ in range(more))
    else:
        counted = [f for f in rack.feeds if f.side] or list(rack.feeds)
        have = sum(feed_capacity(f, thresholds) for f in counted)
        one = feed_capacity(counted[0], thresholds)
        if one <= 0:
            return
        more = max(0, math.ceil((load - have) / one - 1e-9))
        additions.extend((counted[0], counted[0].side) for _ in range(more))
    if not additions or len(additions) > MAX_FEEDS_PER_SIDE * max(1, len(sides)):
        return
    taken: set[str] = set()
    names = [
        (template, side, _free_feed_id(context.index, taken, f"{rack.id}-{side or 'F'}"))
        for template, side in additions
    ]

    def add() -> list[Command]:
        return [AddFeed(rack.id, _copy_feed(t, name, side)) for t, side, name in names]

    listed = ", ".join(name for _, _, name in names)
    yield Plan(f"Add feed{'s' if len(names) > 1 else ''} {listed} to rack {rack.id}", add)


def _next_label(labels: list[str]) -> str:
    last = sorted(labels)[-1] if labels else "A"
    if len(last) == 1 and last.isalpha() and last.upper() != "Z":
        return chr(ord(last) + 1)
    return f"{last}2"


@fixer("PWR008")
def add_a_side(context: Context) -> Iterator[Plan]:
    """A device that keeps too few PSUs with one of two sides lost: a third side (a copy
    of the strongest side's feeds, and of its PDUs where the rack has PDUs), as NVIDIA's
    three-PDU DGX rack does: 6 PSUs on 2 + 2 + 2 keep 4."""
    rack, index = context.rack, context.index
    sides = _sides(rack)
    psus, required = int(context.value("psus")), int(context.value("required"))
    if len(sides) != 2 or psus <= 0:
        return
    if psus - math.ceil(psus / 3) < required:
        return  # a third side does not save it either
    thresholds = context.thresholds
    strongest = max(
        sorted(sides), key=lambda s: sum(feed_capacity(f, thresholds) for f in sides[s])
    )
    label = _next_label(list(sides))
    taken: set[str] = set()
    copies = [
        (feed, _free_feed_id(index, taken, f"{rack.id}-{label}")) for feed in sides[strongest]
    ]
    pdus = _pdus_of(context, rack, {f.id for f in sides[strongest]})
    rails = _quieter_rail(context, rack)
    used: set[str] = set()
    pdu_ids = [_free_id(index, used, f"{rack.id}-pdu-{label.lower()}") for _ in pdus]

    def add() -> list[Command]:
        commands: list[Command] = [
            AddFeed(rack.id, _copy_feed(feed, name, label)) for feed, name in copies
        ]
        for number, (pdu, pdu_id) in enumerate(zip(pdus, pdu_ids, strict=True)):
            feed_id = copies[min(number, len(copies) - 1)][1]
            commands.append(
                PlaceDevice(rack.id, pdu.model, None, side=rails, id=pdu_id, feed=feed_id)
            )
        return commands

    what = ", ".join(name for _, name in copies)
    with_pdus = f" and PDU {', '.join(pdu_ids)}" if pdu_ids else ""
    yield Plan(f"Add side {label} to rack {rack.id}: feed {what}{with_pdus}", add)


def _pdus_of(context: Context, rack: Rack, feed_ids: set[str]) -> list[Device]:
    """The rack's PDUs on the given feeds (their ``feed``, else the order rule of rules.md:
    PDUs without one go over the rack's feeds in order)."""
    where = _pdu_feed_of(context, rack)
    return [d for d in _rack_pdus(context, rack) if d.id in where and where[d.id].id in feed_ids]


def _quieter_rail(context: Context, rack: Rack) -> str:
    counts = {"left": 0, "right": 0}
    for device in rack.devices:
        if device.side in counts:
            counts[device.side] += 1
    return min(counts, key=lambda side: (counts[side], side))


@fixer("PWR013")
def give_feed_a_side(context: Context) -> Iterator[Plan]:
    """A feed without a side joins the weakest side (raising the rack's capacity the most),
    else gets a side of its own; the trial keeps the first that leaves no new error."""
    finding = context.finding
    assert finding.subject is not None
    feed_id = finding.subject[1]
    sides = _sides(context.rack)
    thresholds = context.thresholds
    order = sorted(sides, key=lambda s: (sum(feed_capacity(f, thresholds) for f in sides[s]), s))
    for label in [*order, _next_label(list(sides))]:

        def set_side(label: str = label) -> list[Command]:
            return [UpdateFeed(feed_id, side=label)]

        yield Plan(f"Put feed {feed_id} on side {label}", set_side)


# -- PDUs ----------------------------------------------------------------------------------------


def _rack_pdus(context: Context, rack: Rack) -> list[Device]:
    return [
        d
        for d in rack.devices
        if (t := context.catalog.get(d.model)) is not None and t.kind == "pdu"
    ]


def _pdu_feed_of(context: Context, rack: Rack) -> dict[str, Feed]:
    """Each PDU's feed, by the rule the power rules use (its ``feed``, else in order)."""
    feeds = {f.id: f for f in rack.feeds}
    where = pdu_feeds(_rack_pdus(context, rack), rack.feeds)
    return {pdu: feeds[feed] for pdu, feed in where.items() if feed in feeds}


def pdus_for_feed(
    catalog: dict[str, DeviceType], feed: Feed, power_factor: float
) -> list[DeviceType]:
    """The catalog's PDU models made for ``feed``, largest rating first: the feed's voltage
    inside their inlet's range and their inlet's current its breaker's (PWR014), rated
    within the feed's rating (PWR011). A model that does not give one of these is left out:
    a fix does not guess."""
    voltage, current = float(feed.voltage or 0), float(feed.current or 0)
    limit = feed_rating(feed, power_factor) * (1 + 1e-9)
    found = []
    for dtype in catalog.values():
        if dtype.kind != "pdu" or dtype.capacity is None or dtype.input_voltage is None:
            continue
        low, high = (float(v) for v in dtype.input_voltage)
        if not low - 1e-6 <= voltage <= high + 1e-6:
            continue
        if dtype.input_current is None or abs(float(dtype.input_current) - current) > 1e-6:
            continue
        if float(dtype.capacity) <= limit:
            found.append(dtype)
    return sorted(found, key=lambda t: (-float(t.capacity or 0), t.key))


def _pdus_by_side(context: Context, rack: Rack) -> dict[str, list[Device]]:
    """The rack's PDUs by the side of their feed (``""`` for all of them without k ≥ 2
    sides), as PWR011 and PWR012 group them: every side is judged, so a fix of the rack's
    finding must mend every short side at once."""
    where = _pdu_feed_of(context, rack)
    sided = len({f.side for f in rack.feeds if f.side}) >= 2
    out: dict[str, list[Device]] = {}
    for pdu in _rack_pdus(context, rack):
        feed = where.get(pdu.id)
        if feed is None or (sided and not feed.side):
            continue
        out.setdefault((feed.side or "") if sided else "", []).append(pdu)
    return dict(sorted(out.items()))


def _swaps(
    context: Context, pdus: list[Device], better: Callable[[DeviceType, DeviceType], bool]
) -> list[tuple[str, str]]:
    """(PDU, model) for each PDU whose feed has a model made for it that is ``better``
    than its own: the first such in :func:`pdus_for_feed`'s order (largest first)."""
    where = _pdu_feed_of(context, context.rack)
    power_factor = context.thresholds["power_factor"]
    out = []
    for pdu in pdus:
        own, feed = context.catalog.get(pdu.model), where.get(pdu.id)
        if own is None or feed is None:
            continue
        for model in pdus_for_feed(context.catalog, feed, power_factor):
            if model.key != own.key and better(model, own):
                out.append((pdu.id, model.key))
                break
    return out


def _swap_plan(swaps: list[tuple[str, str]], why: str) -> Iterator[Plan]:
    if not swaps:
        return

    def swap() -> list[Command]:
        return [UpdateDevice(pdu_id, model=key) for pdu_id, key in swaps]

    listed = ", ".join(f"{pdu_id} a {key}" for pdu_id, key in swaps)
    yield Plan(f"Make PDU {listed} ({why})", swap)


def _more_pdus(
    context: Context, counts: dict[str, tuple[list[Device], int]], *, own_model: bool
) -> Iterator[Plan]:
    """``n`` more PDUs on each side in ``counts`` (side -> (its PDUs, n)), each on a new feed
    of its own (one circuit, one PDU: PWR014): a copy of the side's first PDU's feed, with
    the side's own model (``own_model``: its outlets are known) or the largest model made
    for the feed (the side's own where the catalog has none)."""
    rack, index = context.rack, context.index
    where = _pdu_feed_of(context, rack)
    power_factor = context.thresholds["power_factor"]
    taken: set[str] = set()
    used: set[str] = set()
    rails = _quieter_rail(context, rack)
    adds: list[tuple[Feed, str, str, str]] = []  # (template, feed id, model, PDU id)
    for side, (pdus, n) in counts.items():
        template = next((where[d.id] for d in pdus if d.id in where), None)
        if template is None or n <= 0 or n > MAX_FEEDS_PER_SIDE:
            return
        models = [] if own_model else pdus_for_feed(context.catalog, template, power_factor)
        model = models[0].key if models else pdus[0].model
        for _ in range(n):
            feed_id = _free_feed_id(index, taken, f"{rack.id}-{side or 'F'}")
            pdu_id = _free_id(index, used, f"{rack.id}-pdu-{(side or 'f').lower()}")
            adds.append((template, feed_id, model, pdu_id))
    if not adds:
        return

    def add() -> list[Command]:
        commands: list[Command] = []
        for template, feed_id, model, pdu_id in adds:
            commands.append(AddFeed(rack.id, _copy_feed(template, feed_id, template.side)))
            commands.append(PlaceDevice(rack.id, model, None, side=rails, id=pdu_id, feed=feed_id))
        return commands

    listed = ", ".join(f"{pdu_id} on feed {feed_id}" for _, feed_id, _, pdu_id in adds)
    yield Plan(f"Add PDU {listed} ({adds[0][2]}) to rack {rack.id}", add)


def _rating(context: Context, pdus: list[Device]) -> float:
    return sum(float(context.catalog[d.model].capacity or 0) for d in pdus)


@fixer("PWR011")
def pdu_within_rating(context: Context) -> Iterator[Plan]:
    """A PDU rated above its feed moves to a feed of its side that is rated for it and
    has no PDU, else becomes the largest model made for its own feed (its inlet's voltage
    and current, rated within it). Sides whose PDUs are rated below the load they carry
    with another side lost get the largest models made for their feeds, else another feed
    each with a PDU of its own (a copy of the side's first PDU's feed)."""
    rack = context.rack
    finding = context.finding
    assert finding.subject is not None
    power_factor = context.thresholds["power_factor"]
    where = _pdu_feed_of(context, rack)
    if finding.subject.kind == "device":
        pdu = context.index.device(finding.subject.id)
        dtype = context.index.type_of(pdu) if pdu is not None else None
        feed = where.get(pdu.id) if pdu is not None else None
        if pdu is None or dtype is None or dtype.capacity is None or feed is None:
            return
        rating = float(dtype.capacity)
        busy = {f.id for f in where.values()}
        for other in rack.feeds:
            if other.id in busy or (other.side or "") != (feed.side or ""):
                continue
            if feed_rating(other, power_factor) * (1 + 1e-9) >= rating:

                def move(pdu_id: str = pdu.id, feed_id: str = other.id) -> list[Command]:
                    return [UpdateDevice(pdu_id, feed=feed_id)]

                yield Plan(f"Move PDU {pdu.id} to feed {other.id} (rated for it)", move)
        yield from _swap_plan(
            _swaps(context, [pdu], lambda model, own: True), f"made for feed {feed.id}"
        )
        return
    load = context.value("load")
    short = {
        side: pdus
        for side, pdus in _pdus_by_side(context, rack).items()
        if pdus and all(d.model in context.catalog for d in pdus) and _rating(context, pdus) < load
    }
    if not short:
        return
    larger = [
        swap
        for pdus in short.values()
        for swap in _swaps(
            context, pdus, lambda model, own: float(model.capacity or 0) > float(own.capacity or 0)
        )
    ]
    yield from _swap_plan(larger, "the largest made for its feed")
    counts = {}
    for side, pdus in short.items():
        one = max(float(context.catalog[d.model].capacity or 0) for d in pdus)
        if one <= 0:
            return
        counts[side] = (pdus, math.ceil((load - _rating(context, pdus)) / one - 1e-9))
    yield from _more_pdus(context, counts, own_model=False)


@fixer("PWR012")
def more_outlets(context: Context) -> Iterator[Plan]:
    """More PSU cords than a side's PDU outlets: the rack's PDUs become the model made for
    their feed with the most outlets of the short kind (C19, or all), where that has more;
    else each side gets as many more PDUs as this side is short by, each on a feed of its
    own. Moving a PDU to another side moves the shortfall, so that is never offered."""
    rack = context.rack
    big = "C19-class" in context.finding.message

    def count(dtype: DeviceType | None) -> int:
        outlets = (dtype.outlets or {}) if dtype is not None else {}
        return outlets.get("c19", 0) if big else outlets.get("c13", 0) + outlets.get("c19", 0)

    sides = _pdus_by_side(context, rack)
    if not sides:
        return
    every = [pdu for pdus in sides.values() for pdu in pdus]
    yield from _swap_plan(
        _swaps(context, every, lambda model, own: count(model) > count(own)),
        "more outlets, made for its feed",
    )
    missing = context.value("cords") - context.value("outlets")
    counts = {}
    for side, pdus in sides.items():
        per_pdu = count(context.catalog.get(pdus[0].model))
        if per_pdu <= 0:
            return
        counts[side] = (pdus, max(1, math.ceil(missing / per_pdu - 1e-9)))
    yield from _more_pdus(context, counts, own_model=True)


# -- cabling --------------------------------------------------------------------------------------


def _port_group(context: Context, end: str) -> PortGroup | None:
    found = ENDPOINT.match(end)
    device = context.index.device(end_device(end)) if found else None
    dtype = context.index.type_of(device) if device is not None else None
    return dtype.port_group(found["group"]) if dtype is not None and found else None


def _port_speed(context: Context, end: str) -> float | None:
    group = _port_group(context, end)
    return float(group.speed) if group is not None and group.speed else None


@fixer("CAB003")
def media_that_reaches(context: Context) -> Iterator[Plan]:
    """A cable too long for its media gets one that reaches at the link's speed (its slower
    end): OM4 for OM3 multimode where that is enough, else the first of dac, acc, aoc, smf
    (the order the fabric generators choose in) that reaches; copper-rj45 is management
    cabling, a switch closer is the fix there."""
    link = context.link
    length = context.finding.values.get("length")
    if link is None or length is None or link.media in (None, "copper-rj45"):
        return
    speeds = [s for s in (_port_speed(context, link.a), _port_speed(context, link.b)) if s]
    speed = min(speeds) if speeds else None
    # 800G InfiniBand is XDR: its own parts (no DAC or multimode), not 800GbE's
    groups = (_port_group(context, link.a), _port_group(context, link.b))
    tech = link_tech(*(g.tech if g is not None else None for g in groups))
    thresholds = context.thresholds
    ref = context.finding.subject[1] if context.finding.subject else port_key(link.a)
    if link.media == "mmf" and link.grade == "om3":
        found = reach("mmf", speed, "om4", thresholds, tech=tech)
        if found is not None and float(length) <= found[1]:
            yield Plan(
                f"Cable {ref} with OM4 fibre (reaches {found[1]:g} m)",
                lambda: [UpdateLink(ref, grade="om4")],
            )
    media = choose_media(float(length), speed, thresholds, tech=tech)
    if media is None or media == link.media:
        return
    found = reach(media, speed, None, thresholds, tech=tech)
    grade = "os2" if media == "smf" and link.grade else None
    reaches = f", reaches {found[1]:g} m" if found else ""
    yield Plan(
        f"Cable {ref} with {media} instead of {link.media}{reaches}",
        lambda: [UpdateLink(ref, media=media, grade=grade)],
    )


@fixer("CAB004")
def slower_speed(context: Context) -> Iterator[Plan]:
    """Ends of one technology at two speeds: the link runs at the slower one. The faster
    end's port group is set to that speed on its model (the layout's ``[catalog.MODEL]``,
    as a layout that runs 400G adapters on a 200G fabric writes it), so no figure of this
    link changes. Every device of that model shares the group: offered only when none of
    its other cables runs faster than the new speed (the change slows no link)."""
    link = context.link
    values = context.finding.values
    if link is None or "speed_a" not in values or "speed_b" not in values:
        return
    if context.finding.severity == "error":
        return  # InfiniBand against Ethernet: another switch or adapter, a purchase
    speed_a, speed_b = float(values["speed_a"]), float(values["speed_b"])
    slow = min(speed_a, speed_b)
    fast_end = link.a if speed_a > speed_b else link.b
    found = ENDPOINT.match(fast_end)
    device = context.index.device(end_device(fast_end)) if found else None
    if device is None or found is None:
        return
    model, group = device.model, found["group"]
    for other_id in [d.id for _, d in context.layout.devices() if d.model == model]:
        for other in context.index.links_of(other_id):
            if other is link:
                continue
            for end, far in ((other.a, other.b), (other.b, other.a)):
                match = ENDPOINT.match(end)
                if match is None or match["device"] != other_id or match["group"] != group:
                    continue
                far_speed = _port_speed(context, far)
                if far_speed is not None and far_speed > slow * (1 + 1e-9):
                    return  # that cable would run slower
    text = canonical_text(slow, BANDWIDTH)
    ref = context.finding.subject[1] if context.finding.subject else link.a
    yield Plan(
        f"Set {model} ports {group} to {text}, the rate link {ref} runs at",
        lambda: [SetPortGroup(model, group, speed=text)],
    )


@fixer("COOL003")
def name_a_cdu(context: Context) -> Iterator[Plan]:
    """A liquid rack that names no CDU, or a device that is not one, is given the nearest
    CDU (in its rack, its row, then any, by id) whose group has room for the rack's liquid
    heat with all its CDUs working. An overloaded group has no such fix: which racks move,
    or which CDU to add, is a plant decision."""
    from rackdesigner.analysis import Analysis

    rack = context.rack
    finding = context.finding
    if finding.subject is None or finding.subject[0] != "rack" or rack.cooling_mode != "liquid":
        return
    cdus = [
        (owner, device)
        for owner, device in context.layout.devices()
        if (t := context.catalog.get(device.model)) is not None and t.kind == "cdu" and t.capacity
    ]
    if not cdus:
        return
    # The racks that decide CDU loads: those naming a CDU, those holding one, and this one.
    holders = {id(owner) for owner, _ in cdus}
    racks = [r for r in context.layout.racks if r.cdus or id(r) in holders or r is rack]
    partial = replace(context.layout, racks=racks, links=[])
    analysis = Analysis(partial)
    facts = next(f for f in analysis.racks if f.rack is rack)
    need = float(facts.liquid_heat)
    spare: dict[str, float] = {}
    for load in analysis.cdu_loads:
        if load.capacity is None:
            continue
        room = load.capacity - load.heat
        for cdu in load.cdus:
            spare[cdu.id] = room
    named = set(rack.cdus)
    candidates = []
    for owner, device in cdus:
        if device.id in named:
            continue
        room = spare.get(device.id, float(context.catalog[device.model].capacity or 0))
        if room + 1e-6 < need:
            continue
        distance = 0 if owner is rack else 1 if owner.row == rack.row else 2
        candidates.append((distance, -room, device.id, room))

    for _, _, cdu_id, room in sorted(candidates)[:3]:

        def name_it(cdu_id: str = cdu_id) -> list[Command]:
            return [UpdateRack(rack.id, cdu=cdu_id)]

        owner = context.index.rack_of(cdu_id)
        yield Plan(
            f"Cool rack {rack.id} from CDU {cdu_id} ({fmt(room, POWER)} to spare, the rack "
            f"needs {fmt(need, POWER)})",
            name_it,
            (owner,) if owner is not None else (),
        )
