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
    speed. Within a scalable unit (v1.2: a rail-optimised rail group without crossed
    rails, Definitions) port k of every node is on one rail-k leaf, so ring and tree
    collectives among its nodes never reach the spines (DGX H100 SuperPOD RA: a rail is
    "always one hop away from the other 31 nodes in a SU"): there the figure has no ÷ r
    (340 GB/s for DGX H100 at any leaf ratio); with several SUs the figure across them
    keeps it. One finding per fabric with GPU nodes, for the GPU and node with the lowest
    figures. GPU nodes outside any fabric (a single-node layout) get the intra-node
    figure, once per device model, at the first such node.
    (v1.2) Where every GPU node of the fabric is a rack-scale tray in an NVLink domain (a
    rack's `nvlink_domain`, a GB200 NVL72: NVLink 5, 1.8 TB/s per GPU both ways over the
    switch trays), the first figure holds inside the domain, and the second is across
    domains on the compute fabric: NCCL's hierarchical algorithms drive every port of
    the domain at once, so it is the domain's fabric bandwidth x efficiency ÷ r (no ÷ r
    where one rail group holds every tray), capped at the figure inside the domain.

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

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackdesigner.analysis import Analysis, DeviceFacts
from rackdesigner.analysis.rack_scale import SU_DOMAINS
from rackdesigner.model.units import BYTE_RATE, RATIO, fmt
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.network._common import all_on_fabrics, nodes_text, ratio_text
from rackdesigner.topology.collectives import (
    FabricBusBandwidth,
    fabric_bus_bandwidth,
    per_direction,
)

if TYPE_CHECKING:
    from rackdesigner.analysis.fabric_graph import Fabric


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


def _domains(nodes: list[DeviceFacts]) -> dict[str, list[DeviceFacts]] | None:
    """The fabric's GPU nodes by NVLink domain, or None unless every one is a rack-scale
    tray in a domain."""
    out: dict[str, list[DeviceFacts]] = {}
    for dev in nodes:
        name = dev.rack.nvlink_domain
        if dev.type is None or dev.type.nvl_domain is None or name is None:
            return None
        out.setdefault(name, []).append(dev)
    return out or None


@dataclass(frozen=True, slots=True)
class DomainFigures:
    """The nccl-tests acceptance figures of a fabric of NVLink domains (bit/s)."""

    intra: float  # inside a domain
    across: float | None  # across domains on the fabric; None with one domain
    domains: int
    domain_gpus: int  # the smallest domain's GPUs
    uneven: bool  # domains of different sizes
    bandwidth: float  # the fabric ports of the domain with the fewest
    weakest: str  # that domain
    ratio: float  # the oversubscription applied (1 where one rail group holds every tray)
    capped: bool
    intra_how: str  # how the inside figure was derived


def domain_figures(fabric: Fabric, efficiency: float) -> DomainFigures | None:
    """The figures inside and across NVLink domains, or None unless every GPU node of
    the fabric is a rack-scale tray in a domain (NET007 and the report's domains)."""
    domains = _domains(fabric.nodes)
    if domains is None:
        return None
    bus = fabric_bus_bandwidth(fabric, efficiency)
    if bus.intra is None or bus.intra_node is None:
        return None
    inside = _intra_node(bus.intra_node, efficiency)
    assert inside is not None
    sizes = {sum(dev.gpus for dev in members) for members in domains.values()}
    name, members = min(
        domains.items(),
        key=lambda item: sum(fabric.node_bandwidth.get(d.id, 0.0) for d in item[1]),
    )
    bandwidth = sum(fabric.node_bandwidth.get(d.id, 0.0) for d in members)
    rail_local = bus.within is not None and bus.within.covers
    ratio = 1.0 if rail_local else bus.oversubscription
    across = None
    capped = False
    if len(domains) >= 2:
        across = bandwidth * efficiency / ratio if math.isfinite(ratio) else 0.0
        if across > bus.intra:
            across, capped = bus.intra, True
    return DomainFigures(
        intra=bus.intra,
        across=across,
        domains=len(domains),
        domain_gpus=min(sizes),
        uneven=len(sizes) > 1,
        bandwidth=bandwidth,
        weakest=name,
        ratio=ratio,
        capped=capped,
        intra_how=inside[1],
    )


