"""Network rules (NET): the compute fabric's technology, oversubscription, bandwidth and faults.

Every rule reads the fabrics of :mod:`rackdesigner.analysis.fabric_graph` through
``analysis.fabrics``: one per connected part of the compute-port cabling, with
switch tiers, downlink and uplink bandwidth, each GPU node's fabric bandwidth
and the switches and cables whose loss splits the GPU nodes.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rackdesigner.analysis import Analysis, DeviceFacts
from rackdesigner.model.units import BANDWIDTH, BYTE_RATE, RATIO, fmt, fmt_count
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.topology.collectives import fabric_bus_bandwidth, per_direction

if TYPE_CHECKING:  # networkx loads only when a rule asks for analysis.fabrics
    from rackdesigner.analysis.fabric_graph import Fabric, SwitchFacts
    from rackdesigner.analysis.lateral import LateralGroup

_TECH_NAMES = {
    "infiniband": "InfiniBand",
    "ethernet": "Ethernet",
    "mixed": "mixed InfiniBand and Ethernet",
}
_K = {"ddp": 2.0, "fsdp": 3.0, "zero3": 3.0}  # gradient traffic factor per parallelism


def _ratio(value: float) -> str:
    """A downlink:uplink ratio as people write it: ``2:1``, ``1.33:1``."""
    return f"{value:.3g}:1"


def _nodes_text(fabric: Fabric) -> str:
    return f"{plural(fabric.gpus, 'GPU')} on {plural(len(fabric.nodes), 'node')}"


def _compute_speed(dev: DeviceFacts) -> float | None:
    """The speed of a switch's compute ports (bit/s), for counting the cables a fix needs."""
    for group in (dev.type.ports or ()) if dev.type is not None else ():
        if group.speed and group.effective_role(dev.kind) == "compute":
            return float(group.speed)
    return None


@rule("NET001", "warning", scope="fabric", thresholds=("infiniband_min_gpus",))
def not_infiniband(analysis: Analysis) -> Iterator[Finding]:
    """A training fabric spans more GPUs than the threshold and is not InfiniBand.

    Why it matters:
        Gradient all-reduce over many GPUs is bound by the slowest, most congested path.
        The field guide's advice is that above 32 GPUs InfiniBand is the only option that
        works reliably: credit-based, lossless flow control and adaptive routing out of the
        box. RoCE (Ethernet) can work at scale, but only with carefully tuned PFC/ECN and
        congestion control, hence a warning and not an error. The rule applies to training
        and fine-tuning workloads; without `[workload]` it stays silent. A fabric whose
        ports declare no technology is not judged.

    Example:
        [workload]
        kind = "training"

        [catalog.g493-sb0]
        gpu = "h100-pcie"    # 2 x 200 Gbps Ethernet compute ports

        # five g493-sb0 nodes (40 GPUs) cabled to one Ethernet leaf

    Fix:
        Build the compute fabric from InfiniBand switches and adapters (QM9700 with
        ConnectX-7), or keep the Ethernet fabric and plan RoCE tuning (lossless classes,
        ECN, adaptive routing) explicitly.
    """
    if not analysis.is_training:
        return
    limit = analysis.thresholds["infiniband_min_gpus"]
    for fabric in analysis.fabrics:
        tech = fabric.tech
        if fabric.gpus <= limit or tech in ("infiniband", "unknown"):
            continue
        entity, subject = fabric.site()
        yield Finding(
            entity,
            subject,
            f"training fabric of {_nodes_text(fabric)} runs over "
            f"{_TECH_NAMES.get(tech, tech)}, not InfiniBand (more than {limit:g} GPUs)",
            hint="use InfiniBand switches and adapters for the compute fabric, or "
            "plan RoCE tuning (lossless traffic classes, ECN, adaptive routing)",
            values={"gpus": float(fabric.gpus), "limit": float(limit)},
        )


