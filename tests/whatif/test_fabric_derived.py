"""A failed layout's fabrics derived from the layout's (rackdesigner.whatif.fabric_derived)
are those a build of the failed layout gives, figure for figure and object for object, and
the findings on them a full check's; where the derivation cannot hold (a single point of
failure made, a tier changed) the fabrics are built."""

from __future__ import annotations

from collections import Counter
from functools import partial

import pytest

from rackdesigner.analysis import Analysis, Like
from rackdesigner.analysis.fabric_graph import Fabric, build_fabrics
from rackdesigner.analysis.storage import StorageFacts
from rackdesigner.check.engine import check
from rackdesigner.layout_io.document import load, loads
from rackdesigner.model.diagnostics import Diagnostic
from rackdesigner.model.layout import Layout
from rackdesigner.topology.collectives import node_kinds, scalable_units, within_units
from rackdesigner.whatif import WhatIf, parse_failure
from rackdesigner.whatif.fabric_derived import FabricDerivation, _whole
from rackdesigner.whatif.failed import cables_of, failed_state
from rackdesigner.whatif.parts import PartIndex, candidates, resolve
from tests.conftest import ROOT
from tests.whatif.test_incremental import _failed_exactly


def _rails_layout(
    crossed: tuple[str, ...] = ("a02-n3",), order: tuple[str, ...] = ("a01", "a02", "b01", "b02")
) -> Layout:
    """Two scalable units of six DGX H100 (three rails: ib1-ib3 to leaf1-leaf3 of their
    unit), every leaf cabled once to each of two spines; in unit a, a02-n3's ib1 goes to
    a-leaf3 (a crossed rail: 5 of its group's 6 nodes cable ib1 to a-leaf1). Racks a01 and
    a02 hold unit a's nodes, b01 and b02 unit b's, a03 and b03 the leaves, s01 the spines.
    ``crossed``: the nodes whose ib1 goes to their unit's leaf3; ``order``: the node racks
    in the order their cables are listed."""
    racks: list[tuple[str, list[tuple[str, str]]]] = []
    links: list[tuple[str, str]] = []
    port: Counter[str] = Counter()

    def cable(a: str, b: str) -> None:
        port[b] += 1
        links.append((a, f"{b}:p{port[b]}"))

    for su in ("a", "b"):
        for r in (1, 2):
            racks.append((f"{su}0{r}", [(f"{su}0{r}-n{n}", "dgx-h100") for n in (1, 2, 3)]))
        racks.append((f"{su}03", [(f"{su}-leaf{k}", "qm9700") for k in (1, 2, 3)]))
    for rack in order:
        for node in (f"{rack}-n{n}" for n in (1, 2, 3)):
            for rail in (1, 2, 3):
                leaf = 3 if node in crossed and rail == 1 else rail
                cable(f"{node}:ib{rail}", f"{rack[0]}-leaf{leaf}")
    racks.append(("s01", [("spine1", "qm9700"), ("spine2", "qm9700")]))
    for su in ("a", "b"):
        for k in (1, 2, 3):
            for spine in ("spine1", "spine2"):
                cable(f"{su}-leaf{k}:p{40 + int(spine[-1])}", spine)
    text = [
        'format = 1\nname = "rails"\n',
        '[workload]\nkind = "training"\nmodel_params = 70e9\nsteps_per_second = 1\n',
    ]
    for slot, (rack, devices) in enumerate(racks, start=1):
        text.append(f'[[racks]]\nid = "{rack}"\nrow = "A"\nslot = {slot}\n')
        for position, (ident, model) in enumerate(devices):
            text.append(
                f'[[racks.devices]]\nid = "{ident}"\nmodel = "{model}"\n'
                f"position = {1 + 10 * position}\n"
            )
    for a, b in links:
        text.append(f'[[links]]\na = "{a}"\nb = "{b}"\nmedia = "mmf"\n')
    return loads("\n".join(text)).layout


