"""The parts a failure names (``KIND:ID``), found in an analysis.

A failure names one part: a ``feed`` (by id, or ``RACK/FEED`` where feed ids repeat),
a ``side`` (every feed of that side letter in every rack: one power train), a ``pdu``,
``cdu``, ``door`` or ``switch`` (by device id), a ``rack`` (everything in it), a
``link`` (by either end, ``device:port``, or ``A -> B``), an element of the power chain
by its kind (``ups:ups-a``, ``utility:utility-1``; ``ups-module:ups-a`` is one module of
an n+1 UPS), a water ``loop`` (its CDUs, rear doors and in-row coolers stop), or
``warmer-water:5 K`` (the facility water that much warmer than its design: a condition
rather than a part, combinable with the others). :func:`resolve` turns them into the sets
the failure model reads; :func:`candidates` lists every single failure of a kind
(``whatif --each``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rackdesigner.model.layout import POWER_KINDS
from rackdesigner.model.wording import first_of

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.analysis.power_chain import PowerChain

# One module of a UPS (``ups-module:ups-a``), as the power chain's rules name it.
MODULE = "ups-module"
WARMER = "warmer-water"
KINDS = (
    "feed",
    "side",
    "pdu",
    "cdu",
    "door",
    "switch",
    "rack",
    "link",
    *POWER_KINDS,
    MODULE,
    "loop",
    WARMER,
    "storage",
)
# The kinds ``--each`` ranks.
EACH_KINDS = (
    "feed",
    "side",
    "pdu",
    "cdu",
    "switch",
    "rack",
    *POWER_KINDS,
    MODULE,
    "loop",
    "storage",
)
# The device kind each device failure must name.
DEVICE_KINDS = {"pdu": "pdu", "cdu": "cdu", "door": "rear-door", "switch": "switch"}
KIND_NAMES = {"pdu": "PDU", "cdu": "CDU", "door": "rear door", "switch": "switch"}
KIND_PLURALS = {"pdu": "PDUs", "cdu": "CDUs", "door": "rear doors", "switch": "switches"}
SHOWN_IDS = 8  # ids an error lists before counting the rest
# A storage appliance (a parallel file system's or an object store's): whatif/storage.py.
DEVICE_KINDS["storage"] = "storage"
KIND_NAMES["storage"] = "storage appliance"
KIND_PLURALS["storage"] = "storage appliances"


class PartError(ValueError):
    """A failure that names no part of the layout (or is not ``KIND:ID``)."""


@dataclass(frozen=True, slots=True, order=True)
class Failure:
    kind: str
    id: str

    def __str__(self) -> str:
        return f"{self.kind}:{self.id}"


def parse_failure(text: str) -> Failure:
    """``"switch:leaf-01"`` -> ``Failure("switch", "leaf-01")``; ``"warmer-water:5"`` ->
    ``Failure("warmer-water", "5 K")``."""
    kind, colon, ident = text.partition(":")
    kind = kind.strip().lower()
    ident = ident.strip()
    if not colon or kind not in KINDS or not ident:
        raise PartError(f"{text!r} is not KIND:ID with KIND one of {', '.join(KINDS)}")
    if kind == WARMER:
        return warmer_water(ident)
    return Failure(kind, ident)


_BARE_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$")


def warmer_water(text: str) -> Failure:
    """The facility water ``text`` warmer than its design (``5``, ``5K``, ``5 K``; a
    bare number is kelvin): ``Failure("warmer-water", "5 K")``."""
    from rackdesigner.model.units import TEMPERATURE_DIFFERENCE, UnitError, parse

    given = text.strip()
    try:
        delta = parse(given + " K" if _BARE_NUMBER.match(given) else given, TEMPERATURE_DIFFERENCE)
    except UnitError as error:
        raise PartError(f"warmer water {given!r}: {error}") from None
    if delta <= 0:
        raise PartError(f"warmer water {given!r}: give how many kelvin warmer, more than 0")
    return Failure(WARMER, f"{delta:g} K")


def warmer_of(failures: Iterable[Failure]) -> float:
    """K the facility water is warmer in these failures (the ``warmer-water`` ones add)."""
    return sum(float(f.id.split()[0]) for f in failures if f.kind == WARMER)


@dataclass(slots=True)
class Lost:
    """What the failures name, by index or id (before any consequence)."""

    feeds: set[tuple[int, int]] = field(default_factory=set)  # (rack index, feed index)
    devices: set[str] = field(default_factory=set)  # pdu, cdu, door, switch ids
    racks: set[int] = field(default_factory=set)
    links: set[int] = field(default_factory=set)  # link indexes
    elements: set[int] = field(default_factory=set)  # power chain element indexes
    modules: dict[int, int] = field(default_factory=dict)  # UPS index -> modules lost
    loops: set[str] = field(default_factory=set)  # water loop ids
    warmer: float = 0.0  # K the facility water is warmer
    _by_rack: dict[int, set[int]] | None = None

    def add_feeds(self, feeds: Iterable[tuple[int, int]]) -> None:
        """Feeds lost as a consequence (their power chain element is lost)."""
        self.feeds.update(feeds)
        self._by_rack = None

    def feeds_of(self, rack: int) -> set[int]:
        """The indexes of rack ``rack``'s feeds that failed."""
        if self._by_rack is None:
            self._by_rack = {}
            for index, number in self.feeds:
                self._by_rack.setdefault(index, set()).add(number)
        return self._by_rack.get(rack, set())

    def touched_racks(self, analysis: Analysis) -> set[int]:
        """Racks whose power the failures can change: a failed rack, a failed feed's, a
        failed PDU's."""
        out = set(self.racks) | {rack for rack, _ in self.feeds}
        for ident in self.devices:
            dev = analysis.device_by_id.get(ident)
            if dev is not None and dev.kind == "pdu":
                out.add(dev.rack_index)
        return out