@rule(
    "NET002",
    "error",
    scope="fabric",
    thresholds=("oversubscription_max_training", "oversubscription_max_inference"),
    severities=("error", "warning"),
)
def oversubscribed(analysis: Analysis) -> Iterator[Finding]:
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
    workload = analysis.workload
    limit = analysis.thresholds["oversubscription_max_training"]
    if analysis.is_training:
        severity, purpose = "error", "training"
    elif workload is not None and workload.kind == "inference":
        limit = analysis.thresholds["oversubscription_max_inference"]
        severity, purpose = "warning", "inference"
    else:
        severity, purpose = "warning", "training (no [workload] given)"
    for fabric in analysis.fabrics:
        for switch in fabric.switches.values():
            ratio = switch.oversubscription
            if ratio is None or ratio <= limit * (1 + 1e-9):
                continue
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
    severity: str,
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
        f"global ratio {group.ratio:.3g}, below the {1 / limit:.3g} that {_ratio(limit)} "
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
    fabric: Fabric, switch: SwitchFacts, ratio: float, limit: float, severity: str, purpose: str
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
            f"other switches (at most {_ratio(limit)} allowed for {purpose})"
        )
    else:
        values["ratio"] = ratio
        out = f"{fmt(up, BANDWIDTH)} of uplinks"
        if lateral > 0:
            out += f" + {fmt(lateral, BANDWIDTH)} of lateral links"
        message = (
            f"{tier} has {fmt(down, BANDWIDTH)} of downlinks and {out}: "
            f"{_ratio(ratio)} oversubscribed, above the {_ratio(limit)} "
            f"allowed for {purpose}"
        )
    return Finding(
        f"device {dev.id}", dev.ref, message, hint=hint, values=values, severity=severity
    )


@rule("NET003", "warning", scope="fabric", thresholds=("nccl_efficiency",))
def gradient_traffic(analysis: Analysis) -> Iterator[Finding]:
    """Estimated cross-node gradient traffic per fabric port exceeds the port's rate.

    Why it matters:
        Data-parallel training all-reduces the gradients every step. NCCL's hierarchical
        collectives reduce inside a node over NVLink first and send one rail per GPU
        between nodes, so the traffic that crosses the fabric is per node, not per GPU:
        each node sends and receives k x params x bytes_per_param x (n - 1) / n bytes per
        step, n the GPU nodes in the fabric and k = 2 for `ddp` (reduce-scatter +
        all-gather of gradients) and 3 for `fsdp` / `zero3` (parameters are all-gathered
        again for the forward and backward passes), spread over the node's p cabled
        compute-fabric ports (p = G, its GPUs, at one port per GPU; ports of unequal rate
        share by rate). Times `steps_per_second` that is the rate each port needs; it gets
        its rate x `nccl_efficiency` (85 %). When the need is higher, the GPUs wait on the
        network. The rule is silent for `tensor` and `pipeline` parallelism (their traffic
        depends on the model's shapes), without `parallelism`, `model_params`,
        `bytes_per_param` or `steps_per_second`, for inference, and for fabrics with fewer
        than two GPU nodes (whose all-reduce stays inside the node). One finding per
        fabric names the node with the least fabric bandwidth.

    Example:
        [workload]
        kind = "training"
        model_params = 70e9
        parallelism = "fsdp"
        bytes_per_param = 2
        steps_per_second = 1.0   # 52.5 GB/s per port over 16 DGX H100 (8 ports each)

        # a 400 Gbps port x 85 % carries 42.5 GB/s

    Fix:
        Cable more of each node's fabric ports (one 400 Gbps port per GPU is the norm), use
        faster adapters, or lower the traffic: gradients in bf16 (`bytes_per_param = 2`),
        gradient accumulation (fewer steps per second), or tensor / pipeline parallelism
        inside the node.
    """
    workload = analysis.workload
    if workload is None or not workload.is_training:
        return
    k = _K.get(workload.parallelism or "")
    params, width = workload.model_params, workload.bytes_per_param
    steps = workload.steps_per_second
    if k is None or not params or not width or not steps:
        return
    efficiency = analysis.thresholds["nccl_efficiency"]
    for fabric in analysis.fabrics:
        n = len(fabric.nodes)
        if n < 2:
            continue
        per_node = k * float(params) * float(width) * (n - 1) / n * float(steps) * 8.0
        worst: tuple[float, DeviceFacts] | None = None
        for node in fabric.nodes:
            bandwidth = fabric.node_bandwidth.get(node.id, 0.0)
            if bandwidth <= 0:
                continue  # unknown port speeds: nothing to compare
            if worst is None or bandwidth < worst[0]:
                worst = (bandwidth, node)
        if worst is None or per_node <= worst[0] * efficiency * (1 + 1e-9):
            continue
        bandwidth, node = worst
        ports = _fabric_ports(fabric, node)
        port_rate = bandwidth / ports
        needed = per_node / ports
        available = port_rate * efficiency
        entity, subject = fabric.site()
        yield Finding(
            entity,
            subject,
            f"gradient all-reduce needs {fmt(needed, BYTE_RATE)} per fabric port "
            f"({workload.parallelism}, {fmt_count(float(params))} params × "
            f"{float(width):g} B × {n - 1}/{n} nodes, {float(steps):g} steps/s, over "
            f"{plural(ports, 'port')} of node {node.id}) but a "
            f"{fmt(port_rate, BANDWIDTH)} port gives {fmt(available, BYTE_RATE)} at "
            f"{fmt(efficiency, RATIO)}",
            hint="cable more fabric ports per node (one per GPU), use faster "
            "adapters, or cut traffic: bf16 gradients, gradient accumulation, "
            "tensor or pipeline parallelism inside the node",
            values={
                "needed": needed,
                "available": available,
                "ports": float(ports),
                "nodes": float(n),
            },
            related=(node.ref,),
        )


