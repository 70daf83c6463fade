"""A switch's downlink bandwidth exceeds its uplink bandwidth by more than the allowed ratio.

Why it matters:
    A switch's downlinks face the GPU nodes (or the tier below), its uplinks the tier
    above. When more bandwidth comes in below than leaves above, traffic between nodes
    on different switches queues: all-reduce runs at the speed of the uplinks. The field
    guide's advice is 1:1 (non-blocking) for training clusters; 4:1 kills training
    throughput but is acceptable for inference. Training and fine-tuning workloads get
    an error above the training ratio (default 1:1); inference gets a warning above the
    inference ratio (default 4:1); without `[workload]` the training ratio applies, as
    a warning. Tiers come from the cabling (leaf = 1 hop from a GPU node). Below the top
    tier a switch's oversubscription is downlink ÷ (uplink + lateral) bandwidth, where
    lateral links join switches of one tier (v1.1). Switches of the highest tier have no
    uplinks and are never oversubscribed (a single switch is non-blocking); what their
    lateral links carry (two leaves cabled to each other, Dragonfly+ global links
    between spines of different groups) is judged by the groups' global ratio: a group
    is a connected part of the fabric once the top tier's lateral links are removed,
    and its global ratio is the bandwidth of its lateral links to other groups ÷ its
    GPU nodes' compute-fabric bandwidth, capped at 1. A group whose ratio is below
    1 ÷ the allowed ratio is reported at its first top-tier switch: two leaves of 16 x
    400G node ports joined by one 400G cable have 0.4 ÷ 6.4 = 1/16 each. A lower-tier
    switch without any uplink or lateral link is reported as "no uplinks".

Example:
    [workload]
    kind = "training"

    # leaf a01-leaf: 4 x 400 Gbps down to DGX nodes, 2 x 400 Gbps up to the spine
    [[links]]
    a = "a01-leaf:p5"
    b = "a02-spine:p1"

Fix:
    Cable as much bandwidth up as comes down (half the leaf's ports to the spines), or
    move nodes to another leaf.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rackdesigner.analysis import Analysis, DeviceFacts
from rackdesigner.model.diagnostics import Severity
from rackdesigner.model.units import BANDWIDTH, fmt
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.network._common import ratio_text

if TYPE_CHECKING:  # networkx loads only when a rule asks for analysis.fabrics
    from rackdesigner.analysis.fabric_graph import Fabric, SwitchFacts
    from rackdesigner.analysis.lateral import LateralGroup


def _compute_speed(dev: DeviceFacts) -> float | None:
    """The speed of a switch's compute ports (bit/s), for counting the cables a fix needs."""
    for group in (dev.type.ports or ()) if dev.type is not None else ():
        if group.speed and group.effective_role(dev.kind) == "compute":
            return float(group.speed)
    return None


@rule(
    "NET002",
    "error",
    scope="fabric",
    thresholds=("oversubscription_max_training", "oversubscription_max_inference"),
    severities=("error", "warning"),
)
def oversubscribed(analysis: Analysis) -> Iterator[Finding]:
    workload = analysis.workload
    limit = analysis.thresholds["oversubscription_max_training"]
    severity: Severity
    if analysis.is_training:
        severity, purpose = "error", "training"
    elif workload is not None and workload.kind == "inference":
        limit = analysis.thresholds["oversubscription_max_inference"]
        severity, purpose = "warning", "inference"
    else:
        severity, purpose = "warning", "training (no [workload] given)"
    for fabric in analysis.fabrics:
        # Only the top of the switches' ratios (a failed fabric's is mostly shared).
        for ident in fabric.ratios().above(limit * (1 + 1e-9)):
            switch = fabric.switches[ident]
            ratio = switch.oversubscription
            assert ratio is not None
            yield _oversubscription_finding(fabric, switch, ratio, limit, severity, purpose)
        for group in fabric.groups:
            if limit <= 0 or group.ratio * limit >= 1 - 1e-9:
                continue
            yield _group_finding(analysis, fabric, group, limit, severity, purpose)


def _group_finding(
    analysis: Analysis,
    fabric: Fabric,
    group: LateralGroup,
    limit: float,
    severity: Severity,
    purpose: str,
) -> Finding:
    by_id = analysis.device_by_id
    top = [
        d
        for d in group.members
        if (s := fabric.switches.get(d)) is not None and s.tier == fabric.max_tier
    ]
    anchor = by_id[(group.switches or top or group.members)[0]]
    nodes = sum(1 for d in group.members if d in fabric.node_bandwidth)
    needed = group.node_bandwidth / limit - group.global_bandwidth
    speed = _compute_speed(anchor)
    hint = f"add at least {fmt(needed, BANDWIDTH)} of links to the other groups"
    if speed:
        hint += f" ({math.ceil(needed / speed - 1e-9)} more × {fmt(speed, BANDWIDTH)})"
    hint += ", or join the groups through a tier of spines"
    where = ", ".join(group.switches[:3]) if group.switches else "none"
    return Finding(
        f"device {anchor.id}",
        anchor.ref,
        f"its group ({plural(nodes, 'GPU node')}, top-tier switches with global links: "
        f"{where}) has {fmt(group.global_bandwidth, BANDWIDTH)} of links to the rest of "
        f"{fabric.site()[0]} for {fmt(group.node_bandwidth, BANDWIDTH)} of node ports: "
        f"global ratio {group.ratio:.3g}, below the {1 / limit:.3g} that {ratio_text(limit)} "
        f"allows for {purpose}",
        hint=hint,
        values={
            "ratio": group.ratio,
            "global": group.global_bandwidth,
            "nodes": group.node_bandwidth,
            "limit": limit,
        },
        severity=severity,
        related=tuple(by_id[d].ref for d in group.switches[1:]),
    )


def _oversubscription_finding(
    fabric: Fabric,
    switch: SwitchFacts,
    ratio: float,
    limit: float,
    severity: Severity,
    purpose: str,
) -> Finding:
    dev = switch.device
    down, up = switch.down, switch.up
    needed = down / limit - up - switch.lateral if limit > 0 else 0.0
    speed = _compute_speed(dev)
    hint = None
    if needed > 0:
        hint = f"add at least {fmt(needed, BANDWIDTH)} of uplinks"
        if speed:
            hint += f" ({math.ceil(needed / speed - 1e-9)} more × {fmt(speed, BANDWIDTH)})"
        hint += " or move nodes to another switch"
    tier = "leaf" if switch.tier == 1 else f"tier-{switch.tier} switch"
    values = {"down": down, "up": up, "limit": limit}
    lateral = switch.lateral
    if lateral > 0:
        values["lateral"] = lateral
    if math.isinf(ratio):
        message = (
            f"{tier} has {fmt(down, BANDWIDTH)} of downlinks and no uplinks in a "
            f"{fabric.max_tier}-tier fabric: its nodes reach the rest only through "
            f"other switches (at most {ratio_text(limit)} allowed for {purpose})"
        )
    else:
        values["ratio"] = ratio
        out = f"{fmt(up, BANDWIDTH)} of uplinks"
        if lateral > 0:
            out += f" + {fmt(lateral, BANDWIDTH)} of lateral links"
        message = (
            f"{tier} has {fmt(down, BANDWIDTH)} of downlinks and {out}: "
            f"{ratio_text(ratio)} oversubscribed, above the {ratio_text(limit)} "
            f"allowed for {purpose}"
        )
    return Finding(
        f"device {dev.id}", dev.ref, message, hint=hint, values=values, severity=severity
    )
