"""The figures a live analysis keeps per rack equal a fresh analysis's, after any edits.

:class:`~rackdesigner.edit.live.LiveAnalysis` updates the CDU groups, the site totals and
the header's site figures for the racks an edit touched instead of recomputing them over
the layout. Random edit sequences (moves, field edits, cooling and CDU changes that merge
and split CDU groups, racks added and removed, undo and redo) check after every step that
each of them equals what a fresh :class:`~rackdesigner.analysis.Analysis` of the layout
computes. The values are read after every step, as the designer's header does, so the
next edit updates them rather than computing them afresh.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from rackdesigner.analysis import Analysis
from rackdesigner.edit import (
    AddRack,
    Command,
    EditError,
    MoveDevice,
    RemoveDevice,
    RemoveRack,
    Session,
    SetField,
    UpdateDevice,
    UpdateRack,
)
from rackdesigner.layout_io.document import load, loads
from tests.conftest import ROOT
from tests.edit.test_commands import nearest_free
from tests.strategies import examples


def _generated(gpus: int) -> str:
    # bench/ is not a package: load the generator by path (as tests/check/test_engine.py does).
    spec = importlib.util.spec_from_file_location("generate", ROOT / "bench" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("generate", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module.generate_layout_text(gpus)  # type: ignore[no-any-return]


GENERATED = _generated(128)  # seven racks, five liquid ones naming a group of two CDUs
LAYOUTS = [
    ROOT / "layouts" / "problems" / "power.toml",  # three racks, each with its own CDU
    ROOT / "layouts" / "problems" / "cooling.toml",
    ROOT / "layouts" / "training-128.toml",
]


def figures(analysis: Analysis) -> dict[str, Any]:
    """What the live analysis keeps per rack, in plain values (facts objects differ)."""
    return {
        "site_load": analysis.site_load,
        "site_load_unknown": analysis.site_load_unknown,
        "total_gpus": analysis.total_gpus,
        "cdu_loads": [
            (
                [c.id for c in load.cdus],
                [r.rack.id for r in load.racks],
                sorted(load.indexes),
                load.heat,
                load.heat_unknown,
                load.capacity,
                load.margin,
            )
            for load in analysis.cdu_loads
        ],
        "verdicts": [analysis.cooling_verdict(r) for r in analysis.racks],
        "groups_of": [
            [(f.load.cdu.id, f.heat, f.capacity, f.margin) for f in analysis._loads_of(r)]
            for r in analysis.racks
        ],
        "site_figures": analysis.site_figures(),
        "types_used": {k: [d.id for d in v] for k, v in analysis.types_used.items() if v},
        "devices": [(d.id, d.order, d.rack_index) for d in analysis.devices],
    }


class LiveFigures(RuleBasedStateMachine):
    session: Session

    @initialize(which=st.integers(0, len(LAYOUTS)))
    def open(self, which: int) -> None:
        document = loads(GENERATED) if which == len(LAYOUTS) else load(str(LAYOUTS[which]))
        self.session = Session(document)

    # -- drawing ----------------------------------------------------------------------------

    def _rack(self, data: st.DataObject) -> str | None:
        ids = sorted(self.session.index.rack_ids())
        return data.draw(st.sampled_from(ids)) if ids else None

    def _device(self, data: st.DataObject) -> str | None:
        ids = sorted(self.session.index.device_ids())
        return data.draw(st.sampled_from(ids)) if ids else None

    def _cdus(self) -> list[str]:
        index = self.session.index
        return sorted(
            d
            for d in index.device_ids()
            if (found := index.device(d)) is not None
            and (t := index.catalog.devices.get(found.model)) is not None
            and t.kind == "cdu"
        )

    def _do(self, command: Command | None) -> None:
        if command is None:
            return
        with contextlib.suppress(EditError):  # a refused edit changes nothing
            self.session.do(command, fabric=False)  # as the designer does

    # -- edits ------------------------------------------------------------------------------

    @rule(data=st.data(), step=st.sampled_from([-1, 1, 2]))
    def move(self, data: st.DataObject, step: int) -> None:
        device = self._device(data)
        found = self.session.index.device(device) if device else None
        if found is None or found.position is None:
            return
        self._do(MoveDevice(found.id, position=max(1, found.position + step)))

    @rule(data=st.data())
    def set_cdu(self, data: st.DataObject) -> None:
        """A rack names other CDUs: groups merge, split, appear and go."""
        rack = self._rack(data)
        cdus = self._cdus()
        if rack is None or not cdus:
            return
        named = data.draw(st.lists(st.sampled_from(cdus), min_size=0, max_size=3, unique=True))
        cooling = data.draw(st.sampled_from(["liquid", "liquid", "air", "rear-door"]))
        self._do(UpdateRack(rack, cooling=cooling, cdu=named or None))

    @rule(data=st.data())
    def set_field(self, data: st.DataObject) -> None:
        session = self.session
        what = data.draw(st.sampled_from(["cooling", "label", "model", "voltage", "power"]))
        if what == "cooling":
            rack = self._rack(data)
            text = data.draw(st.sampled_from(["air", "liquid", "rear-door", "immersion"]))
            self._do(SetField(("rack", rack), "cooling", text) if rack else None)
        elif what == "label":
            device = self._device(data)
            self._do(
                UpdateDevice(device, label=data.draw(st.sampled_from(["x", "y"])))
                if device
                else None
            )
        elif what == "model":
            device = self._device(data)
            model = data.draw(
                st.sampled_from(["coolit-chx80", "blank-1u", "dgx-b200", "qm9700", "no-such"])
            )
            self._do(UpdateDevice(device, model=model) if device else None)
        elif what == "voltage":
            feeds = sorted({f.id for r in session.layout.racks for f in r.feeds})
            if feeds:
                feed = data.draw(st.sampled_from(feeds))
                text = data.draw(st.sampled_from(["208 V", "415 V", "230 V"]))
                self._do(SetField(("feed", feed), "voltage", text))
        else:
            text = data.draw(st.sampled_from(["1 MW", "50 kW", ""]))
            self._do(SetField(("site", ""), "power_budget", text))

    @rule(data=st.data())
    def racks_come_and_go(self, data: st.DataObject) -> None:
        index = self.session.index
        if data.draw(st.booleans()):
            at = data.draw(st.none() | st.integers(0, 3))
            cdus = self._cdus()
            fields: dict[str, Any] = {"row": "Z", "slot": data.draw(st.integers(1, 9))}
            if cdus and data.draw(st.booleans()):
                fields |= {"cooling": "liquid", "cdu": [data.draw(st.sampled_from(cdus))]}
            self._do(AddRack(index.next_id("x", "rack"), at=at, **fields))
        else:
            rack = self._rack(data)
            self._do(RemoveRack(rack) if rack else None)

    @rule(data=st.data())
    def remove_device(self, data: st.DataObject) -> None:
        device = self._device(data)
        self._do(RemoveDevice(device) if device else None)

    @precondition(lambda self: self.session.can_undo)
    @rule()
    def undo(self) -> None:
        self.session.undo(fabric=False)

    @precondition(lambda self: self.session.can_redo)
    @rule()
    def redo(self) -> None:
        self.session.redo(fabric=False)

    # -- what must hold ---------------------------------------------------------------------

    @invariant()
    def figures_equal_a_fresh_analysis(self) -> None:
        live = self.session.analysis
        fresh = Analysis(self.session.layout)
        assert figures(live) == figures(fresh)


LiveFigures.TestCase.settings = settings(
    max_examples=examples(15),
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestLiveFigures = LiveFigures.TestCase


def test_an_edit_recomputes_only_its_racks_groups() -> None:
    """A move inside a rack recomputes that rack's CDU group alone: the other groups stay
    the very objects they were (not a full pass that happens to give equal values)."""
    session = Session(load(str(LAYOUTS[0])))  # power.toml: one CDU per liquid rack
    live = session.analysis
    live.site_figures()
    before = list(live.cdu_loads)
    assert len(before) >= 2
    moved = next(
        d
        for facts in live.racks
        if live._loads_of(facts)
        for d in facts.rack.devices
        if d.position is not None and facts.rack.cdus
    )
    rack = session.index.rack_of(moved.id)
    assert rack is not None
    free = nearest_free(session.index, rack.id, moved.model, moved.position + 1)
    assert free is not None and free != moved.position
    session.do(MoveDevice(moved.id, position=free), fabric=False)
    after = live.cdu_loads
    index = next(f.index for f in live.racks if f.rack is rack)
    kept = [load for load in before if index not in load.indexes]
    assert kept and all(any(load is other for other in after) for load in kept)
    assert not any(load is other for load in before if index in load.indexes for other in after)
    assert figures(live) == figures(Analysis(session.layout))
