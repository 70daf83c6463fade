"""The parallel file system and storage fabric ``new`` builds: NVIDIA's DGX SuperPOD H100
reference architecture's storage-fabric counts reproduced, and every template's storage
passing its own rules."""

from __future__ import annotations

from collections import Counter

import pytest

from rackdesigner.check.engine import check
from rackdesigner.design.storage_fabric import StorageRequest, appliance_count, plan_storage
from rackdesigner.design.templates import NewOptions, build
from rackdesigner.layout_io.catalog import builtin, for_layout
from rackdesigner.model.layout import Layout


def _without_last_node(layout: Layout) -> Layout:
    """The RA's 127 nodes: "a DGX system must be removed to accommodate for UFM
    connectivity" (Table 4's note): the last node and its cables go."""
    rack, node = [(r, d) for r, d in layout.devices() if d.model == "dgx-h100"][-1]
    rack.devices.remove(node)
    prefix = f"{node.id}:"
    layout.links = [
        link
        for link in layout.links
        if not (link.a.startswith(prefix) or link.b.startswith(prefix))
    ]
    return layout


def test_the_h100_superpod_storage_fabric_counts() -> None:
    """DGX SuperPOD H100 RA (RA-11333-001 V11): the 4-SU, 127-node SuperPOD's storage fabric
    is 16 QM9700 (Table 7, "Storage Fabric ... 16 Fabric switches") and 494 NDR 400 Gb/s
    cables "DGX H100 systems to leaf, leaf to spine", plus 48 storage cables of 2 x 200 Gb/s
    (Table 8). With the storage those 48 cables imply (96 HDR200 ports: twelve 8-port
    DDN AI400X2), by hand: node leaves 2 a SU (32 nodes x 2 ports / 32), 8; 127 x 2 = 254
    node cables; each node leaf 24 uplinks (32 down at the RA's near 4:3): 8 x 24 = 192; a
    storage leaf a SU for its 3 appliances (24 x 200 Gb/s) with 24 x 200 / 400 = 12 uplinks
    (1:1): 4 x 12 = 48; 192 + 48 = 240 leaf-spine cables on 240 / 64 -> 4 spines (6 + 3
    from each node and storage leaf to each, 60 ports a spine). Switches 8 + 4 + 4 = 16;
    NDR cables 254 + 240 = 494; storage 96 links = 48 splitter cables."""
    layout = _without_last_node(build(NewOptions(template="superpod", sus=4, storage=False)).layout)
    counts = plan_storage(
        layout, StorageRequest(appliance="storage-node", appliances=12, switch="qm9700")
    )
    assert (counts.node_leaves, counts.storage_leaves, counts.spines) == (8, 4, 4)
    assert counts.switches == 16
    assert (counts.node_leaf_cables, counts.leaf_spine_cables) == (254, 240)
    assert counts.node_leaf_cables + counts.leaf_spine_cables == 494
    assert counts.appliance_cables == 96  # 48 cables of 2 x 200 Gb/s
    catalog = for_layout(layout)
    models = Counter(d.model for _, d in layout.devices())
    assert models["qm9700-storage-fabric"] == 12 and models["qm9700-storage-split"] == 4
    assert models["storage-node"] == 12
    # The node leaves: 32 node ports down, 24 up (near 4:3); every node's two ports on two
    # different leaves.
    per_leaf = Counter(
        link.b.split(":")[0] for link in layout.links if ":eth" in link.a and "-n" in link.a
    )
    assert set(per_leaf.values()) <= {32, 31, 30}
    storage = {
        link.a.split(":")[0]: link.b.split(":")[0] for link in layout.links if ":eth1" in link.a
    }
    other = {
        link.a.split(":")[0]: link.b.split(":")[0] for link in layout.links if ":eth2" in link.a
    }
    assert all(storage[n] != other[n] for n in storage)
    # The nodes' storage ports run InfiniBand, as the RA's storage fabric: the layout says so.
    assert catalog.devices["dgx-h100"].port_group("eth").tech == "infiniband"  # type: ignore[union-attr]
    _, diagnostics = check(layout, select=["STO", "CAB004", "CAB005"])
    assert [d for d in diagnostics if d.severity == "error"] == []


def test_appliances_are_sized_for_the_level() -> None:
    """DDN AI400X2 Turbo, 80 GB/s read and write. 1,024 GPUs at "best" ask 500 GB/s read
    (125 x 4) and 248 GB/s write: ceil(500 / 80) = 7 appliances; at "better" 160 GB/s read:
    2; at "good" 60 GB/s: 1, but at least one a pod (2 pods: 2)."""
    catalog = builtin()
    assert appliance_count(catalog, "ddn-ai400x2t", "best", 1024, 1) == 7
    assert appliance_count(catalog, "ddn-ai400x2t", "better", 1024, 1) == 2
    assert appliance_count(catalog, "ddn-ai400x2t", "good", 1024, 2) == 2


