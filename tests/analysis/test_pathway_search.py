"""The searches behind routes along pathways (analysis/pathways.py) against a plain Dijkstra:
every route's length, planes, nodes and legs bit for bit, ties included.

:class:`PathwayGraph` works each tree out only as far as the routes asked of it reach, and
cuts a route's search short where no way could beat the one found. Its answers must be the
plain search's exactly: the same float sums (the same edges added in the same order) and
the same one of several equally long ways. The plain search here is the way routes were
computed before: a full Dijkstra from each node a rack enters by, then the shortest of the
straight run and the four ways between the two racks' entry nodes. Small random halls
(trays along the rows, cross-aisle runs, overhead and under the floor, risers between
them, two trays in one row, a rack in every slot) have many equally long ways; the racks
are asked for in a random order, as cables come, so trees are cut short in many states.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.pathways import HallRoute, Leg, PathwayGraph
from rackdesigner.layout_io import load_text
from rackdesigner.model.diagnostics import LayoutError
from rackdesigner.model.layout import Rack

INF = float("inf")
ROW_NAMES = "ABCD"


@dataclass(frozen=True)
class Plain:
    """A route as the plain search finds it."""

    length: float
    planes: tuple[str, str]
    first: Leg
    nodes: tuple[int, int] | None
    last: Leg | None

    def reversed(self) -> Plain:
        if self.nodes is None or self.last is None:
            return Plain(self.length, self.planes[::-1], back(self.first), None, None)
        return Plain(
            self.length,
            self.planes[::-1],
            back(self.last),
            self.nodes[::-1],
            back(self.first),
        )


def back(leg: Leg) -> Leg:
    return Leg(leg.pathway, leg.end, leg.start)


class PlainSearch:
    """Full Dijkstra's from each node asked, and routes from them, as before the cut."""

    def __init__(self, graph: PathwayGraph):
        self.graph = graph
        self.trees: dict[int, tuple[list[float], list[tuple[int, Any] | None]]] = {}

    def tree(self, source: int) -> tuple[list[float], list[tuple[int, Any] | None]]:
        if source not in self.trees:
            adjacent = self.graph._adjacent
            best = [INF] * len(adjacent)
            reached: list[tuple[int, Any] | None] = [None] * len(adjacent)
            best[source] = 0.0
            heap = [(0.0, source)]
            while heap:
                d, node = heapq.heappop(heap)
                if d > best[node]:
                    continue
                for edge in adjacent[node]:
                    nd = d + edge.weight
                    if nd < best[edge.to] - 1e-12:
                        best[edge.to] = nd
                        reached[edge.to] = (node, edge)
                        heapq.heappush(heap, (nd, edge.to))
            self.trees[source] = (best, reached)
        return self.trees[source]

    def middle(self, source: int, target: int) -> list[Leg]:
        _, reached = self.tree(source)
        legs, node = [], target
        while node != source:
            found = reached[node]
            assert found is not None
            previous, edge = found
            legs.append(Leg(self.graph._ids[edge.pathway], edge.start, edge.end))
            node = previous
        return legs[::-1]

    def route(self, a: Rack, b: Rack) -> Plain | None:
        ea, eb = self.graph.exit(a), self.graph.exit(b)
        if ea is None or eb is None:
            return None
        ids = self.graph._ids
        best, straight, via = INF, None, None
        for pathway, ta in ea.positions.items():
            tb = eb.positions.get(pathway)
            if tb is not None and abs(ta - tb) < best:
                best, straight = abs(ta - tb), (pathway, ta, tb)
        for entry_a in ea.entries:
            distance = self.tree(entry_a[0])[0]
            for entry_b in eb.entries:
                middle = distance[entry_b[0]]
                if middle == INF:
                    continue
                total = entry_a[1] + middle + entry_b[1]
                if total < best - 1e-9:
                    best, via, straight = total, (entry_a, entry_b), None
        planes = (ea.plane, eb.plane)
        if straight is not None:
            pathway, ta, tb = straight
            return Plain(best, planes, Leg(ids[pathway], ta, tb), None, None)
        if via is None:
            return None
        (node_a, _, pa, pos_a), (node_b, _, pb, pos_b) = via
        first = Leg(ids[pa], ea.positions[pa], pos_a)
        return Plain(best, planes, first, (node_a, node_b), Leg(ids[pb], pos_b, eb.positions[pb]))


def same(found: HallRoute | None, want: Plain | None) -> bool:
    if found is None or want is None:
        return found is want
    return (found.length, found.planes, found.first, found.nodes, found.last) == (
        want.length,
        want.planes,
        want.first,
        want.nodes,
        want.last,
    )


def pathway(ident: str, kind: str, where: str) -> str:
    return (
        f'\n[[pathways]]\nid = "{ident}"\nkind = "{kind}"\n{where}\n'
        'width = "300 mm"\ndepth = "100 mm"\n'
    )


