"""Fabric generators: counts from first principles, read back from the layout they build.

Nothing here trusts the generator's own tallies: :func:`census` classifies every switch by
what its cables reach (a leaf has GPU nodes below it, a spine leaves, a core spines) and
counts ports and cables from the layout's links.
"""

from __future__ import annotations

import copy
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.analysis.reach import choose_media, reach
from rackdesigner.check.engine import check
from rackdesigner.design.generators import FabricRequest, GenerateError, generate
from rackdesigner.design.generators.apply import apply_plan, to_batch
from rackdesigner.design.generators.build import spines_for
from rackdesigner.design.generators.dragonfly import shape
from rackdesigner.design.templates import TEMPLATES, NewOptions, build
from rackdesigner.layout_io import dumps, load_text
from rackdesigner.layout_io.catalog import for_layout
from rackdesigner.model.layout import DeviceType, Layout
from tests.builders import panel_every_open_unit
from tests.strategies import examples

K = 64  # QM9700: 64 x 400G
RAILS = 8  # DGX H100: 8 x 400G compute ports
SU = 32


@dataclass
class Census:
    nodes: set[str]
    leaves: set[str] = field(default_factory=set)
    spines: set[str] = field(default_factory=set)
    cores: set[str] = field(default_factory=set)
    cables: Counter[str] = field(default_factory=Counter)  # "node-leaf", "leaf-spine", ...
    pairs: Counter[tuple[str, str]] = field(default_factory=Counter)  # (lower, upper) cables
    ports: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    neighbours: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    node_port_to: dict[str, str] = field(default_factory=dict)  # "n:ib3" -> leaf id
    down: Counter[str] = field(default_factory=Counter)
    up: Counter[str] = field(default_factory=Counter)
    lateral: Counter[str] = field(default_factory=Counter)


def census(layout: Layout) -> Census:
    """The compute fabric's switches and cables (the storage fabric ``new`` adds for a
    training cluster is counted by tests/design/test_storage_fabric.py)."""
    catalog = for_layout(layout)
    kinds = {d.id: catalog.devices[d.model].kind for _, d in layout.devices()}
    result = Census({d for d, k in kinds.items() if k == "gpu-node"})
    models = {d.id: catalog.devices[d.model] for _, d in layout.devices()}

    def storage(end: str) -> bool:
        device, _, port = end.partition(":")
        dtype = models.get(device)
        group = dtype.port_group(port.rstrip("0123456789")) if dtype else None
        return group is not None and group.effective_role(dtype.kind) == "storage"

    compute_links = [link for link in layout.links if not (storage(link.a) or storage(link.b))]
    layout = replace(layout, links=compute_links)
    for link in layout.links:
        for end in (link.a, link.b):
            device, _, port = end.partition(":")
            assert port not in result.ports[device], f"port {end} used twice"
            result.ports[device].add(port)
        a, b = link.a.partition(":")[0], link.b.partition(":")[0]
        result.neighbours[a].add(b)
        result.neighbours[b].add(a)
    for link in layout.links:
        a, b = link.a.partition(":")[0], link.b.partition(":")[0]
        for node, other, end in ((a, b, link.a), (b, a, link.b)):
            if node in result.nodes and other not in result.nodes:
                result.leaves.add(other)
                result.node_port_to[end] = other
    for switch, near in result.neighbours.items():
        if switch in result.nodes or switch in result.leaves:
            continue
        if near & result.leaves:
            result.spines.add(switch)
    for switch, near in result.neighbours.items():
        if switch not in result.nodes | result.leaves | result.spines and near & result.spines:
            result.cores.add(switch)
    tier = {n: 0 for n in result.nodes}
    tier.update({s: 1 for s in result.leaves})
    tier.update({s: 2 for s in result.spines})
    tier.update({s: 3 for s in result.cores})
    names = {0: "node", 1: "leaf", 2: "spine", 3: "core"}
    for link in layout.links:
        a, b = link.a.partition(":")[0], link.b.partition(":")[0]
        lo, hi = sorted((a, b), key=lambda d: tier[d])
        result.cables[f"{names[tier[lo]]}-{names[tier[hi]]}"] += 1
        if tier[lo] == tier[hi]:
            result.lateral[lo] += 1
            result.lateral[hi] += 1
        else:
            result.pairs[(lo, hi)] += 1
            result.up[lo] += 1
            result.down[hi] += 1
    return result


def rail_layout(sus: int, **changes: object) -> Layout:
    """The compute fabric alone: the storage tier has tests of its own."""
    settings = {"storage": False, **changes}
    options = NewOptions(gpus=sus * SU * RAILS, fabric="rail", **settings)  # type: ignore[arg-type]
    return build(options).layout


def errors(layout: Layout) -> list[str]:
    _, diagnostics = check(layout)
    return [f"{d.code} {d.text()}" for d in diagnostics if d.severity == "error"]


def first_principles_spines(leaves: int, uplinks: int, ports: int) -> int:
    """Spines for a two-tier tree: enough ports for every uplink, rounded up until every
    leaf has the same number of uplinks to every spine."""
    spines = math.ceil(leaves * uplinks / ports)
    while uplinks % spines:
        spines += 1
    return spines


# NVIDIA DGX SuperPOD reference architecture with DGX H100 (compute fabric, QM9700, 1:1):
# 1 SU 8 leaves / 4 spines, 2 SU 16 / 8, 3 SU 24 / 16, 4 SU 32 / 16; its SUs are 31 nodes
# plus a management server on the 32nd leaf port, so node-leaf and leaf-spine cables are
# 256 per SU here, as fabrics.md states.
SUPERPOD_H100 = {
    1: (8, 4, 256, 256),
    2: (16, 8, 512, 512),
    3: (24, 16, 768, 768),
    4: (32, 16, 1024, 1024),
}