def _storage_findings(layout: Layout) -> list[str]:
    _, diagnostics = check(layout)
    return [f"{d.code} {d.text()}" for d in diagnostics if d.code.startswith("STO")] + [
        f"{d.code} {d.text()}" for d in diagnostics if d.severity == "error"
    ]


def test_new_1024_gpus_writes_a_storage_tier_that_passes() -> None:
    """128 liquid-cooled HGX H100 (4 SUs of 32, one pod) at "best": 7 AI400X2 Turbo on
    Ethernet (the nodes' 400 GbE storage ports, on SN5600s) in 2 storage racks; the level
    is written into the workload and every STO rule is silent."""
    built = build(NewOptions(gpus=1024, storage_level="best"))
    layout = built.layout
    assert layout.workload is not None and layout.workload.storage_level == "best"
    models = Counter(d.model for _, d in layout.devices())
    assert models["ddn-ai400x2t"] == 7
    assert models["sn5600-storage-fabric"] == 8 + 4 + 4  # node leaves, storage leaves, spines
    assert [r.id for r in layout.racks if r.label == "storage"]
    assert "Storage: 7 appliances (ddn-ai400x2t) sized for storage level best" in (
        layout.comment or ""
    )
    assert _storage_findings(layout) == []


@pytest.mark.parametrize(
    "options",
    [
        NewOptions(template="superpod", sus=1),
        NewOptions(template="training-128"),
        NewOptions(template="small"),
        NewOptions(template="gb200-superpod", sus=1),
        NewOptions(template="gb300-superpod", sus=1),
    ],
    ids=["superpod", "training-128", "small", "gb200", "gb300"],
)
def test_templates_write_storage_that_passes(options: NewOptions) -> None:
    """Each training template builds its parallel file system and storage fabric, and no
    STO rule has anything to say (nor any rule an error)."""
    layout = build(options).layout
    catalog = for_layout(layout)
    assert any(catalog.devices[d.model].kind == "storage" for _, d in layout.devices())
    assert _storage_findings(layout) == []


def test_no_storage_when_asked_or_for_inference() -> None:
    for options in (NewOptions(gpus=64, storage=False), NewOptions(template="inference-32")):
        layout = build(options).layout
        catalog = for_layout(layout)
        assert not any(catalog.devices[d.model].kind == "storage" for _, d in layout.devices())


def test_a_level_the_nvl72_spines_cannot_take_is_refused() -> None:
    """A GB200 SU's storage spines keep 3 x 8 = 24 array cages: "best" for 576 GPUs asks
    125 x 576 / 256 = 281.25 GB/s of reads, 4 AI400X2 Turbo (32 ports): refused, saying why."""
    from rackdesigner.design.generators import GenerateError

    with pytest.raises(GenerateError, match="need 32 ports, the SU's storage spines have 24"):
        build(NewOptions(template="gb200-superpod", sus=1, storage_level="best"))


def test_an_object_store_or_unknown_model_is_refused_as_the_parallel_file_system() -> None:
    from rackdesigner.design.generators import GenerateError

    with pytest.raises(GenerateError, match="serves the object tier"):
        build(NewOptions(gpus=64, storage_model="minio-node"))
    with pytest.raises(GenerateError, match="did you mean"):
        build(NewOptions(gpus=64, storage_model="ddn-ai400x"))


@pytest.mark.parametrize("level", ["better", "best"])
def test_a_storage_rack_keeps_within_the_air_limit_with_its_pdus(level: str) -> None:
    """2,048 GPUs at the better (and best) level. A storage rack of two DDN AI400X2 Turbo
    (2 x 2.5 kW) leaves 10 kW of the 15 kW air limit; five 2 kW SN5600 storage leaves used
    to be placed in it before it had PDUs, filling the 10 kW exactly, and its two PDUs'
    own 2 x 20 W then put it at 15,040 W (COOL001, an error in a file `new` wrote and
    said was clean of errors). The storage racks now get their feeds and PDUs before the
    leaves are placed: b32 (better) takes four leaves, 5,000 + 8,000 + 40 = 13,040 W, and
    the layout has no error at all."""
    from rackdesigner.analysis import Analysis
    from rackdesigner.check.engine import check

    layout = build(NewOptions(gpus=2048, storage_level=level)).layout
    _, found = check(layout)
    assert [f"{d.code} {d.entity}" for d in found if d.severity == "error"] == []
    analysis = Analysis(layout)
    storage = [f for f in analysis.racks if f.rack.label == "storage"]
    assert storage and all(f.air_heat <= 15e3 for f in storage)


