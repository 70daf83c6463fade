"""The core's progress reports (rackdesigner.model.progress) and the designer's background-work
settings (rackdesigner.tui.controllers.checking): what a front end relies on while a worker runs."""

from __future__ import annotations

import gc
import sys
import threading
from pathlib import Path

import pytest

from rackdesigner.export.registry import ExportContext, kind
from rackdesigner.model.progress import each, report, reporting
from rackdesigner.tui.controllers.checking import FAIR_SWITCH_S, background_work, busy
from tests.conftest import ROOT


def test_each_reports_start_steps_and_end_and_costs_nothing_without_a_sink() -> None:
    assert list(each(range(5), "nothing listens")) == [0, 1, 2, 3, 4]
    seen: list[tuple[str, int, int]] = []
    with reporting(lambda what, done, total: seen.append((what, done, total))):
        assert list(each(list(range(1000)), "racks")) == list(range(1000))
        report("checking", 0, 0)
    assert seen[0] == ("racks", 0, 1000) and seen[-2] == ("racks", 1000, 1000)
    assert seen[-1] == ("checking", 0, 0)
    # About a hundred steps, in order, never past the total.
    done = [d for w, d, _ in seen if w == "racks"]
    assert 90 <= len(done) <= 103 and done == sorted(done) and max(done) == 1000
    seen.clear()
    list(each([1, 2], "after"))
    assert seen == []  # the sink was only for the block


def test_a_sink_that_raises_stops_the_loop_and_sinks_are_per_thread() -> None:
    class Stop(Exception):
        pass

    def stop(what: str, done: int, total: int) -> None:
        if done >= 10:
            raise Stop

    walked: list[int] = []
    with reporting(stop), pytest.raises(Stop):
        for item in each(list(range(1000)), "racks"):
            walked.append(item)
    assert len(walked) < 1000
    other: list[tuple[str, int, int]] = []

    def elsewhere() -> None:
        list(each(list(range(50)), "elsewhere"))

    with reporting(lambda *step: other.append(step)):
        thread = threading.Thread(target=elsewhere)
        thread.start()
        thread.join()
    assert other == []  # another thread's loop does not report to this thread's sink


def test_an_exporter_reports_its_loop(tmp_path: Path) -> None:
    from rackdesigner.layout_io.document import load

    layout = load(ROOT / "layouts" / "training-128.toml").layout
    seen: list[tuple[str, int, int]] = []
    context = ExportContext(layout, settings={"theme": "light"})
    with reporting(lambda *step: seen.append(step)):
        outputs = kind("--svg-dir").load()(context, tmp_path / "racks")
    racks = [s for s in seen if s[0] == "drawing one elevation per rack"]
    assert racks[0][1:] == (0, len(layout.racks)) and racks[-1][1] == len(layout.racks)
    assert ("checking the layout", 0, 0) in seen
    assert len(outputs) == len(layout.racks)


def test_background_work_pauses_collection_and_shortens_the_switch_interval() -> None:
    enabled, interval = gc.isenabled(), sys.getswitchinterval()
    try:
        gc.enable()
        with background_work():
            assert busy() and not gc.isenabled()
            assert sys.getswitchinterval() == pytest.approx(FAIR_SWITCH_S)
            with background_work():  # nested (a fabric check under the first check)
                assert not gc.isenabled()
            assert not gc.isenabled()  # still inside the outer one
        assert not busy() and gc.isenabled()
        assert sys.getswitchinterval() == pytest.approx(interval)
        with pytest.raises(RuntimeError), background_work():
            raise RuntimeError("a failed check restores them too")
        assert gc.isenabled() and sys.getswitchinterval() == pytest.approx(interval)
    finally:
        sys.setswitchinterval(interval)
        if not enabled:
            gc.disable()


def test_background_work_freezes_a_great_many_new_objects_only() -> None:
    from rackdesigner.model.collector import FREEZE_ABOVE

    enabled = gc.isenabled()
    gc.collect()
    frozen = gc.get_freeze_count()
    try:
        with background_work():
            few = [[] for _ in range(1000)]
        assert gc.get_freeze_count() == frozen  # small work: left to the collector
        with background_work():
            many = [[] for _ in range(FREEZE_ABOVE + 10_000)]
        # A large check's objects would be walked by the first collection: frozen instead.
        assert gc.get_freeze_count() >= frozen + len(many)
        assert few and many
    finally:
        gc.unfreeze()
        if not enabled:
            gc.disable()
