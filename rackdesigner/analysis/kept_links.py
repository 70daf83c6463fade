"""(what-if) A failed layout's cables' facts, each made when first read from the layout's.

A failed layout keeps a subsequence of the layout's cables (``kept``: their indexes, in
order) and every device. Where every cable kept resolved cleanly in the layout (no port
taken twice, no unknown device or port) and no trunk runs them, each kept cable resolves
its ends as it did, on the same devices (:func:`.links.derive_link`): its facts can be
made alone, at its place in the failed layout's list, without resolving the others. A
failure's checks read a few of them (the cables it touches, a fabric's stretch of them);
:class:`KeptLinks` makes those it is asked for, once each, so that a failure costs what
it reads, not a fact per cable of the hall. Reading it whole makes every one, as
:func:`.links.derive_links` would.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar, overload

from rackdesigner.analysis.facts import LinkFacts

__all__ = ["KeptIndexes", "KeptLinks", "KeptView", "kept_ok"]

_T = TypeVar("_T")


class KeptLinks(Sequence[LinkFacts]):
    """The facts of a failed layout's ``count`` cables, each made by ``make`` (its index)
    when first read, then kept (the same object on every read)."""

    __slots__ = ("_count", "_made", "_make")

    def __init__(self, count: int, make: Callable[[int], LinkFacts]) -> None:
        self._count = count
        self._make = make
        self._made: dict[int, LinkFacts] = {}

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> LinkFacts: ...
    @overload
    def __getitem__(self, index: slice) -> list[LinkFacts]: ...
    def __getitem__(self, index: int | slice) -> LinkFacts | list[LinkFacts]:
        if isinstance(index, slice):
            return [self._one(number) for number in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(index)
        return self._one(index)

    def _one(self, index: int) -> LinkFacts:
        found = self._made.get(index)
        if found is None:
            found = self._made[index] = self._make(index)
        return found

    def __iter__(self) -> Iterator[LinkFacts]:
        return map(self._one, range(self._count))

    @property
    def made(self) -> int:
        """How many facts were made so far."""
        return len(self._made)

    def every(self) -> list[LinkFacts]:
        """Every cable's facts, in order (each made now if it was not)."""
        return list(self)


def kept_ok(kept: Sequence[int], unclean: Sequence[int]) -> bool:
    """Whether no cable at the ascending indexes ``unclean`` is among ``kept`` (ascending)."""
    for number in unclean:
        found = bisect_left(kept, number)
        if found < len(kept) and kept[found] == number:
            return False
    return True


class KeptIndexes(Sequence[int]):
    """The indexes ``0 .. total - 1`` but those ``cut`` (ascending, distinct), in order:
    the cables a failed layout keeps, found by bisection rather than listed (the ``i``-th
    is ``i`` plus how many are cut before it)."""

    __slots__ = ("_cut", "_shift", "_total")

    def __init__(self, total: int, cut: Sequence[int]) -> None:
        self._total = total
        self._cut = cut
        # cut[j] - j does not decrease: the i-th kept index has as many cut before it as
        # there are of these at most i.
        self._shift = [number - j for j, number in enumerate(cut)]

    def __len__(self) -> int:
        return self._total - len(self._cut)

    @property
    def cut(self) -> Sequence[int]:
        """The indexes left out, ascending."""
        return self._cut

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> list[int]: ...
    def __getitem__(self, index: int | slice) -> int | list[int]:
        if isinstance(index, slice):
            return [self[number] for number in range(*index.indices(len(self)))]
        count = len(self)
        if index < 0:
            index += count
        if not 0 <= index < count:
            raise IndexError(index)
        return index + bisect_right(self._shift, index)

    def __iter__(self) -> Iterator[int]:
        start = 0
        for number in (*self._cut, self._total):
            yield from range(start, number)
            start = number + 1

    def __contains__(self, number: object) -> bool:
        if not isinstance(number, int) or not 0 <= number < self._total:
            return False
        found = bisect_left(self._cut, number)
        return found == len(self._cut) or self._cut[found] != number


class KeptView(Sequence[_T]):
    """The items of ``items`` at the indexes ``kept`` (a :class:`KeptIndexes`), in order:
    a failed layout's cables as a view of the layout's, not a copy of a hall's 150,000
    (its ``i``-th is the layout's ``kept[i]``-th, found by bisection)."""

    __slots__ = ("_items", "_kept")

    def __init__(self, items: Sequence[_T], kept: KeptIndexes) -> None:
        self._items = items
        self._kept = kept

    @property
    def kept(self) -> KeptIndexes:
        """The indexes in the layout's list of this view's items, in order."""
        return self._kept

    def __len__(self) -> int:
        return len(self._kept)

    @overload
    def __getitem__(self, index: int) -> _T: ...
    @overload
    def __getitem__(self, index: slice) -> list[_T]: ...
    def __getitem__(self, index: int | slice) -> _T | list[_T]:
        if isinstance(index, slice):
            items = self._items
            return [items[number] for number in self._kept[index]]
        return self._items[self._kept[index]]

    def __iter__(self) -> Iterator[_T]:
        items, start = self._items, 0
        for number in (*self._kept.cut, len(items)):
            yield from items[start:number]
            start = number + 1

    def __eq__(self, other: object) -> bool:
        if isinstance(other, KeptView | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # as a list's

    def __repr__(self) -> str:
        return f"KeptView({list(self)!r})"
