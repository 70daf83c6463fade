"""What a failure does to the compute fabrics: switches and cables lost, GPU nodes cut off
or with a rail cut, the bisection and the expected bus bandwidth of the largest part left.

Failed and down switches and nodes and failed cables leave the fabric graph; the figures
(bisection, expected bus bandwidth) are those of the largest part left (by GPUs), the part
the largest full-size job runs on. GPU nodes outside it are cut off; nodes in it with fewer
cables than before have a rail cut. A fabric the failure does not touch is left as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rackdesigner.analysis.fabric_graph import build_fabrics
from rackdesigner.whatif.domain_bus import domain_bus
from rackdesigner.whatif.fabric_fast import FabricBase
from rackdesigner.whatif.results import EPSILON, FabricImpact

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis, LinkFacts
    from rackdesigner.analysis.fabric_graph import Fabric
    from rackdesigner.topology.figures import FabricFigures

Edges = dict[tuple[str, str], dict[str, Any]]


class FabricBudget(Exception):
    """More fabric work than a :class:`FabricLosses`' budget allows (the report's bound):
    the fabric edges a failure builds again, or the arcs of the class graph its flow
    searches where the fabric is derived from the fabric before."""


class FabricLosses:
    """The fabric side of one layout's failures; keeps what every failure shares (each
    device's fabric, the figures before).

    ``budget``: fabric edges the failures may rebuild in all, beyond which
    :class:`FabricBudget` is raised (None: no bound)."""

    def __init__(self, analysis: Analysis, budget: int | None = None) -> None:
        self.analysis = analysis
        self.budget = budget
        self._before: dict[int, FabricFigures] = {}
        self._fabric_of: dict[str, Fabric] | None = None
        self._bases: dict[int, FabricBase] = {}
        self._adjacency: dict[str, dict[str, float]] | None = None
        self._counts: dict[tuple[str, str], int] = {}

    def impacts(self, removed: set[str], links: set[int]) -> list[FabricImpact]:
        """The fabrics the devices ``removed`` and the cables at the indexes ``links`` touch,
        each with what is left of it: derived from the fabric before where the failure
        allows it (:mod:`.fabric_fast`), else built again."""
        touched = self._touched(removed, links)
        if not touched:
            return []
        fabric_of = self.fabric_of()
        cut = {fabric.index for n in links if (fabric := self._fabric_of_link(n)) is not None}
        found: dict[int, FabricImpact] = {}
        for fabric in self.analysis.fabrics:
            if fabric.index not in touched or fabric.index in cut:
                continue
            base = self._base(fabric)
            if base.ok:
                self._spend(base.arcs)  # what its searches may look at
                mine = {r for r in removed if fabric_of.get(r) is fabric}
                impact = base.impact(mine)
                if impact is not None:
                    found[fabric.index] = impact
        rebuild = touched - set(found)
        if rebuild:
            found.update(self._rebuilt(removed, links, rebuild))
        return [found[f.index] for f in self.analysis.fabrics if f.index in found]

    def _rebuilt(
        self, removed: set[str], links: set[int], touched: set[int]
    ) -> dict[int, FabricImpact]:
        """The fabrics at the indexes ``touched``, built again without what failed."""
        self._spend(len(self.analysis.compute_edges))
        edges = self._edges_left(removed, links, touched)
        kept = self._links_left(removed, links, touched)
        parts = build_fabrics(kept, edges, self.analysis.device_by_id)
        fabric_of = self.fabric_of()
        by_origin: dict[int, list[Fabric]] = {}
        for part in parts:
            by_origin.setdefault(fabric_of[part.devices[0].id].index, []).append(part)
        adj = _adjacency(edges)
        return {
            fabric.index: self._impact(fabric, by_origin.get(fabric.index, []), removed, adj)
            for fabric in self.analysis.fabrics
            if fabric.index in touched
        }

    def _fabric_of_link(self, number: int) -> Fabric | None:
        link = self.analysis.links[number]
        if not link.compute or link.a.device is None:
            return None
        return self.fabric_of().get(link.a.device.id)

    def _base(self, fabric: Fabric) -> FabricBase:
        """What every failure of ``fabric`` shares, prepared once."""
        found = self._bases.get(fabric.index)
        if found is None:
            from rackdesigner.topology.figures import adjacency

            if self._adjacency is None:
                self._adjacency = adjacency(self.analysis)
                self._counts = {
                    pair: data["count"] for pair, data in self.analysis.compute_edges.items()
                }
            found = self._bases[fabric.index] = FabricBase(
                fabric,
                self.before(fabric),
                self._adjacency,
                self._counts,
                self.analysis.thresholds["nccl_efficiency"],
            )
        return found

    def fabric_of(self) -> dict[str, Fabric]:
        """Each fabric device's fabric."""
        if self._fabric_of is None:
            self._fabric_of = {
                dev.id: fabric for fabric in self.analysis.fabrics for dev in fabric.devices
            }
        return self._fabric_of

    def before(self, fabric: Fabric) -> FabricFigures:
        """``fabric``'s figures before any failure."""
        found = self._before.get(fabric.index)
        if found is None:
            from rackdesigner.topology.figures import adjacency, fabric_figures

            analysis = self.analysis
            efficiency = analysis.thresholds["nccl_efficiency"]
            if self._adjacency is None:
                self._adjacency = adjacency(analysis)
                edges = analysis.compute_edges
                self._counts = {pair: data["count"] for pair, data in edges.items()}
            found = self._before[fabric.index] = fabric_figures(
                analysis, fabric, self._adjacency, efficiency, detail=False
            )
        return found

    def _spend(self, edges: int) -> None:
        if self.budget is not None:
            self.budget -= edges
            if self.budget < 0:
                raise FabricBudget

    def _touched(self, removed: set[str], links: set[int]) -> set[int]:
        fabric_of = self.fabric_of()
        touched = {fabric.index for ident in removed if (fabric := fabric_of.get(ident))}
        analysis_links = self.analysis.links
        for number in links:
            link = analysis_links[number]
            if link.compute and link.a.device is not None:
                fabric = fabric_of.get(link.a.device.id)
                if fabric is not None:
                    touched.add(fabric.index)
        return touched

    def _edges_left(self, removed: set[str], links: set[int], touched: set[int]) -> Edges:
        """The cabled pairs of the touched fabrics that are left, each with its cables."""
        fabric_of = self.fabric_of()
        out: Edges = {}
        for pair, data in self.analysis.compute_edges.items():
            a, b = pair
            if a in removed or b in removed:
                continue
            fabric = fabric_of.get(a)
            if fabric is None or fabric.index not in touched:
                continue  # another fabric: left as it is
            cables = data["links"]
            if links and any(c.index in links for c in cables):
                cables = [c for c in cables if c.index not in links]
                if not cables:
                    continue
                data = {
                    "links": cables,
                    "count": len(cables),
                    "bandwidth": sum(c.speed or 0.0 for c in cables),
                }
            out[pair] = data
        return out

    def _links_left(self, removed: set[str], links: set[int], touched: set[int]) -> list[LinkFacts]:
        fabric_of = self.fabric_of()
        return [
            link
            for link in self.analysis.links
            if link.compute
            and link.a.device is not None
            and link.b.device is not None
            and link.a.device is not link.b.device
            and link.index not in links
            and link.a.device.id not in removed
            and link.b.device.id not in removed
            and (fabric := fabric_of.get(link.a.device.id)) is not None
            and fabric.index in touched
        ]

    def _impact(
        self,
        fabric: Fabric,
        parts: list[Fabric],
        removed: set[str],
        adj: dict[str, dict[str, float]],
    ) -> FabricImpact:
        before = self.before(fabric)
        largest = max(parts, key=lambda p: p.gpus, default=None)
        result = FabricImpact(
            name=fabric.name,
            gpus=fabric.gpus,
            switches=len(fabric.switches),
            switches_lost=sum(1 for s in fabric.switches if s in removed),
            cables=len(fabric.links),
            cables_lost=len(fabric.links) - sum(len(p.links) for p in parts),
            nodes_down=sum(1 for n in fabric.nodes if n.id in removed),
            bisection=before.bisection.bandwidth,
            bus=before.inter,
        )
        efficiency = self.analysis.thresholds["nccl_efficiency"]
        across = domain_bus(fabric, efficiency)  # NVLink domains: NET007's figure
        if across is not None:
            result.bus = across
        inside = {n.id for n in largest.nodes} if largest is not None else set()
        for node in fabric.nodes:
            if node.id in removed:
                continue
            if node.id not in inside:
                result.cut_off.append(node.id)
                result.gpus_cut_off += node.gpus
            elif largest is not None and largest.node_bandwidth.get(node.id, 0.0) < (
                fabric.node_bandwidth.get(node.id, 0.0) - EPSILON
            ):
                result.rails_cut.append(node.id)
        if largest is not None and largest.nodes:
            from rackdesigner.topology.figures import fabric_figures

            after = fabric_figures(self.analysis, largest, adj, efficiency, detail=False)
            result.largest_gpus = largest.gpus
            result.bisection_left = after.bisection.bandwidth
            result.bus_left = after.inter if across is None else domain_bus(largest, efficiency)
        return result


def _adjacency(edges: Edges) -> dict[str, dict[str, float]]:
    adj: dict[str, dict[str, float]] = {}
    for (a, b), data in edges.items():
        adj.setdefault(a, {})[b] = data["bandwidth"]
        adj.setdefault(b, {})[a] = data["bandwidth"]
    return adj
