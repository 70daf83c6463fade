"""What every fixer shares: a plan (a candidate fix), the context it reads, the
registry of fixers by rule code, and free ids for what a fix adds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from rackdesigner.edit import Command, LayoutIndex
from rackdesigner.edit.index import end_device
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.layout import DeviceType, Layout, Link, Rack
from rackdesigner.model.thresholds import resolve

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


def free_id(index: LayoutIndex, taken: set[str], base: str, kind: str = "device") -> str:
    """``base`` if no entity of ``kind`` has it (nor one this fix names), else ``base2``,
    ``base3``…"""
    for candidate in (base, *(f"{base}{n}" for n in range(2, 1000))):
        if candidate not in taken and not index.has_id(kind, candidate):
            taken.add(candidate)
            return candidate
    return index.next_id(base, kind)
