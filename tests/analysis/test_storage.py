"""The storage facts: NVIDIA's levels by GPU, the tiers' sums, what the storage fabric carries,
what is left with parts failed, and the checkpoint's size and time. Every figure by hand."""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.checkpoint import checkpoint_of, interval_of
from rackdesigner.analysis.storage import (
    LEVELS,
    bandwidth_left,
    level_of,
    requirement,
    storage_facts,
)
from rackdesigner.analysis.workload_memory import training_state_bytes
from rackdesigner.layout_io.document import loads
from rackdesigner.model.layout import Workload
from tests.builders import HEADER

GB = 8e9  # bits in a gigabyte


def _analysis(text: str) -> Analysis:
    return Analysis(loads(HEADER + text).layout)


# Two DGX H100 (16 GPUs), two storage leaves joined by two 400 Gb/s spines, two appliances
# of 40 GB/s read and 20 GB/s write, each on the appliances' leaf with 2 x 400 Gb/s.
FABRIC = """
[workload]
kind = "training"
model_params = 70e9
storage_level = "better"
checkpoint_interval = "60 s"

[catalog.pfs-x]
kind = "storage"
height = "2 U"
storage_tier = "parallel-fs"
read_bandwidth = "40 GB/s"
write_bandwidth = "20 GB/s"
usable_capacity = "300 TB"
nvme = "400 TB"
ports = [{ name = "eth", count = 2, speed = "400 Gbps", tech = "ethernet", role = "storage" }]

[catalog.obj-x]
kind = "storage"
height = "1 U"
storage_tier = "object"
read_bandwidth = "10 GB/s"
ports = [{ name = "eth", count = 1, speed = "100 Gbps", tech = "ethernet", role = "storage" }]

[catalog.sw]
kind = "switch"
height = "1 U"
ports = [{ name = "p", count = 32, speed = "400 Gbps", tech = "ethernet", role = "storage" }]

[[racks]]
id = "a01"
row = "A"
slot = 1
devices = [
  { id = "n1", model = "dgx-h100", position = 1 },
  { id = "n2", model = "dgx-h100", position = 9 },
  { id = "leaf1", model = "sw", position = 17 },
  { id = "leaf2", model = "sw", position = 18 },
  { id = "spine1", model = "sw", position = 19 },
  { id = "spine2", model = "sw", position = 20 },
  { id = "pfs1", model = "pfs-x", position = 21 },
  { id = "pfs2", model = "pfs-x", position = 23 },
  { id = "obj1", model = "obj-x", position = 25 },
]
"""
LINKS = [
    ("n1:eth1", "leaf1:p1"),
    ("n1:eth2", "leaf1:p2"),
    ("n2:eth1", "leaf1:p3"),
    ("n2:eth2", "leaf1:p4"),
    ("leaf1:p5", "spine1:p1"),
    ("leaf1:p6", "spine2:p1"),
    ("leaf2:p5", "spine1:p2"),
    ("leaf2:p6", "spine2:p2"),
    ("pfs1:eth1", "leaf2:p1"),
    ("pfs1:eth2", "leaf2:p2"),
    ("pfs2:eth1", "leaf2:p3"),
    ("pfs2:eth2", "leaf2:p4"),
    ("obj1:eth1", "leaf2:p7"),
]


def _links(pairs: list[tuple[str, str]]) -> str:
    return "".join(f'\n[[links]]\na = "{a}"\nb = "{b}"\n' for a, b in pairs)


def test_levels_scale_table_6_by_gpu() -> None:
    """Table 6 per SU of 256 GPUs, "best": 125 GB/s read, 62 GB/s write; 1,024 GPUs (the
    RA's 4 SUs) ask 4 x 125 = 500 and 4 x 62 = 248 GB/s (the RA rounds to 250). A node of 8
    GPUs reads 40 GB/s; a GB200 tray of 4: 4 x 40 / 8 = 20 GB/s."""
    need = requirement(LEVELS["best"], 1024)
    assert need.read == pytest.approx(500 * GB)
    assert need.write == pytest.approx(248 * GB)
    assert need.node(8) == pytest.approx((40 * GB, 20 * GB))
    assert need.node(4) == pytest.approx((20 * GB, 10 * GB))
    assert requirement(LEVELS["good"], 256).read == pytest.approx(15 * GB)
    assert level_of(None) == (LEVELS["good"], False)
    assert level_of(Workload(storage_level="best")) == (LEVELS["best"], True)


