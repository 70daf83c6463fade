"""Session: a layout being edited, its history, its index and its latest findings.

What the designer app holds, and what scripts use to edit a layout with the checks kept
current. The fabric rules (the networkx graph, about a second on 100,000 GPUs) can run
apart from the rest, in a worker thread:

    job = session.fabric_job()        # on the thread that edits: cheap
    job.run()                         # in a worker: reads only what the job captured
                                      # (or remote=True and remote_check.run_remote:
                                      # in a child process, given the layout's text)
    session.accept_fabric(job)        # back on the editing thread: False if stale
    session.fabric_error              # or failed: why (None after a check that succeeded)
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from rackdesigner.edit.base import Command
from rackdesigner.edit.checker import Checker, FabricJob
from rackdesigner.edit.history import History
from rackdesigner.edit.index import LayoutIndex
from rackdesigner.layout_io.document import Document, loads, save
from rackdesigner.layout_io.reader import read_text
from rackdesigner.model.diagnostics import Diagnostic, LayoutError
from rackdesigner.model.layout import Layout


class Session:
    """A layout (or a document holding one) under edit.

    ``do`` applies a command and re-checks what it can have changed; a refused command
    raises :class:`~rackdesigner.edit.EditError` and changes nothing. ``findings`` are the
    current diagnostics, equal to a full check of the layout as it now is.
    """

    def __init__(
        self, source: Layout | Document, path: str | Path | None = None, *, check: bool = True
    ):
        if isinstance(source, Layout):
            source = _document_for(source, path)
        elif path is not None:
            source.path = str(path)
        # Whether the document's text (as read, or as last saved) is this layout while it
        # is unchanged: not so for a layout given with the path of a file (a recovered
        # autosave is described by the file it recovers).
        self._text_is_layout = isinstance(source, Document)
        self.document: Document = source
        layout = source.layout
        self.layout: Layout = layout
        self.path: str | None = source.path
        self.index = LayoutIndex(layout)
        self.history = History(layout, self.index)
        self.checker = Checker(
            layout,
            self.index,
            file=self.path or "",
            source_map=source.source_map,
        )
        self._lock = threading.RLock()
        if check:
            self.check(full=True)

    # -- state ------------------------------------------------------------------------------

    @property
    def findings(self) -> list[Diagnostic]:
        return self.checker.findings

    def finding_changes(self) -> tuple[list[Diagnostic], list[Diagnostic]] | None:
        """What the last edit (or fabric result) changed, before ``findings`` is read:
        (dropped, added) of the groups that re-ran, or None after a check from scratch
        (compare whole lists then). Guidance reads it to name the problems an edit brought
        without looking at the other 100,000 findings."""
        with self._lock:
            return self.checker.unpublished()

    @property
    def analysis(self) -> Any:
        """The analysis of the current layout (facts per rack, device, link, fabric)."""
        return self.checker.analysis

    @property
    def fabric_stale(self) -> bool:
        """Whether the fabric findings predate the last edit (a fabric job is due)."""
        return self.checker.fabric_stale

    @property
    def fabric_error(self) -> str | None:
        """Why the last fabric check failed (``"NET003: ZeroDivisionError: division by
        zero"``), None after one that succeeded. After a failure the fabric is not stale
        again until the next edit, so a failing rule is not re-run in a loop."""
        return self.checker.fabric_error

    @property
    def can_undo(self) -> bool:
        return self.history.can_undo

    @property
    def can_redo(self) -> bool:
        return self.history.can_redo

    @property
    def dirty(self) -> bool:
        return self.history.dirty

    @property
    def revision(self) -> int:
        return self.history.revision

    def save(self, path: str | Path | None = None, *, force: bool = False) -> None:
        """Write the layout (atomically, through :func:`rackdesigner.layout_io.document.save`, which
        refuses a file changed on disk or comments that would be lost, unless ``force``);
        the findings then carry the lines of the text written."""
        with self._lock:
            save(self.document, path, force=force)
            self.mark_saved()
            self._text_is_layout = True

    def mark_saved(self, path: str | Path | None = None) -> None:
        """The layout as it is now is what the file holds (the document's source map, if
        a save refreshed it, gives the findings' lines)."""
        with self._lock:
            self._text_is_layout = False  # unless save() wrote the document's text
            if path is not None:
                self.document.path = str(path)
            self.path = self.document.path
            self.checker.relocate(self.document.source_map, self.path or "")
            self.history.mark_saved()

    # -- edits ------------------------------------------------------------------------------

    def do(self, command: Command, *, fabric: bool = True) -> Command:
        """Apply ``command`` and re-check; with ``fabric`` False the fabric rules are left
        for :meth:`check_fabric` or a :meth:`fabric_job` (``fabric_stale`` says so)."""
        with self._lock:
            self.history.do(command)
            self.checker.changed(command.effect)
            self._recheck(fabric)
            return command

    def undo(self, *, fabric: bool = True) -> Command | None:
        with self._lock:
            command = self.history.undo()
            if command is not None:
                self.checker.changed(command.effect)
                self._recheck(fabric)
            return command

    def redo(self, *, fabric: bool = True) -> Command | None:
        with self._lock:
            command = self.history.redo()
            if command is not None:
                self.checker.changed(command.effect)
                self._recheck(fabric)
            return command

    def _recheck(self, fabric: bool) -> None:
        if fabric:
            self.checker.check()
        else:
            self.checker.check_fast()

    # -- checks -----------------------------------------------------------------------------

    def check(self, full: bool = False) -> list[Diagnostic]:
        """Bring every finding up to date (``full``: recompute everything from scratch)."""
        with self._lock:
            if full:
                self.checker.reset()
            self.checker.check()
            return self.findings

    def check_fast(self) -> list[Diagnostic]:
        """Bring every finding but the fabric rules' up to date."""
        with self._lock:
            self.checker.check_fast()
            return self.findings

    def check_fabric(self) -> list[Diagnostic]:
        """Run the fabric rules now, on this thread."""
        job = self.fabric_job()
        job.run()
        self.accept_fabric(job)
        return self.findings

    def fabric_job(self, *, remote: bool = False) -> FabricJob:
        """The fabric rules on the layout as it is now, to run on any thread; ``remote``:
        with the layout's text, for a child process (:mod:`rackdesigner.edit.remote_check`).

        The text is written after the lock is let go (half a second on 100,000 GPUs, which
        an edit must not wait for): an edit meanwhile changes the revision, and the job's
        result is refused as stale; one that trips the writer raises, as a stale job may."""
        with self._lock:
            job = self.checker.fabric_job(self.revision, remote=remote)
            # Unchanged since read or saved: the text is at hand (writing 100,000 GPUs out
            # again costs the app's interpreter a second or two while keys wait their turn).
            same = self._text_is_layout and not self.dirty
            text = self.document._text if same else None
        if remote:
            from rackdesigner.layout_io.writer import dumps

            job.text = text if text is not None else dumps(self.layout)
        return job

    def source_fabric_job(self) -> FabricJob | None:
        """A job for a child process from the text as read, before any check (None once
        the layout differs from it). Without the session's lock, which the first check
        holds for seconds on a large layout: the text read is the file's and never
        changes, and a revision read before and after it tells that no edit came between
        (one after it makes the job stale, refused by :meth:`accept_fabric`)."""
        revision = self.revision
        text = self.document._text if self._text_is_layout and not self.dirty else None
        if text is None or revision != self.revision:
            return None
        job = FabricJob(revision, None, [], self.checker.file, self.checker.source_map)
        job.text = text
        return job

    def accept_fabric(self, job: FabricJob) -> bool:
        """Take a finished job's findings, unless the layout changed since it began. A
        current job that failed is refused too, its error kept in :attr:`fabric_error`."""
        with self._lock:
            if job.revision != self.revision:
                return False
            return self.checker.accept_fabric(job)


def _document_for(layout: Layout, path: str | Path | None) -> Document:
    """A document for a layout given without one. When ``path`` is a file already, the
    document describes that file's text (its hash, source map and the comments a rewrite
    would drop), so that saving over it refuses a file changed since or lost comments as
    any save does; pass the :class:`Document` from ``rackdesigner.layout_io.document.load`` to skip
    reading it again."""
    if path is None:
        return Document(layout)
    name = str(path)
    if not Path(name).is_file():
        return Document(layout, name)
    try:
        text, _ = read_text(name)
    except LayoutError:
        return Document(layout, name)
    try:
        document = loads(text, file=name)
    except LayoutError:  # not a layout the loader reads: still refuse to overwrite changes
        return Document(layout, name, _text=text)
    document.layout = layout
    document.path = name
    return document
