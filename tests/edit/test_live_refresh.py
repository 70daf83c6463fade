"""The live analysis: refreshing what an edit touched gives a fresh analysis's facts."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.geometry import rack_places
from rackdesigner.check.engine import rules_for, run_rules
from rackdesigner.edit import (
    Command,
    EditError,
    History,
    MoveDevice,
    PlaceDevice,
    RemoveDevice,
    RemoveLink,
    UpdateDevice,
    UpdateFeed,
    UpdateRack,
    UpdateSection,
)
from rackdesigner.edit.index import LayoutIndex
from rackdesigner.edit.live import LiveAnalysis
from rackdesigner.layout_io.document import load
from rackdesigner.model.layout import Device, Layout
from tests.conftest import ROOT
from tests.strategies import examples

BASE = load(ROOT / "layouts" / "training-128.toml").layout
MODELS = ("dgx-h100", "qm9700", "blank-1u", "cpu-node-1u", "nonexistent-model")


def summary(analysis: Analysis) -> tuple:
    racks = tuple(
        (
            r.ref,
            r.load,
            r.air_heat,
            r.liquid_heat,
            r.weight,
            r.units_used,
            r.capacity,
            r.gpus,
            r.cdu.id if r.cdu else None,
            tuple((f.ref, f.load, tuple(sorted(f.lines.items())), f.imbalance) for f in r.feeds),
            tuple((d.ref, d.power, d.air_heat, d.liquid_heat, d.order) for d in r.devices),
            tuple((c.device.id, c.reason) for c in r.phase_conflicts),
        )
        for r in analysis.racks
    )
    links = tuple(
        (link.ref, link.compute, link.speed, link.length, link.a.problem, link.b.problem)
        for link in analysis.links
    )
    fabrics = tuple(
        (f.name, f.gpus, f.max_tier, f.bisection, len(f.links)) for f in analysis.fabrics
    )
    cdus = tuple((c.cdu.id, c.heat, len(c.racks)) for c in analysis.cdu_loads)
    totals = (analysis.site_load, analysis.total_gpus, sorted(analysis.types_used))
    findings = sorted(
        (d.code, d.entity, d.message, d.subject)
        for d in run_rules(rules_for(analysis.layout), analysis)
    )
    return racks, links, fabrics, cdus, totals, findings


def _device(layout: Layout, pick: int) -> tuple[int, Device]:
    pairs = [(index, d) for index, rack in enumerate(layout.racks) for d in rack.devices]
    return pairs[pick % len(pairs)]


def command(layout: Layout, step: tuple) -> Command | None:
    """One edit of ``layout`` as a command (None: nothing to edit)."""
    kind, pick, value = step
    racks = layout.racks
    if kind == "move":
        return MoveDevice(_device(layout, pick)[1].id, position=1 + value % 40)
    if kind == "to-rack":
        return MoveDevice(_device(layout, pick)[1].id, racks[value % len(racks)].id)
    if kind == "model":
        return UpdateDevice(_device(layout, pick)[1].id, model=MODELS[value % len(MODELS)])
    if kind == "add":
        rack = racks[pick % len(racks)]
        model = MODELS[value % len(MODELS)]
        return PlaceDevice(rack.id, model, 1 + value % 40, id=f"new-{value}")
    if kind == "remove":
        return RemoveDevice(_device(layout, pick)[1].id)
    if kind == "feed":
        rack = racks[pick % len(racks)]
        if not rack.feeds:
            return None
        return UpdateFeed(rack.feeds[value % len(rack.feeds)].id, current=10.0 + value % 90)
    if kind == "cooling":
        cooling = ("air", "liquid", "rear-door", "immersion")[value % 4]
        return UpdateRack(racks[pick % len(racks)].id, cooling=cooling)
    if kind == "unlink":
        if not layout.links:
            return None
        return RemoveLink(layout.links[pick % len(layout.links)])
    if kind == "site":
        return UpdateSection("site", slack=0.1 * (value % 20))
    raise AssertionError(kind)


def edit(live: LiveAnalysis, history: History, step: tuple) -> LiveAnalysis:
    """Apply one edit and bring the analysis up to date as the session's checker does:
    refreshed by what it touched, or made afresh after a change that reaches everything."""
    todo = command(live.layout, step)
    if todo is None:
        return live
    try:
        history.do(todo)
    except EditError:  # refused: nothing changed
        return live
    effect = todo.effect
    if effect.everything:
        return LiveAnalysis(live.layout, history.index)
    done = live.refresh(effect.racks.values(), effect.links.values(), history.index)
    if effect.fabric or done.fabric:
        live.invalidate_fabric()
    return live


STEPS = st.tuples(
    st.sampled_from(
        ["move", "to-rack", "model", "add", "remove", "feed", "cooling", "unlink", "site"]
    ),
    st.integers(0, 10_000),
    st.integers(0, 10_000),
)


@settings(
    max_examples=examples(15),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(STEPS, min_size=1, max_size=4))
def test_refreshing_what_an_edit_touched_equals_a_fresh_analysis(steps) -> None:
    layout = copy.deepcopy(BASE)
    index = LayoutIndex(layout)
    history = History(layout, index)
    live = LiveAnalysis(layout, index)
    summary(live)  # build the lazy parts, so that the refresh has to replace them
    for step in steps:
        live = edit(live, history, step)
    # The fabric rules re-run after a fabric change only, on fabrics built again (from
    # the refreshed edges and the graph updated edge by edge): build them so here.
    live.invalidate_fabric()
    assert summary(live) == summary(Analysis(layout))
    # The places the inspector measures cables with, read from the kept facts.
    assert dict(live.places) == rack_places(layout)
    # The devices of each known model, which the inspector's port page counts.
    known = live.catalog.devices
    walked: dict[str, int] = {}
    for _, device in layout.devices():
        if device.model in known:
            walked[device.model] = walked.get(device.model, 0) + 1
    assert {model: len(devs) for model, devs in live.types_used.items() if devs} == walked


def test_a_feed_change_keeps_the_links_and_a_link_change_keeps_the_racks() -> None:
    layout = copy.deepcopy(BASE)
    index = LayoutIndex(layout)
    history = History(layout, index)
    live = LiveAnalysis(layout, index)
    links, racks = list(live.links), list(live.racks)
    live = edit(live, history, ("unlink", len(layout.links) - 1, 0))
    assert live.racks == racks and len(live.links) == len(links) - 1
    assert all(a is b for a, b in zip(live.links, links, strict=False))
    links = list(live.links)
    live = edit(live, history, ("feed", 0, 40))
    assert layout.racks[0].feeds[0].current == 50.0
    assert live.racks[0] is not racks[0] and live.racks[1] is racks[1]
    # Only the cables of the rack's own devices are resolved again.
    own = {device.id for device in layout.racks[0].devices}
    for new, old in zip(live.links, links, strict=True):
        assert new.link is old.link
        ends = {new.link.a.partition(":")[0], new.link.b.partition(":")[0]}
        assert new is old or ends & own
