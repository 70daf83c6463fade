"""The analysis cache: invalidating the entities an edit touched gives a fresh analysis's facts."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rackdesigner.analysis import Analysis
from rackdesigner.check.engine import rules_for, run_rules
from rackdesigner.layout_io.document import load
from rackdesigner.model.layout import Device, Layout
from rackdesigner.model.refs import Ref
from tests.conftest import ROOT

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


def apply(layout: Layout, step: tuple) -> list[Ref]:
    """Apply one edit to ``layout``; return the references it touched."""
    kind, pick, value = step
    racks = layout.racks
    if kind == "move":
        _, device = _device(layout, pick)
        device.position = 1 + value % 40
        return [Ref("device", device.id)]
    if kind == "to-rack":
        index, device = _device(layout, pick)
        racks[index].devices.remove(device)
        racks[value % len(racks)].devices.append(device)
        return [Ref("device", device.id)]
    if kind == "model":
        _, device = _device(layout, pick)
        device.model = MODELS[value % len(MODELS)]
        return [Ref("device", device.id)]
    if kind == "add":
        rack = racks[pick % len(racks)]
        device = Device(f"new-{value}", MODELS[value % len(MODELS)], 1 + value % 40)
        rack.devices.append(device)
        return [Ref("device", device.id), Ref("rack", rack.id)]
    if kind == "remove":
        index, device = _device(layout, pick)
        racks[index].devices.remove(device)
        gone = [link for link in layout.links if link.a.split(":")[0] == device.id]
        layout.links = [link for link in layout.links if link not in gone]
        return [Ref("device", device.id), *(Ref("link", link.a) for link in gone)]
    if kind == "feed":
        rack = racks[pick % len(racks)]
        if not rack.feeds:
            return []
        feed = rack.feeds[value % len(rack.feeds)]
        feed.current = 10.0 + value % 90
        return [Ref("feed", feed.id)]
    if kind == "cooling":
        rack = racks[pick % len(racks)]
        rack.cooling = ("air", "liquid", "rear-door", "immersion")[value % 4]
        return [Ref("rack", rack.id)]
    if kind == "unlink":
        if not layout.links:
            return []
        link = layout.links.pop(pick % len(layout.links))
        return [Ref("link", link.a)]
    if kind == "site":
        assert layout.site is not None
        layout.site.slack = 0.1 * (value % 20)
        return [Ref("site", "")]
    raise AssertionError(kind)


STEPS = st.tuples(
    st.sampled_from(
        ["move", "to-rack", "model", "add", "remove", "feed", "cooling", "unlink", "site"]
    ),
    st.integers(0, 10_000),
    st.integers(0, 10_000),
)


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.lists(STEPS, min_size=1, max_size=4))
def test_invalidating_what_an_edit_touched_equals_a_fresh_analysis(steps) -> None:
    layout = copy.deepcopy(BASE)
    analysis = Analysis(layout)
    summary(analysis)  # build the lazy parts, so that invalidation has to drop them
    for step in steps:
        analysis.invalidate(apply(layout, step))
    assert summary(analysis) == summary(Analysis(layout))


def test_a_feed_change_keeps_the_links_and_a_link_change_keeps_the_racks() -> None:
    layout = copy.deepcopy(BASE)
    analysis = Analysis(layout)
    links, racks = analysis.links, list(analysis.racks)
    layout.links.pop()
    analysis.invalidate([Ref("link", "x")])
    assert analysis.racks == racks and analysis.links is not links
    links = analysis.links
    layout.racks[0].feeds[0].current = 50.0
    analysis.invalidate([Ref("feed", layout.racks[0].feeds[0].id)])
    assert analysis.racks[0] is not racks[0] and analysis.racks[1] is racks[1]