def _fabric_ports(fabric: Fabric, node: DeviceFacts) -> int:
    """The node's cabled compute-fabric ports (parallel cables counted one by one)."""
    count = 0
    for link in fabric.links:
        if link.a.device is node or link.b.device is node:
            count += 1
    return max(count, 1)


@rule("NET004", "info", scope="fabric", thresholds=("dragonfly_min_gpus",))
def fat_tree_at_scale(analysis: Analysis) -> Iterator[Finding]:
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
            f"{fabric.max_tier}-tier fat tree ({counts}) for {_nodes_text(fabric)}: "
            f"above {limit:g} GPUs a Dragonfly+ topology wastes fewer ports",
            hint="compare the switch, port and cable count of a Dragonfly+ design",
            values={
                "gpus": float(fabric.gpus),
                "limit": float(limit),
                "tiers": float(fabric.max_tier),
            },
        )


@rule("NET005", "warning", scope="fabric")
def single_points_of_failure(analysis: Analysis) -> Iterator[Finding]:
    """A switch or a cable whose loss splits the GPU nodes of a fabric.

    Why it matters:
        A training job spans all its GPUs: when one switch or one cable fails and leaves
        GPU nodes unable to reach each other, the whole job stops, not just the nodes
        behind it. A switch whose loss leaves the fabric's GPU nodes in two or more parts
        (an articulation point of the fabric) and a single cable whose loss cuts GPU nodes
        off (a bridge) are single points of failure. Several parallel cables between the
        same two devices count as one connection that survives the loss of one cable; the
        switch at their end can still be a single point of failure.

    Example:
        # each node has one cable, all to the same leaf
        [[links]]
        a = "a01-n01:ib1"
        b = "a01-leaf:p1"

    Fix:
        Give every node cables to at least two switches (rail-optimised: port i of every
        node to leaf i), and every leaf uplinks to at least two spines.
    """
    for fabric in analysis.fabrics:
        if not fabric.cut_switches and not fabric.cut_links:
            continue
        total = len(fabric.nodes)
        name = fabric.site()[0]
        for dev, parts in fabric.cut_switches:
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"its loss splits the {total} GPU nodes of {name} into {parts} "
                "parts that cannot reach each other",
                hint="cable the nodes behind it to a second switch as well",
                values={"parts": float(parts), "nodes": float(total)},
            )
        for link, cut_off in fabric.cut_links:
            yield Finding(
                link.entity,
                link.ref,
                f"this single cable is the only path between "
                f"{plural(cut_off, 'GPU node')} and the rest of {name} "
                f"({total} GPU nodes)",
                hint="add a second cable, to another switch where possible",
                values={"cut_off": float(cut_off), "nodes": float(total)},
            )