class PartIndex:
    """Feeds by id and side, racks by id: built once, so that ranking thousands of feeds
    does not walk every rack for each."""

    def __init__(self, analysis: Analysis) -> None:
        self.feeds: dict[str, list[tuple[int, int]]] = {}
        self.sides: dict[str, list[tuple[int, int]]] = {}
        self.racks: dict[str, list[int]] = {}
        for rack in analysis.racks:
            self.racks.setdefault(rack.rack.id, []).append(rack.index)
            for number, feed in enumerate(rack.rack.feeds):
                self.feeds.setdefault(feed.id, []).append((rack.index, number))
                if feed.side:
                    self.sides.setdefault(feed.side, []).append((rack.index, number))


def resolve(
    analysis: Analysis, failures: Iterable[Failure], index: PartIndex | None = None
) -> Lost:
    """The parts ``failures`` name; a :class:`PartError` for one that names none."""
    lost = Lost()
    index = index or PartIndex(analysis)
    for failure in failures:
        _resolve_one(analysis, index, failure, lost)
    return lost


def _resolve_one(analysis: Analysis, index: PartIndex, failure: Failure, lost: Lost) -> None:
    kind, ident = failure.kind, failure.id
    if kind == "feed":
        rack_id, slash, feed_id = ident.rpartition("/")
        found = [
            (rack, number)
            for rack, number in index.feeds.get(feed_id if slash else ident, ())
            if not slash or analysis.racks[rack].rack.id == rack_id
        ]
        if not found:
            raise PartError(f"no feed {ident} in the layout")
        if len(found) > 1 and not slash:
            raise PartError(f"feed id {ident} is in several racks: name it RACK/{ident}")
        lost.feeds.update(found)
    elif kind == "side":
        found = list(index.sides.get(ident, ()))
        if not found:
            raise PartError(f"no feed of side {ident} in the layout")
        lost.feeds.update(found)
    elif kind in DEVICE_KINDS:
        dev = analysis.device_by_id.get(ident)
        if dev is None:
            raise PartError(_not_a_device(analysis, index, kind, ident))
        if dev.kind != DEVICE_KINDS[kind]:
            what = dev.kind or "device of unknown model"
            raise PartError(
                f"device {ident} is a {what}, not a {KIND_NAMES[kind]}"
                f"{_kind_of(dev.kind)}{_of_kind(analysis, kind, dev.rack.id)}"
            )
        lost.devices.add(ident)
    elif kind in POWER_KINDS or kind == MODULE:
        element = _chain_element(analysis.power_chain, kind, ident)
        if kind == MODULE:
            lost.modules[element] = lost.modules.get(element, 0) + 1
        else:
            lost.elements.add(element)
    elif kind == "loop":
        lost.loops.add(_loop(analysis, ident))
    elif kind == WARMER:
        if not any(
            loop.loop_kind == "facility" and loop.supply is not None
            for loop in analysis.layout.cooling_loops
        ):
            raise PartError(
                "warmer water: the layout declares no facility water loop with a supply "
                "temperature for it to warm ([[cooling.loops]], docs/liquid-cooling.md)"
            )
        lost.warmer += warmer_of([failure])
    elif kind == "rack":
        found_racks = index.racks.get(ident, [])
        if not found_racks:
            raise PartError(f"no rack {ident} in the layout")
        lost.racks.update(found_racks)
    else:  # link
        a, arrow, b = ident.partition("->")
        a, b = a.strip(), b.strip()
        links = analysis.layout.links
        if arrow:
            found_links = [i for i, link in enumerate(links) if {link.a, link.b} == {a, b}]
        else:
            found_links = [i for i, link in enumerate(links) if ident in (link.a, link.b)]
        if not found_links:
            raise PartError(f"no link with an end {ident} in the layout")
        lost.links.update(found_links)


