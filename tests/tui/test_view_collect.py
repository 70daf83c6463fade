"""View switches leave the garbage of their repaints to one collection once switching
pauses (``COLLECT_AFTER_SWITCH_S``), not to the collector's own timing inside a switch.

No wall clock: the collection's timer is one the test holds and fires itself (with a real
timer of 0.3 s this test failed on a loaded two-core machine, where four key presses took
longer than the pause it waited for)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rackdesigner.tui.controllers.checking import COLLECT_AFTER_SWITCH_S
from tests.tui.pilot import SIZE, app_for, copy, run, settle


class HeldTimer:
    """A one-shot timer that fires when the test says so (unless stopped)."""

    def __init__(self, delay: float, callback: Callable[[], None]) -> None:
        self.delay = delay
        self.callback = callback
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True

    def fire(self) -> None:
        assert not self.stopped
        self.callback()


def test_one_collection_after_a_burst_of_switches(tmp_path: Path) -> None:
    collections: list[int] = []
    timers: list[HeldTimer] = []

    def held(delay: float, callback: Callable[[], None]) -> HeldTimer:
        timers.append(HeldTimer(delay, callback))
        return timers[-1]

    async def journey() -> None:
        app = app_for(copy("training-128.toml", tmp_path), tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            app.main.collection.set_timer = held
            app.main.collection.collect = lambda: collections.append(1)
            for key in "4321":
                await pilot.press(key)
            assert app.main.view_name == "racks"
            # Each switch put the collection off: none inside the burst, one waiting.
            assert collections == []
            assert [t.stopped for t in timers] == [True, True, True, False]
            assert {t.delay for t in timers} == {COLLECT_AFTER_SWITCH_S}
            timers[-1].fire()  # switching has paused that long
            assert collections == [1]
            assert app.main.collection.timer is None

    run(journey)
