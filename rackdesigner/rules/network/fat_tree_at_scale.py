"""A fat tree with more node ports than two tiers of its switches close non-blocking.

Why it matters:
    A two-tier fat tree of radix-k switches is non-blocking up to k²/2 node ports (k
    leaves of k/2 ports down, k/2 spines; 2,048 with 64-port switches: 256 DGX H100).
    Beyond that it needs a third tier, which adds switches, optics and cables that carry
    no node; there the field guide's advice, a Dragonfly+ (groups of leaves and spines
    joined all-to-all by global links), can take fewer. Below it the fat tree is the
    leaner build: the generators give 256 GPUs 12 switches and 512 cables as a fat tree,
    16 and 640 as a Dragonfly+ (v1.2: the rule fired from 128 GPUs before). The finding
    quotes both builds' counts, as the generators (`rackdesigner new --fabric rail` and
    `--fabric dragonfly`) make them for the fabric's nodes and leaf radix at 1:1. Advice,
    not a fault; it also stays silent up to `dragonfly_min_gpus`.

Example:
    # 512 DGX H100 (4,096 GPUs) on 64-port leaves, spines and cores: 3 tiers

Fix:
    Compare the two builds' counts (`rackdesigner new --gpus N --fabric dragonfly`), or
    keep the fat tree knowingly and ignore this rule (`ignore = ["NET004"]`).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.network._common import nodes_text
from rackdesigner.topology.sizing import (
    SizingError,
    dragonfly_counts,
    fat_tree_counts,
    two_tier_limit,
)


def _radix(dev: DeviceFacts) -> int:
    """The switch's compute ports (its largest compute group; 0 when it has none)."""
    return max(
        (g.count for g in dev.ports.values() if g.effective_role(dev.kind) == "compute"),
        default=0,
    )


@rule("NET004", "info", scope="fabric", thresholds=("dragonfly_min_gpus",))
def fat_tree_at_scale(analysis: Analysis) -> Iterator[Finding]:
    limit = analysis.thresholds["dragonfly_min_gpus"]
    for fabric in analysis.fabrics:
        if not fabric.is_fat_tree or fabric.gpus <= limit or len(fabric.nodes) < 2:
            continue
        # A switch's ports are its model's: each model's first leaf's, not every leaf's.
        leaves = fabric.models_of_leaves().values()
        radix = min((_radix(first) for _, first in leaves), default=0)
        if radix < 2:
            continue
        ports = fabric.ports_by_node()
        node_ports = sum(ports.values())
        closes = two_tier_limit(radix)
        if node_ports <= closes:
            continue
        rails = max(ports.values())
        n = len(fabric.nodes)
        try:
            tree = fat_tree_counts(n, rails, radix)
            dragonfly = dragonfly_counts(n, rails, radix)
        except SizingError:
            continue
        entity, subject = fabric.site()
        counts = ", ".join(
            f"{len(fabric.tier_switches(t))} in tier {t}" for t in range(1, fabric.max_tier + 1)
        )
        yield Finding(
            entity,
            subject,
            f"{fabric.max_tier}-tier fat tree ({counts}) for {nodes_text(fabric)}: "
            f"{node_ports:,} node ports, more than the {closes:,} a two-tier tree of "
            f"{radix}-port switches closes; built at 1:1 a fat tree takes "
            f"{tree.switches:,} switches and {tree.cables:,} cables ({tree.tiers} tiers), "
            f"a Dragonfly+ {dragonfly.switches:,} switches and {dragonfly.cables:,} cables",
            hint="compare the two builds (rackdesigner new --gpus N --fabric dragonfly)",
            values={
                "gpus": float(fabric.gpus),
                "limit": float(limit),
                "tiers": float(fabric.max_tier),
                "node_ports": float(node_ports),
                "two_tier_ports": float(closes),
                "fat_tree_switches": float(tree.switches),
                "fat_tree_cables": float(tree.cables),
                "dragonfly_switches": float(dragonfly.switches),
                "dragonfly_cables": float(dragonfly.cables),
            },
        )
