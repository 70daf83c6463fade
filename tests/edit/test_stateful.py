"""Random edit sequences on bundled layouts: the session's incremental findings equal a
full check from scratch, its index equals a fresh one, and undoing everything gives back
the layout as it was loaded.

The full check and the fresh index are most of the cost, so they run every few steps
(``CHECK_EVERY``), at an offset each run draws (across runs every step position is
checked), and always at the end of a run, before and after undoing it all: a wrong state
is found by the next check at the latest, and shrinking takes the steps after it away.

A few hundred steps run in CI; ``HYPOTHESIS_PROFILE=thorough`` runs thousands and checks
after every step (see tests/conftest.py).
"""

from __future__ import annotations

import copy
import os

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from rackdesigner.check.engine import check
from rackdesigner.edit import (
    AddFeed,
    AddLink,
    AddRack,
    Batch,
    Command,
    EditError,
    LayoutIndex,
    MoveDevice,
    PlaceDevice,
    RemoveDevice,
    RemoveFeed,
    RemoveLink,
    RemoveRack,
    RenameEntity,
    Session,
    SetField,
)
from rackdesigner.edit.checker import finding_order
from rackdesigner.layout_io import dumps
from rackdesigner.layout_io.document import load
from rackdesigner.model.diagnostics import Diagnostic
from tests.conftest import ROOT

THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"
CHECK_EVERY = 1 if THOROUGH else 4

LAYOUTS = [
    ROOT / "layouts" / "inference-32-b200.toml",
    ROOT / "layouts" / "problems" / "cabling.toml",
    ROOT / "layouts" / "problems" / "cooling.toml",
    ROOT / "layouts" / "problems" / "network.toml",
    ROOT / "layouts" / "problems" / "placement.toml",
    ROOT / "layouts" / "problems" / "power.toml",
    ROOT / "layouts" / "problems" / "compute.toml",
]
MODELS = ["dgx-h100", "dgx-b200", "qm9700", "sn2201", "blank-1u", "pdu-3ph-415v-63a", "dgx-h10"]
TEXTS: dict[str, dict[str, list[str]]] = {
    "rack": {
        "height": ["42 U", "48 U", "20 U", "42"],
        "cooling": ["air", "liquid", "rear-door", "immersion", "water"],
        "max_weight": ["1400 kg", "200 kg", ""],
        "label": ["west", ""],
    },
    "feed": {
        "current": ["63 A", "32 A", "16 A", "63 V"],
        "phases": ["1", "3"],
        "voltage": ["415 V", "208 V", "230 V"],
        "side": ["A", "B", ""],
        "circuit": ["P1", "P2", ""],
    },
    "device": {
        "phase": ["L1", "L2", "L1-L2", ""],
        "position": ["1", "10", "20", "40"],
        "model": ["dgx-h100", "qm9700", "cpu-node-1u", "dgx-b20"],
        "face": ["front", "rear", ""],
        "label": ["x", ""],
    },
    "link": {
        "media": ["dac", "aoc", "smf", "copper-rj45", ""],
        "length": ["2 m", "30 m", "500 m", "3 V", ""],
    },
    "site": {"power_budget": ["1 MW", "50 kW", ""], "slack": ["1 m", "0.5 m"]},
    "workload": {"kind": ["training", "inference"], "model_params": ["70e9", "1e12", "7e9"]},
}


def full_check(session: Session) -> list[Diagnostic]:
    """A check from scratch, lines from the session's document (entities added since it
    was read are reported at their nearest enclosing entity)."""
    found = check(session.layout, file=session.path or "", source_map=session.document.source_map)
    return sorted(found[1], key=finding_order)


def assert_current(session: Session) -> None:
    got, want = session.findings, full_check(session)
    if got != want:
        missing = [d for d in want if d not in got]
        extra = [d for d in got if d not in want]
        order = "" if missing or extra else " (the same findings in another order)"
        raise AssertionError(
            f"incremental findings differ{order}:\nmissing {missing}\nextra {extra}"
        )


