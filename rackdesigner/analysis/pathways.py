"""(v1.4) The hall's cable pathways as a graph in metres, and the routes cables take on it.

The pathways (``[[pathways]]``) lie on the grid of rows and slots
(:mod:`rackdesigner.model.hall_grid`); here the grid becomes metres: along a row a slot
position is ``rack_pitch`` apart from the next, across rows a row is ``row_pitch`` from the
next (layout-format.md, Geometry), and a riser is as long as its ``length``. The graph's
nodes are the pathways' ends and the points where they meet; its edges are the stretches
of one pathway between two nodes.

A rack reaches the graph where a pathway runs over it (a tray along its row over its slot,
or a cross-aisle run over it), or, with none overhead, under it: its *exit*. The route
between two racks is the shortest way between their exits (Dijkstra from each node a rack
enters by, kept, and worked out only as far as the routes asked of it reach: a hall has a
few thousand nodes, and routes are asked for per rack pair, never per cable).
:meth:`PathwayGraph.route` gives it, with its
:class:`Leg` s (each pathway it runs in, how far and where along it), or None where no
pathway joins the two racks.

How a cable's length is summed (docs/cable-plant.md): the drop from its port to the rack's
top and up ``tray_rise`` to an overhead pathway (or down from the port to the floor and
``tray_rise`` below it to an under-floor one), the route along the pathways, the same drop
at the other end, then ``slack``. :meth:`PathwayGraph.run` gives the run without slack.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rackdesigner.analysis.geometry import SiteGeometry
from rackdesigner.model import hall_grid
from rackdesigner.model.hall_grid import ACROSS, ALONG, OVER, POINT, RACK, UNDER, Extent
from rackdesigner.model.layout import Layout, Rack

_ROUND = 9  # grid points are compared at this many decimals
_INF = float("inf")
_UNKNOWN: Any = object()  # a route not yet asked for


@dataclass(frozen=True, slots=True)
class Leg:
    """One stretch of a route: the pathway it runs in, from and to which positions along it
    (metres from the pathway's start), and its length."""

    pathway: str
    start: float
    end: float

    @property
    def length(self) -> float:
        return abs(self.end - self.start)


@dataclass(frozen=True, slots=True)
class Exit:
    """Where a rack's cables reach the pathways: the plane (over or under), and on each
    pathway running over (under) it, the position along it and the nearest nodes either
    side with their distances."""

    plane: str
    on: tuple[tuple[int, float], ...]  # (pathway index, position along it, m)
    entries: tuple[tuple[int, float, int, float], ...]  # (node, distance, pathway, node's pos)
    positions: dict[int, float] = field(default_factory=dict)  # ``on`` as a mapping
    # ``entries`` as routes read them: (node, distance, the leg from the rack to the node,
    # the leg back), the legs made once per rack rather than once per route
    ends: tuple[tuple[int, float, Leg, Leg], ...] = ()


class HallRoute:
    """The way between two racks' exits: its length (m), each end's exit plane (drops
    differ over and under), and its parts: the ``first`` leg (from rack ``a`` along its
    pathway; the whole way where both racks are on one pathway), the two graph ``nodes``
    the way runs between, and the ``last`` leg to rack ``b``. :attr:`legs` works the whole
    way out when first asked (a cable's length needs only the length)."""

    __slots__ = ("_graph", "_legs", "first", "last", "length", "nodes", "planes")

    def __init__(
        self,
        length: float,
        planes: tuple[str, str],
        first: Leg,
        nodes: tuple[int, int] | None = None,
        last: Leg | None = None,
        graph: PathwayGraph | None = None,
    ):
        self.length = length
        self.planes = planes
        self.first = first
        self.nodes = nodes
        self.last = last
        self._graph = graph
        self._legs: tuple[Leg, ...] | None = None

    @property
    def legs(self) -> tuple[Leg, ...]:
        if self._legs is None:
            if self.nodes is None or self.last is None or self._graph is None:
                self._legs = (self.first,)
            else:
                middle = self._graph.middle(*self.nodes)
                self._legs = _merged([self.first, *middle, self.last])
        return self._legs

    def reversed(self) -> HallRoute:
        """The same way, from ``b`` to ``a``."""
        if self.nodes is None or self.last is None:
            first = self.first
            return HallRoute(self.length, self.planes[::-1], _back(first), graph=self._graph)
        return HallRoute(
            self.length,
            (self.planes[1], self.planes[0]),
            _back(self.last),
            (self.nodes[1], self.nodes[0]),
            _back(self.first),
            self._graph,
        )

    def __repr__(self) -> str:
        return f"HallRoute(length={self.length!r}, legs={self.legs!r}, planes={self.planes!r})"


def _back(leg: Leg) -> Leg:
    return Leg(leg.pathway, leg.end, leg.start)


@dataclass(slots=True)
class _Edge:
    origin: int  # the node it leaves
    to: int
    weight: float
    pathway: int
    start: float  # the position along the pathway at this edge's origin
    end: float


class _Tree:
    """Dijkstra's shortest ways from one node, worked out only as far as asked.

    Dijkstra's settles nodes nearest first, and a settled node's distance and the edge it
    was reached by never change again; so the search stops as soon as the node asked for is
    settled and resumes from its heap when a farther one is asked for. Every answer is the
    one a full run gives, bit for bit, ties included: the pops and relaxations are the full
    run's, in its order, cut short. A route to a rack nearby settles a few nodes, not the
    hall's.
    """

    __slots__ = ("best", "done", "heap", "hops", "via")

    def __init__(self, source: int, hops: list[tuple[tuple[int, float, _Edge], ...]]):
        self.hops = hops
        self.best = [_INF] * len(hops)  # m from the source, as far as known
        self.best[source] = 0.0
        self.via: list[_Edge | None] = [None] * len(hops)  # the edge each node was reached by
        self.done = bytearray(len(hops))  # settled: ``best`` and ``via`` final
        self.heap = [(0.0, source)]

    def distance(
        self, target: int, before: float = 0.0, after: float = 0.0, ceiling: float = _INF
    ) -> float | None:
        """Metres from the source to ``target`` by the shortest way; None where none joins
        them, or where the way would not make ``before + distance + after`` less than
        ``ceiling`` (a route that could not win): the search stops at the first node that
        far, before settling it (it is pushed back, so the next search goes on as if never
        stopped). Every node not yet settled is at least as far as the heap's nearest, and
        the sum only grows with the distance, so the way stopped at could not win."""
        if self.done[target]:
            return self.best[target]
        best, via, done, heap, hops = self.best, self.via, self.done, self.heap, self.hops
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            d, node = pop(heap)
            if d > best[node]:
                continue
            if before + d + after >= ceiling:
                push(heap, (d, node))
                return None
            done[node] = 1
            for to, weight, edge in hops[node]:
                nd = d + weight
                if nd < best[to] - 1e-12:
                    best[to] = nd
                    via[to] = edge
                    push(heap, (nd, to))
            if node == target:
                return d
        return None


class PathwayGraph:
    """The pathways of ``layout`` in metres, with the racks' exits and routes between them.

    ``places`` is each rack's (row index, slot) as :func:`geometry.rack_places` gives it.
    Racks without a slot have no exit (they get no route, as they get no computed length).
    """

    def __init__(self, layout: Layout, geometry: SiteGeometry):
        self.geometry = geometry
        self.pathways = list(layout.pathways)
        rows = hall_grid.row_indexes(layout.racks)
        spans = hall_grid.row_spans(layout.racks)
        rack_ids = frozenset(r.id for r in layout.racks)
        self.extents: list[Extent] = []
        for index, pathway in enumerate(self.pathways):
            found = hall_grid.extent_of(index, pathway, rows, spans, rack_ids)
            if isinstance(found, Extent):  # the loader refused every other
                self.extents.append(found)
        self.managers: dict[str, list[str]] = {}  # rack id -> its vertical managers' ids
        for extent in self.extents:
            if extent.axis == RACK and extent.rack is not None:
                self.managers.setdefault(extent.rack, []).append(extent.id)
        self._rows = rows
        self._nodes: dict[tuple[str, float, float], int] = {}
        self._adjacent: list[list[_Edge]] = []
        self._on_pathway: dict[int, list[tuple[float, int]]] = {}  # pathway -> (pos, node)
        self._build()
        self._trees: dict[int, _Tree] = {}
        self._hops: list[tuple[tuple[int, float, _Edge], ...]] | None = None
        self._ids = [p.id for p in self.pathways]
        self._exits: dict[int, Exit | None] = {}
        self._routes: dict[tuple[int, int], HallRoute | None] = {}

    # -- metres on the grid -----------------------------------------------------------

    def position(self, extent: Extent, x: float, y: float) -> float:
        """Metres along ``extent`` from its start to the grid point (x, y) on it."""
        if extent.axis == ALONG:
            return (x - extent.x0) * self.geometry.rack_pitch
        if extent.axis == ACROSS:
            return (y - extent.y0) * self.geometry.row_pitch
        return 0.0

    def coordinates(
        self, pathway_id: str
    ) -> tuple[tuple[float, float], tuple[float, float]] | None:
        """A pathway's two ends on the floor in metres, (x along the rows, y across them), as
        the row-and-slot geometry places racks (slot x rack_pitch, row index x row_pitch):
        for drawing it. A riser is a point (both ends alike); a vertical manager, inside
        one rack, has none (None)."""
        for extent in self.extents:
            if extent.id == pathway_id and extent.axis != RACK:
                pitch, rows = self.geometry.rack_pitch, self.geometry.row_pitch
                return (
                    (extent.x0 * pitch, extent.y0 * rows),
                    (extent.x1 * pitch, extent.y1 * rows),
                )
        return None

    def point(self, pathway_id: str, along: float) -> tuple[float, float] | None:
        """The floor point (m, as :meth:`coordinates`) ``along`` metres from a pathway's
        start: where a route's leg begins or ends, for drawing it. A riser is its point; a
        vertical manager has none (None)."""
        ends = self.coordinates(pathway_id)
        if ends is None:
            return None
        (x0, y0), (x1, y1) = ends
        if x1 != x0:
            return (x0 + along * (1 if x1 > x0 else -1), y0)
        if y1 != y0:
            return (x0, y0 + along * (1 if y1 > y0 else -1))
        return (x0, y0)

    def pathway_length(self, index: int) -> float:
        """A pathway's own length in metres (a riser's declared run)."""
        extent = self._extent_by_index[index]
        if extent.axis == ALONG:
            return (extent.x1 - extent.x0) * self.geometry.rack_pitch
        if extent.axis == ACROSS:
            return (extent.y1 - extent.y0) * self.geometry.row_pitch
        if extent.axis == POINT:
            length = self.pathways[index].length
            return float(length) if length is not None else 0.0
        return 0.0

    # -- the graph ------------------------------------------------------------------------

    def _node(self, plane: str, x: float, y: float) -> int:
        key = (plane, round(x, _ROUND), round(y, _ROUND))
        found = self._nodes.get(key)
        if found is None:
            found = self._nodes[key] = len(self._adjacent)
            self._adjacent.append([])
        return found

    def _build(self) -> None:
        self._extent_by_index = {e.index: e for e in self.extents}
        # Where a rack looks for its exit: the runs along its row, the runs across its slot.
        self._by_row: dict[tuple[str, float], list[Extent]] = {}
        self._by_slot: dict[tuple[str, float], list[Extent]] = {}
        for extent in self.extents:
            if extent.axis == ALONG:
                self._by_row.setdefault((extent.plane, round(extent.y0, _ROUND)), []).append(extent)
            elif extent.axis == ACROSS:
                self._by_slot.setdefault((extent.plane, round(extent.x0, _ROUND)), []).append(
                    extent
                )
        grid = [e for e in self.extents if e.axis != RACK]
        points: dict[int, set[tuple[float, float]]] = {e.index: set() for e in grid}
        for extent in grid:
            if extent.axis != POINT:
                points[extent.index].update({(extent.x0, extent.y0), (extent.x1, extent.y1)})
        for i, a in enumerate(grid):
            for b in grid[i + 1 :]:
                for point in hall_grid.meetings(a, b):
                    points[a.index].add(point)
                    points[b.index].add(point)
        for extent in grid:
            if extent.axis == POINT:
                self._riser(extent)
                continue
            along = sorted(
                (self.position(extent, x, y), self._node(extent.plane, x, y))
                for x, y in points[extent.index]
            )
            self._on_pathway[extent.index] = along
            for (t0, u), (t1, v) in itertools.pairwise(along):
                if u == v:
                    continue
                self._adjacent[u].append(_Edge(u, v, t1 - t0, extent.index, t0, t1))
                self._adjacent[v].append(_Edge(v, u, t1 - t0, extent.index, t1, t0))

    def _riser(self, extent: Extent) -> None:
        over = self._node(OVER, extent.x0, extent.y0)
        under = self._node(UNDER, extent.x0, extent.y0)
        length = self.pathway_length(extent.index)
        self._on_pathway[extent.index] = [(0.0, under), (length, over)]
        self._adjacent[under].append(_Edge(under, over, length, extent.index, 0.0, length))
        self._adjacent[over].append(_Edge(over, under, length, extent.index, length, 0.0))

    def _tree(self, source: int) -> _Tree:
        found = self._trees.get(source)
        if found is None:
            if self._hops is None:  # each node's edges as plain tuples: the search's loop
                self._hops = [tuple((e.to, e.weight, e) for e in out) for out in self._adjacent]
            found = self._trees[source] = _Tree(source, self._hops)
        return found

    # -- racks ----------------------------------------------------------------------------

    def exit(self, rack: Rack) -> Exit | None:
        """Where ``rack``'s cables reach the pathways; None where none runs over or under
        it (or it has no slot)."""
        key = id(rack)
        found = self._exits.get(key, _UNKNOWN)
        if found is not _UNKNOWN:
            return found
        if rack.slot is not None and (rack.row or "") in self._rows:
            x, y = float(rack.slot), float(self._rows[rack.row or ""])
            for plane in (OVER, UNDER):
                found = self._exit_in(plane, x, y)
                if found is not None:
                    break
        self._exits[key] = found
        return found

    def _exit_in(self, plane: str, x: float, y: float) -> Exit | None:
        on: list[tuple[int, float]] = []
        entries: list[tuple[int, float, int, float]] = []
        candidates = self._by_row.get((plane, round(y, _ROUND)), []) + self._by_slot.get(
            (plane, round(x, _ROUND)), []
        )
        for extent in candidates:
            if not extent.contains(x, y):
                continue
            t = self.position(extent, x, y)
            on.append((extent.index, t))
            along = self._on_pathway[extent.index]
            before = [(pos, node) for pos, node in along if pos <= t + 1e-9]
            after = [(pos, node) for pos, node in along if pos >= t - 1e-9]
            for pos, node in (before[-1:] + after[:1]) if before or after else ():
                entries.append((node, abs(t - pos), extent.index, pos))
        if not on:
            return None
        ids, positions = self._ids, dict(on)
        ends = tuple(
            (
                node,
                distance,
                Leg(ids[pathway], positions[pathway], pos),
                Leg(ids[pathway], pos, positions[pathway]),
            )
            for node, distance, pathway, pos in entries
        )
        return Exit(plane, tuple(on), tuple(entries), positions, ends)

    def route(self, a: Rack, b: Rack) -> HallRoute | None:
        """The shortest way along the pathways from rack ``a``'s exit to rack ``b``'s, or
        None where no pathway joins them."""
        key = (id(a), id(b))
        if key in self._routes:
            return self._routes[key]
        if (id(b), id(a)) in self._routes:
            back = self._routes[id(b), id(a)]
            found = None if back is None else back.reversed()
        else:
            found = self._route(a, b)
        self._routes[key] = found
        return found

    def _route(self, a: Rack, b: Rack) -> HallRoute | None:
        ea, eb = self.exit(a), self.exit(b)
        if ea is None or eb is None:
            return None
        best = _INF
        straight: tuple[int, float, float] | None = None
        on_b = eb.positions
        for pathway, ta in ea.positions.items():  # both on one pathway: straight along it
            tb = on_b.get(pathway)
            if tb is not None and abs(ta - tb) < best:
                best, straight = abs(ta - tb), (pathway, ta, tb)
        via: tuple[tuple[int, float, Leg, Leg], tuple[int, float, Leg, Leg]] | None = None
        trees = self._trees
        for end_a in ea.ends:
            tree = trees.get(end_a[0]) or self._tree(end_a[0])
            done, known = tree.done, tree.best  # a settled node's distance, without a call
            for end_b in eb.ends:
                node = end_b[0]
                if done[node]:
                    middle: float | None = known[node]
                else:
                    middle = tree.distance(node, end_a[1], end_b[1], best - 1e-9)
                if middle is None:
                    continue
                total = end_a[1] + middle + end_b[1]
                if total < best - 1e-9:
                    best, via, straight = total, (end_a, end_b), None
        planes = (ea.plane, eb.plane)
        if straight is not None:
            pathway, ta, tb = straight
            return HallRoute(best, planes, Leg(self._ids[pathway], ta, tb), graph=self)
        if via is None:
            return None
        (node_a, _, first, _), (node_b, _, _, last) = via
        return HallRoute(best, planes, first, (node_a, node_b), last, self)

    def middle(self, source: int, target: int) -> list[Leg]:
        """The legs of the shortest way between two nodes, edge by edge."""
        tree = self._tree(source)
        tree.distance(target)
        ids = self._ids
        legs: list[Leg] = []
        node = target
        while node != source:
            edge = tree.via[node]
            assert edge is not None  # a node the way reaches was reached by an edge
            legs.append(Leg(ids[edge.pathway], edge.start, edge.end))
            node = edge.origin
        legs.reverse()
        return legs

    def run(
        self, a: Rack, a_top: float, a_port: float, b: Rack, b_top: float, b_port: float
    ) -> float | None:
        """A cable's run between ports in two racks, without slack: the drops at both ends
        and the route between; None where no pathway joins the racks. A drop runs from a port
        ``port`` high in a rack ``top`` high up to the top and ``tray_rise`` over it to an
        overhead pathway, or down to the floor and ``tray_rise`` under it to an under-floor
        one. The route is kept by rack pair; the drops are two sums, cheaper than keeping
        the run by port heights (a hall's cables have nearly as many port pairs as cables)."""
        found: HallRoute | None = self._routes.get((id(a), id(b)), _UNKNOWN)
        if found is _UNKNOWN:
            found = self.route(a, b)
        if found is None:
            return None
        rise = self.geometry.tray_rise
        plane_a, plane_b = found.planes
        drop_a = (a_port if plane_a == UNDER else a_top - a_port) + rise
        drop_b = (b_port if plane_b == UNDER else b_top - b_port) + rise
        return drop_a + found.length + drop_b


def _merged(legs: Sequence[Leg]) -> tuple[Leg, ...]:
    """Consecutive legs in one pathway as one; empty legs dropped."""
    out: list[Leg] = []
    for leg in legs:
        if out and out[-1].pathway == leg.pathway:
            out[-1] = Leg(leg.pathway, out[-1].start, leg.end)
        else:
            out.append(leg)
    return tuple(leg for leg in out if leg.length > 1e-9) or tuple(out[:1])
