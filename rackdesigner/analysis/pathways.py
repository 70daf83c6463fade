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
enters by, computed once and kept: a hall has a few hundred nodes, and routes are asked
for per rack pair, never per cable). :meth:`PathwayGraph.route` gives it, with its
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

from rackdesigner.analysis.geometry import SiteGeometry
from rackdesigner.model import hall_grid
from rackdesigner.model.hall_grid import ACROSS, ALONG, OVER, POINT, RACK, UNDER, Extent
from rackdesigner.model.layout import Layout, Rack

_ROUND = 9  # grid points are compared at this many decimals


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
    to: int
    weight: float
    pathway: int
    start: float  # the position along the pathway at this edge's origin
    end: float


@dataclass(slots=True)
class _Tree:
    """Dijkstra's result from one node: distances and the edge each node was reached by."""

    distance: dict[int, float] = field(default_factory=dict)
    via: dict[int, tuple[int, _Edge]] = field(default_factory=dict)


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
        self._ids = [p.id for p in self.pathways]
        self._exits: dict[int, Exit | None] = {}
        self._routes: dict[tuple[int, int], HallRoute | None] = {}
        self._runs: dict[tuple[int, float, int, float], float | None] = {}

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
                self._adjacent[u].append(_Edge(v, t1 - t0, extent.index, t0, t1))
                self._adjacent[v].append(_Edge(u, t1 - t0, extent.index, t1, t0))

    def _riser(self, extent: Extent) -> None:
        over = self._node(OVER, extent.x0, extent.y0)
        under = self._node(UNDER, extent.x0, extent.y0)
        length = self.pathway_length(extent.index)
        self._on_pathway[extent.index] = [(0.0, under), (length, over)]
        self._adjacent[under].append(_Edge(over, length, extent.index, 0.0, length))
        self._adjacent[over].append(_Edge(under, length, extent.index, length, 0.0))

    def _tree(self, source: int) -> _Tree:
        found = self._trees.get(source)
        if found is not None:
            return found
        size = len(self._adjacent)
        inf = float("inf")
        best = [inf] * size
        reached: list[tuple[int, _Edge] | None] = [None] * size
        best[source] = 0.0
        heap = [(0.0, source)]
        adjacent = self._adjacent
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            d, node = pop(heap)
            if d > best[node]:
                continue
            for edge in adjacent[node]:
                nd = d + edge.weight
                to = edge.to
                if nd < best[to] - 1e-12:
                    best[to] = nd
                    reached[to] = (node, edge)
                    push(heap, (nd, to))
        tree = _Tree(
            {n: d for n, d in enumerate(best) if d < inf},
            {n: r for n, r in enumerate(reached) if r is not None},
        )
        self._trees[source] = tree
        return tree

    # -- racks ----------------------------------------------------------------------------

    def exit(self, rack: Rack) -> Exit | None:
        """Where ``rack``'s cables reach the pathways; None where none runs over or under
        it (or it has no slot)."""
        key = id(rack)
        if key in self._exits:
            return self._exits[key]
        found = None
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
        return Exit(plane, tuple(on), tuple(entries), dict(on))

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
        planes = (ea.plane, eb.plane)
        best = float("inf")
        straight: tuple[int, float, float] | None = None
        on_a, on_b = ea.positions, eb.positions
        for pathway, ta in on_a.items():  # both on one pathway: straight along it
            tb = on_b.get(pathway)
            if tb is not None and abs(ta - tb) < best:
                best, straight = abs(ta - tb), (pathway, ta, tb)
        via: tuple[tuple[int, float, int, float], tuple[int, float, int, float]] | None = None
        trees = self._trees
        for entry_a in ea.entries:
            tree = trees.get(entry_a[0]) or self._tree(entry_a[0])
            distance = tree.distance
            for entry_b in eb.entries:
                middle = distance.get(entry_b[0])
                if middle is None:
                    continue
                total = entry_a[1] + middle + entry_b[1]
                if total < best - 1e-9:
                    best, via, straight = total, (entry_a, entry_b), None
        ids = self._ids
        if straight is not None:
            pathway, ta, tb = straight
            return HallRoute(best, planes, Leg(ids[pathway], ta, tb), graph=self)
        if via is None:
            return None
        (node_a, _, pa, pos_a), (node_b, _, pb, pos_b) = via
        return HallRoute(
            best,
            planes,
            Leg(ids[pa], on_a[pa], pos_a),
            (node_a, node_b),
            Leg(ids[pb], pos_b, on_b[pb]),
            self,
        )

    def middle(self, source: int, target: int) -> list[Leg]:
        """The legs of the shortest way between two nodes, edge by edge."""
        tree = self._tree(source)
        ids = self._ids
        legs: list[Leg] = []
        node = target
        while node != source:
            previous, edge = tree.via[node]
            legs.append(Leg(ids[edge.pathway], edge.start, edge.end))
            node = previous
        legs.reverse()
        return legs

    def drop(self, plane: str, top: float, port_height: float) -> float:
        """Metres from a port at ``port_height`` (in a rack ``top`` high) to a pathway of
        ``plane``: up to the top and ``tray_rise`` over it, or down to the floor and
        ``tray_rise`` under it."""
        rise = self.geometry.tray_rise
        if plane == UNDER:
            return port_height + rise
        return (top - port_height) + rise

    def run(
        self, a: Rack, a_top: float, a_port: float, b: Rack, b_top: float, b_port: float
    ) -> float | None:
        """A cable's run between ports in two racks, without slack: the drops at both ends
        and the route between; None where no pathway joins the racks. Kept by port heights
        too: a node's eight ports to one leaf are one sum."""
        key = (id(a), a_port, id(b), b_port)
        runs = self._runs
        if key in runs:
            return runs[key]
        found = self.route(a, b)
        run = (
            None
            if found is None
            else self.drop(found.planes[0], a_top, a_port)
            + found.length
            + self.drop(found.planes[1], b_top, b_port)
        )
        runs[key] = run
        return run


def _merged(legs: Sequence[Leg]) -> tuple[Leg, ...]:
    """Consecutive legs in one pathway as one; empty legs dropped."""
    out: list[Leg] = []
    for leg in legs:
        if out and out[-1].pathway == leg.pathway:
            out[-1] = Leg(leg.pathway, out[-1].start, leg.end)
        else:
            out.append(leg)
    return tuple(leg for leg in out if leg.length > 1e-9) or tuple(out[:1])
