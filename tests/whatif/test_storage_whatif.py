"""What-if on the storage: an appliance, a storage leaf, a storage cable; the bandwidth left
against NVIDIA's level, the GPU nodes cut off from the parallel file system, the checkpoint
after. Every figure by hand (docs/storage.md)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.storage import storage_facts
from rackdesigner.check.engine import check
from rackdesigner.layout_io import load_path
from rackdesigner.whatif import Impact, PartError, WhatIf, parse_failure, what_if
from rackdesigner.whatif.render import impact_data, impact_lines, summary
from tests.analysis.test_storage import FABRIC, LINKS, _analysis, _links

GB = 8e9  # bits in a gigabyte
TB = 8e12
TRAINING_128 = Path(__file__).resolve().parents[2] / "layouts" / "training-128.toml"


@cache
def _training() -> Analysis:
    return Analysis(load_path(TRAINING_128))


def _run(analysis: Analysis, *parts: str, findings: bool = False) -> Impact:
    return what_if(analysis, [parse_failure(p) for p in parts], findings=findings)


def test_an_ess_3500_lost_halves_the_reads_and_doubles_the_checkpoint() -> None:
    """training-128: two IBM ESS 3500 of 91 GB/s read (no write figure), 250 TB usable each,
    four 200GbE ports each, two on each SN5600 storage switch; 16 nodes of 8 GPUs with two
    400GbE storage ports, one on each switch. storage:a03-stor1: the tier reads 91 GB/s; the
    fabric carries a03-stor2's 4 x 200 Gb/s = 800 Gb/s = 100 GB/s, so the nodes read
    min(91, 100) = 91 GB/s (was min(182, 200) = 182), 91 / 128 = 0.711 GB/s a GPU, still
    above "best" for 128 GPUs, 125 x 128 / 256 = 62.5 GB/s. Writes: no rate given, the
    fabric's 100 GB/s (was 200). 4 of 40 storage cables lost, 250 TB of 500 TB left. The 70B
    checkpoint, 14 B x 70e9 = 980 GB, at 100 GB/s: 9.8 s (was 980 / 200 = 4.9 s). No node
    cut off; no new finding (the failed appliance is not "uncabled": STO010 silent)."""
    impact = _run(_training(), "storage:a03-stor1", findings=True)
    s = impact.storage
    assert s is not None
    assert (s.appliances, s.appliances_lost, s.cables, s.cables_lost) == (2, 1, 40, 4)
    assert (s.read, s.read_left) == pytest.approx((182 * GB, 91 * GB))
    assert (s.write, s.write_left) == pytest.approx((200 * GB, 100 * GB))
    assert not s.write_given and s.read_given
    assert s.read_per_gpu == pytest.approx(91 * GB / 128)
    assert (s.level, s.need_read) == ("best", pytest.approx(62.5 * GB))
    assert (s.usable, s.usable_left) == pytest.approx((500 * TB, 250 * TB))
    assert (s.checkpoint, s.checkpoint_left) == pytest.approx((4.9, 9.8))
    assert s.cut_off == [] and impact.findings == []
    text = "\n".join(impact_lines(impact))
    assert "reads 91 GB/s of 182 GB/s (711 MB/s a GPU)" in text
    assert "read 62.5 GB/s, write 31 GB/s: meets it" in text
    assert "checkpoint: written in 9.8 s (was 4.9 s, every 33.3 min)" in text
    assert summary(impact) == "0 GPUs lost; storage reads 50% left"
    data = impact_data(impact)["storage"]
    assert data["read_left"] == pytest.approx(91 * GB)
    assert data["checkpoint_seconds_left"] == pytest.approx(9.8)


def test_a_storage_switch_lost_leaves_each_node_one_port() -> None:
    """switch:a03-sw-stor1 takes 16 node cables and 4 appliance cables (20 of 40): the
    appliances keep 2 x 2 x 200 Gb/s = 100 GB/s, so reads min(182, 100) = 100 GB/s (0.781 a
    GPU) and the checkpoint 980 / 100 = 9.8 s; each node keeps one 400GbE port, 50 GB/s,
    above "best"'s 40 GB/s a node of 8 GPUs."""
    s = _run(_training(), "switch:a03-sw-stor1").storage
    assert s is not None
    assert (s.switches, s.switches_lost, s.cables_lost) == (2, 1, 20)
    assert s.read_left == pytest.approx(100 * GB)
    assert (s.node_cables, s.node_cables_left, s.need_node) == pytest.approx(
        (100 * GB, 50 * GB, 40 * GB)
    )
    assert s.checkpoint_left == pytest.approx(9.8)


def test_both_appliances_lost_cut_every_node_off() -> None:
    """Both ESS lost: nothing to read, the 16 nodes (128 GPUs) cut off from the parallel
    file system, the checkpoint cannot be copied; below the level."""
    impact = _run(_training(), "storage:a03-stor1", "storage:a03-stor2")
    s = impact.storage
    assert s is not None
    assert s.read_left == 0.0 and s.usable_left == 0.0
    assert (len(s.cut_off), s.gpus_cut_off) == (16, 128)
    assert s.checkpoint_left is None
    text = "\n".join(impact_lines(impact))
    assert ": below it" in text and "it cannot reach the parallel file system" in text


