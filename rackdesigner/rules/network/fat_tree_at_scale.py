"""A fat tree (two or more switch tiers) connects more GPUs than the threshold.

Why it matters:
    A non-blocking fat tree spends half of every lower-tier switch's ports on uplinks,
    and each further tier adds switches, optics and cables that carry no node. The
    field guide's advice is that from about 128 GPUs a Dragonfly+ topology (groups of
    leaves and spines joined all-to-all by global links) reaches the same bisection
    with fewer ports, cables and hops. This is advice, not a fault: fat trees are the
    well-trodden design, and a 2-tier fat tree of current switches is simple to run.

Example:
    # 32 DGX H100 (256 GPUs) on 8 leaves and 4 spines

Fix:
    Compare the port and cable count of a Dragonfly+ design for the same GPU count, or
    keep the fat tree knowingly and ignore this rule (`ignore = ["NET004"]`).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.network._common import nodes_text


@rule("NET004", "info", scope="fabric", thresholds=("dragonfly_min_gpus",))
def fat_tree_at_scale(analysis: Analysis) -> Iterator[Finding]:
    limit = analysis.thresholds["dragonfly_min_gpus"]
    for fabric in analysis.fabrics:
        if not fabric.is_fat_tree or fabric.gpus <= limit:
            continue
        entity, subject = fabric.site()
        counts = ", ".join(
            f"{len(fabric.tier_switches(t))} in tier {t}" for t in range(1, fabric.max_tier + 1)
        )
        yield Finding(
            entity,
            subject,
            f"{fabric.max_tier}-tier fat tree ({counts}) for {nodes_text(fabric)}: "
            f"above {limit:g} GPUs a Dragonfly+ topology wastes fewer ports",
            hint="compare the switch, port and cable count of a Dragonfly+ design",
            values={
                "gpus": float(fabric.gpus),
                "limit": float(limit),
                "tiers": float(fabric.max_tier),
            },
        )
