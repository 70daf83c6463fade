"""The cyclic garbage collector paused around work that makes long-lived objects.

Loading, checking or generating a large layout creates millions of objects that all live
until the work is done (a command: until the process exits), and the model holds no
reference cycles: the collector would walk them again and again (half of a 100,000-GPU
analysis's time) and find nothing. Inside :func:`collection_paused` it does not run.

When the pause ends after a great many objects were made, they are frozen
(``gc.freeze``) before collection resumes: otherwise the first collection would walk
them all at once, the same pause again. Frozen objects are still freed when their last
reference goes; only the collector's walks leave them out.

The collector is process-wide, so pauses are counted: the first one in (of any thread)
turns it off, the last one out freezes and restores it as it was.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# Objects made (net) while paused above which they are frozen at the end: a 100,000-GPU
# check makes millions; the bundled layouts tens of thousands.
FREEZE_ABOVE = 250_000

_lock = threading.Lock()
_depth = 0
_was_enabled = True


@contextmanager
def collection_paused(*, freeze_above: int | None = FREEZE_ABOVE) -> Iterator[None]:
    """No automatic garbage collection inside. When the last pause ends, the objects made
    while it lasted are frozen if more than ``freeze_above`` were (``0``: whatever was
    made; ``None``: never), and the collector is switched back on if it was on."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                if freeze_above is not None and gc.get_count()[0] > freeze_above:
                    gc.freeze()
                if _was_enabled:
                    gc.enable()


def freeze() -> None:
    """Move every object alive now out of the collector's sight (``gc.freeze``): long-lived
    ones made outside a pause (the designer's layout and views once built); they are still
    freed when their last reference goes."""
    gc.freeze()


def collect() -> int:
    """A full collection now (the designer's, once view switching pauses)."""
    return gc.collect()
