"""A layout checked incrementally from another one's findings (a diff's new side, a
failed layout) gives a full check's findings exactly (rackdesigner.whatif.incremental),
on random small changes."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rackdesigner.analysis import Analysis
from rackdesigner.check.engine import check
from rackdesigner.edit.checker import finding_order
from rackdesigner.layout_io.document import load
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.layout import Layout, Link
from rackdesigner.whatif.incremental import Incremental, grouped_check
from tests.conftest import ROOT

LAYOUTS = [ROOT / "layouts" / name for name in ("inference-32-b200.toml", "training-128.toml")]
_LOADED: dict[Path, Layout] = {}


def _layout(path: Path) -> Layout:
    if path not in _LOADED:
        _LOADED[path] = load(path).layout
    return copy.deepcopy(_LOADED[path])


def _key(findings: list[Diagnostic]) -> list[tuple[object, ...]]:
    return [
        (
            *(d.code, d.severity, d.message, d.entity, d.file, d.line, d.subject, d.related),
            *(d.values, d.hint, d.suppressed),
        )
        for d in sorted(findings, key=finding_order)
    ]


def _incremental(old: Layout, new: Layout) -> tuple[Incremental, list[Diagnostic]]:
    grouped = grouped_check(Analysis(old, file="f.toml"), "f.toml")
    plan = Incremental(old, new)
    partial = plan.check(Analysis(new, file="f.toml"), "f.toml")
    return plan, partial.complete(grouped, new)


def _full(layout: Layout) -> list[Diagnostic]:
    return check(layout, file="f.toml")[1]


# One change: (kind, which rack, which device or cable, a number).
CHANGE = st.tuples(
    st.sampled_from(
        [
            *("move", "remove", "add", "refeed", "recable", "uncable", "door", "length"),
            *("media", "double"),
        ]
    ),
    st.integers(0, 1000),
    st.integers(0, 1000),
    st.integers(-6, 6),
)


def _apply(layout: Layout, change: tuple[str, int, int, int]) -> None:
    kind, r, d, n = change
    rack = layout.racks[r % len(layout.racks)]
    if kind in ("move", "remove", "add") and not rack.devices:
        return
    if kind == "move":
        device = rack.devices[d % len(rack.devices)]
        device.position = max(1, (device.position or 1) + n)
    elif kind == "remove":
        device = rack.devices.pop(d % len(rack.devices))
        layout.links[:] = [
            link
            for link in layout.links
            if device.id not in (link.a.partition(":")[0], link.b.partition(":")[0])
        ]
    elif kind == "add":
        device = copy.deepcopy(rack.devices[d % len(rack.devices)])
        device.id += f"-copy{n + 6}"
        device.position = max(1, (device.position or 1) + n)
        rack.devices.append(device)
    elif kind == "refeed" and rack.feeds:
        feed = rack.feeds[d % len(rack.feeds)]
        feed.current = max(1.0, float(feed.current or 32) + 8 * n)
    elif kind == "recable" and layout.links:
        link = layout.links[d % len(layout.links)]
        other = layout.links[(d + 1 + abs(n)) % len(layout.links)]
        link.b, other.b = other.b, link.b
    elif kind == "uncable" and layout.links:
        del layout.links[d % len(layout.links)]
    elif kind == "length" and layout.links:
        layout.links[d % len(layout.links)].length = 0.5 + 20 * abs(n)  # past a DAC's reach
    elif kind == "media" and layout.links:
        layout.links[d % len(layout.links)].media = ["dac", "aoc", "mmf", "smf"][abs(n) % 4]
    elif kind == "double" and layout.links:  # a cable twice: its ports clash (CAB005)
        link = copy.deepcopy(layout.links[d % len(layout.links)])
        layout.links.insert(r % (len(layout.links) + 1), link)
    elif kind == "door":
        rack.cooling = "rear-door" if rack.cooling != "rear-door" else None


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    st.sampled_from(LAYOUTS),
    st.lists(CHANGE, max_size=3),
    st.lists(CHANGE, min_size=1, max_size=3),
)
def test_incremental_findings_are_a_full_checks(path: Path, before: list, changes: list) -> None:
    """The old layout is a bundled one with some changes (so that it has findings a
    change can fix), the new one the old with more."""
    old = _layout(path)
    for change in before:
        _apply(old, change)
    new = copy.deepcopy(old)
    for change in changes:
        _apply(new, change)
    _plan, findings = _incremental(old, new)
    assert _key(findings) == _key(_full(new))


def test_a_move_inside_a_rack_leaves_the_fabric_rules_alone() -> None:
    old = _layout(LAYOUTS[1])
    new = _layout(LAYOUTS[1])
    device = next(d for d in new.racks[0].devices if d.id.endswith("-n02"))
    device.position = (device.position or 0) + 1
    plan, findings = _incremental(old, new)
    assert not plan.everything and not plan.fabric
    assert plan.racks < {rack.id for rack in new.racks}
    assert _key(findings) == _key(_full(new))


def test_a_new_cable_runs_the_fabric_rules_and_its_own() -> None:
    old = _layout(LAYOUTS[0])
    new = _layout(LAYOUTS[0])
    first = new.links[0]
    new.links.append(Link(a=first.a, b=first.b))  # a second cable between the same ports
    plan, findings = _incremental(old, new)
    assert plan.fabric and f"link {first.a} -> {first.b}" in plan.entities
    assert _key(findings) == _key(_full(new))


def test_a_change_outside_racks_and_cables_checks_everything() -> None:
    old = _layout(LAYOUTS[0])
    new = _layout(LAYOUTS[0])
    new.name += " (renamed)"
    plan, findings = _incremental(old, new)
    assert plan.everything
    assert _key(findings) == _key(_full(new))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(LAYOUTS), st.lists(CHANGE, min_size=1, max_size=3))
def test_lengths_kept_from_the_old_layout_are_measured_ones(path: Path, changes: list) -> None:
    """The cables' lengths the plan takes from the old layout (a diff's new side) are
    what measuring them in the new layout gives."""
    old = _layout(path)
    new = copy.deepcopy(old)
    for change in changes:
        _apply(new, change)
    before = [facts.length for facts in Analysis(old).links]
    plan = Incremental(old, new)
    measured = [facts.length for facts in Analysis(new).links]
    assert not plan.everything
    assert plan.lengths(before, Analysis(new)) == measured


# -- a failed layout checked from the layout's findings and analysis ------------------------


def _failed_exactly(layout: Layout, failures: list[str]) -> None:
    """Each failure's findings from :class:`WhatIf` (the failed layout checked where it
    differs, its analysis sharing the layout's devices and cable ends) are what a full
    check of the failed layout finds that a full check of the layout does not, finding
    for finding (every field); and the shared cable facts are those resolved afresh."""
    from collections import Counter

    from rackdesigner.analysis import Like
    from rackdesigner.check.engine import rules_for, run_rules
    from rackdesigner.check.suppressions import apply_ignores, baseline_key
    from rackdesigner.whatif import WhatIf, parse_failure
    from rackdesigner.whatif.failed import failed_state
    from rackdesigner.whatif.parts import PartIndex, resolve

    analysis = Analysis(layout)
    engine = WhatIf(analysis)
    known = Counter(baseline_key(d) for d in check(layout)[1] if not d.suppressed)
    for text in failures:
        failure = [parse_failure(part) for part in text.split(" + ")]  # parts together
        lost = resolve(analysis, failure, PartIndex(analysis))
        state = failed_state(analysis, lost, engine.gone(lost))
        failed = Analysis(state.layout, failed=state.failed)
        after = run_rules(rules_for(state.layout), failed)
        apply_ignores(state.layout, after)
        left, full = known.copy(), []
        for d in after:
            if d.suppressed:
                continue
            if left[baseline_key(d)] > 0:
                left[baseline_key(d)] -= 1
            else:
                full.append(d)
        fast = engine.run(failure).findings or []
        assert _key(fast) == _key(full), text
        shared = Analysis(
            state.layout, failed=state.failed, like=Like(analysis, state.touched, state.kept)
        )
        _derived_exactly(analysis, shared, failed, text)
        assert [_facts(f) for f in shared.links] == [_facts(f) for f in failed.links], text
        assert shared.compute_edges.keys() == failed.compute_edges.keys(), text
        assert [_rack(r) for r in shared.racks] == [_rack(r) for r in failed.racks], text


def _derived_exactly(before: Analysis, shared: Analysis, failed: Analysis, text: str) -> None:
    """What a failure's check derives from the layout's is what the failed layout has:
    the racks whose rack rules run again are those whose facts are not the layout's, and
    every other rack's rack findings are the layout's; the cables' facts made alone
    (``links_at``) are the full table's; the site rules left to the layout's findings find
    what they found there."""
    from rackdesigner.check.engine import rules_for
    from rackdesigner.whatif.incremental import _blind, _rack_findings, _run

    def device(dev: object) -> tuple[object, ...]:
        return (*_device(dev), dev.ref, dev.place)  # type: ignore[attr-defined,misc]

    assert [device(d) for d in shared.devices] == [device(d) for d in failed.devices], text
    assert {k: device(d) for k, d in shared.device_by_id.items()} == {
        k: device(d) for k, d in failed.device_by_id.items()
    }, text
    listed = {id(d) for d in shared.devices}
    assert all(id(d) in listed for d in shared.device_by_id.values()), text
    assert all(id(d) in listed for v in shared.types_used.values() for d in v), text
    assert {k: [device(d) for d in v] for k, v in shared.types_used.items()} == {
        k: [device(d) for d in v] for k, v in failed.types_used.items()
    }, text
    assert [(r.ref, r.place, [f.ref for f in r.feeds]) for r in shared.racks] == [
        (r.ref, r.place, [f.ref for f in r.feeds]) for r in failed.racks
    ], text
    assert list(shared.running) == list(failed.running), text
    assert (shared.site_load, shared.site_load_unknown, shared.total_gpus) == (
        failed.site_load,
        failed.site_load_unknown,
        failed.total_gpus,
    ), text

    import math

    for name in ("load", "air_heat"):  # the layout's sum adjusted, or the racks summed
        exact = sum(getattr(r, name) for r in failed.racks)
        near = (math.nextafter(exact, -math.inf), exact, math.nextafter(exact, math.inf))
        for bound in (*near, exact * 0.99, exact * 1.01, exact * 0.5, exact * 2, -1.0):
            assert shared.racks_sum_above(name, bound) == (not exact <= bound), (text, name)
    assert shared.names_inrows() == any(r.rack.inrows for r in failed.racks), text
    for key, devices in shared.types_used.items():
        unknown = [device(d) for d in failed.types_used[key] if d.power is None]
        assert [device(d) for d in shared.power_unknown(key, devices)] == unknown, (text, key)

    def load(group: object) -> tuple[object, ...]:
        names = ("indexes", "heat", "capacity", "lost", "margin")
        return (*(getattr(group, name) for name in names), [c.id for c in group.cdus])  # type: ignore[attr-defined]

    assert [load(g) for g in shared.cdu_loads] == [load(g) for g in failed.cdu_loads], text
    rules = rules_for(failed.layout)
    made = shared.made_racks
    assert made is not None, text
    assert made == {i for i, r in enumerate(shared.racks) if r is not before.racks[i]}, text
    rack_rules = [rule for rule in rules if rule.scope == "rack"]
    left = {r.rack.id for i, r in enumerate(failed.racks) if i not in made}
    assert _rack_findings(rack_rules, failed, left, "") == _rack_findings(
        rack_rules, before, left, ""
    ), text
    everything = range(len(failed.layout.links))
    picked = [i for i in everything if i % 3 == 0]
    assert [_facts(f) for f in shared.links_at(picked)] == [
        _facts(failed.links[i]) for i in picked
    ], text
    read = shared.links_at(picked)  # the same facts when read again, and in the table
    assert all(a is b for a, b in zip(read, shared.links_at(picked), strict=True)), text
    edges = shared.compute_edges
    assert all(shared.links[i] is read[n] for n, i in enumerate(picked)), text

    def edge(found: dict[str, object]) -> tuple[object, ...]:
        cables = [_facts(f) for f in found["links"]]  # type: ignore[attr-defined]
        return found["count"], found["bandwidth"], cables

    assert list(edges) == list(failed.compute_edges), text
    assert [edge(e) for e in edges.values()] == [edge(e) for e in failed.compute_edges.values()], (
        text
    )
    for rule in rules:
        if rule.code in _blind(before):
            assert _key(_run([rule], failed, "")) == _key(_run([rule], before, "")), rule.code


def _facts(facts: object) -> tuple[object, ...]:
    a, b = facts.a, facts.b  # type: ignore[attr-defined]
    ends = tuple(
        (e.text, e.device.id if e.device else None, e.group, e.index, e.problem, e.key, e.clash)
        for e in (a, b)
    )
    return (facts.link, facts.index, ends, facts.speed, facts.compute, facts.length, facts.ref)  # type: ignore[attr-defined]


def _device(dev: object) -> tuple[object, ...] | None:
    if dev is None:
        return None
    return tuple(getattr(dev, name) for name in ("id", "power", "liquid_heat", "air_heat", "order"))


def _rack(facts: object) -> tuple[object, ...]:
    """A rack's facts, and those of the devices it holds and names (its CDUs, its door)."""
    names = ("load", "liquid_heat", "air_heat", "door_heat", "capacity", "door_failed", "gpus")
    return (
        *(getattr(facts, name) for name in names),
        [_device(dev) for dev in facts.devices],  # type: ignore[attr-defined]
        [_device(dev) for dev in facts.cdus],  # type: ignore[attr-defined]
        _device(facts.door),  # type: ignore[attr-defined]
        [(f.load, f.capacity) for f in facts.feeds],  # type: ignore[attr-defined]
    )