@st.composite
def halls(draw: st.DrawFn) -> str:
    """A hall of 2 to 4 rows of 2 to 6 racks: a tray along each row, over the racks or
    under the floor (joined to the rest by a riser at the row's end), a cross-aisle run
    over every row's end, and up to six more runs of any kind along and across the rows and
    risers (a hall whose pathways do not all meet is refused by the loader: skipped)."""
    rows, slots = draw(st.integers(2, 4)), draw(st.integers(2, 6))
    names = ROW_NAMES[:rows]
    pitches = (
        draw(st.sampled_from(["0.6 m", "0.7 m", "2 ft", "0.25 m"])),
        draw(st.sampled_from(["2.4 m", "1.8 m", "8 ft"])),
    )
    text = 'format = 1\nname = "hall"\n\n[site]\n'
    text += f'rack_pitch = "{pitches[0]}"\nrow_pitch = "{pitches[1]}"\n'
    for row in names:
        for slot in range(1, slots + 1):
            text += f'\n[[racks]]\nid = "{row.lower()}{slot}"\nrow = "{row}"\nslot = {slot}\n'
    kinds = st.sampled_from(["overhead-tray", "ladder-rack", "under-floor"])
    lengths = st.sampled_from(["0.3 m", "2.5 m", "1.2 m", "0.1 m"])
    place = st.integers(0, slots + 1)  # the aisles at a row's ends too
    spans = st.tuples(place, place).map(sorted)
    text += pathway("x0", "overhead-tray", f'rows = ["A", "{names[-1]}"]\nslot = 0')
    for row in names:
        kind = draw(kinds)
        text += pathway(f"row-{row}", kind, f'row = "{row}"\nslots = [0, {slots + 1}]')
        if kind == "under-floor":
            where = f'row = "{row}"\nslot = 0\nlength = "{draw(lengths)}"'
            text += pathway(f"riser-{row}", "riser", where)
    for count in range(draw(st.integers(0, 6))):
        shape = draw(st.sampled_from(["along", "across", "riser"]))
        if shape == "along":
            low, high = draw(spans)
            where = f'row = "{draw(st.sampled_from(names))}"\nslots = [{low}, {high}]'
        elif shape == "across":
            low, high = draw(st.tuples(st.integers(0, rows - 1), st.integers(0, rows - 1)))
            where = f'rows = ["{names[low]}", "{names[high]}"]\nslot = {draw(place)}'
        else:
            row, slot = draw(st.sampled_from(names)), draw(place)
            where = f'row = "{row}"\nslot = {slot}\nlength = "{draw(lengths)}"'
        text += pathway(f"p{count}", "riser" if shape == "riser" else draw(kinds), where)
    return text


def check_every_route(text: str, seed: int) -> int:
    """Asks the route of every rack pair in a random order (a pair asked the other way
    round first is that route reversed, as the graph keeps them), sometimes its middle
    legs, and compares each with the plain search's; returns how many were routed."""
    try:
        analysis = Analysis(load_text(text))
    except LayoutError:
        assume(False)
    graph = analysis.pathway_graph
    assert graph is not None
    plain = PlainSearch(graph)
    racks = analysis.layout.racks
    pairs = [(a, b) for a in racks for b in racks]
    rng = random.Random(seed)
    rng.shuffle(pairs)
    asked: dict[tuple[str, str], Plain | None] = {}
    routed = 0
    for a, b in pairs:
        if (b.id, a.id) in asked:
            earlier = asked[b.id, a.id]
            want = None if earlier is None else earlier.reversed()
        else:
            want = plain.route(a, b)
        asked[a.id, b.id] = want
        found = graph.route(a, b)
        assert same(found, want), (a.id, b.id, found, want)
        routed += found is not None
        if found is not None and found.nodes is not None and rng.random() < 0.3:
            assert graph.middle(*found.nodes) == plain.middle(*found.nodes)
    return routed


@settings(max_examples=30, deadline=None)
@given(halls(), st.integers(0, 2**32))
def test_routes_are_the_plain_searchs_bit_for_bit(text: str, seed: int) -> None:
    """Every rack pair's route in a random hall, asked in a random order: the same length
    (==, not approximately), planes, entry nodes, first and last legs, and middle legs as
    the plain full Dijkstra's."""
    check_every_route(text, seed)