@pytest.mark.parametrize("sus", [1, 2, 3, 4])
def test_rail_counts_match_the_superpod_reference(sus: int) -> None:
    layout = rail_layout(sus)
    c = census(layout)
    leaves = sus * RAILS  # one leaf per rail per SU
    uplinks = SU  # 1:1: as many 400G uplinks as 400G node ports on a leaf
    spines = first_principles_spines(leaves, uplinks, K)
    assert (leaves, spines, sus * SU * RAILS, leaves * uplinks) == SUPERPOD_H100[sus]
    assert (len(c.leaves), len(c.spines), len(c.cores)) == (leaves, spines, 0)
    assert c.cables["node-leaf"] == sus * SU * RAILS
    assert c.cables["leaf-spine"] == leaves * uplinks
    # every leaf the same number of uplinks to every spine
    assert set(c.pairs[(leaf, spine)] for leaf in c.leaves for spine in c.spines) == {
        uplinks // spines
    }
    # 1:1: every leaf's uplink bandwidth equals its downlink bandwidth (all ports 400G)
    assert all(c.up[leaf] == c.down[leaf] == SU for leaf in c.leaves)
    # ports used per switch never exceed the switch's 64
    assert all(len(c.ports[s]) <= K for s in c.leaves | c.spines)
    assert all(len(c.ports[s]) == c.down[s] for s in c.spines)
    assert errors(layout) == []


def rail_of(port: str) -> int:
    return int(port.rpartition(":")[2].removeprefix("ib"))


def test_every_node_is_on_every_rail_of_its_su() -> None:
    layout = rail_layout(2)
    c = census(layout)
    for node in c.nodes:
        leaves = {c.node_port_to[f"{node}:ib{r}"] for r in range(1, RAILS + 1)}
        assert len(leaves) == RAILS  # eight rails, eight different leaves
    # a leaf carries one rail of one SU: the same port of 32 nodes
    by_leaf: dict[str, set[int]] = defaultdict(set)
    nodes_on: Counter[str] = Counter()
    for end, leaf in c.node_port_to.items():
        by_leaf[leaf].add(rail_of(end))
        nodes_on[leaf] += 1
    assert all(len(rails) == 1 for rails in by_leaf.values())
    assert set(nodes_on.values()) == {SU}


def test_two_tier_limit_and_the_core_tier() -> None:
    # k²/2 node ports close two tiers with one shared spine tier: 2,048 ports, 256 nodes
    # (8 SU): 64 leaves and 32 spines, no core.
    c = census(rail_layout(8))
    assert (len(c.leaves), len(c.spines), len(c.cores)) == (64, 32, 0)
    # One SU more and the tree needs a core tier.
    c9 = census(rail_layout(9))
    assert len(c9.cores) > 0