@rule("NET006", "error", scope="fabric")
def disconnected_gpus(analysis: Analysis) -> Iterator[Finding]:
    """A training cluster's GPU nodes are not all on one compute fabric.

    Why it matters:
        A training job all-reduces across every GPU it uses, so every GPU node must reach
        every other over the compute fabric (ports with `role = "compute"`; storage and
        management networks do not count). A node with no compute link, or a group of
        nodes on a fabric not cabled to the others, cannot join a job with the rest. The
        rule applies to training and fine-tuning with two or more GPU nodes. Split fabrics
        are reported against the largest one (most GPUs), once per smaller fabric.

    Example:
        [workload]
        kind = "training"

        # a01-n03 is cabled to leaf a02-leaf, which has no link to a01-leaf's fabric
        [[links]]
        a = "a01-n03:ib1"
        b = "a02-leaf:p1"

    Fix:
        Cable every GPU node's compute ports, and join the fabrics: leaves to common
        spines, or all nodes to the same leaves.
    """
    if not analysis.is_training:
        return
    nodes = [dev for dev in analysis.devices if dev.is_gpu_node]
    if len(nodes) < 2:
        return
    fabrics = [f for f in analysis.fabrics if f.nodes]
    cabled = {id(node) for fabric in fabrics for node in fabric.nodes}
    for node in nodes:
        if id(node) not in cabled:
            yield Finding(
                f"device {node.id}",
                node.ref,
                f"GPU node ({plural(node.gpus, 'GPU')}) has no compute-fabric link: "
                "it cannot join a training job with the other nodes",
                hint="cable its compute ports to the fabric's leaves",
                values={"gpus": float(node.gpus)},
            )
    if len(fabrics) < 2:
        return
    main = max(fabrics, key=lambda f: (f.gpus, len(f.nodes), -f.index))
    main_name = main.site()[0].removeprefix("fabric ")
    others = len(fabrics) - 1
    for fabric in fabrics:
        if fabric is main:
            continue
        entity, subject = fabric.site()
        among = f" (one of {others} fabrics apart from it)" if others > 1 else ""
        yield Finding(
            entity,
            subject,
            f"{_nodes_text(fabric)} are not connected to fabric {main_name} "
            f"({_nodes_text(main)}){among}: a training job cannot span them",
            hint=f"join the fabrics: cable this fabric's leaves to the spines of "
            f"fabric {main_name}, or its nodes to the same leaves",
            values={"gpus": float(fabric.gpus), "main_gpus": float(main.gpus)},
        )


def _intra_node(dev: DeviceFacts, efficiency: float) -> tuple[float, str] | None:
    """Expected intra-node all-reduce bus bandwidth (bit/s) and how it was derived."""
    gpu = dev.gpu
    figure = per_direction(dev)
    if gpu is None or figure is None:
        return None
    if gpu.nvlink:
        link = "NVLink" if (gpu.vendor or "NVIDIA") == "NVIDIA" else "Infinity Fabric"
        how = (
            f"{link} {fmt(float(gpu.interconnect or 0), BYTE_RATE)} both ways = "
            f"{fmt(figure, BYTE_RATE)} each way"
        )
    else:
        how = f"PCIe {fmt(figure, BYTE_RATE)} each way"
    return figure * efficiency, f"{how}, {gpu.key}, × {fmt(efficiency, RATIO)}"