def grid_hall(rows: int, racks: int, crosses: tuple[int, ...], under: tuple[str, ...]) -> str:
    """``rows`` rows of ``racks`` racks, 0.6 m apart, rows 1.8 m apart (three rack pitches:
    ways round a block by either side are equally long, their float sums not always
    alike), a tray along each row (under the floor for the rows ``under``, with a riser
    1.2 m long to the overhead run at its end) and cross-aisle runs at ``crosses``."""
    names = [f"R{i}" for i in range(rows)]
    text = 'format = 1\nname = "grid"\n\n[site]\nrack_pitch = "0.6 m"\nrow_pitch = "1.8 m"\n'
    for row in names:
        for slot in range(1, racks + 1):
            text += f'\n[[racks]]\nid = "{row}-{slot}"\nrow = "{row}"\nslot = {slot}\n'
    for row in names:
        kind = "under-floor" if row in under else "overhead-tray"
        text += pathway(f"t-{row}", kind, f'row = "{row}"\nslots = [0, {racks + 1}]')
        if row in under:
            text += pathway(f"r-{row}", "riser", f'row = "{row}"\nslot = 0\nlength = "1.2 m"')
    for slot in crosses:
        where = f'rows = ["{names[0]}", "{names[-1]}"]\nslot = {slot}'
        text += pathway(f"x-{slot}", "overhead-tray", where)
    text += pathway("u-x", "under-floor", f'rows = ["{names[0]}", "{names[-1]}"]\nslot = 5')
    return text


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_grid_halls_routes_are_the_plain_searchs_bit_for_bit(seed: int) -> None:
    """Every one of the 2,304 rack pairs of a hall of six rows of eight racks with four
    cross-aisle runs over the rows, two rows' trays under the floor (a riser each, and an
    under-floor run across the rows at slot 5), asked in three orders: each route is the
    plain search's, equal ways broken alike."""
    text = grid_hall(6, 8, (0, 3, 6, 9), ("R2", "R4"))
    assert check_every_route(text, seed) == 48 * 48


def two_risers(left: str, right: str) -> str:
    """Row A (racks at slots 1 to 8) has an overhead tray from slot 0 to 9, row B an
    under-floor one; under-floor runs cross from A to B at slots 0 and 9, and a riser
    joins the planes at each end of row A: ``left`` long at slot 0, ``right`` at 9."""
    text = 'format = 1\nname = "risers"\n'
    for row in "AB":
        for slot in range(1, 9):
            text += f'\n[[racks]]\nid = "{row.lower()}{slot}"\nrow = "{row}"\nslot = {slot}\n'
    text += pathway("tray-a", "overhead-tray", 'row = "A"\nslots = [0, 9]')
    text += pathway("under-b", "under-floor", 'row = "B"\nslots = [0, 9]')
    for slot, length in ((0, left), (9, right)):
        text += pathway(f"under-x{slot}", "under-floor", f'rows = ["A", "B"]\nslot = {slot}')
        where = f'row = "A"\nslot = {slot}\nlength = "{length}"'
        text += pathway(f"riser-{slot}", "riser", where)
    return text


def route_a4_b5(text: str) -> tuple[float, list[str]]:
    analysis = Analysis(load_text(text))
    graph = analysis.pathway_graph
    assert graph is not None
    racks = {rack.id: rack for rack in analysis.layout.racks}
    found = graph.route(racks["a4"], racks["b5"])
    assert found is not None
    assert same(found, PlainSearch(graph).route(racks["a4"], racks["b5"]))
    return found.length, [leg.pathway for leg in found.legs]


def test_the_way_a_millimetre_shorter_is_found_after_a_longer_one() -> None:
    """a4 (row A, slot 4) to b5 (row B, slot 5, exits under the floor), by either end of
    the rows. By slot 0: 4 x 0.6 = 2.4 m along tray-a, the riser 1.001 m, 2.4 m across
    under, 5 x 0.6 = 3.0 m along under-b: 8.801 m. By slot 9: 3.0 + 1.0 + 2.4 + 2.4 =
    8.8 m. The way by slot 0 is found first (a4's first entry node, at slot 0); the search
    from slot 9 then must not stop short of b5's node at slot 9 (3.4 m from it: 3.0 + 3.4 +
    2.4 = 8.8 m, a millimetre under the 8.801 m found), though it stopped short of it
    for b5's other node (3.0 + 3.4 + 3.0 = 9.4 m, no better)."""
    length, legs = route_a4_b5(two_risers("1.001 m", "1.0 m"))
    assert length == pytest.approx(8.8, abs=1e-9)
    assert legs == ["tray-a", "riser-9", "under-x9", "under-b"]


def test_of_two_equally_long_ways_the_first_found_is_kept() -> None:
    """Both risers 1.0 m: by slot 0, 2.4 + 1.0 + 2.4 + 3.0 = 8.8 m; by slot 9, 3.0 + 1.0 +
    2.4 + 2.4 = 8.8 m. The way by slot 0, found first, is kept (a later way must be
    shorter by more than a nanometre), as the plain search keeps it."""
    length, legs = route_a4_b5(two_risers("1.0 m", "1.0 m"))
    assert length == pytest.approx(8.8, abs=1e-9)
    assert legs == ["tray-a", "riser-0", "under-x0", "under-b"]