def test_core_tier_matches_the_b200_superpod_reference() -> None:
    # NVIDIA DGX SuperPOD reference architecture with DGX B200 (QM9700, 32-node SUs): 16 SU =
    # 512 nodes: 128 leaves, 128 spines, 64 cores; 4,096 node-leaf, leaf-spine and
    # spine-core cables. From first principles: pods of k/2 = 32 leaves (4 SU), each with 32
    # spines (half their ports down, half up), core group j joining spine j of the 4 pods:
    # 4 x 32 uplinks over 64-port cores = 2 cores per group, 32 groups.
    layout = rail_layout(16)
    c = census(layout)
    leaves, pods = 16 * RAILS, 16 * RAILS // (K // 2)
    spines = pods * first_principles_spines(K // 2, SU, K // 2)
    cores = first_principles_spines(pods, K // 2, K) * (K // 2)
    assert (leaves, spines, cores) == (128, 128, 64)
    assert (len(c.leaves), len(c.spines), len(c.cores)) == (leaves, spines, cores)
    assert c.cables["node-leaf"] == c.cables["leaf-spine"] == c.cables["spine-core"] == 4096
    assert all(c.up[s] == c.down[s] for s in c.spines)  # 1:1 at the spine
    assert all(len(c.ports[s]) <= K for s in c.leaves | c.spines | c.cores)


def test_rail_planes_keep_each_rail_on_its_own_spines() -> None:
    layout = rail_layout(2, rail_planes=True)
    c = census(layout)
    assert len(c.spines) == RAILS  # 2 leaves x 32 uplinks fit one 64-port spine per rail
    for spine in c.spines:
        rails = {
            rail_of(end) for end, leaf in c.node_port_to.items() if leaf in c.neighbours[spine]
        }
        assert len(rails) == 1
    assert errors(layout) == []


def test_spines_for_rounds_up_until_uplinks_divide() -> None:
    assert spines_for(8, 32, 64) == 4
    assert spines_for(24, 32, 64) == 16  # 12 would not divide 32
    assert spines_for(64, 32, 64) == 32
    assert spines_for(72, 32, 64) is None  # beyond k²/2: no single spine tier


@pytest.mark.parametrize(("sus", "leaves", "spines"), [(1, 8, 4), (2, 16, 8), (4, 32, 16)])
def test_31_node_sus_as_in_the_h100_superpod(sus: int, leaves: int, spines: int) -> None:
    # The DGX H100 SuperPOD's SU is 31 DGX nodes: 31 ports down and 31 up per leaf at 1:1,
    # spread as evenly as they go (8, 8, 8, 7 over 4 spines), with the reference's counts.
    layout = build(NewOptions(gpus=sus * 31 * RAILS, fabric="rail", su_nodes=31)).layout
    c = census(layout)
    assert (len(c.leaves), len(c.spines)) == (leaves, spines)
    assert all(c.up[leaf] == c.down[leaf] == 31 for leaf in c.leaves)
    per_pair = [c.pairs[(leaf, spine)] for leaf in c.leaves for spine in c.spines]
    assert max(per_pair) - min(per_pair) <= 1
    assert all(len(c.ports[s]) <= K for s in c.spines)
    assert errors(layout) == []


@pytest.mark.parametrize(
    ("nodes", "groups", "per_pair"),
    [(16, 2, 64), (32, 2, 128), (128, 2, 512), (1024, 9, 128), (12_500, 101, 10)],
)
def test_dragonfly_groups_and_global_links(nodes: int, groups: int, per_pair: int) -> None:
    found = shape(nodes, RAILS, K, K, 1.0)
    assert (found.groups, found.per_pair) == (groups, per_pair)
    assert max(found.sizes) - min(found.sizes) <= 1
    # balanced: every group's global links carry all its nodes' ports
    assert all(per_pair * (groups - 1) >= size * RAILS for size in found.sizes)


def test_dragonfly_is_balanced_in_the_layout() -> None:
    layout = build(NewOptions(gpus=256, fabric="dragonfly")).layout
    c = census(layout)
    # a group = the nodes, leaves and spines joined without the spine-spine (global) links
    assert c.cables["spine-spine"] == 128  # 2 groups of 16 nodes: 128 ports each
    assert all(c.lateral[s] == c.down[s] for s in c.spines)  # as many global as leaf-facing
    assert all(c.up[leaf] == c.down[leaf] for leaf in c.leaves)
    assert errors(layout) == []


def test_leaf_spine_oversubscription() -> None:
    layout = build(
        NewOptions(gpus=256, fabric="leaf-spine", oversubscription=3.0, workload="inference")
    ).layout
    c = census(layout)
    assert all(c.down[leaf] <= 3 * c.up[leaf] for leaf in c.leaves)
    assert any(c.down[leaf] > c.up[leaf] for leaf in c.leaves)
    assert errors(layout) == []


def test_direct_two_nodes() -> None:
    c = census(build(NewOptions(gpus=16, fabric="direct")).layout)
    assert c.cables["node-node"] == RAILS
    assert not c.leaves


SMALL = [8, 16, 32, 64, 128, 256]
FITS = {
    "direct": lambda gpus: gpus <= 16,
    "leaf-spine": lambda gpus: gpus <= 2048,
    "rail": lambda gpus: True,
    "dragonfly": lambda gpus: gpus >= 16,
}


@pytest.mark.parametrize("gpus", SMALL)
@pytest.mark.parametrize("fabric", list(FITS))
def test_every_size_and_fabric_that_fits_validates_clean(gpus: int, fabric: str) -> None:
    if not FITS[fabric](gpus):
        with pytest.raises(GenerateError):
            build(NewOptions(gpus=gpus, fabric=fabric))
        return
    built = build(NewOptions(gpus=gpus, fabric=fabric))
    assert errors(built.layout) == []
    # canonical text that reads back as an equal layout
    text = dumps(built.layout)
    again = load_text(text)
    assert dumps(again) == text


@pytest.mark.parametrize("name", list(TEMPLATES))
def test_every_template_validates_clean(name: str) -> None:
    built = build(NewOptions(template=name))
    assert errors(built.layout) == []


def test_superpod_template_sus() -> None:
    c = census(build(NewOptions(template="superpod", sus=2)).layout)
    assert (len(c.leaves), len(c.spines)) == (16, 8)


def test_new_is_deterministic() -> None:
    one = dumps(build(NewOptions(gpus=128)).layout)
    assert one == dumps(build(NewOptions(gpus=128)).layout)


def test_media_follow_the_reach_table() -> None:
    assert reach("dac", 400e9) == ("reach_dac", 2.0)
    assert reach("dac", 400e9, form="split") == ("reach_dac_split", 3.0)
    assert reach("dac", 200e9) == ("reach_dac_200g", 3.0)
    assert reach("mmf", 400e9, "om3") == ("reach_mmf_om3", 30.0)
    assert reach("aoc", 400e9) is None  # no AOC at NDR (media.toml)
    assert choose_media(1.9, 400e9) == "dac"
    assert choose_media(2.5, 400e9) == "acc"
    assert choose_media(2.5, 400e9, form="split") == "dac"  # MCP7Y00-N02A
    assert choose_media(4.0, 400e9, form="split") == "mmf"  # ACC splitters: discontinued
    assert choose_media(2.5, 200e9) == "dac"
    assert choose_media(60.0, 400e9) == "smf"
    assert choose_media(60.0, 200e9) == "aoc"
    assert choose_media(140.0, 400e9) == "smf"
    assert choose_media(600.0, 400e9) is None
    assert choose_media(2.5, 400e9, {"reach_dac": 3.0}) == "dac"


def test_cab003_and_the_generators_read_one_reach_table() -> None:
    # CAB003 declares exactly the table's thresholds, whose defaults are its figures; a
    # layout's override moves the generators' choice and the rule's limit together.
    from rackdesigner.analysis.reach import KEYS, MediaChooser
    from rackdesigner.model.thresholds import THRESHOLDS
    from rackdesigner.rules.registry import all_rules

    assert all_rules()["CAB003"].thresholds == KEYS
    assert reach("acc", 400e9) == ("reach_acc", THRESHOLDS["reach_acc"].default)
    assert MediaChooser(400e9, {"reach_acc": 7.0})(6.5) == "acc"
    assert MediaChooser(400e9)(6.5) == "mmf"


def test_cable_limit_is_never_raised_the_runs_are_counted_or_refused() -> None:
    # v1.2: the layout keeps cable_max; CAB001 warns about each longer run.
    built = build(NewOptions(gpus=256, fabric="rail"))
    plan = built.plan
    assert plan.long_runs > 0 and plan.longest is not None and plan.cable_limit == 5.0
    assert built.layout.rules is None or "cable_max" not in built.layout.rules.thresholds
    assert any(f"{plan.long_runs:,} of" in note for note in plan.notes)
    # The count is said when the file is written (``new`` prints the notes); the file's
    # header keeps no figure the first move would make wrong.
    cables = next(line for line in (built.layout.comment or "").splitlines() if "Cables:" in line)
    assert not any(ch.isdigit() for ch in cables.replace("5 ns", "").replace("CAB001", ""))
    assert "CAB001" in cables and "rackdesigner validate" in cables
    assert plan.warnings == []
    with pytest.raises(GenerateError, match=r"strict-cables.*longer than cable_max 5 m"):
        build(NewOptions(gpus=256, fabric="rail", strict_cables=True))


def test_placement_middle_third_and_spines_central() -> None:
    # One SuperPOD SU of DGX H100 (rear doors, 7 a rack, room for a switch in each)
    layout = rail_layout(1, node="dgx-h100")
    catalog = for_layout(layout)
    for rack in layout.racks:
        for device in rack.devices:
            if catalog.devices[device.model].kind == "switch":
                assert device.position is not None
                centre = device.position - 1 + 0.5
                assert 42 / 3 <= centre <= 2 * 42 / 3
    slots = {r.id: r.slot for r in layout.racks}
    spine_slots = [slots[rack.id] for rack in layout.racks for d in rack.devices if "spine" in d.id]
    middle = (min(slots.values()) + max(slots.values())) / 2
    assert all(abs(s - middle) <= 1 for s in spine_slots)


def test_network_racks_are_added_like_their_neighbours() -> None:
    # Air-cooled racks of one DGX H100, a panel listed on every open unit: no room for a
    # switch.
    layout = panel_every_open_unit(
        build(NewOptions(gpus=16, fabric="direct", cooling="air", storage=False)).layout
    )
    layout.links.clear()
    plan = generate(layout, FabricRequest(fabric="leaf-spine", redundant=False))
    assert len(plan.new_racks) == 1
    rack = plan.new_racks[0]
    like = layout.racks[0]
    assert rack.cooling == like.cooling == "air"
    assert rack.row == like.row and rack.slot == 3
    assert [(f.side, f.voltage, f.current) for f in rack.feeds] == [
        (f.side, f.voltage, f.current) for f in like.feeds
    ]
    circuits = [f.circuit for r in layout.racks for f in r.feeds]
    assert not set(circuits) & {f.circuit for f in rack.feeds}
    assert sum(d.model.startswith("pdu") for d in rack.devices) == sum(
        d.model.startswith("pdu") for d in like.devices
    )
    assert {rack_id for rack_id, _ in plan.devices} == {rack.id}
    assert [d.model for _, d in plan.devices].count("qm9700") == 1
    assert any("added network rack" in note for note in plan.notes)
    apply_plan(layout, plan)
    assert errors(layout) == []
    _, diagnostics = check(layout)
    assert [d for d in diagnostics if d.code == "PLC006"] == []  # blanked like its neighbours


def test_generate_refuses_existing_links_and_full_racks() -> None:
    layout = build(
        NewOptions(gpus=32, fabric="leaf-spine", cooling="air", redundant=False, storage=False)
    ).layout
    with pytest.raises(GenerateError, match="--replace"):
        generate(layout, FabricRequest(fabric="rail"))
    plan = generate(layout, FabricRequest(fabric="rail", replace=True))
    assert len(plan.remove_links) == 32
    with pytest.raises(GenerateError, match="no rack has room"):
        generate(layout, FabricRequest(fabric="rail", replace=True, new_racks=False))


def test_batch_equals_applying_the_plan_and_undoes() -> None:
    base = build(NewOptions(gpus=64, fabric="leaf-spine")).layout
    direct_copy = copy.deepcopy(base)
    apply_plan(direct_copy, generate(direct_copy, FabricRequest(fabric="rail", replace=True)))
    batched = copy.deepcopy(base)
    batch = to_batch(batched, generate(batched, FabricRequest(fabric="rail", replace=True)))
    batch.apply(batched)
    assert batched == direct_copy
    batch.revert(batched)
    assert batched == base


@settings(max_examples=examples(10), deadline=None)
@given(
    nodes=st.integers(1, 24),
    fabric=st.sampled_from(list(FITS)),
    ratio=st.sampled_from([1.0, 1.5, 2.0, 4.0]),
    su_nodes=st.integers(1, 40),
    cooling=st.sampled_from(["air", "rear-door"]),
)
def test_any_request_builds_or_says_why(
    nodes: int, fabric: str, ratio: float, su_nodes: int, cooling: str
) -> None:
    options = NewOptions(
        gpus=nodes * RAILS,
        fabric=fabric,
        oversubscription=ratio,
        su_nodes=su_nodes,
        cooling=cooling,
        workload="inference",
    )
    try:
        built = build(options)
    except GenerateError as error:
        assert str(error) and "\n" not in str(error)
        return
    c = census(built.layout)  # no port used twice
    assert all(len(c.ports[s]) <= K for s in c.leaves | c.spines | c.cores)
    assert all(c.down[leaf] <= ratio * c.up[leaf] + 1e-9 for leaf in c.leaves if c.up[leaf])
    _, diagnostics = check(built.layout)
    physical = {"CAB003", "CAB005", "PLC001", "PLC002", "PWR001", "PWR004", "COOL001", "COOL007"}
    assert [d.code for d in diagnostics if d.code in physical and d.severity == "error"] == []


def test_replace_removes_the_old_fabric_and_its_switches() -> None:
    layout = rail_layout(1)  # 8 leaves, 4 spines
    plan = generate(layout, FabricRequest(fabric="leaf-spine", replace=True))
    assert len(plan.remove_devices) == 12
    assert len(plan.remove_links) == 256 + 256  # node-leaf and leaf-spine
    apply_plan(layout, plan)
    c = census(layout)
    assert all(c.neighbours[s] for s in c.leaves | c.spines)  # no switch left uncabled
    catalog = for_layout(layout)
    switches = [d for _, d in layout.devices() if catalog.devices[d.model].kind == "switch"]
    assert len(switches) == plan.counts["leaves"] + plan.counts["spines"]
    assert errors(layout) == []


def test_replace_keeps_storage_and_management_switches() -> None:
    from rackdesigner.layout_io import load_path
    from tests.conftest import ROOT

    layout = load_path(ROOT / "layouts" / "training-128.toml")
    before = {d.id: d.model for _, d in layout.devices()}
    plan = generate(layout, FabricRequest(fabric="rail", replace=True))
    removed = {before[d] for d in plan.remove_devices}
    assert removed == {"qm9700"}  # the old compute leaves and spines only
    apply_plan(layout, plan)
    models = Counter(d.model for _, d in layout.devices())
    assert models["sn5600"] == Counter(before.values())["sn5600"]  # storage fabric kept
    assert models["sn2201"] == Counter(before.values())["sn2201"]  # management kept
    assert errors(layout) == []


def b300_nodes(nodes: int, tech: str = "infiniband") -> Layout:
    """DGX B300 nodes (8 x ConnectX-8 800G) in racks, their compute ports ``tech``, for a
    fabric generated through the generator API (``replace`` drops ``new``'s own, and with it
    the trays ``new`` sized for that fabric's cables: v1.4)."""
    layout = build(NewOptions(gpus=nodes * RAILS, node="dgx-b300")).layout
    layout.pathways = []
    if tech != "infiniband":
        base = for_layout(layout).devices["dgx-b300"]
        ports = [replace(g, tech=tech) if g.name == "ib" else g for g in base.ports or ()]
        layout.catalog["dgx-b300"] = DeviceType("dgx-b300", ports=ports)
    return layout


# NVIDIA DGX SuperPOD with DGX B300, Quantum-X800 InfiniBand and AC power, Architecture,
# Table 3 (https://docs.nvidia.com/dgx-superpod/reference-architecture/
# scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html): SU count: nodes,
# leaf, spine, node-leaf and leaf-spine cables. 72 DGX B300 an SU, 144-port Q3400 XDR
# switches at 1:1. (The table's GPU count at 18 SU reads 9,216; 1,296 nodes are 10,368
# GPUs, its own cable counts.)
SUPERPOD_B300_XDR = {
    1: (72, 8, 4, 576, 576),
    2: (144, 16, 8, 1152, 1152),
    4: (288, 32, 18, 2304, 2304),
    8: (576, 64, 36, 4608, 4608),
    18: (1296, 144, 72, 10368, 10368),
}


@pytest.mark.parametrize(
    "sus",
    # 18 SUs (10,368 GPUs) builds for seconds: the slow step.
    [pytest.param(n, marks=pytest.mark.slow) if n >= 16 else n for n in sorted(SUPERPOD_B300_XDR)],
)
def test_xdr_rail_counts_match_the_b300_xdr_superpod_reference(sus: int) -> None:
    # From first principles: the default SU is half the Q3400's 144 ports (72 nodes), one
    # leaf per rail and SU with 72 ports down and 72 up; spines enough for every uplink,
    # rounded up until each leaf's 72 uplinks divide evenly: 4 SU = 32 x 72 over 144 ports
    # is 16 spines, but 72 / 16 does not divide, so 18 (4 each); one spine tier closes at
    # 144²/2 = 10,368 node ports (18 SU). The default switch for 800G InfiniBand is q3400.
    nodes, leaves, spines, node_leaf, leaf_spine = SUPERPOD_B300_XDR[sus]
    layout = b300_nodes(nodes)
    plan = generate(layout, FabricRequest(fabric="rail", replace=True))
    apply_plan(layout, plan)
    c = census(layout)
    assert leaves == sus * RAILS
    assert spines == first_principles_spines(leaves, 72, 144)
    assert (len(c.leaves), len(c.spines), len(c.cores)) == (leaves, spines, 0)
    assert (c.cables["node-leaf"], c.cables["leaf-spine"]) == (node_leaf, leaf_spine)
    models = {d.id: d.model for _, d in layout.devices()}
    assert {models[s] for s in c.leaves | c.spines} == {"q3400"}
    assert all(c.up[leaf] == c.down[leaf] == 72 for leaf in c.leaves)  # 1:1, 800G both
    assert all(len(c.ports[s]) <= 144 for s in c.leaves | c.spines)
    assert plan.warnings == [] and not plan.catalog  # 800G end to end: no CAB004 rewrite
    if sus == 1:
        assert errors(layout) == []


# NVIDIA DGX SuperPOD with DGX B300, Spectrum-4 Ethernet and DC busbar power, Architecture,
# Table 3 (https://docs.nvidia.com/dgx-superpod/reference-architecture/
# scalable-infrastructure-b300/latest/dgx-superpod-architecture.html): SU count: nodes, leaf,
# spine, node-leaf and leaf-spine cables, 64 DGX B300 an SU. Its network-fabrics page: a
# twin-planar Spectrum-X fabric, each GPU 2 x 400GbE on two planes, rail-aligned per SU.
SUPERPOD_B300_SPECTRUM_X = {
    1: (64, 16, 8, 512, 512),
    2: (128, 32, 16, 1024, 1024),
    4: (256, 64, 32, 2048, 2048),
    8: (512, 128, 64, 4096, 4096),
    16: (1024, 256, 128, 8192, 8192),
}


@pytest.mark.parametrize(
    "sus",
    # 16 SUs builds for seconds: the slow step.
    [
        pytest.param(n, marks=pytest.mark.slow) if n >= 16 else n
        for n in sorted(SUPERPOD_B300_SPECTRUM_X)
    ],
)
def test_spectrum_x_rail_planes_match_the_b300_superpod_reference(sus: int) -> None:
    # Modelled as each ConnectX-8 running 800GbE on a 64-port 800G SN5600: a leaf takes 32
    # nodes down and 32 up (the RA's leaf takes the SU's 64 nodes at 400G on one plane:
    # the same ports and cables), two leaves per rail and RA SU, and one spine plane per
    # rail (rail_planes): per rail 2 x sus leaves of 32 uplinks on 64-port spines. The
    # counts are the RA's at every size; the two planes of each 800G port are not modelled.
    nodes, leaves, spines, node_leaf, leaf_spine = SUPERPOD_B300_SPECTRUM_X[sus]
    layout = b300_nodes(nodes, tech="ethernet")
    plan = generate(
        layout, FabricRequest(fabric="rail", leaf="sn5600", rail_planes=True, replace=True)
    )
    apply_plan(layout, plan)
    c = census(layout)
    assert leaves == 2 * sus * RAILS
    assert spines == RAILS * first_principles_spines(2 * sus, 32, 64)
    assert (len(c.leaves), len(c.spines), len(c.cores)) == (leaves, spines, 0)
    assert (c.cables["node-leaf"], c.cables["leaf-spine"]) == (node_leaf, leaf_spine)
    for spine in c.spines:  # one rail a plane
        below = {leaf for leaf in c.leaves if c.pairs[(leaf, spine)]}
        assert len({rail_of(e) for e, lf in c.node_port_to.items() if lf in below}) == 1
    if sus == 1:
        assert errors(layout) == []


def test_the_su_is_half_the_leaf_unless_asked() -> None:
    # Without su_nodes an SU is half the leaf's ports: 72 on a Q3400, 32 on a QM9700 (the
    # DGX H100/B200 SuperPODs' 32-node SU); an explicit su_nodes is kept.
    layout = b300_nodes(144)
    assert generate(layout, FabricRequest(replace=True)).counts["sus"] == 2
    assert generate(layout, FabricRequest(replace=True, su_nodes=32)).counts["sus"] == 5
    h100 = rail_layout(2)
    assert generate(h100, FabricRequest(replace=True)).counts["sus"] == 2


def test_gb300_trays_on_xdr_leaves() -> None:
    # The gb300-superpod template leaves the leaf to the generator, which picks the Q3400
    # for the trays' 800G ConnectX-8: one SU of 144 trays x 4 rails = 576 ports, two
    # 72-tray leaves a rail (8), 8 x 72 uplinks on 144-port spines (4), 800G end to end
    # (the shape of the B300 XDR RA's 72-node SU); the network racks it adds beside the
    # NVL72 racks are no part of their NVLink domains.
    layout = build(NewOptions(template="gb300-superpod", sus=1)).layout
    assert "gb300-compute-tray" not in layout.catalog  # no 400G override of the trays
    assert errors(layout) == []
    c = census(compute_fabric(layout))
    models = {d.id: d.model for _, d in layout.devices()}
    assert {models[s] for s in c.leaves | c.spines} == {"q3400"}
    assert (len(c.leaves), len(c.spines), len(c.cores)) == (8, 4, 0)
    assert c.cables["node-leaf"] == c.cables["leaf-spine"] == 576
    assert all(r.nvlink_domain is None for r in layout.racks if r.label == "network rack")
    # The GB200 template keeps its 400G ConnectX-7 trays on QM9700 leaves, 32 trays a leaf.
    gb200 = build(NewOptions(template="gb200-superpod", sus=1)).layout
    c = census(compute_fabric(gb200))
    models = {d.id: d.model for _, d in gb200.devices()}
    assert {models[s] for s in c.leaves | c.spines} == {"qm9700"}
    assert len(c.leaves) == 20  # 144 trays x 4 rails in 32-tray SUs: 5 SUs x 4 rails


def compute_fabric(layout: Layout) -> Layout:
    """The layout with only its InfiniBand cables (the compute fabric): an NVL72 hall's
    Ethernet storage leaves and management ToRs also cable to every tray, and would count
    as leaves."""
    catalog = for_layout(layout)
    models = {d.id: d.model for _, d in layout.devices()}

    def infiniband(end: str) -> bool:
        device, _, port = end.partition(":")
        groups = catalog.devices[models[device]].ports
        group = max((g for g in groups if port.startswith(g.name)), key=lambda g: len(g.name))
        return group.tech == "infiniband"

    out = copy.copy(layout)
    out.links = [link for link in layout.links if infiniband(link.a) and infiniband(link.b)]
    return out


def test_new_with_a_dgx_b300_builds_the_b300_xdr_ra_su() -> None:
    # DGX SuperPOD B300 XDR RA, Table 3: one SU is 72 DGX B300, 8 leaves and 4 spines,
    # node-leaf = leaf-spine cables = GPUs (576), on Quantum-X800 Q3400; `new` asks for
    # no SU size (half the leaf's ports).
    layout = build(NewOptions(gpus=576, node="dgx-b300")).layout
    c = census(compute_fabric(layout))
    models = {d.id: d.model for _, d in layout.devices()}
    assert {models[s] for s in c.leaves | c.spines} == {"q3400"}
    assert (len(c.leaves), len(c.spines), len(c.cores)) == (8, 4, 0)
    assert c.cables["node-leaf"] == c.cables["leaf-spine"] == 576
    assert errors(layout) == []


def test_new_racks_dgx_b300_four_a_rack_on_three_pdus_as_the_ra_does() -> None:
    """DGX SuperPOD B300 XDR RA (RA-11339), Architecture: "four DGX B300 fit within a single
    rack ... ~56kW ... each with three (3) 2U rack PDUs". 4 x 10 U = 40 U of a 42 U rack (the
    generator's own rule keeps 4 U for switches, which left 3); 4 x 14.5 kW = 58 kW; one
    415 V 63 A feed a side carries 415 x 63 x 0.8 x sqrt 3 = 36.2 kW, and on three sides
    each carries 58 / 2 = 29 kW with one lost: three feeds, three PDUs. 72 nodes are 18
    racks; the RA's Table 3 counts are unchanged (8 leaves, 4 spines, 576 + 576 cables)."""
    layout = build(NewOptions(gpus=576, node="dgx-b300")).layout
    racks = [r for r in layout.racks if any(d.model == "dgx-b300" for d in r.devices)]
    assert len(racks) == 18
    assert all(sum(d.model == "dgx-b300" for d in r.devices) == 4 for r in racks)
    for rack in racks:
        assert [f.side for f in rack.feeds] == ["A", "B", "C"]
        assert {float(f.current or 0) for f in rack.feeds} == {63.0}
        assert sum(d.model.startswith("pdu") for d in rack.devices) == 3
    assert errors(layout) == []


def test_spines_take_the_most_central_racks_with_room_on_liquid_racks() -> None:
    # Liquid racks of 4 cold-plate nodes keep air for two switches (15 kW - 4 x 2.7 kW):
    # the SU's leaves take the racks in the middle of their nodes, and every rack nearer
    # the hall's centre than a spine's is full (two switches) or holds no GPU node.
    layout = rail_layout(1)
    catalog = for_layout(layout)
    switches = {
        rack.id: sum(catalog.devices[d.model].kind == "switch" for d in rack.devices)
        for rack in layout.racks
    }
    nodes = {
        rack.id: sum(catalog.devices[d.model].kind == "gpu-node" for d in rack.devices)
        for rack in layout.racks
    }
    slots = {r.id: r.slot or 0 for r in layout.racks}
    middle = (min(slots.values()) + max(slots.values())) / 2
    for rack in layout.racks:
        for device in rack.devices:
            if "spine" not in device.id:
                continue
            here = abs(slots[rack.id] - middle)
            nearer = [r for r in slots if abs(slots[r] - middle) < here and nodes[r]]
            assert all(switches[r] >= 2 for r in nearer), (rack.id, nearer)


def test_liquid_cooling_with_cold_plate_nodes_and_n_plus_1_cdus() -> None:
    # The catalog's SYS-421GE-TNHR2-LCC has cold plates (liquid_fraction 0.7): without
    # --cooling an H100 SXM cluster is liquid-cooled on it (fabrics.md), and each row's
    # loop has two CDUs its racks name together, either of which carries the row (COOL009).
    built = build(NewOptions(gpus=1024, storage=False))  # the compute racks alone
    layout = built.layout
    assert built.node_type.key == "sys-421ge-tnhr2-lcc"
    catalog = for_layout(layout)
    compute = [r for r in layout.racks if r.label not in ("CDU", "network rack")]
    assert compute and all(r.cooling == "liquid" and len(r.cdus) == 2 for r in compute)
    cdu_ids = {d.id: d.model for _, d in layout.devices() if catalog.devices[d.model].kind == "cdu"}
    liquid: dict[tuple[str, ...], float] = defaultdict(float)
    for rack in compute:
        assert set(rack.cdus) <= set(cdu_ids)
        for device in rack.devices:
            dtype = catalog.devices[device.model]
            if dtype.kind == "gpu-node":
                liquid[tuple(rack.cdus)] += float(dtype.power or 0) * float(dtype.liquid_fraction)
    for group, heat in liquid.items():
        capacities = [float(catalog.devices[cdu_ids[c]].capacity or 0) for c in group]
        assert sum(capacities) - max(capacities) >= heat  # N+1: the largest CDU lost
    # 1,024 GPUs: 128 nodes of 9 kW, 0.7 to the loop: 806 kW, more than one CHx750 row
    assert len(liquid) == math.ceil(128 * 9e3 * 0.7 / 750e3)
    _, diagnostics = check(layout)
    assert [d for d in diagnostics if d.severity == "error"] == []
    assert not [d for d in diagnostics if d.code in ("COOL003", "COOL008", "COOL009")]


def test_a_small_liquid_cluster_gets_small_cdus() -> None:
    # 16 GPUs: 2 nodes, 12.6 kW to the loop; two 80 kW CHx80 in one rack, not 750 kW units
    layout = build(NewOptions(gpus=16)).layout
    models = [d.model for _, d in layout.devices() if d.model.startswith("coolit")]
    assert models == ["coolit-chx80", "coolit-chx80"]
    assert errors(layout) == []


def test_cooling_liquid_without_a_cold_plate_node_is_refused() -> None:
    with pytest.raises(GenerateError, match="dgx-h100 has no cold plates"):
        build(NewOptions(gpus=64, node="dgx-h100", cooling="liquid"))
    # rear door or air pick the node without cold plates
    assert build(NewOptions(gpus=64, cooling="rear-door")).node_type.key == "dgx-h100"


def test_feeds_take_as_many_sides_as_the_psus_need() -> None:
    # DGX H100: 6 PSUs, 4 needed. On 2 sides (3 + 3) a lost side leaves 3 (PWR008); on
    # 3 sides (2 + 2 + 2) it leaves 4. Each side then carries the load / 2 with one lost.
    layout = build(NewOptions(gpus=64, cooling="rear-door")).layout
    catalog = for_layout(layout)
    for rack in layout.racks:
        sides = sorted({f.side for f in rack.feeds if f.side})
        dgx = [d for d in rack.devices if d.model == "dgx-h100"]
        assert sides == (["A", "B", "C"] if dgx else ["A", "B"]), rack.id
        load = sum(float(catalog.devices[d.model].power or 0) for d in rack.devices)
        share = load / (len(sides) - 1)
        for side in sides:
            rated = sum(
                float(catalog.devices[d.model].capacity or 0)
                for d in rack.devices
                if d.model.startswith("pdu") and d.id.startswith(f"{rack.id}-pdu-{side.lower()}")
            )
            assert rated >= share, (rack.id, side)
    _, diagnostics = check(layout)
    assert not [d for d in diagnostics if d.code in ("PWR008", "PWR011")]
    # DGX B200: 6 PSUs, 5 needed: no count of sides up to 4 keeps 5, so two (and PWR008 warns)
    b200 = build(NewOptions(gpus=32, gpu="b200", cooling="rear-door")).layout
    assert {f.side for r in b200.racks for f in r.feeds} == {"A", "B"}


def test_the_header_keeps_no_cable_figure_an_edit_makes_stale() -> None:
    """The GB200 SU's header (one SU: 8 NVL72 racks) names CAB001 for long runs and counts
    none: the 358 compute runs over 5 m and the storage and out-of-band networks' are said
    by ``new`` when it writes the file (the plan's notes), where they are true."""
    built = build(NewOptions(template="gb200-superpod", sus=1))
    header = built.layout.comment or ""
    assert not re.search(r"\d of [\d,]+ run", header) and "of these" not in header
    notes = " ".join(built.plan.notes)
    assert f"{built.plan.long_runs:,} of 1,152 cables run longer than 5 m" in notes
    assert "storage and out-of-band: " in notes


def test_switch_models_default_each_tier_to_the_one_below() -> None:
    """Every generator opens with the builder's switch models: the leaf the request names
    (else the default for the nodes' ports, a QM9700 for NDR400), a spine and a core that
    default to the tier below's, and the nodes read after them."""
    from rackdesigner.design.generators.build import Builder

    layout = rail_layout(1)
    request = FabricRequest(fabric="rail", replace=True)
    leaf, spine, core = Builder(layout, request).switch_models(3)
    assert (leaf.key, spine.key, core.key) == ("qm9700", "qm9700", "qm9700")
    named = replace(request, spine="q3400")
    leaf, spine, core = Builder(layout, named).switch_models(3)
    assert (leaf.key, spine.key, core.key) == ("qm9700", "q3400", "q3400")
    assert len(Builder(layout, named).switch_models(2)) == 2


@pytest.mark.parametrize("sus", [1, 4])
def test_structured_cabling_keeps_the_ra_counts_and_counts_trunks_apart(sus: int) -> None:
    """``--cabling structured`` runs every fibre link between switches in two racks (the
    RA's Leaf-Spine cables) through 48-port panels in the switches' racks and 144-fibre
    trunks between them (12 MPO-12 legs: 12 channels a trunk). The SuperPOD H100 RA's
    counts stay the links' (1 SU: 8 leaves, 4 spines, 256 + 256; 4 SU: 32, 16, 1024 +
    1024), and the trunks are counted apart: at least ceil(channels / 12), each carrying at
    most 12 (CAB010 stays silent), each panel port taken once (CAB011)."""
    layout = rail_layout(sus, cabling="structured")
    c = census(layout)
    leaves, spines, node_leaf, leaf_spine = SUPERPOD_H100[sus]
    assert (len(c.leaves), len(c.spines)) == (leaves, spines)
    assert (c.cables["node-leaf"], c.cables["leaf-spine"]) == (node_leaf, leaf_spine)
    channels = [link for link in layout.links if link.via]
    assert channels and all(link.trunk for link in channels)
    per_trunk = Counter(link.trunk for link in channels)
    assert max(per_trunk.values()) <= 12
    assert len(layout.trunks) == len(per_trunk) >= math.ceil(len(channels) / 12)
    ports = [end for link in channels for end in link.via or ()]
    assert len(ports) == len(set(ports))
    _, diagnostics = check(layout)
    assert [d for d in diagnostics if d.severity == "error"] == []
    assert not [d for d in diagnostics if d.code in ("CAB006", "CAB010", "CAB011", "CAB013")]