def _each(layout: Layout, kind: str) -> list[str]:
    from rackdesigner.whatif.parts import candidates

    return [str(f) for f in candidates(Analysis(layout), kind)]


_KINDS = ("rack", "switch", "cdu", "side", "feed", "pdu")
_SLOW = pytest.mark.slow


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        *(("inference-32-b200.toml", kind) for kind in _KINDS),
        # a third of a second each: every feed and PDU of the 128-GPU layout to the slow step
        *(
            pytest.param("training-128.toml", kind, marks=_SLOW if kind in ("feed", "pdu") else ())
            for kind in _KINDS
        ),
        # 18 racks of NVL72 (rack-scale power, CDUs, NVLink domains): 15 s of full checks
        *(pytest.param("gb200-nvl72-su.toml", kind, marks=_SLOW) for kind in _KINDS),
    ],
)
def test_each_failed_layout_is_checked_exactly(name: str, kind: str) -> None:
    layout = _layout(ROOT / "layouts" / name)
    _failed_exactly(layout, _each(layout, kind))


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["rack", "switch"])
def test_each_failed_layout_of_a_1024_gpu_hall_is_checked_exactly(kind: str) -> None:
    """The bench's 1,024-GPU layout (35 racks, a rail-optimised fabric): every rack and
    every switch."""
    import importlib.util
    import sys

    from rackdesigner.layout_io.document import loads

    spec = importlib.util.spec_from_file_location("generate", ROOT / "bench" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("generate", module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    layout = loads(module.generate_layout_text(1024)).layout
    _failed_exactly(layout, _each(layout, kind))


def test_a_port_taken_twice_is_resolved_again_when_its_first_cable_fails() -> None:
    """A second cable on a cable's ``a`` port is CAB005 there in the layout; with the first
    cable cut (by its other end) that end is clean in the failed layout, whose cable ends
    are then resolved afresh, not taken from the layout's."""
    layout = _layout(LAYOUTS[1])
    first, other = layout.links[3], layout.links[10]
    layout.links.append(Link(a=first.a, b=other.a))
    cut = [f"link:{first.b}", f"link:{other.b}", f"link:{first.a} -> {other.a}"]
    _failed_exactly(layout, [*cut, f"rack:{layout.racks[0].id}"])


def test_a_failure_on_warmer_water_is_checked_exactly() -> None:
    """Warmer water (alone, and with a CDU lost) changes the loops and the setpoint each
    CDU holds: nothing of the layout's analysis is shared but the cable ends, each on its
    device made anew."""
    layout = load(ROOT / "tests" / "rules" / "COOL012" / "fires.toml").layout
    _failed_exactly(
        layout, ["warmer-water:5", "warmer-water:5 + cdu:c1", "warmer-water:3 + cdu:c2"]
    )


@pytest.mark.parametrize(
    "code",
    [
        # the site rules a failure is held not to change (incremental._FAILURE_BLIND)
        *("PLC005", "PWR003", "NVL001", "NVL003", "CMP007", "CMP009", "COOL004"),
        # and site rules it does change: were one of them left to the layout's findings,
        # the failed layout's own run of it would differ (PWR007: 3 racks over the site's
        # budget, one lost brings it under; COOL006: the room's air heat; STO002: the GPUs
        # the parallel file system serves)
        *("PWR007", "COOL006", "COOL003", "STO002"),
        # and those left alone only where the layout has nothing for them to judge: a
        # power chain (PWR021: a rack lost takes its load off the chain), in-row coolers
        *("PWR021", "COOL020"),
    ],
)
def test_each_rack_failure_of_a_site_rules_fixture_is_checked_exactly(code: str) -> None:
    """Every rack failure of the site rule's ``fires`` fixture: the findings, and each
    site rule left to the layout's findings against its run on the failed layout."""
    layout = load(ROOT / "tests" / "rules" / code / "fires.toml").layout
    _failed_exactly(layout, _each(layout, "rack"))


def test_a_failure_of_a_device_of_unknown_draw_is_checked_exactly() -> None:
    """PWR009's devices of unknown draw are the layout's but for the racks a failure makes
    anew: both racks of its fixture hold a ``ups-shelf`` with no power; a rack lost makes
    its shelf draw nothing (a failed device's draw is 0 W, known), so one shelf of two is
    left unknown, and the finding names one rack, not two."""
    layout = load(ROOT / "tests" / "rules" / "PWR009" / "fires.toml").layout
    _failed_exactly(layout, ["rack:a01", "rack:a02", "rack:a01 + rack:a02"])


@pytest.mark.parametrize("code", ["COOL003", "COOL009"])
def test_each_cdu_failure_of_a_cdu_rules_fixture_is_checked_exactly(code: str) -> None:
    """A site rule split in parts (racks, CDU groups) runs again on the racks and groups a
    lost CDU changes only: every CDU failure of its fixtures, a rack's part and a group's
    changed, held to a full check."""
    for name in ("fires.toml", "silent.toml"):
        layout = load(ROOT / "tests" / "rules" / code / name).layout
        _failed_exactly(layout, _each(layout, "cdu") + _each(layout, "rack"))


def test_a_failed_layouts_cable_facts_are_made_as_they_are_read() -> None:
    """A failure's check reads the facts of the cables it touches, not a fact per cable
    of the layout: the failed analysis makes those it is asked for (one rack of nodes
    lost: its leaves' cables freed, not the 128-GPU layout's every cable), each once, at
    its place in the failed layout (the layout's index less the cables cut before it)."""
    from rackdesigner.analysis import Like
    from rackdesigner.analysis.kept_links import KeptLinks
    from rackdesigner.whatif import WhatIf, parse_failure
    from rackdesigner.whatif.failed import failed_state
    from rackdesigner.whatif.parts import PartIndex, resolve

    layout = _layout(LAYOUTS[1])
    analysis = Analysis(layout)
    lost = resolve(analysis, [parse_failure("rack:a01")], PartIndex(analysis))
    state = failed_state(analysis, lost, WhatIf(analysis).gone(lost))
    shared = Analysis(
        state.layout, failed=state.failed, like=Like(analysis, state.touched, state.kept)
    )
    kept = shared.links
    assert isinstance(kept, KeptLinks) and kept.made == 0
    last = len(kept) - 1
    assert kept[-1] is kept[last] and kept[last].index == last
    assert kept[last].link is layout.links[state.kept[last]]
    assert [f.index for f in kept[2:5]] == [2, 3, 4] and kept.made == 4
    assert len(state.cut) > 0 and len(kept) == len(layout.links) - len(state.cut)


@given(st.text("ab:01", max_size=6), st.text("ab:01", max_size=6))
def test_the_port_index_joins_the_ends_resolving_joins(a: str, b: str) -> None:
    """Two cable ends are one port for the port index (whatif.incremental.Ports) exactly
    where they are for the walk it replaces: the same device, the same port group and
    index (``p01`` is ``p1``)."""
    from rackdesigner.whatif.incremental import _end_key, _port_key

    def walk(end: str) -> tuple[str, object]:
        device, _, port = end.partition(":")
        return device, _port_key(port)

    assert (walk(a) == walk(b)) == (_end_key(a) == _end_key(b))


@given(st.integers(0, 40), st.sets(st.integers(0, 39)))
def test_the_kept_indexes_are_those_not_cut(total: int, cut: set[int]) -> None:
    """A failed layout's kept cables (analysis.kept_links.KeptIndexes), found by
    bisection, are the indexes not cut, in order: read one by one, from the end, whole,
    and asked whether they hold one."""
    from rackdesigner.analysis.kept_links import KeptIndexes

    cuts = sorted(c for c in cut if c < total)
    kept = KeptIndexes(total, cuts)
    listed = [n for n in range(total) if n not in cut]
    assert list(kept) == listed and len(kept) == len(listed)
    assert [kept[i] for i in range(len(listed))] == listed
    assert [kept[-1 - i] for i in range(len(listed))] == listed[::-1]
    assert kept[1:3] == listed[1:3]
    assert [n for n in range(-1, total + 2) if n in kept] == listed


@given(st.integers(0, 40), st.sets(st.integers(0, 39)))
def test_a_failed_layouts_cables_are_a_view_of_the_layouts(total: int, cut: set[int]) -> None:
    """A failed layout's cables (analysis.kept_links.KeptView over the layout's list, not a
    copy of it) read as the list of those not cut would: one by one, from the end, in
    slices, whole, and compared."""
    from rackdesigner.analysis.kept_links import KeptIndexes, KeptView

    items = [f"c{n}" for n in range(total)]
    view = KeptView(items, KeptIndexes(total, sorted(c for c in cut if c < total)))
    listed = [c for n, c in enumerate(items) if n not in cut]
    assert list(view) == listed and len(view) == len(listed) and view == listed
    assert [view[i] for i in range(len(listed))] == listed
    assert [view[-1 - i] for i in range(len(listed))] == listed[::-1]
    assert view[1:4] == listed[1:4] and view[::-2] == listed[::-2]
    assert (view == [*listed, "x"]) is False and bool(view) == bool(listed)
