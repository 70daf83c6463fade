"""The source map: which line of the text an entity was read from.

Findings name entities (:class:`~rackdesigner.model.refs.Ref`), not lines; output
formats ask the source map for the line at output time. It belongs to a
:class:`~rackdesigner.layout_io.document.Document` and describes the text that was read
or last saved, not the layout in memory: an entity added since has no line,
and :meth:`SourceMap.locate` reports it at its nearest enclosing entity that has
one (a new device at its rack), else at line 0.

A 200,000-cable layout has 200,000 links to map, and most runs look up a
handful of lines: the map is built on first use, and links are keyed by their id
string (a reference made per link would cost more than the look-ups).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from rackdesigner.model.refs import Ref

Lines = tuple[dict[Ref, int], dict[str, int]]


class SourceMap:
    """Entity reference -> line. ``build`` returns the lines of every entity but the first
    link of each id, and those links' lines by id."""

    __slots__ = ("_build", "_lines", "_links")

    def __init__(
        self,
        lines: dict[Ref, int] | None = None,
        build: Callable[[], Lines] | None = None,
    ):
        self._lines: dict[Ref, int] | None = None
        self._links: dict[str, int] = {}
        self._build = build
        if lines is not None or build is None:
            self._lines = {}
            for ref, line in (lines or {}).items():
                if ref.kind == "link" and ref.nth == 0:
                    self._links[ref.id] = line
                else:
                    self._lines[ref] = line

    def _ready(self) -> dict[Ref, int]:
        if self._lines is None:
            assert self._build is not None
            self._lines, self._links = self._build()
            self._build = None
        return self._lines

    def line(self, ref: Ref) -> int | None:
        """The line ``ref`` was read from; None when the text did not have it."""
        lines = self._ready()
        if ref[0] == "link" and ref[2] == 0:
            return self._links.get(ref[1])
        return lines.get(ref)

    def locate(self, ref: Ref | None, enclosing: Callable[[Ref], Ref | None]) -> int:
        """The line to report a finding about ``ref`` at: its own, else its nearest
        enclosing entity's (``enclosing`` names the parent of a reference), else 0."""
        seen = 0
        while ref is not None and seen < 8:  # a parent chain is short; never loop forever
            line = self.line(ref)
            if line is not None:
                return line
            ref = enclosing(ref)
            seen += 1
        return 0

    def __contains__(self, ref: object) -> bool:
        return isinstance(ref, Ref) and self.line(ref) is not None

    def __len__(self) -> int:
        return len(self._ready()) + len(self._links)

    def items(self) -> Iterator[tuple[Ref, int]]:
        yield from self._ready().items()
        for name, line in self._links.items():
            yield Ref("link", name), line


EMPTY = SourceMap({})
