"""``fat_tree_counts`` (NET004's quote of the rail generator's tree) against NVIDIA's SuperPOD
reference tables: the SU is half the leaf's ports, whatever the radix."""

from __future__ import annotations

import pytest

from rackdesigner.topology.sizing import fat_tree_counts

RAILS = 8

# DGX SuperPOD B300 XDR RA, Table 3 (https://docs.nvidia.com/dgx-superpod/
# reference-architecture/scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html):
# SU count: nodes, leaves, spines, node-leaf and leaf-spine cables; 144-port Q3400s.
B300_XDR = {
    1: (72, 8, 4, 576, 576),
    2: (144, 16, 8, 1152, 1152),
    4: (288, 32, 18, 2304, 2304),
    8: (576, 64, 36, 4608, 4608),
    18: (1296, 144, 72, 10368, 10368),
}

# DGX SuperPOD B200 RA, larger SuperPOD component counts (https://docs.nvidia.com/dgx-superpod/
# reference-architecture-scalable-infrastructure-b200/latest/dgx-superpod-architecture.html):
# SU count: nodes, leaves, spines, cores, and cables per tier (node-leaf = leaf-spine =
# spine-core = GPUs); 64-port QM9700s, 32-node SUs.
B200 = {
    2: (64, 16, 8, 0, 512),
    4: (128, 32, 16, 0, 1024),
    8: (256, 64, 32, 0, 2048),
    16: (512, 128, 128, 64, 4096),
    32: (1024, 256, 256, 128, 8192),
    64: (2048, 512, 512, 256, 16384),
}


@pytest.mark.parametrize("sus", sorted(B300_XDR))
def test_144_port_switches_take_72_node_sus_as_the_b300_xdr_ra(sus: int) -> None:
    nodes, leaves, spines, node_leaf, leaf_spine = B300_XDR[sus]
    counts = fat_tree_counts(nodes, RAILS, 144)
    assert (counts.switches, counts.cables, counts.tiers) == (
        leaves + spines,
        node_leaf + leaf_spine,
        2,
    )


@pytest.mark.parametrize("sus", sorted(B200))
def test_64_port_switches_keep_the_b200_ras_32_node_sus(sus: int) -> None:
    nodes, leaves, spines, cores, per_tier = B200[sus]
    counts = fat_tree_counts(nodes, RAILS, 64)
    tiers = 3 if cores else 2
    assert (counts.switches, counts.cables, counts.tiers) == (
        leaves + spines + cores,
        tiers * per_tier,
        tiers,
    )


def test_an_explicit_su_is_kept_within_half_the_radix() -> None:
    # The DGX H100 SuperPOD's 31-node SU: 4 SU are 32 leaves whose 31 uplinks spread over
    # 16 spines (2 each at most).
    assert fat_tree_counts(124, RAILS, 64, su_nodes=31).switches == 32 + 16
    # an SU larger than half the radix cannot be 1:1: it is held at k/2
    assert fat_tree_counts(72, RAILS, 64, su_nodes=72) == fat_tree_counts(72, RAILS, 64)
