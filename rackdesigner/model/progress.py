"""Progress of the core's long loops, for a front end that wants to show it.

A loop over racks, pages or cables wraps its sequence in :func:`each`; whoever runs it
(the designer's export dialog, in a worker thread) installs a sink with
:func:`reporting`. Without a sink, :func:`each` costs one context-variable read per
loop. The sink is per thread (a context variable), so a command line run and a designer
export never see each other's. A sink may raise (to cancel): the loop stops there.

    with reporting(lambda what, done, total: print(what, done, total)):
        exporter(context, path)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")

# (what, done, total): "drawing racks", 1200, 3321
Sink = Callable[[str, int, int], None]

_sink: ContextVar[Sink | None] = ContextVar("rackdesigner_progress", default=None)

# A loop reports at most this many times (plus its start and end).
STEPS = 100


def report(what: str, done: int, total: int) -> None:
    """Tell the sink, if there is one, that ``done`` of ``total`` steps of ``what`` are
    done (``total`` 0: a step of unknown length has begun)."""
    sink = _sink.get()
    if sink is not None:
        sink(what, done, total)


def each(items: Sequence[T], what: str) -> Iterator[T]:
    """Yield ``items``, reporting progress through them about :data:`STEPS` times."""
    sink = _sink.get()
    if sink is None:
        yield from items
        return
    total = len(items)
    every = max(1, total // STEPS)
    sink(what, 0, total)
    for done, item in enumerate(items):
        if done % every == 0 and done:
            sink(what, done, total)
        yield item
    sink(what, total, total)


@contextmanager
def reporting(sink: Sink | None) -> Iterator[None]:
    """Send this thread's progress to ``sink`` while the block runs."""
    token = _sink.set(sink)
    try:
        yield
    finally:
        _sink.reset(token)
