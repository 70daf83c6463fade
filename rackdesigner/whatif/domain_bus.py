"""The bus bandwidth a failure leaves a fabric of NVLink domains, as NET007 and the
report's acceptance runs state it (:func:`rackdesigner.rules.network.allreduce_bandwidth.
domain_figures`): across domains, the fabric ports of the domain with the fewest x the
NCCL efficiency / the fabric's oversubscription (1 where one rail group holds every tray),
capped at the figure inside a domain. Not a tray's own ports: an all-reduce across racks
of NVL72 runs over all 18 trays' ports of each domain at once.

:class:`DomainBus` keeps each domain's fabric bandwidth so a failure recounts only the
domains next to it (``whatif --each`` on a hall stays linear)."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackdesigner.rules.network.allreduce_bandwidth import domain_figures

if TYPE_CHECKING:
    from rackdesigner.analysis.fabric_graph import Fabric


def domain_bus(fabric: Fabric, efficiency: float) -> float | None:
    """The fabric's bus bandwidth across its NVLink domains (bit/s), or None where it is
    not a fabric of two or more domains."""
    figures = domain_figures(fabric, efficiency)
    return figures.across if figures is not None else None


@dataclass(slots=True)
class DomainBus:
    """A fabric of NVLink domains: what every failure of it shares."""

    domain_of: dict[str, str]  # GPU node -> its domain
    node_bandwidth: Mapping[str, float]  # GPU node -> its fabric ports (bit/s)
    members: dict[str, int]  # domain -> its trays on the fabric
    bandwidth: dict[str, float]  # domain -> its fabric ports (bit/s)
    by_bandwidth: list[tuple[float, str]]  # the domains, fewest ports first
    intra: float  # inside a domain (bit/s)
    ratio: float  # the fabric's oversubscription as NET007 applies it
    efficiency: float
    before: float  # across domains before the failure (bit/s)

    @classmethod
    def of(cls, fabric: Fabric, efficiency: float) -> DomainBus | None:
        figures = domain_figures(fabric, efficiency)
        if figures is None or figures.across is None:
            return None
        domain_of: dict[str, str] = {}
        members: dict[str, int] = {}
        bandwidth: dict[str, float] = {}
        for node in fabric.nodes:
            name = node.rack.nvlink_domain
            assert name is not None  # domain_figures holds every node in a domain
            domain_of[node.id] = name
            members[name] = members.get(name, 0) + 1
            bandwidth[name] = bandwidth.get(name, 0.0) + fabric.node_bandwidth.get(node.id, 0.0)
        return cls(
            domain_of,
            fabric.node_bandwidth,
            members,
            bandwidth,
            sorted((b, name) for name, b in bandwidth.items()),
            figures.intra,
            figures.ratio,
            efficiency,
            figures.across,
        )

    def left(
        self, lost: Mapping[str, float], removed: Collection[str], ratio: float
    ) -> float | None:
        """Across domains once ``removed`` nodes are gone and the nodes in ``lost`` have
        lost that much of their fabric bandwidth; ``ratio`` the fabric's oversubscription
        left (kept at 1 where one rail group held every tray). None with fewer than two
        domains left."""
        changed: dict[str, float] = {}
        gone: dict[str, int] = {}
        for node in removed:
            name = self.domain_of.get(node)
            if name is not None:
                gone[name] = gone.get(name, 0) + 1
                changed[name] = changed.get(name, self.bandwidth[name]) - (
                    self.node_bandwidth.get(node, 0.0)
                )
        for node, amount in lost.items():
            name = self.domain_of.get(node)
            if name is not None:
                changed[name] = changed.get(name, self.bandwidth[name]) - amount
        dead = {name for name, n in gone.items() if n >= self.members[name]}
        alive = len(self.members) - len(dead)
        if alive < 2:
            return None
        least = min((b for name, b in changed.items() if name not in dead), default=math.inf)
        for bandwidth, name in self.by_bandwidth:
            if name not in changed and name not in dead:
                least = min(least, bandwidth)
                break
        r = 1.0 if self.ratio == 1.0 else max(ratio, self.ratio)
        if not math.isfinite(r) or least <= 0:
            return 0.0
        return min(least * self.efficiency / r, self.intra)