@dataclass(frozen=True, slots=True)
class AcceptanceTest:
    """One nccl-tests ``all_reduce_perf`` run and the busbw it should reach (bit/s): run on
    ``gpus`` ranks (``-np``), the hostfile's first slots. NET007's figures, the report's
    network section and its NVLink domains all take theirs from :func:`acceptance_tests`."""

    scope: str  # "node", "domain", "su" or "fabric"
    gpus: int  # -np
    busbw: float  # bit/s
    where: str  # what the ranks span, for people: "one NVLink domain (18 trays)"


def acceptance_tests(fabric: Fabric, efficiency: float) -> list[AcceptanceTest]:
    """The fabric's nccl-tests acceptance runs, smallest first: inside one NVLink domain and
    across the domains (a fabric of rack-scale trays); else inside one node, within one
    scalable unit (a rail group, where the fabric has several) and over the whole fabric.
    A run appears where its figure is known."""
    if not fabric.nodes:
        return []
    figures = domain_figures(fabric, efficiency)
    if figures is not None:
        trays = len(fabric.nodes) // max(1, figures.domains)
        tests = [
            AcceptanceTest(
                "domain",
                figures.domain_gpus,
                figures.intra,
                f"one NVLink domain, {plural(trays, 'tray')}",
            )
        ]
        if figures.across is not None:
            sus = math.ceil(figures.domains / SU_DOMAINS)
            where = f"the whole fabric: {plural(figures.domains, 'NVLink domain')}"
            if figures.domains >= SU_DOMAINS:
                where += f", {plural(sus, 'scalable unit')} of {SU_DOMAINS} racks"
            tests.append(AcceptanceTest("fabric", fabric.gpus, figures.across, where))
        return tests
    bus = fabric_bus_bandwidth(fabric, efficiency)
    tests = []
    if bus.intra is not None and bus.intra_node is not None:
        tests.append(AcceptanceTest("node", bus.intra_node.gpus, bus.intra, "one node"))
    within = bus.within
    units = fabric.units or []
    if within is not None and not within.covers and within.figure is not None and units:
        smallest = min(units, key=len)
        tests.append(
            AcceptanceTest(
                "su",
                sum(n.gpus for n in smallest),
                within.figure,
                f"one scalable unit, {plural(len(smallest), 'node')}, rail-local",
            )
        )
    if bus.inter is not None and len(fabric.nodes) >= 2:
        where = "the whole fabric"
        if within is not None and within.covers:
            where += ", one scalable unit, rail-local"
        elif within is not None:
            where += f", {plural(within.units, 'scalable unit')}"
        tests.append(AcceptanceTest("fabric", fabric.gpus, bus.inter, where))
    return tests


def _domain_finding(fabric: Fabric, figures: DomainFigures, efficiency: float) -> Finding:
    gpus = figures.domain_gpus
    size_text = f"the smallest {gpus:,} GPUs" if figures.uneven else f"{gpus:,} GPUs"
    parts = [
        f"{fmt(figures.intra, BYTE_RATE)} inside an NVLink domain ({size_text}; "
        f"{figures.intra_how})"
    ]
    values = {
        "intra": figures.intra,
        "domains": float(figures.domains),
        "domain_gpus": float(gpus),
    }
    if figures.across is not None:
        how = f"{fmt(figures.bandwidth, BYTE_RATE)} of fabric ports per domain"
        if figures.uneven:
            how += f" in {figures.weakest}"
        how += f" × {fmt(efficiency, RATIO)}"
        if figures.ratio > 1:
            how += f" ÷ {ratio_text(figures.ratio)} fabric oversubscription"
            values["oversubscription"] = figures.ratio
        if figures.capped:
            how += ", capped at the figure inside the domain"
        parts.append(f"{fmt(figures.across, BYTE_RATE)} across NVLink domains ({how})")
        values["inter"] = figures.across
    else:
        parts.append("one NVLink domain: no all-reduce traffic leaves it")
    entity, subject = fabric.site()
    return Finding(
        entity,
        subject,
        f"expected all-reduce bus bandwidth for {nodes_text(fabric)} in "
        f"{plural(figures.domains, 'NVLink domain')}: " + "; ".join(parts),
        hint="compare with nccl-tests all_reduce_perf busbw after burn-in, inside one "
        "domain and across domains; well below these figures, something is broken",
        values=values,
    )


