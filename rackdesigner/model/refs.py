"""Entity references: how findings, edits and the source map name a part of a layout.

A reference is ``(kind, id)``, as in editing.md: kind one of :data:`KINDS`; the id
is the entity's own id (a rack's, a device's, a feed's, a catalog key), a link's
``a`` end (``a01-n01:ib1``) or ``a -> b`` where two links share an ``a`` end, and a
fabric's first leaf (see :mod:`rackdesigner.analysis.fabric_graph`). The singletons
``site``, ``workload`` and ``rules`` have the id ``""``.

Line numbers are not part of an entity's identity: an edit moves them. ``nth``
tells apart entities that share kind and id (a duplicate device id, PLC005):
0 for the first in file order, 1 for the next; it is never shown.

A leaf module: it imports nothing of the package, so the model, the loader, the
analysis and the rules all use it without cycles.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

KINDS = (
    "site",
    "workload",
    "rules",
    "catalog",
    "gpu",
    "rack",
    "feed",
    "device",
    "link",
    "fabric",
    "power",  # (v1.4) a power-chain element, [[power.elements]]
    "loop",  # (v1.4) a [[cooling.loops]] loop
    # (v1.4) the cable plant
    "pathway",
    "trunk",
    "transceiver",
)


# An entity by kind and id alone, without ``nth``: ``("device", "a01-n01")``. What an
# edit command says it touched (``Command.refs``, ``SetField``'s target) and what an
# ignore key or a baseline entry names (:mod:`rackdesigner.check.suppressions`).
KindId = tuple[str, str]


class Ref(NamedTuple):
    kind: str
    id: str
    nth: int = 0

    def __str__(self) -> str:
        return f"{self.kind} {self.id}" if self.id else self.kind

    @property
    def kind_id(self) -> KindId:
        return (self.kind, self.id)

    def as_json(self) -> dict[str, str]:
        return {"kind": self.kind, "id": self.id}


SITE = Ref("site", "")
WORKLOAD = Ref("workload", "")
RULES = Ref("rules", "")


class _LinkLike(Protocol):
    a: str
    b: str


def shared_a_ends(links: Sequence[_LinkLike]) -> frozenset[str]:
    """The ``a`` ends more than one link starts from (usually none)."""
    ends = [link.a for link in links]
    unique = set(ends)
    if len(unique) == len(ends):  # the common case, at C speed
        return frozenset()
    seen: set[str] = set()
    shared: set[str] = set()
    for end in ends:
        if end in seen:
            shared.add(end)
        seen.add(end)
    return frozenset(shared)


def link_ids(links: Sequence[_LinkLike]) -> list[tuple[str, int]]:
    """Each link's id and ``nth``, in order: its ``a`` end, or ``a -> b`` where links share
    it; identical links (same ``a`` and ``b``) are told apart by ``nth``."""
    shared = shared_a_ends(links)
    if not shared:
        return [(link.a, 0) for link in links]
    seen: dict[str, int] = {}
    ids: list[tuple[str, int]] = []
    for link in links:
        if link.a not in shared:
            ids.append((link.a, 0))
            continue
        name = f"{link.a} -> {link.b}"
        nth = seen.get(name, 0)
        seen[name] = nth + 1
        ids.append((name, nth))
    return ids


def link_refs(links: Sequence[_LinkLike]) -> list[Ref]:
    """Each link's reference, in order (see :func:`link_ids`)."""
    return [Ref("link", name, nth) for name, nth in link_ids(links)]


class Numbering:
    """Gives each (kind, id) seen again the next ``nth``."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[KindId, int] = {}

    def ref(self, kind: str, id_: str) -> Ref:
        key = (kind, id_)
        nth = self._seen.get(key)
        if nth is None:
            self._seen[key] = 1
            return Ref(kind, id_)
        self._seen[key] = nth + 1
        return Ref(kind, id_, nth)
