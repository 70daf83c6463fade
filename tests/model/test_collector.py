"""``collection_paused``: the one way the commands and the designer pause the collector."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from rackdesigner.model.collector import collection_paused


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()


def test_off_inside_and_restored_after() -> None:
    gc.enable()
    with collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    with collection_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # it was off: it stays off


def test_restored_when_the_work_raises() -> None:
    gc.enable()
    with pytest.raises(RuntimeError), collection_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_nested_pauses_restore_once_at_the_outermost() -> None:
    gc.enable()
    with collection_paused():
        with collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still runs
    assert gc.isenabled()


def test_pauses_of_two_threads_are_counted() -> None:
    """The collector is process-wide: the first pause in turns it off, the last one out
    (of whichever thread) turns it back on."""
    gc.enable()
    inside, leave = threading.Event(), threading.Event()

    def worker() -> None:
        with collection_paused():
            inside.set()
            leave.wait(5)

    thread = threading.Thread(target=worker)
    with collection_paused():
        thread.start()
        assert inside.wait(5)
    assert not gc.isenabled()  # the worker's pause still runs
    leave.set()
    thread.join(5)
    assert gc.isenabled()


def test_a_great_many_objects_made_are_frozen() -> None:
    """Made while paused and more than ``freeze_above``: frozen, so the first collection
    after does not walk them all; below it (or with None) they are left to the collector."""
    gc.enable()
    gc.unfreeze()
    with collection_paused(freeze_above=1_000):
        kept: list[list[int]] = [[] for _ in range(5_000)]
    assert gc.get_freeze_count() >= 5_000
    gc.unfreeze()
    with collection_paused(freeze_above=None):
        kept += [[] for _ in range(5_000)]
    assert gc.get_freeze_count() == 0
    with collection_paused(freeze_above=1_000_000):
        kept += [[] for _ in range(5_000)]
    assert gc.get_freeze_count() == 0
    assert len(kept) == 15_000


def test_it_decorates_a_function() -> None:
    """As the commands use it: ``@collection_paused()`` on the command's function."""

    @collection_paused()
    def work() -> bool:
        return gc.isenabled()

    gc.enable()
    assert work() is False
    assert gc.isenabled()