@rule("NET007", "info", scope="fabric", thresholds=("nccl_efficiency",))
def expected_allreduce(analysis: Analysis) -> Iterator[Finding]:
    efficiency = analysis.thresholds["nccl_efficiency"]
    for fabric in analysis.fabrics:
        if not fabric.nodes:
            continue
        figures = domain_figures(fabric, efficiency)
        if figures is not None:
            yield _domain_finding(fabric, figures, efficiency)
            continue
        finding = _fabric_finding(fabric, efficiency)
        if finding is not None:
            yield finding
    yield from _outside_fabrics(analysis, efficiency)


def _fabric_finding(fabric: Fabric, efficiency: float) -> Finding | None:
    """A fabric's figures inside a node, within a scalable unit and between nodes (across
    the units), each with how it was derived; None where none is known."""
    bus = fabric_bus_bandwidth(fabric, efficiency)
    parts: list[str] = []
    values: dict[str, float] = {}
    if bus.intra is not None and bus.intra_node is not None:
        figure = _intra_node(bus.intra_node, efficiency)
        assert figure is not None
        parts.append(f"{fmt(bus.intra, BYTE_RATE)} inside a node ({figure[1]})")
        values["intra"] = bus.intra
    within = bus.within
    if within is not None and within.figure is not None and within.node is not None:
        parts.append(_within_part(fabric, bus, efficiency, values))
    if (
        bus.inter is not None
        and bus.inter_node is not None
        and (within is None or not within.covers)
    ):
        parts.append(_between_part(bus, efficiency, values))
    if not parts:
        return None
    entity, subject = fabric.site()
    return Finding(
        entity,
        subject,
        f"expected all-reduce bus bandwidth for {nodes_text(fabric)}: " + "; ".join(parts),
        hint="compare with nccl-tests all_reduce_perf busbw after burn-in; "
        "well below these figures, something is broken",
        values=values,
    )


def _within_part(
    fabric: Fabric, bus: FabricBusBandwidth, efficiency: float, values: dict[str, float]
) -> str:
    """(v1.2) Rail-local: within a scalable unit the leaf ratio does not apply."""
    within = bus.within
    assert within is not None and within.figure is not None and within.node is not None
    bandwidth = fabric.node_bandwidth.get(within.node.id, 0.0)
    how = f"{fmt(bandwidth, BYTE_RATE)} of fabric ports per node"
    if not bus.uniform:
        how += f" on node {within.node.id}"
    how += f" × {fmt(efficiency, RATIO)}"
    how += (
        ", capped at the figure inside the node"
        if within.capped
        else "; rail k of every node on one leaf: never through the spines"
    )
    where = "within the scalable unit" if within.covers else "within a scalable unit"
    values["within_su"] = within.figure
    values["sus"] = float(within.units)
    if within.covers:
        values["inter"] = within.figure
    return f"{fmt(within.figure, BYTE_RATE)} between nodes {where} ({how})"


def _between_part(bus: FabricBusBandwidth, efficiency: float, values: dict[str, float]) -> str:
    """Between nodes (across scalable units, where the fabric has several): the node's
    fabric bandwidth × efficiency ÷ r, capped at the figure inside the node."""
    assert bus.inter is not None and bus.inter_node is not None
    how = f"{fmt(bus.node_bandwidth or 0.0, BYTE_RATE)} of fabric ports per node"
    if not bus.uniform:
        how += f" on node {bus.inter_node.id}"
    how += f" × {fmt(efficiency, RATIO)}"
    if bus.oversubscription > 1:
        how += f" ÷ {ratio_text(bus.oversubscription)} fabric oversubscription"
        values["oversubscription"] = bus.oversubscription
    if bus.capped:
        how += ", capped at the figure inside the node"
    across = " across scalable units" if bus.within is not None else ""
    values["inter"] = bus.inter
    if bus.within is not None:
        values["across_su"] = bus.inter
    return f"{fmt(bus.inter, BYTE_RATE)} between nodes{across} ({how})"


def _outside_fabrics(analysis: Analysis, efficiency: float) -> Iterator[Finding]:
    """GPU nodes outside any fabric: the intra-node figure, once per device model."""
    if all_on_fabrics(analysis):
        return
    cabled = {id(node) for fabric in analysis.fabrics for node in fabric.nodes}
    seen: dict[str, list[DeviceFacts]] = {}
    for dev in analysis.devices:
        if dev.is_gpu_node and id(dev) not in cabled and dev.id not in analysis.failed.devices:
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