def _same(derived: Fabric, built: Fabric) -> None:
    """Every figure and list of a derived fabric is a build's, made of the same objects."""
    assert derived.index == built.index
    for name in ("devices", "links", "nodes"):
        assert [id(x) for x in getattr(derived, name)] == [id(x) for x in getattr(built, name)]
    assert list(derived.switches) == list(built.switches)
    for ident, switch in derived.switches.items():
        other = built.switches[ident]
        assert switch.device is other.device
        assert (switch.tier, switch.down, switch.up, switch.lateral, switch.top) == (
            other.tier,
            other.down,
            other.up,
            other.lateral,
            other.top,
        )
    assert (derived.techs, derived.gpus, derived.max_tier) == (
        built.techs,
        built.gpus,
        built.max_tier,
    )
    assert (derived.injection, derived.bisection) == (built.injection, built.bisection)
    assert list(derived.node_bandwidth.items()) == list(built.node_bandwidth.items())
    assert derived.cut_switches == built.cut_switches and derived.cut_links == built.cut_links
    assert derived.groups == built.groups
    assert derived.units == scalable_units(built)  # the same device objects, in order
    assert derived.crossed_rails == built.crossed_rails
    assert derived.ports_by_node() == built.ports_by_node()
    assert derived.kinds == node_kinds(built)  # each kind of node's first, the same object
    assert derived.unit_bests is not None
    within_units(built, derived.unit_bests[0])
    assert derived.unit_bests == built.unit_bests
    # The switches' ratios, highest first, and those above each ratio there is: a build's.
    ranked = [(ratio, ident) for ratio, _, ident in derived.ratios().ranked()]
    assert ranked == [(ratio, ident) for ratio, _, ident in built.ratios().ranked()]
    for ratio, _ in ranked:
        assert derived.ratios().above(ratio * 0.999) == built.ratios().above(ratio * 0.999)
    assert derived.oversubscription == built.oversubscription
    assert derived.models_of_leaves() == built.models_of_leaves()  # the same first objects


def _derived(layout: Layout, kinds: tuple[str, ...]) -> dict[str, bool]:
    """Each single failure of ``kinds``: its derived fabrics held to a build of the failed
    layout; whether they were derived (else built)."""
    analysis = Analysis(layout)
    engine = WhatIf(analysis)
    index, cables = PartIndex(analysis), cables_of(layout)
    derivation = FabricDerivation(analysis, cables)
    out: dict[str, bool] = {}
    for kind in kinds:
        for failure in candidates(analysis, kind):
            lost = resolve(analysis, [failure], index)
            state = failed_state(analysis, lost, engine.gone(lost), cables)
            like = Like(analysis, state.touched, state.kept)
            failed = Analysis(state.layout, failed=state.failed, like=like)
            fresh = like.fresh(state.layout, state.failed)
            derived = derivation.fabrics(failed, state.failed.devices, fresh)
            out[str(failure)] = derived is not None
            if derived is None:
                continue
            built = build_fabrics(failed.links, failed.compute_edges, failed.device_by_id)
            assert len(derived) == len(built), failure
            for mine, theirs in zip(derived, built, strict=True):
                _same(mine, theirs)
    return out


def test_a_rail_fabrics_failures_derive_its_fabric_as_a_build() -> None:
    """A rack of nodes or a leaf whose nodes keep their other rails is derived; built are
    a spine (its twin left alone joins the units: the spines' class is an articulation
    class, down to one device), a02-n3's second leaf (a-leaf3: a-leaf2 is then its only
    way out) and the racks of leaves or spines (tiers change, or a part is cut off)."""
    derived = _derived(_rails_layout(), ("rack", "switch"))
    assert derived["rack:a01"] and derived["rack:a02"] and derived["rack:b01"]
    assert derived["switch:a-leaf1"] and derived["switch:b-leaf1"]
    assert not derived["switch:spine1"] and not derived["switch:a-leaf3"]
    assert not derived["rack:s01"] and not derived["rack:a03"]