@rule("NET007", "info", scope="fabric", thresholds=("nccl_efficiency",))
def expected_allreduce(analysis: Analysis) -> Iterator[Finding]:
    """Expected all-reduce bus bandwidth inside a node and between nodes.

    Why it matters:
        The figures to hold a burn-in against: nccl-tests (`all_reduce_perf`) reports "bus
        bandwidth" (busbw), the per-GPU rate each link direction carries, and a healthy
        cluster reaches about `nccl_efficiency` (85 %) of the hardware's figure. The field
        guide: below 85 % of theoretical something is wrong; under 300 GB/s intra-node on
        H100, NVLink is broken.
        Inside a node the figure is the GPU's `interconnect` per direction x efficiency.
        The catalog gives NVLink and Infinity Fabric (`nvlink = true`) as the total of both
        directions (H100 SXM: 900 GB/s), so half of it is used (450 GB/s x 85 % = 382.5 GB/s,
        in line with the 370-450 GB/s nccl-tests measures on DGX H100); PCIe figures are
        already one direction. Between nodes NCCL's hierarchical algorithms drive all of a
        node's fabric ports at once (one rail per GPU), so the figure is the node's whole
        compute-fabric bandwidth x efficiency ÷ r, capped at the inside figure, where r is
        the fabric oversubscription: the largest of 1, every switch's oversubscription and
        1 ÷ the smallest lateral group's global ratio (NET002). A DGX H100 with 8 x 400
        Gbps at 1:1: 8 x 50 GB/s x 85 % = 340 GB/s, what nccl-tests measures across DGX
        H100 nodes; one port's 42.5 GB/s would accept a fabric running at an eighth of its
        speed. One finding per fabric with GPU nodes, for the GPU and node with the lowest
        figures. GPU nodes outside any fabric (a single-node layout) get the intra-node
        figure, once per device model, at the first such node.

    Example:
        # two DGX H100 on one leaf, 2 x 400 Gbps each
        [[links]]
        a = "a01-n01:ib1"
        b = "a01-leaf:p1"

    Fix:
        Nothing to fix: compare these with nccl-tests busbw after burn-in. A measured
        figure well below them points to a broken NVLink/NVSwitch, a degraded cable or a
        misconfigured fabric.
    """
    efficiency = analysis.thresholds["nccl_efficiency"]
    for fabric in analysis.fabrics:
        if not fabric.nodes:
            continue
        bus = fabric_bus_bandwidth(fabric, efficiency)
        parts: list[str] = []
        values: dict[str, float] = {}
        if bus.intra is not None and bus.intra_node is not None:
            figure = _intra_node(bus.intra_node, efficiency)
            assert figure is not None
            parts.append(f"{fmt(bus.intra, BYTE_RATE)} inside a node ({figure[1]})")
            values["intra"] = bus.intra
        if bus.inter is not None and bus.inter_node is not None:
            how = f"{fmt(bus.node_bandwidth or 0.0, BYTE_RATE)} of fabric ports per node"
            if not bus.uniform:
                how += f" on node {bus.inter_node.id}"
            how += f" × {fmt(efficiency, RATIO)}"
            if bus.oversubscription > 1:
                how += f" ÷ {_ratio(bus.oversubscription)} fabric oversubscription"
                values["oversubscription"] = bus.oversubscription
            if bus.capped:
                how += ", capped at the figure inside the node"
            parts.append(f"{fmt(bus.inter, BYTE_RATE)} between nodes ({how})")
            values["inter"] = bus.inter
        if not parts:
            continue
        entity, subject = fabric.site()
        yield Finding(
            entity,
            subject,
            f"expected all-reduce bus bandwidth for {_nodes_text(fabric)}: " + "; ".join(parts),
            hint="compare with nccl-tests all_reduce_perf busbw after burn-in; "
            "well below these figures, something is broken",
            values=values,
        )
    # GPU nodes outside any fabric: the intra-node figure, once per device model.
    cabled = {id(node) for fabric in analysis.fabrics for node in fabric.nodes}
    seen: dict[str, list[DeviceFacts]] = {}
    for dev in analysis.devices:
        if dev.is_gpu_node and id(dev) not in cabled:
            seen.setdefault(dev.device.model, []).append(dev)
    for model, devices in seen.items():
        first = devices[0]
        figure = _intra_node(first, efficiency)
        if figure is None:
            continue
        others = (
            f" (and {plural(len(devices) - 1, 'more node')} of model {model})"
            if len(devices) > 1
            else ""
        )
        yield Finding(
            f"device {first.id}",
            first.ref,
            f"expected all-reduce bus bandwidth inside the node{others}: "
            f"{fmt(figure[0], BYTE_RATE)} ({figure[1]}); no compute fabric to "
            "other nodes",
            hint="compare with nccl-tests all_reduce_perf busbw after burn-in",
            values={"intra": figure[0], "nodes": float(len(devices))},
        )


