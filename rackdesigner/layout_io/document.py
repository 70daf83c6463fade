"""A layout and where it came from: the unit that is loaded, checked, edited and saved.

The model (:class:`~rackdesigner.model.layout.Layout`) is plain data with no line numbers
and no file origin. A :class:`Document` adds what belongs to the file: its path,
a hash of the text read (to refuse overwriting a file changed since), the
**source map** (entity reference → line, for diagnostics) and the comment lines
a canonical rewrite would drop. :func:`save` writes canonical TOML atomically
and refreshes all of that from the text it wrote.

Every save of a layout goes through :func:`save` (the command line's
``export --toml``, the designer, generators).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from rackdesigner.layout_io.linemap import key_line, scan
from rackdesigner.layout_io.reader import load_text_with_map, read_text
from rackdesigner.layout_io.saving import (
    CommentsLostError,
    FileChangedError,
    SaveError,
    same_file,
    save_lock,
    streams,
    write_atomic,
)
from rackdesigner.layout_io.sourcemap import EMPTY, SourceMap
from rackdesigner.layout_io.sources import source_map
from rackdesigner.layout_io.writer import dumps
from rackdesigner.model.diagnostics import LayoutError
from rackdesigner.model.layout import Layout
from rackdesigner.model.refs import Ref

__all__ = [
    "CommentsLostError",
    "Document",
    "FileChangedError",
    "SaveError",
    "load",
    "loads",
    "save",
]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(eq=False)
class Document:
    layout: Layout
    path: str | None = None  # where it was read from or last saved to
    source_map: SourceMap = EMPTY
    # Lines of the comments a canonical rewrite of the text would drop.
    dropped_comments: tuple[int, ...] = ()
    # The text as read or written: the hash is taken from it when a save first needs it.
    _text: str | None = field(default=None, repr=False)
    _digest: str | None = field(default=None, repr=False)

    @property
    def digest(self) -> str | None:
        """SHA-256 of the text read or last saved (None for a document never on disk)."""
        if self._digest is None and self._text is not None:
            self._digest = _digest(self._text)
        return self._digest

    def line(self, ref: Ref) -> int | None:
        """The line an entity was read from (see
        :class:`~rackdesigner.layout_io.sourcemap.SourceMap`)."""
        return self.source_map.line(ref)

    def key_line(self, ref: Ref, key: str) -> int:
        """The line of ``key = ...`` inside the entity ``ref``, else the entity's line (0 when
        the text does not have the entity)."""
        start = self.source_map.line(ref) or 0
        if not start or self._text is None:
            return start
        return key_line(self._text.split("\n"), start, key)


def loads(
    text: str,
    *,
    file: str = "<text>",
    timings: dict[str, float] | None = None,
    lines_too: bool = True,
) -> Document:
    """A document from TOML text (``file`` names it in diagnostics); raises LayoutError.
    ``lines_too``: see :func:`~rackdesigner.layout_io.reader.load_text_with_map`."""
    layout, lines = load_text_with_map(text, file=file, timings=timings, lines_too=lines_too)
    return Document(layout, None, source_map(layout, lines), lines.dropped_comments, text)


def load(
    path: str | os.PathLike[str],
    *,
    timings: dict[str, float] | None = None,
    lines_too: bool = True,
) -> Document:
    """The document in the file at ``path``; raises LayoutError with E000-E002 diagnostics."""
    name = str(path)
    began = time.perf_counter()
    text, _ = read_text(name)
    if timings is not None:
        timings["read"] = timings.get("read", 0.0) + time.perf_counter() - began
    document = loads(text, file=name, timings=timings, lines_too=lines_too)
    document.path = name
    return document


def save(
    document: Document, path: str | os.PathLike[str] | None = None, *, force: bool = False
) -> None:
    """Write ``document``'s layout canonically to ``path`` (default: where it came from).

    The write is atomic (temporary file in the same folder, fsync, rename); a symlink
    is followed, so the file it points at is replaced and the link stays. Overwriting
    the file the document was read from raises, unless ``force``:

    - :class:`FileChangedError` when that file changed on disk since it was read (its
      hash differs) or was removed;
    - :class:`CommentsLostError` when the text has comments canonical form cannot keep
      (writing to another file loses nothing: the original keeps them).

    The file is checked a second time just before the rename, and an advisory lock is
    held on it meanwhile, so that another rackdesigner saving it waits; only an edit by
    another program between that last check and the rename can still be overwritten.
    ``/dev/stdout``, a device or a FIFO is written as a stream, not replaced.

    Afterwards the document describes the text written: its path, hash and source map
    (lines are right again after a save) and no comments left to drop.
    """
    if path is None:
        if document.path is None:
            raise ValueError("the document was not read from a file: give a path")
        path = document.path
    target = Path(path)
    guarded = not force and document.path is not None and same_file(target, document.path)
    if not guarded:
        text = dumps(document.layout)
        write_atomic(target, text.encode("utf-8"))
    else:
        real = target if streams(target) else Path(os.path.realpath(target))
        # Another rackdesigner saving the same file waits for this save (and then finds the
        # file changed); other editors do not lock, so the hash is checked again just
        # before the rename: what is left is the time between that read and rename(2).
        with save_lock(real):
            _refuse_if_changed(document, real, str(target))
            if document.dropped_comments:
                raise CommentsLostError(str(target), document.dropped_comments)
            text = dumps(document.layout)
            if _between_check_and_write is not None:
                _between_check_and_write()
            write_atomic(
                real,
                text.encode("utf-8"),
                before_replace=lambda: _refuse_if_changed(document, real, str(target)),
            )
    document.path = str(target)
    document._text = text
    document._digest = None
    document.source_map = source_map(document.layout, scan(text))
    document.dropped_comments = ()


# A test hook: runs after the first check and the new text is built, before the write (the
# window an edit on disk used to fall into).
_between_check_and_write: Callable[[], None] | None = None


def _refuse_if_changed(document: Document, real: Path, shown: str) -> None:
    if document.digest is None:
        return
    try:
        current, _ = read_text(real)
    except LayoutError:  # removed or unreadable: either way not the text that was read
        if not real.exists():
            raise FileChangedError(shown, "was removed") from None
        raise FileChangedError(shown) from None
    if _digest(current) != document.digest:
        raise FileChangedError(shown)
