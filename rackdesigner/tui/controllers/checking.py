"""Keys stay answered while a load or a check runs in a worker thread.

The checks are pure Python and hold the GIL; the app's thread gets it in turns. Two things
made a key wait far longer than its own work (measured on 100,000 GPUs, issue 14):

- The garbage collector. A load and a check create millions of long-lived objects, so the
  collector keeps starting full collections, each one C call that walks every object and
  holds the GIL for 0.2–0.5 s. Load and check make almost no cyclic garbage (a few hundred
  objects on 100,000 GPUs), so automatic collection is off while they run. When the last
  one ends after making a great many objects (a large layout's facts, its fabric graph),
  they are frozen (``gc.freeze``) before collection resumes: otherwise the first collection
  walks them all at once, the same pause again. Small work is left to the collector.
- The switch interval. The app's thread gives the GIL up at every ``select`` and every
  write to the terminal, and then waits for the worker to be told to drop it: up to
  ``sys.getswitchinterval()`` (5 ms) each time, a few dozen times per key. While a worker
  runs, the interval is 0.5 ms.

Both are process-wide, so they are counted: the first worker in sets them, the last out
restores them.
"""

from __future__ import annotations

import functools
import gc
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, ParamSpec, TypeVar

if TYPE_CHECKING:
    from rackdesigner.edit import Session

P = ParamSpec("P")
R = TypeVar("R")

# How long the app's thread waits for the GIL while a worker holds it.
FAIR_SWITCH_S = 0.0005

# Objects made (net) while collection was off above which they are frozen at the end: a
# 100,000-GPU check makes millions; the bundled layouts tens of thousands.
FREEZE_ABOVE = 250_000

_lock = threading.Lock()
_depth = 0
_saved: tuple[bool, float] = (True, 0.005)


@contextmanager
def background_work() -> Iterator[None]:
    """Run a load or check under this: no automatic collections, a short switch interval."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            _saved = (gc.isenabled(), sys.getswitchinterval())
            gc.disable()
            sys.setswitchinterval(FAIR_SWITCH_S)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                enabled, interval = _saved
                if gc.get_count()[0] > FREEZE_ABOVE:
                    gc.freeze()
                sys.setswitchinterval(interval)
                if enabled:
                    gc.enable()


def busy() -> bool:
    """Whether a worker is inside :func:`background_work` now."""
    return _depth > 0


def in_background(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` (a thread worker's body) run under :func:`background_work`."""

    @functools.wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with background_work():
            return function(*args, **kwargs)

    return run


def warm_up(session: Session) -> None:
    """Compute, in the worker, what the app's thread reads first once a check is done:
    the findings in order and the header's site figures (each a pass over the layout)."""
    from rackdesigner.tui.totals import site_figures

    session.findings  # noqa: B018 - sorts and publishes them
    if session.analysis is not None:
        site_figures(session.analysis)