class EditSequences(RuleBasedStateMachine):
    session: Session

    @initialize(path=st.sampled_from(LAYOUTS), offset=st.integers(0, CHECK_EVERY - 1))
    def open(self, path: object, offset: int) -> None:
        document = load(str(path))
        self.original = copy.deepcopy(document.layout)
        self.session = Session(document)
        self.refused = 0
        self.steps = offset  # the full check runs when this reaches a multiple of CHECK_EVERY

    # -- drawing entities -------------------------------------------------------------------

    def _pick(self, data: st.DataObject, options: list[str]) -> str | None:
        return data.draw(st.sampled_from(options)) if options else None

    def _device(self, data: st.DataObject) -> str | None:
        return self._pick(data, sorted(self.session.index.device_ids()))

    def _rack(self, data: st.DataObject) -> str | None:
        return self._pick(data, sorted(self.session.index.rack_ids()))

    def _port(self, data: st.DataObject, other: str | None = None) -> str | None:
        """A port: mostly a free one of a device with free ports, sometimes any."""
        index = self.session.index
        if data.draw(st.integers(0, 9)):
            devices = sorted(d for d in index.device_ids() if d != other and index.free_ports(d))
            device = self._pick(data, devices)
            return self._pick(data, index.free_ports(device)) if device else None
        device = self._device(data)
        if device is None:
            return None
        return self._pick(data, index.ports(device)) or f"{device}:ib1"

    def _position(self, data: st.DataObject, rack_id: str, model: str, moving: str | None) -> int:
        """Mostly a position where a device of ``model`` fits, sometimes any."""
        index = self.session.index
        dtype = index.catalog.devices.get(model)
        rack = index.rack(rack_id)
        if dtype is None or rack is None or not data.draw(st.integers(0, 3)):
            return data.draw(st.integers(0, 45))
        height = max(1, round(dtype.height_u))
        taken = index.occupied(rack_id, "front")
        fits = [
            p
            for p in range(1, int(rack.height_u) - height + 2)
            if all(taken.get(u) is None or taken[u].id == moving for u in range(p, p + height))
        ]
        return data.draw(st.sampled_from(fits)) if fits else data.draw(st.integers(0, 45))

    def _command(self, data: st.DataObject, kind: str) -> Command | None:
        index = self.session.index
        if kind == "place":
            rack = self._rack(data)
            if rack is None:
                return None
            model = data.draw(st.sampled_from(MODELS))
            dtype = index.catalog.devices.get(model)
            zero = dtype is not None and dtype.height_u == 0
            position = None if zero else self._position(data, rack, model, None)
            face = data.draw(st.sampled_from([None, "front", "rear"]))
            return PlaceDevice(rack, model, position, face, "left" if zero else None)
        if kind == "move":
            device = self._device(data)
            if device is None:
                return None
            rack = self._rack(data) if data.draw(st.booleans()) else None
            found = index.device(device)
            home = index.rack_of(device)
            assert found is not None and home is not None
            position = self._position(data, rack or home.id, found.model, device)
            return MoveDevice(device, rack, position=position)
        if kind == "remove":
            device = self._device(data)
            return RemoveDevice(device) if device else None
        if kind == "link":
            a = self._port(data)
            b = self._port(data, a.partition(":")[0] if a else None)
            if a is None or b is None:
                return None
            return AddLink(a, b, data.draw(st.sampled_from([None, "dac", "aoc", "smf"])))
        if kind == "unlink":
            links = self.session.layout.links
            if not links:
                return None
            link = links[data.draw(st.integers(0, len(links) - 1))]
            return RemoveLink(index.link_ref(link))
        if kind == "set":
            entity = data.draw(st.sampled_from(sorted(TEXTS)))
            key = data.draw(st.sampled_from(sorted(TEXTS[entity])))
            text = data.draw(st.sampled_from(TEXTS[entity][key]))
            if entity == "rack":
                ref = self._rack(data)
            elif entity == "device":
                ref = self._device(data)
            elif entity == "feed":
                ref = self._pick(
                    data, sorted({f.id for r in self.session.layout.racks for f in r.feeds})
                )
            elif entity == "link":
                links = self.session.layout.links
                ref = (
                    index.link_ref(links[data.draw(st.integers(0, len(links) - 1))])
                    if links
                    else None
                )
            else:
                ref = ""
            if ref is None:
                return None
            if entity == "rack" and key == "cooling" and data.draw(st.booleans()):
                key, text = "cdu", self._device(data) or ""
            return SetField((entity, ref), key, text)
        if kind == "rename":
            what = data.draw(st.sampled_from(["device", "rack"]))
            old = self._device(data) if what == "device" else self._rack(data)
            if old is None:
                return None
            existing = self._device(data) if what == "device" else self._rack(data)
            new = data.draw(st.sampled_from([f"{old}x", f"r-{old}", existing or "z", "bad id"]))
            return RenameEntity(what, old, new)
        raise AssertionError(kind)

    def _do(self, command: Command | None, fabric: bool = True) -> None:
        if command is None:
            return
        before = dumps(self.session.layout)
        revision = self.session.revision
        try:
            self.session.do(command, fabric=fabric)
        except EditError:
            self.refused += 1
            assert dumps(self.session.layout) == before
            assert self.session.revision == revision

    # -- steps ------------------------------------------------------------------------------

    @rule(data=st.data(), kind=st.sampled_from(["place", "move", "remove", "link", "unlink"]))
    def edit(self, data: st.DataObject, kind: str) -> None:
        self._do(self._command(data, kind))

    @rule(data=st.data())
    def set_field(self, data: st.DataObject) -> None:
        self._do(self._command(data, "set"))

    @rule(data=st.data())
    def racks_and_feeds(self, data: st.DataObject) -> None:
        """Now and then a rack or a feed comes or goes (rows may appear or move)."""
        index = self.session.index
        what = data.draw(st.sampled_from(["add rack", "remove rack", "add feed", "remove feed"]))
        if what == "add rack":
            row = data.draw(st.sampled_from(["A", "B", "Z"]))
            slot = data.draw(st.integers(1, 12))
            at = data.draw(st.none() | st.integers(0, 3))
            self._do(AddRack(index.next_id("x", "rack"), at=at, row=row, slot=slot))
        elif what == "remove rack":
            rack = self._rack(data)
            self._do(RemoveRack(rack) if rack else None)
        elif what == "add feed":
            rack = self._rack(data)
            if rack:
                side = data.draw(st.sampled_from(["A", "B"]))
                feed = index.next_id(f"{rack}-f", "feed")
                self._do(AddFeed(rack, feed, voltage="415 V", phases=3, current="32 A", side=side))
        else:
            feeds = sorted({f.id for r in self.session.layout.racks for f in r.feeds})
            feed = self._pick(data, feeds)
            self._do(RemoveFeed(feed) if feed else None)

    @rule(data=st.data())
    def rename(self, data: st.DataObject) -> None:
        self._do(self._command(data, "rename"))

    @rule(
        data=st.data(),
        kinds=st.lists(
            st.sampled_from(["place", "move", "link", "unlink", "set", "remove"]),
            min_size=2,
            max_size=4,
        ),
    )
    def batch(self, data: st.DataObject, kinds: list[str]) -> None:
        commands = [c for c in (self._command(data, k) for k in kinds) if c is not None]
        if commands:
            self._do(Batch(commands, "random batch"))

    @rule(data=st.data())
    def edit_with_fabric_in_a_worker(self, data: st.DataObject) -> None:
        self._do(self._command(data, data.draw(st.sampled_from(["link", "unlink", "move"]))), False)
        job = self.session.fabric_job()
        job.run()
        assert self.session.accept_fabric(job)

    @precondition(lambda self: self.session.can_undo)
    @rule()
    def undo(self) -> None:
        self.session.undo()

    @precondition(lambda self: self.session.can_redo)
    @rule()
    def redo(self) -> None:
        self.session.redo()

    # -- what must hold ---------------------------------------------------------------------

    def _assert_all_current(self) -> None:
        session = self.session
        if session.fabric_stale:
            session.check()
        assert_current(session)
        assert session.index.snapshot() == LayoutIndex(session.layout).snapshot()

    @invariant()
    def findings_equal_a_full_check(self) -> None:
        """Every ``CHECK_EVERY`` steps (and at the end, in teardown)."""
        self.steps += 1
        if self.steps % CHECK_EVERY == 0:
            self._assert_all_current()

    def teardown(self) -> None:
        session = getattr(self, "session", None)
        if session is None:
            return
        self._assert_all_current()  # the last steps, whatever the offset left unchecked
        while session.can_undo:
            session.undo()
        assert session.layout == self.original
        assert dumps(session.layout) == dumps(self.original)
        assert not session.dirty
        assert_current(session)


EditSequences.TestCase.settings = settings(
    max_examples=200 if THOROUGH else 12,
    stateful_step_count=60 if THOROUGH else 25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestEditSequences = EditSequences.TestCase