def test_tiers_add_up_and_the_fabric_carries_its_narrowest_cut() -> None:
    """Two appliances: 2 x 40 = 80 GB/s read, 2 x 20 = 40 GB/s write, 600 TB usable, 800 TB
    raw; the object node is its own tier (10 GB/s). Each node has 2 x 400 Gb/s = 100 GB/s of
    storage cables. The appliances reach the nodes through leaf2 -> 2 spines -> leaf1:
    the spines carry 2 x 400 Gb/s = 800 Gb/s = 100 GB/s (the appliances' leaf has 4 x 400
    Gb/s from them, leaf1 4 x 400 Gb/s to the nodes): the fabric carries 100 GB/s, the path
    reads min(80, 100) = 80 GB/s and writes min(40, 100) = 40 GB/s. The nodes' leaf is
    1,600 / 800 = 2:1 oversubscribed."""
    facts = _analysis(FABRIC + _links(LINKS)).storage
    assert [d.id for d in facts.pfs.devices] == ["pfs1", "pfs2"]
    assert (facts.pfs.read, facts.pfs.write) == pytest.approx((80 * GB, 40 * GB))
    assert (facts.pfs.usable, facts.pfs.raw) == pytest.approx((600e12 * 8, 800e12 * 8))
    assert [d.id for d in facts.objects.devices] == ["obj1"]
    assert facts.node_bandwidth == pytest.approx({"n1": 800e9, "n2": 800e9})
    assert facts.reached == {"n1", "n2"}
    assert facts.flow == pytest.approx(800e9)
    assert facts.path_read() == pytest.approx(80 * GB)
    assert facts.path_write() == pytest.approx(40 * GB)
    assert facts.oversubscription() == pytest.approx(2.0)
    assert facts.gpus == 16
    assert sorted(facts.switches) == ["leaf1", "leaf2", "spine1", "spine2"]
    assert sorted(facts.leaves) == ["leaf1", "leaf2"]


def test_bandwidth_left_with_storage_parts_failed() -> None:
    """What-if: with spine1 failed the fabric carries spine2's 400 Gb/s = 50 GB/s; with an
    appliance failed the tier reads 40 GB/s; with both leaves' link to the appliances gone
    (leaf2 failed) the nodes reach nothing: 0."""
    analysis = _analysis(FABRIC + _links(LINKS))
    one_spine = storage_facts(analysis, failed={"spine1"})
    assert one_spine.flow == pytest.approx(400e9)
    assert one_spine.path_read() == pytest.approx(50 * GB)
    one_appliance = storage_facts(analysis, failed={"pfs2"})
    assert one_appliance.pfs.read == pytest.approx(40 * GB)
    assert one_appliance.path_read() == pytest.approx(40 * GB)
    no_leaf = storage_facts(analysis, failed={"leaf2"})
    assert no_leaf.flow == 0.0 and no_leaf.reached == set()
    assert analysis.storage.flow == pytest.approx(800e9)  # the analysis's own facts unchanged
    left = bandwidth_left(analysis, ["spine1", "pfs2"])  # 40 GB/s of reads, 50 GB/s of fabric
    assert (left.read, left.write, left.fabric) == pytest.approx((40 * GB, 20 * GB, 400e9))
    assert (left.nodes_reached, left.nodes) == (2, 2)


