"""What every edit command shares: the error it refuses with, the references it touches,
and the record of what it changed that incremental checking reads."""

from __future__ import annotations

import difflib
import unicodedata
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TypeVar

from rackdesigner.edit.index import LayoutIndex
from rackdesigner.model.layout import Layout, Link, Rack
from rackdesigner.model.refs import KindId

MAX_ID_LENGTH = 64


class EditError(ValueError):
    """A command refused: the layout is exactly as it was; ``str(error)`` says why and what
    to do instead.

    A refused field value also names the ``entity`` and ``key``, and ``message`` is then
    the loader's own message for that value (what an inspector shows beside the field).
    """

    def __init__(
        self,
        message: str,
        *,
        entity: str | None = None,
        key: str | None = None,
        code: str | None = None,
    ):
        self.message = message
        self.entity = entity
        self.key = key
        self.code = code  # E001 / E002 where the loader would refuse the same value
        super().__init__(f"{entity}: {message}" if entity else message)


@dataclass(slots=True)
class Effect:
    """What one application (or reversal) of a command changed, for incremental checking.

    ``racks`` are the racks whose facts must be recomputed (by identity; a removed rack is
    among them and simply no longer in the layout), ``links`` the cables added, removed or
    changed, ``fabric`` whether the compute fabric can have changed (a cable added or
    removed, a switch or GPU node added, removed, renamed, re-modelled or moved to another
    rack), ``site`` whether the site rules (totals, ids, circuits, CDU loads) must re-run
    (not when a device only moved inside its rack or a cable's media or length changed),
    ``everything`` whether the change reaches beyond racks and cables (the site's geometry,
    the workload, the order of rows) so that only a full check is right.
    """

    racks: dict[int, Rack] = field(default_factory=dict)
    links: dict[int, Link] = field(default_factory=dict)
    fabric: bool = False
    site: bool = True
    everything: bool = False
    # With ``site``: what the site rules may see changed, as rack fields (``rack.cooling``);
    # only the rules that read one of them run again (Rule.reads). None: anything.
    site_keys: set[str] | None = None

    def rack(self, rack: Rack | None) -> None:
        if rack is not None:
            self.racks[id(rack)] = rack

    def link(self, link: Link) -> None:
        self.links[id(link)] = link

    def merge(self, other: Effect) -> None:
        self.racks.update(other.racks)
        self.links.update(other.links)
        self.fabric |= other.fabric
        if other.site:
            if not self.site:
                self.site_keys = set(other.site_keys) if other.site_keys is not None else None
            elif self.site_keys is not None and other.site_keys is not None:
                self.site_keys |= other.site_keys
            else:
                self.site_keys = None
        self.site |= other.site
        self.everything |= other.everything


class Command(ABC):
    """An edit: ``apply`` checks its preconditions (raising :class:`EditError` before it
    changes anything), then changes the layout and the index; ``revert`` undoes exactly
    that. A command may be applied again after its revert (redo)."""

    label: str = ""

    def __init__(self) -> None:
        self.effect = Effect()
        self.refs: list[KindId] = []  # the entities it touched (editing.md)

    def apply(self, layout: Layout, index: LayoutIndex | None = None) -> None:
        index = _index_for(layout, index)
        self.effect = Effect()
        self._apply(layout, index)

    def revert(self, layout: Layout, index: LayoutIndex | None = None) -> None:
        index = _index_for(layout, index)
        self.effect = Effect()
        self._revert(layout, index)

    @abstractmethod
    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        """Check, then change ``layout`` and ``index``, recording ``effect`` and ``refs``."""

    @abstractmethod
    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        """Undo what the last ``_apply`` did, recording ``effect``."""

    @property
    def size(self) -> int:
        """About how many entities (racks, devices, cables) the command changes: an editor
        runs a large one off its UI thread."""
        return 1

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.label!r}>"


def _index_for(layout: Layout, index: LayoutIndex | None) -> LayoutIndex:
    if index is None:
        return LayoutIndex(layout)
    if index.layout is not layout:
        raise ValueError("the index belongs to another layout")
    return index


def check_id(kind: str, text: object) -> str:
    """An id as the format allows it: 1-64 characters, no whitespace, ':' or control
    characters."""
    if not isinstance(text, str) or not text:
        raise EditError(f"a {kind} id must not be empty")
    if len(text) > MAX_ID_LENGTH:
        raise EditError(
            f'{kind} id "{text[:20]}..." is {len(text)} characters; an id has at most '
            f"{MAX_ID_LENGTH}"
        )
    for char in text:
        if char == ":":
            raise EditError(
                f'{kind} id "{text}" must not contain ":" (links name ports as "device:port")'
            )
        if char.isspace():
            raise EditError(f'{kind} id "{text}" must not contain whitespace')
        if unicodedata.category(char).startswith("C"):
            raise EditError(f'{kind} id "{text!r}" must not contain control characters')
    return text


def nearest(word: str, known: list[str], n: int = 3) -> str:
    """`` (did you mean a, b?)`` for the closest known names, or nothing."""
    close = difflib.get_close_matches(word, known, n=n, cutoff=0.5)
    return f" (did you mean {', '.join(close)}?)" if close else ""


def unit_span(units: range) -> str:
    return f"U{units.start}" if len(units) == 1 else f"U{units.start}-U{units.stop - 1}"


_T = TypeVar("_T")


def remove_identity(items: list[_T], item: object) -> int:
    """Remove ``item`` (by identity) from ``items``; return where it was."""
    for number, candidate in enumerate(items):
        if candidate is item:
            del items[number]
            return number
    raise ValueError("not in the list")