def _loop(analysis: Analysis, ident: str) -> str:
    """``ident``, a water loop of the layout; a :class:`PartError` naming its loops."""
    ids = [loop.id for loop in analysis.layout.cooling_loops]
    if ident in ids:
        return ident
    if not ids:
        raise PartError(
            f"no loop {ident}: the layout declares no water loops "
            "([[cooling.loops]], docs/liquid-cooling.md)"
        )
    raise PartError(f"no loop {ident} in the layout; its loops: {_listed(ids)}")


def _listed(ids: list[str]) -> str:
    unique = list(dict.fromkeys(ids))
    return first_of(unique, SHOWN_IDS)


def _known(chain: PowerChain, wanted: str) -> str:
    """The chain's ids of kind ``wanted`` (else its elements), for a message: read only
    where an id is refused (every element's failure of ``report`` and ``whatif --each``
    names one, and reading them all for each was elements²)."""
    same = chain.ids(wanted)
    if same:
        return f"its {wanted} ids: {_listed(same)}"
    return f"it has no {wanted}; its elements: " + _listed(
        [f"{e.kind}:{e.id}" for e in chain.elements]
    )


def _chain_element(chain: PowerChain, kind: str, ident: str) -> int:
    """The index of the chain's element ``ident``, which must be of ``kind`` (a UPS with
    modules for ``ups-module``); a :class:`PartError` that says which ids there are."""
    wanted = "ups" if kind == MODULE else kind
    if not chain:
        raise PartError(
            f"no {wanted} {ident}: the layout declares no power chain "
            "([[power.elements]], docs/power-chain.md)"
        )
    index = chain.by_id.get(ident)
    if index is None:
        raise PartError(f"no {wanted} {ident} in the power chain; {_known(chain, wanted)}")
    facts = chain.elements[index]
    if facts.kind != wanted:
        raise PartError(
            f"{ident} is a {facts.kind}, not a {wanted} (fail it as {facts.kind}:{ident}); "
            + _known(chain, wanted)
        )
    if kind == MODULE and (facts.modules or 1) < 2:
        raise PartError(
            f"ups {ident} has no modules to lose one of (modules = {facts.modules or 1}): "
            f"fail the whole UPS as ups:{ident}"
        )
    return index