def test_crossed_rails_derived_keep_the_cables_order() -> None:
    """The crossed rails of a touched rail group among those kept, in the failed layout's
    cable order. Cables listed a01, b01, b02, a02 (9 each); b02-n3's ib1 (cable 24) and
    a02-n1's ib1 (cable 27) crossed. Rack a01 down takes cables 0-8: a02-n1's is then
    cable 18, after b02-n3's at 15, as a build lists them (a02-n1 still crossed: 2 of its
    group's 3 nodes left cable ib1 to a-leaf1)."""
    layout = _rails_layout(("b02-n3", "a02-n1"), ("a01", "b01", "b02", "a02"))
    assert _derived(layout, ("rack",))["rack:a01"]


@pytest.mark.parametrize(
    "name",
    # NVL72 trays: a second of builds to hold each derived fabric to, to the slow step
    ["training-128.toml", pytest.param("gb200-nvl72-su.toml", marks=pytest.mark.slow)],
)
def test_the_bundled_fabrics_derive_as_a_build(name: str) -> None:
    derived = _derived(load(ROOT / "layouts" / name).layout, ("rack", "switch"))
    assert any(derived.values())


def _checked(layout: Layout, failures: list[str]) -> dict[str, list[Diagnostic]]:
    """Each failure's failed layout checked as ``whatif --findings`` checks it (where it
    differs from the layout, on fabrics derived from the layout's), held to a full check
    of the failed layout, every finding and field (not only the new ones: a finding whose
    message changes keeps its baseline key); its findings."""
    from rackdesigner.check.engine import rules_for, run_rules
    from rackdesigner.check.suppressions import apply_ignores
    from rackdesigner.whatif.incremental import Incremental, grouped_check
    from tests.whatif.test_incremental import _key

    analysis = Analysis(layout)
    engine = WhatIf(analysis)
    grouped = grouped_check(analysis)
    index, cables = PartIndex(analysis), cables_of(layout)
    derivation = FabricDerivation(analysis, cables)
    out: dict[str, list[Diagnostic]] = {}
    for text in failures:
        lost = resolve(analysis, [parse_failure(text)], index)
        state = failed_state(analysis, lost, engine.gone(lost), cables)
        plan = Incremental(layout, state.layout, touched=state.touched, kept=state.kept)
        like = Like(analysis, state.touched, state.kept)
        fresh, down = like.fresh(state.layout, state.failed), state.failed.devices
        like = Like(
            analysis,
            state.touched,
            state.kept,
            fabrics=partial(derivation.fabrics, down=down, fresh=fresh),
            storage=partial(_storage, derivation, down),
        )
        failed = Analysis(state.layout, failed=state.failed, like=like)
        fast = plan.check(failed).complete(grouped, state.layout)
        full = run_rules(rules_for(state.layout), Analysis(state.layout, failed=state.failed))
        apply_ignores(state.layout, full)
        assert _key(fast) == _key(full), text
        out[text] = fast
    return out


def _storage(
    derivation: FabricDerivation, down: frozenset[str], _failed: Analysis
) -> StorageFacts | None:
    return derivation.storage(down)