@rule("NET008", "warning", scope="fabric")
def crossed_rail(analysis: Analysis) -> Iterator[Finding]:
    """A node's compute port is cabled to another leaf than its rail's (a crossed rail).

    Why it matters:
        A rail-optimised fabric keeps GPU k of every node on leaf k, so that NCCL's rail
        traffic stays on one leaf and never climbs to the spines. A rail group is the GPU
        nodes joined through shared leaves; a port's rail leaf is the leaf that more than
        half of the group's nodes cable that port (`ib3`) to, and a group whose rail leaves
        include two or more leaves is rail-optimised. A node port that goes to another leaf
        sends that rail through the spines, or, in a rail-only fabric, nowhere. One finding
        per crossed cable.

    Example:
        # ib1 of every node on leaf1, ib2 on leaf2; node n4's two cables swapped
        [[links]]
        a = "a01-n4:ib1"
        b = "a01-leaf2:p4"

    Fix:
        Cable the port to its rail leaf (swap the crossed cables back).
    """
    for fabric in analysis.fabrics:
        if len(fabric.nodes) < 2:
            continue
        for crossed in fabric.crossed_rails:
            link = crossed.link
            yield Finding(
                link.entity,
                link.ref,
                f"port {crossed.port} of node {crossed.node} goes to {crossed.leaf}, not to "
                f"rail leaf {crossed.rail_leaf} (where {crossed.on_rail} of the group's "
                f"{crossed.nodes} nodes cable {crossed.port}): a crossed rail",
                hint=f"cable {crossed.node}:{crossed.port} to {crossed.rail_leaf}",
                values={"nodes": float(crossed.nodes), "on_rail": float(crossed.on_rail)},
                related=(
                    analysis.device_by_id[crossed.node].ref,
                    analysis.device_by_id[crossed.rail_leaf].ref,
                ),
            )


@rule("NET009", "warning", scope="fabric")
def uncabled_gpu_node(analysis: Analysis) -> Iterator[Finding]:
    """A GPU node has no compute-fabric link while the layout holds several GPU nodes.

    Why it matters:
        GPU nodes are bought to work together: a job that spans nodes, or an inference
        service that moves a model between them, goes over the compute fabric (ports with
        `role = "compute"`). A node with no compute link is an island, and every fabric
        rule (oversubscription, single points of failure, bandwidth) is silent about it:
        deleting the only leaf would make the warnings fewer and the design look
        healthier. Applies with two or more GPU nodes when the workload is not training
        (for training, NET006 reports the same node as an error).

    Example:
        [workload]
        kind = "inference"

        # a01-n01 and a01-n02 are both GPU nodes; only a01-n01 is cabled to the leaf
        [[links]]
        a = "a01-n01:ib1"
        b = "a01-leaf1:p1"

    Fix:
        Cable the node's compute ports to the fabric's leaves (or ignore NET009 on the
        device when it is meant to stand alone).
    """
    if analysis.is_training:
        return  # NET006
    nodes = [dev for dev in analysis.devices if dev.is_gpu_node]
    if len(nodes) < 2:
        return
    cabled = {id(node) for fabric in analysis.fabrics for node in fabric.nodes}
    others = len(nodes) - 1
    for node in nodes:
        if id(node) in cabled:
            continue
        has_ports = any(
            group.effective_role(node.kind) == "compute" for group in node.ports.values()
        )
        yield Finding(
            f"device {node.id}",
            node.ref,
            f"GPU node ({plural(node.gpus, 'GPU')}) has no compute-fabric link: it cannot "
            f"work with the {plural(others, 'other GPU node')} of the layout",
            hint="cable its compute ports to the fabric's leaves"
            if has_ports
            else 'give its type compute ports (ports with role = "compute") and cable them '
            "to the fabric's leaves",
            values={"gpus": float(node.gpus), "gpu_nodes": float(len(nodes))},
        )