def _kind_of(device_kind: str | None) -> str:
    """`` (fail it as switch:ID)`` where a device of that kind is a failure kind."""
    for kind, wanted in DEVICE_KINDS.items():
        if wanted == device_kind:
            return f" (fail it as {kind}:ID)"
    return ""


def _of_kind(analysis: Analysis, kind: str, rack: str | None = None) -> str:
    """``; rear doors in the layout: a01-door, a02-door``: what there is of ``kind`` (in
    ``rack`` where it has some), to name one."""
    wanted = DEVICE_KINDS[kind]
    found = [d.id for d in analysis.devices if d.kind == wanted]
    here = [d.id for d in analysis.devices if d.kind == wanted and d.rack.id == rack]
    plural = KIND_PLURALS[kind]
    if not found:
        return f"; the layout has no {plural}"
    listed = here or found
    shown = first_of(listed, 5)
    where = f"in rack {rack}" if here else "in the layout"
    return f"; {plural} {where}: {shown}"


def _not_a_device(analysis: Analysis, index: PartIndex, kind: str, ident: str) -> str:
    """Why ``KIND:ident`` names no device: it is a rack or a feed, or nothing at all."""
    if ident in index.racks:
        rack = analysis.racks[index.racks[ident][0]]
        if kind == "door" and rack.rack.door:
            return (
                f"{ident} is a rack, not a {KIND_NAMES[kind]}: its door is {rack.rack.door} "
                f"(door:{rack.rack.door}); rack:{ident} fails the whole rack"
            )
        return (
            f"{ident} is a rack, not a {KIND_NAMES[kind]} (rack:{ident} fails the whole rack)"
            f"{_of_kind(analysis, kind, ident)}"
        )
    if ident in index.feeds:
        return f"{ident} is a feed, not a {KIND_NAMES[kind]} (feed:{ident})"
    return f"no {KIND_NAMES[kind]} {ident} in the layout{_of_kind(analysis, kind)}"


def candidates(analysis: Analysis, kind: str) -> list[Failure]:
    """Every single failure of ``kind``, in layout order."""
    if kind == "feed":
        counts: dict[str, int] = {}
        for rack in analysis.racks:
            for feed in rack.rack.feeds:
                counts[feed.id] = counts.get(feed.id, 0) + 1
        return [
            Failure("feed", feed.id if counts[feed.id] == 1 else f"{rack.rack.id}/{feed.id}")
            for rack in analysis.racks
            for feed in rack.rack.feeds
        ]
    if kind == "side":
        sides = sorted({f.side for rack in analysis.racks for f in rack.rack.feeds if f.side})
        return [Failure("side", side) for side in sides]
    if kind in DEVICE_KINDS:
        wanted = DEVICE_KINDS[kind]
        seen: set[str] = set()
        out = []
        for dev in analysis.devices:
            if dev.kind == wanted and dev.id not in seen:
                seen.add(dev.id)
                out.append(Failure(kind, dev.id))
        return out
    if kind == "rack":
        seen_racks: set[str] = set()
        out = []
        for rack in analysis.racks:
            if rack.rack.id not in seen_racks:
                seen_racks.add(rack.rack.id)
                out.append(Failure("rack", rack.rack.id))
        return out
    if kind == "link":
        return [Failure("link", link.a) for link in analysis.layout.links]
    if kind in POWER_KINDS:
        return [Failure(kind, i) for i in dict.fromkeys(analysis.power_chain.ids(kind))]
    if kind == MODULE:
        chain = analysis.power_chain
        modular = [e.id for e in chain.elements if e.kind == "ups" and (e.modules or 1) >= 2]
        return [Failure(kind, i) for i in dict.fromkeys(modular)]
    if kind == "loop":
        loops = analysis.layout.cooling_loops
        return [Failure("loop", i) for i in dict.fromkeys(loop.id for loop in loops)]
    raise PartError(f"{kind!r} is not one of {', '.join(KINDS)}")
