"""The source map: which line of the text an entity was read from.

Findings name entities (:class:`~rackdesigner.refs.Ref`), not lines; output
formats ask the source map for the line at output time. It belongs to a
:class:`~rackdesigner.document.Document` and describes the text that was read
or last saved, not the layout in memory: an entity added since has no line,
and :meth:`SourceMap.locate` reports it at its nearest enclosing entity that has
one (a new device at its rack), else at line 0.

Building the map for a 200,000-cable layout takes a noticeable fraction of a
validation, and most runs look up a handful of lines: it is built on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .refs import Ref


class SourceMap:
    __slots__ = ("_build", "_lines")

    def __init__(
        self,
        lines: dict[Ref, int] | None = None,
        build: Callable[[], dict[Ref, int]] | None = None,
    ):
        self._lines = lines
        self._build = build

    @property
    def lines(self) -> dict[Ref, int]:
        if self._lines is None:
            self._lines = self._build() if self._build is not None else {}
            self._build = None
        return self._lines

    def line(self, ref: Ref) -> int | None:
        """The line ``ref`` was read from; None when the text did not have it."""
        return self.lines.get(ref)

    def locate(self, ref: Ref | None, enclosing: Callable[[Ref], Ref | None]) -> int:
        """The line to report a finding about ``ref`` at: its own, else its nearest
        enclosing entity's (``enclosing`` names the parent of a reference), else 0."""
        lines = self.lines
        seen = 0
        while ref is not None and seen < 8:  # a parent chain is short; never loop forever
            line = lines.get(ref)
            if line is not None:
                return line
            ref = enclosing(ref)
            seen += 1
        return 0

    def __contains__(self, ref: object) -> bool:
        return ref in self.lines

    def __len__(self) -> int:
        return len(self.lines)

    def items(self) -> Iterable[tuple[Ref, int]]:
        return self.lines.items()


EMPTY = SourceMap({})
