"""Which entity a finding is about, and the marks the racks view draws for it.

No Textual here: the app and its tests share these, and they stay cheap to import.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import chain
from typing import TYPE_CHECKING

from rackdesigner.model.diagnostics import SEVERITY_RANK, Diagnostic
from rackdesigner.model.layout import Layout

if TYPE_CHECKING:
    from rackdesigner.edit.index import LayoutIndex

Ref = tuple[str, str]  # (kind, id): ("device", "a01-n01")

# The words the rules put before an entity's id in ``Diagnostic.entity``.
_KINDS = {
    "site": "site",
    "workload": "workload",
    "rules": "rules",
    "catalog entry": "catalog",
    "catalog": "catalog",
    "gpu": "gpu",
    "GPU": "gpu",
    "rack": "rack",
    "feed": "feed",
    "device": "device",
    "link": "link",
    "fabric": "fabric",
}


def subject_of(diagnostic: Diagnostic) -> Ref | None:
    """The entity a finding names: its ``subject`` when the core sets one, else parsed
    from ``entity`` ("device a01-n01", "link a01-n01:ib1 -> a01-leaf1:p1")."""
    subject = getattr(diagnostic, "subject", None)
    if subject:
        kind, ident = subject[0], subject[1]
        return (str(kind), str(ident))
    text = diagnostic.entity.strip()
    if not text:
        return None
    # "rack p02 feed p02-L": the last, most specific entity is the subject.
    for inner in (" feed ", " device "):
        if text.startswith("rack ") and inner in text:
            text = inner.strip() + " " + text.split(inner, 1)[1]
    for words in sorted(_KINDS, key=len, reverse=True):
        if text == words:
            return (_KINDS[words], "")
        if text.startswith(words + " "):
            ident = text[len(words) + 1 :].strip()
            if _KINDS[words] == "link" and ident.startswith("#"):
                return ("link", ident)
            return (_KINDS[words], ident)
    return None


@dataclass(slots=True)
class Where:
    """Where an entity is drawn: its rack and, for a device, its id."""

    rack: str
    device: str | None = None


class Locator:
    """Where the racks view shows an entity: built once per layout state, O(1) per lookup.

    A link is shown at its ``a`` end's device; a fabric at its first leaf (its id); site-wide
    entities are nowhere (None).
    """

    def __init__(self, layout: Layout, index: LayoutIndex | None = None) -> None:
        # With the session's index (and no id held twice) lookups go through it: a pass
        # over 27,000 devices per edit is what a 100,000-GPU layout cannot afford.
        self.index = index if index is not None and not index.has_shared_ids() else None
        self.racks: set[str] = set()
        self.feeds: dict[str, str] = {}
        self.devices: dict[str, str] = {}
        if self.index is not None:
            return
        self.racks = {rack.id for rack in layout.racks}
        for rack in layout.racks:
            for feed in rack.feeds:
                self.feeds.setdefault(feed.id, rack.id)
            for device in rack.devices:
                self.devices.setdefault(device.id, rack.id)

    def __call__(self, ref: Ref) -> Where | None:
        if self.index is not None:
            return self._indexed(self.index, ref)
        kind, ident = ref
        if kind == "rack":
            return Where(ident) if ident in self.racks else None
        if kind == "feed":
            rack = self.feeds.get(ident)
            return Where(rack) if rack else None
        if kind == "link":
            ident = ident.split(" -> ")[0].split(":")[0]
            kind = "device"
        if kind in ("device", "fabric"):
            rack = self.devices.get(ident)
            return Where(rack, ident) if rack else None
        return None

    @staticmethod
    def _indexed(index: LayoutIndex, ref: Ref) -> Where | None:
        kind, ident = ref
        if kind == "rack":
            return Where(ident) if index.rack(ident) is not None else None
        if kind == "feed":
            owner = index.rack_of_feed(ident)
            return Where(owner.id) if owner is not None else None
        if kind == "link":
            ident = ident.split(" -> ")[0].split(":")[0]
            kind = "device"
        if kind in ("device", "fabric"):
            owner = index.rack_of(ident)
            return Where(owner.id, ident) if owner is not None else None
        return None


def worst(severities: Iterable[str]) -> str | None:
    best: str | None = None
    for severity in severities:
        if best is None or SEVERITY_RANK[severity] < SEVERITY_RANK[best]:
            best = severity
    return best


@dataclass(slots=True)
class Marks:
    """Findings per rack and per device, for the symbols and colours of the racks view."""

    racks: dict[str, dict[str, int]] = field(default_factory=dict)  # rack -> severity -> n
    devices: dict[str, str] = field(default_factory=dict)  # device -> worst severity
    where: dict[str, str] = field(default_factory=dict)  # marked device -> its rack

    def rack_worst(self, rack: str) -> str | None:
        return worst(self.racks.get(rack, {}))


def marks_for(
    layout: Layout,
    diagnostics: Iterable[Diagnostic],
    index: LayoutIndex | None = None,
    also: Iterable[tuple[Ref, str]] = (),
) -> Marks:
    """The marks of ``diagnostics``, and of ``also``: more (entity, severity) pairs drawn
    the same way (a scan's differences, on every device they name)."""
    marks = Marks()
    locate = Locator(layout, index)
    pairs = ((subject_of(d), d.severity) for d in diagnostics)
    for ref, severity in chain(pairs, also):
        where = locate(ref) if ref else None
        if where is None:
            continue
        counts = marks.racks.setdefault(where.rack, {})
        counts[severity] = counts.get(severity, 0) + 1
        if where.device is not None:
            marks.where[where.device] = where.rack
            marks.devices[where.device] = (
                worst((severity, marks.devices.get(where.device, "info"))) or severity
            )
    return marks


def entry_marks(
    devices: dict[str, str], rack_of: Callable[[str], str | None], is_node: Callable[[str], bool]
) -> Callable[[str], str | None]:
    """What the topology view marks on an entry that jumps to ``target``: the device's own
    mark, or, for a rack's GPU nodes (an entry jumps to the first of them), the first mark
    of any GPU node of that rack."""
    by_rack: dict[str, str] = {}
    for device, mark in devices.items():
        rack = rack_of(device) if is_node(device) else None
        if rack is not None:
            by_rack.setdefault(rack, mark)

    def mark(target: str) -> str | None:
        if target in devices:
            return devices[target]
        if not is_node(target):
            return None
        rack = rack_of(target)
        return by_rack.get(rack) if rack is not None else None

    return mark