def test_an_appliance_leaf_with_fewer_uplinks_than_spines_takes_as_many_spines() -> None:
    """1,024 GPUs on IBM ESS 3500s (the bundled training-128's storage): 128 nodes in 4 SUs
    of 32, each node's 2 storage ports on the SU's 2 leaves (8 node leaves, ceil(32 x 3/4)
    = 24 uplinks each, 192) and one ESS 3500 (its 91 GB/s of reads meet "good", 15 GB/s
    x 1,024 / 256 = 60 GB/s) on a leaf of its own: 4 x 200 Gb/s ports, ceil(4 x 200 /
    400) = 2 uplinks. 194 uplinks take ceil(194 / 64) = 4 spines. `new` used to refuse ("9 leaves
    of 194 uplinks need more than one spine tier") because the appliance leaf could not
    reach all four; it now reaches two of them, and every node leaf reaches all four (6
    each), so every node still reaches the appliance: no error."""
    layout = build(NewOptions(gpus=1024, storage_model="ibm-ess3500")).layout
    _, found = check(layout)
    assert [f"{d.code} {d.entity}" for d in found if d.severity == "error"] == []
    assert not [d for d in found if d.code.startswith("STO")]
    devices = {d.id: d for _, d in layout.devices()}
    spines = sorted(i for i, d in devices.items() if "-sspine" in i)
    assert len(spines) == 4
    home = next(d.id for d in devices.values() if "appliances" in (d.label or ""))
    up = [
        (b if a.startswith(home + ":") else a).split(":")[0]
        for a, b in ((link.a, link.b) for link in layout.links)
        if (a.startswith(home + ":") or b.startswith(home + ":")) and "-sspine" in a + b
    ]
    assert len(up) == 2 and len(set(up)) == 2


def test_an_appliance_without_a_published_draw_is_racked_by_height() -> None:
    """The NetApp AFF A900 has no power figure in the catalog: its storage racks hold as
    many as fit by height (it used to divide the air limit by 0 W: an internal error).
    PWR009 says its draw is unknown; nothing else errs."""
    layout = build(NewOptions(gpus=1024, storage_model="netapp-aff-a900")).layout
    _, found = check(layout)
    assert [f"{d.code} {d.entity}" for d in found if d.severity == "error"] == []
    assert any(d.code == "PWR009" for d in found)


def test_pods_of_two_sus_each_get_their_own_appliance_and_spines() -> None:
    """``--storage-pod-sus 2`` on 1,024 GPUs: 128 nodes in 4 SUs of 32 make 2 pods of 2 SUs
    (the default, 4, makes one). Each pod is a storage fabric of its own, so each gets an
    appliance (2 in all, where one pod needs 1 for "good") on a storage leaf, and its 4 node
    leaves (2 an SU) send ceil(32 x 3/4) = 24 uplinks each, 96, plus the storage leaf's 8
    (an appliance's 8 x 400 Gb/s at 400 Gb/s): 104 over 64-port spines, 2 spines a pod.
    Cables: the nodes' 128 x 2 = 256, leaf to spine 2 x 104 = 208, the appliances' 2 x 8 =
    16: 480 (one pod: 256 + 200 + 8 = 464). Every STO rule is silent."""
    layout = build(NewOptions(gpus=1024, storage_pod_sus=2)).layout
    assert "on a storage fabric of its own in 2 pods: 8 node leaves, 2 storage leaves, " in (
        layout.comment or ""
    )
    assert "4 spines, 480 cables" in (layout.comment or "")
    models = Counter(d.model for _, d in layout.devices())
    assert models["ddn-ai400x2t"] == 2
    assert _storage_findings(layout) == []


@pytest.mark.parametrize(
    ("pod_sus", "advice"),
    [
        (4, "use smaller pods (--storage-pod-sus, now 4 SUs a pod)"),
        (1, "a pod of one SU is the smallest: give the nodes fewer storage ports"),
    ],
)
def test_a_pod_one_spine_tier_cannot_take_says_what_to_change(pod_sus: int, advice: str) -> None:
    """Two leaves of 2 uplinks each on 1-port spines: 4 uplinks need 4 spines, more than a
    leaf's 2 uplinks reach, so no single spine tier joins them: the refusal names the
    option that makes pods smaller, or says one SU is as small as a pod gets."""
    from types import SimpleNamespace

    from rackdesigner.design.generators.base import GenerateError
    from rackdesigner.design.storage_fabric import StorageCounts, _spines

    leaves = [SimpleNamespace(id=f"l{i}", want_up=2) for i in range(2)]
    model = SimpleNamespace(ports=1, key="tiny")
    with pytest.raises(GenerateError) as refused:
        _spines(None, leaves, model, 0, StorageCounts(), pod_sus=pod_sus)  # type: ignore[arg-type]
    assert str(refused.value) == (
        f"storage pod 1: 2 leaves of 4 uplinks need more than one spine tier of 1-port tiny; "
        f"{advice}"
    )