def test_a_converged_fabric_counts_the_compute_cables() -> None:
    """An appliance whose ports are compute ports, cabled into the compute fabric: the nodes
    reach it over their compute cables (2 x 400 Gb/s each to the leaf), the fabric carries
    the appliance's own 2 x 400 Gb/s = 100 GB/s."""
    text = """
[workload]
kind = "training"

[catalog.pfs-c]
kind = "storage"
height = "2 U"
read_bandwidth = "40 GB/s"
ports = [{ name = "ib", count = 2, speed = "400 Gbps", tech = "infiniband", role = "compute" }]

[[racks]]
id = "a01"
devices = [
  { id = "n1", model = "dgx-h100", position = 1 },
  { id = "n2", model = "dgx-h100", position = 9 },
  { id = "leaf", model = "qm9700", position = 17 },
  { id = "pfs", model = "pfs-c", position = 21 },
]
""" + _links(
        [
            ("n1:ib1", "leaf:p1"),
            ("n1:ib2", "leaf:p2"),
            ("n2:ib1", "leaf:p3"),
            ("n2:ib2", "leaf:p4"),
            ("pfs:ib1", "leaf:p5"),
            ("pfs:ib2", "leaf:p6"),
        ]
    )
    facts = _analysis(text).storage
    assert facts.fabric.converged
    assert facts.reached == {"n1", "n2"}
    assert facts.flow == pytest.approx(800e9)


def test_checkpoint_is_weights_and_adam_state() -> None:
    """The ZeRO paper's mixed-precision Adam: 2 + 2 + 12 = 16 bytes a parameter while
    training; a checkpoint saves the weights and the optimizer state, 2 + 12 = 14: 70e9
    parameters are 1.12 TB of state and a 980 GB checkpoint."""
    state = training_state_bytes(70e9)
    assert state.total / 70e9 == pytest.approx(16.0)
    assert state.total == pytest.approx(1.12e12)
    assert state.checkpoint == pytest.approx(980e9)


def test_checkpoint_time_is_the_slower_of_local_and_the_path() -> None:
    """980 GB a checkpoint. The nodes give no NVMe write rate, so the path decides: the
    appliances write 40 GB/s, the fabric carries 100 GB/s, the nodes' cables 200 GB/s:
    980 / 40 = 24.5 s, within the 60 s interval. With each node's NVMe at 10 GB/s (20 GB/s
    together) local is slower: 980 / 20 = 49 s."""
    base = _analysis(FABRIC + _links(LINKS))
    found = checkpoint_of(base.workload, base.storage)
    assert found is not None
    assert (found.size, found.local, found.path) == pytest.approx((980e9 * 8, None, 40 * GB))
    assert found.seconds == pytest.approx(24.5)
    nvme = FABRIC.replace(
        "[catalog.obj-x]", '[catalog.dgx-h100]\nnvme_write = "10 GB/s"\n\n[catalog.obj-x]'
    )
    analysis = _analysis(nvme + _links(LINKS))
    local = checkpoint_of(analysis.workload, analysis.storage)
    assert local is not None and local.local == pytest.approx(20 * GB)
    assert local.seconds == pytest.approx(49.0)


def test_checkpoint_interval_from_steps() -> None:
    """No checkpoint_interval: the guide's 100 steps at 0.5 steps/s are 200 s; 40 steps, 80 s;
    without steps_per_second there is no interval (nothing to judge)."""
    assert interval_of(Workload(steps_per_second=0.5)) == (
        200.0,
        "100 steps at 0.5 steps/s, the guide's",
    )
    assert interval_of(Workload(steps_per_second=0.5, checkpoint_steps=40))[0] == 80.0  # type: ignore[index]
    assert interval_of(Workload()) is None


def test_no_parallel_file_system() -> None:
    """Without appliances there is no path: nothing reached, nothing carried."""
    facts = _analysis(FABRIC.split("[[racks]]")[0] + '[[racks]]\nid = "a01"\n').storage
    assert facts.pfs.devices == [] and facts.path_read() is None and facts.flow == 0.0


def test_an_edit_in_the_designer_checks_the_storage_afresh() -> None:
    """The edit layer's incremental check: removing n2's two storage cables makes STO004 fire
    for n2 (its path is gone), and putting them back silences it."""
    from rackdesigner.edit import AddLink, RemoveLink, Session

    session = Session(loads(HEADER + FABRIC + _links(LINKS)))
    session.check()
    assert not [d for d in session.findings if d.code == "STO004"]
    for end in ("n2:eth1", "n2:eth2"):
        session.do(RemoveLink(end))
    session.check()
    assert [d.entity for d in session.findings if d.code == "STO004"] == ["device n2"]
    session.do(AddLink("n2:eth1", "leaf1:p3"))
    session.check()
    assert not [d for d in session.findings if d.code == "STO004"]