def test_a_failure_away_from_the_storage_says_nothing_of_it() -> None:
    """A compute spine is no part of the storage fabric: no storage lines."""
    assert _run(_training(), "switch:a03-spine1").storage is None


def test_each_storage_ranks_the_appliances_and_names_what_is_not_one() -> None:
    """--each storage fails each appliance once; a GPU node named as storage is refused."""
    ranked = WhatIf(_training()).rank("storage")
    assert [str(i.failures[0]) for i in ranked] == ["storage:a03-stor1", "storage:a03-stor2"]
    with pytest.raises(PartError, match="a01-n01 is a gpu-node, not a storage appliance"):
        _run(_training(), "storage:a01-n01")


def test_a_spine_and_a_cable_on_the_unit_fabric() -> None:
    """The unit fabric of tests/analysis/test_storage.py (two 400 Gb/s spines between the
    nodes' leaf and the appliances' leaf, two appliances of 40 GB/s read and 20 GB/s write,
    level "better" for 16 GPUs: 40 x 16 / 256 = 2.5 GB/s read, 20 x 16 / 256 = 1.25 GB/s
    write). spine1 lost: the fabric carries 400 Gb/s = 50 GB/s: reads min(80, 50) = 50 GB/s,
    writes min(40, 50) = 40 GB/s; the 70B checkpoint, 980 GB, at min(the nodes' 4 x 400 Gb/s
    = 200 GB/s, 40) = 40 GB/s: 24.5 s (was 24.5 s: the appliances' write was the limit).
    n1's cable n1:eth1 lost: n1 keeps 400 Gb/s = 50 GB/s, the level asks 8 GB/s of a node
    of 8 GPUs; the aggregate is unchanged."""
    analysis = _analysis(FABRIC + _links(LINKS))
    s = _run(analysis, "switch:spine1").storage
    assert s is not None
    assert (s.read_left, s.write_left) == pytest.approx((50 * GB, 40 * GB))
    assert (s.need_read, s.need_write) == pytest.approx((2.5 * GB, 1.25 * GB))
    assert (s.checkpoint, s.checkpoint_left) == pytest.approx((24.5, 24.5))
    cable = _run(analysis, "link:n1:eth1").storage
    assert cable is not None and cable.cables_lost == 1
    assert (cable.node, cable.node_cables_left, cable.need_node) == (
        "n1",
        pytest.approx(50 * GB),
        pytest.approx(8 * GB),
    )
    assert cable.read_left == pytest.approx(80 * GB)


# A second pod beside the unit fabric: its own node, leaf and appliance.
POD2 = """
[[racks]]
id = "a02"
row = "A"
slot = 2
devices = [
  { id = "n3", model = "dgx-h100", position = 1 },
  { id = "leaf3", model = "sw", position = 17 },
  { id = "pfs3", model = "pfs-x", position = 21 },
]
"""
POD2_LINKS = [("n3:eth1", "leaf3:p1"), ("pfs3:eth1", "leaf3:p2"), ("pfs3:eth2", "leaf3:p3")]


@pytest.mark.parametrize(
    ("failed", "cut"),
    [
        ({"spine1"}, []),
        ({"pfs2", "leaf1"}, []),
        ({"n1"}, [("n2", "leaf1", 400e9)]),
        (set(), [("leaf1", "spine1", 400e9), ("pfs1", "leaf2", 400e9)]),
        ({"leaf3"}, []),
        ({"pfs3", "spine2"}, [("n3", "leaf3", 400e9)]),
    ],
)
def test_derived_facts_are_the_facts_built_again(
    failed: set[str], cut: list[tuple[str, str, float]]
) -> None:
    """What-if derives the storage left from the facts before, working out again only the
    pods the failure touches; it must be what walking the layout again gives."""
    analysis = _analysis(FABRIC + POD2 + _links(LINKS + POD2_LINKS))
    assert len(analysis.storage.pods().devices) == 2
    fresh = storage_facts(analysis, failed, cut=cut)
    derived = storage_facts(analysis, failed, cut=cut, before=analysis.storage)
    assert derived.flow == pytest.approx(fresh.flow)
    assert derived.reached == fresh.reached
    assert derived.node_bandwidth == pytest.approx(fresh.node_bandwidth)
    assert derived.fabric.links == fresh.fabric.links
    assert sorted(derived.switches) == sorted(fresh.switches)
    assert sorted(derived.leaves) == sorted(fresh.leaves)
    assert (derived.path_read(), derived.path_write()) == (fresh.path_read(), fresh.path_write())


def test_a_storage_to_compute_cable_is_not_new_to_each_failure() -> None:
    """STO009's fixture has one storage port cabled to a compute port, in the layout and in
    every failed layout alike: no failure of `--each switch` (its two storage leaves) or
    `--each storage` raises it as new. What-if checks the link rules on the cables a
    failure touched only; STO009 reads the storage facts' gathered cables only where they
    are of the cables it is given (they once reported the whole layout's to every
    failure)."""
    path = Path(__file__).parents[1] / "rules" / "STO009" / "fires.toml"
    analysis, found = check(load_path(path))
    assert [d.code for d in found].count("STO009") == 1
    for kind in ("switch", "storage"):
        for impact in WhatIf(analysis).rank(kind, findings=True):
            assert impact.findings is not None  # checked
            assert "STO009" not in {d.code for d in impact.findings}