def test_findings_on_a_derived_fabric_are_a_full_checks() -> None:
    """Every rack and switch failure of the rail fabric checked as a full check does, and
    the findings a wrong derivation would get wrong are among them:

    - rack:a02 (a02-n3 and its crossed rail down): NET008 goes; unit a's three nodes left
      are clean, so NET007 counts 2 scalable units (1 before), and a-leaf3 (4 nodes'
      cables down, 2 left) no longer sets the fabric's ratio: 3:1 (3.5:1 before), for
      72 GPUs on 9 nodes;
    - rack:a01: a02-n3's ib1 is still crossed, now where 2 of the group's 3 nodes cable
      it (2 × 2 > 3: a-leaf1 stays ib1's rail leaf);
    - switch:b-leaf1: b-leaf1's NET002 goes (5 leaves left over 1:1), and unit b's nodes
      keep 2 × 400 Gb/s: NET007's lowest node is b01-n1 at 100 GB/s;
    - switch:spine1 and switch:a-leaf3 (built): NET005 names spine2 and a-leaf2.
    """
    layout = _rails_layout()
    before = {d.code: d for d in check(layout)[1] if d.code in ("NET007", "NET008")}
    assert before["NET008"].message == _CROSSED.format(5, 6)
    assert before["NET007"].values["sus"] == 1.0
    failures = [str(f) for kind in ("rack", "switch") for f in candidates(Analysis(layout), kind)]
    found = _checked(layout, failures)

    def one(failure: str, code: str) -> Diagnostic:
        (diagnostic,) = [d for d in found[failure] if d.code == code]
        return diagnostic

    assert not [d for d in found["rack:a02"] if d.code == "NET008"]
    net007 = one("rack:a02", "NET007")
    assert net007.values["sus"] == 2.0
    assert "72 GPUs on 9 nodes" in net007.message and "÷ 3:1 fabric" in net007.message
    assert one("rack:a01", "NET008").message == _CROSSED.format(2, 3)
    leaves = [d.entity for d in found["switch:b-leaf1"] if d.code == "NET002"]
    assert len(leaves) == 5 and "device b-leaf1" not in leaves
    assert "100 GB/s of fabric ports per node on node b01-n1" in (
        one("switch:b-leaf1", "NET007").message
    )
    assert "device spine2" in [d.entity for d in found["switch:spine1"] if d.code == "NET005"]
    assert "device a-leaf2" in [d.entity for d in found["switch:a-leaf3"] if d.code == "NET005"]
    _failed_exactly(layout, failures)  # and what whatif says is new


_CROSSED = (
    "port ib1 of node a02-n3 goes to a-leaf3, not to rail leaf a-leaf1 (where {} of the "
    "group's {} nodes cable ib1): a crossed rail"
)


@pytest.mark.parametrize(
    "name",
    ["training-128.toml", pytest.param("gb200-nvl72-su.toml", marks=pytest.mark.slow)],
)
def test_every_finding_of_a_bundled_failed_layout_is_a_full_checks(name: str) -> None:
    """Every rack and switch failure, every finding of the failed layout (a storage fabric
    here: a switch off it leaves the storage facts derived, a node on it builds them)."""
    layout = load(ROOT / "layouts" / name).layout
    analysis = Analysis(layout)
    failures = [str(f) for kind in ("rack", "switch") for f in candidates(analysis, kind)]
    assert analysis.storage.fabric.edges  # a storage fabric: derived or built by failure
    _checked(layout, failures)


def test_storage_facts_without_storage_count_the_nodes_left() -> None:
    """A layout without storage cables or appliances: a failure's storage facts are the
    layout's less the GPU nodes down, their count told without listing them and the same
    as a build's (rack a01 down: 12 - 3 = 9 nodes; rack a03, leaves only: all 12)."""
    layout = _rails_layout()
    analysis = Analysis(layout)
    engine = WhatIf(analysis)
    index, cables = PartIndex(analysis), cables_of(layout)
    derivation = FabricDerivation(analysis, cables)
    counts = {}
    for failure in candidates(analysis, "rack"):
        lost = resolve(analysis, [failure], index)
        state = failed_state(analysis, lost, engine.gone(lost), cables)
        derived = derivation.storage(state.failed.devices)
        assert derived is not None
        built = Analysis(state.layout, failed=state.failed).storage
        counts[str(failure)] = len(derived.nodes)
        assert len(derived.nodes) == len(built.nodes)
        assert [d.id for d in derived.nodes] == [d.id for d in built.nodes]
    assert counts["rack:a01"] == 9 and counts["rack:a03"] == 12


def test_whole_sums_are_exact_in_any_order() -> None:
    """400 and 200 Gb/s are 2**13 × 5**11 and 2**12 × 5**11 bit/s: whole, both multiples of
    2**12 = 4096, 6e11 in all (far below 2**53 × 4096); half a bit, NaN, or 2**60 + 1 (a
    total past 2**53 units of 1: 2**60 + 1 is not a float) are not summed so."""
    assert _whole([400e9, 200e9]) == (600_000_000_000, 4096)
    assert _whole([]) == (0, 1)
    assert _whole([0.5]) is None and _whole([float("nan")]) is None
    assert _whole([2.0**60, 1.0]) is None
