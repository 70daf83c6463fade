"""A progress bar on the terminal for the command line's long work.

The core reports its long loops (drawing racks, printing pages) and a command its phases
(loading, checking, writing) through :mod:`rackdesigner.model.progress`; here they become
one bar on stderr (``rich.progress``, installed with Textual), and only where a person
watches it: stderr is a terminal, the run is not ``--quiet``, not in CI (``CI`` set) and
the terminal is not ``dumb``. Pipes, files and CI logs never get a byte of it.

The bar is transient (it is cleared when the work ends, before the command prints its
result) and appears only once the work has taken :data:`DELAY` seconds: a small layout's
``validate`` shows nothing. rich is imported only when a bar may be drawn.

    with progress.bar(quiet) as bar:
        progress.report("checking cluster.toml", 0, 0)
        ...
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from rackdesigner.model.progress import report, reporting
from rackdesigner.model.terminal import is_terminal

__all__ = ["Bar", "bar", "report", "wanted"]

DELAY = 0.4  # seconds of work before the bar appears (RACKDESIGNER_PROGRESS_DELAY)
REFRESH = 8  # redraws a second at most


def wanted(stream: TextIO | None = None, quiet: bool = False) -> bool:
    """Whether a bar belongs on ``stream`` (stderr): a terminal, not quiet, not CI."""
    if quiet:
        return False
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    return is_terminal(sys.stderr if stream is None else stream)


class Bar:
    """The sink of the core's progress while a command runs: one rich task that takes the
    description, and the length, of whatever step is reported last."""

    def __init__(self, stream: TextIO, delay: float | None = None) -> None:
        self.stream = stream
        self.shown = False  # whether the bar has been drawn (after ``delay``)
        self._progress: Any = None
        self._task: Any = None
        self._last: tuple[str, int, int] = ("working", 0, 0)
        self._lock = threading.Lock()
        self._closed = False
        # A step may report once and then run for seconds: a timer shows the bar.
        self._timer = threading.Timer(DELAY if delay is None else delay, self._show)
        self._timer.daemon = True
        self._timer.start()

    def __call__(self, what: str, done: int, total: int) -> None:
        with self._lock:
            self._last = (what, done, total)
            if self._progress is not None:
                self._progress.update(
                    self._task,
                    description=what,
                    total=total or None,
                    completed=done if total else 0,
                )

    def _show(self) -> None:
        with self._lock:
            if not self._closed and self._progress is None:
                self._start()

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        console = Console(file=self.stream, stderr=True)
        self._progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            refresh_per_second=REFRESH,
            # The command's own stderr lines go above the bar; stdout stays untouched.
            redirect_stdout=False,
        )
        self._progress.start()
        what, done, total = self._last
        self._task = self._progress.add_task(what, total=total or None, completed=done)
        self.shown = True

    def close(self) -> None:
        """Clear the bar (or never draw it): the command's result follows."""
        self._timer.cancel()
        with self._lock:
            self._closed = True
            if self._progress is not None:
                self._progress.stop()
                self._progress = None


@contextmanager
def bar(quiet: bool = False, stream: TextIO | None = None) -> Iterator[Bar | None]:
    """Show the progress reported while the block runs as a bar on stderr, when
    :func:`wanted`; otherwise report nowhere (and yield None)."""
    stream = sys.stderr if stream is None else stream
    if not wanted(stream, quiet):
        with reporting(None):
            yield None
        return
    try:
        delay = float(os.environ.get("RACKDESIGNER_PROGRESS_DELAY", DELAY))
    except ValueError:
        delay = DELAY
    sink = Bar(stream, delay)
    try:
        with reporting(sink):
            yield sink
    finally:
        sink.close()
