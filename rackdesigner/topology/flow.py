"""Maximum flow on a small graph, asked again and again with a few capacities changed.

A failure analysis asks a fabric's bisection (:mod:`.bisection`: a maximum flow on its
merged graph of a few hundred classes) once per failure: for every switch of a hall. Each
failure changes a few capacities. :class:`WarmFlow` finds the flow once, splits it into
source-to-sink paths, and answers a change by taking back what no longer fits along the
paths that carried it (a feasible flow for the changed graph), then augmenting along
shortest residual paths until none is left: a maximum flow by the augmenting-path theorem,
at the cost of the paths touched and a few searches instead of a flow from scratch. Where
the flow reaches the capacity of a cut it knows (the source's, the sink's, a minimum cut
of the flow before or of a change before), no search is needed to know it is maximal.

Capacities are per direction (a cable carries its bandwidth each way); flows are kept net
(``f[u][v] == -f[v][u]``), so the residual capacity of ``u -> v`` is ``cap - f``. Nothing
here knows fabrics: vertices are ints, capacities floats.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping

EPSILON = 1e-9  # relative: flows below this share of the largest capacity are rounding
CUTS_KEPT = 16  # minimum cuts kept to bound changed flows (the flow's own four and more)

Arc = tuple[int, int]
Rows = dict[int, dict[int, float]]


class _Working:
    """A changed graph's capacities and flow, over the ones kept (rows copied on write)."""

    def __init__(self, cap: Rows, flow: Rows) -> None:
        self.cap, self.flow = dict(cap), dict(flow)
        self._cap_copied: set[int] = set()
        self._flow_copied: set[int] = set()

    def set_cap(self, u: int, v: int, c: float) -> None:
        if u not in self._cap_copied:
            self._cap_copied.add(u)
            self.cap[u] = dict(self.cap.get(u, {}))
        self.cap[u][v] = c
        if u not in self.cap.get(v, {}):
            if v not in self._cap_copied:
                self._cap_copied.add(v)
                self.cap[v] = dict(self.cap.get(v, {}))
            self.cap[v][u] = 0.0

    def push(self, u: int, v: int, amount: float) -> None:
        for a, b, x in ((u, v, amount), (v, u, -amount)):
            if a not in self._flow_copied:
                self._flow_copied.add(a)
                self.flow[a] = dict(self.flow.get(a, {}))
            row = self.flow[a]
            row[b] = row.get(b, 0.0) + x

    def residual(self, u: int, v: int) -> float:
        return self.cap[u][v] - self.flow.get(u, {}).get(v, 0.0)


class WarmFlow:
    """The maximum flow from ``source`` to ``sink`` over ``cap`` (``cap[u][v]``: the
    capacity of ``u -> v``), kept to answer changed capacities (:meth:`changed`)."""

    def __init__(self, cap: Mapping[int, Mapping[int, float]], source: int, sink: int) -> None:
        self.source, self.sink = source, sink
        self.cap: Rows = {}
        for u, row in cap.items():
            for v, c in row.items():
                self.cap.setdefault(u, {})[v] = float(c)
                self.cap.setdefault(v, {}).setdefault(u, 0.0)
        self.cap.setdefault(source, {})
        self.cap.setdefault(sink, {})
        largest = max((c for row in self.cap.values() for c in row.values()), default=0.0)
        self.eps = EPSILON * max(largest, 1.0)
        self.paths = _decompose(_max_flow(self.cap, source, sink), source, sink, self.eps)
        self.value = sum(amount for _, amount in self.paths)
        self.flow: Rows = {}
        self.through: dict[Arc, list[int]] = {}  # arc -> the paths that use it
        for number, (path, amount) in enumerate(self.paths):
            for u, v in itertools.pairwise(path):
                _add(self.flow, u, v, amount)
                self.through.setdefault((u, v), []).append(number)
        # Cuts whose capacity bounds any changed flow: the source alone, the sink alone and
        # the flow's two minimum cuts (what the source still reaches, what still reaches
        # the sink). A changed flow that meets one of them is maximal: no search needed.
        reach = _reach(self.cap, self.flow, source, self.eps, forward=True)
        back = _reach(self.cap, self.flow, sink, self.eps, forward=False)
        sides = [frozenset([source]), reach, frozenset(self.cap) - back]
        sides.append(frozenset(self.cap) - {sink})
        self.cuts = [(side, self._capacity(side)) for side in sides]

    def changed(self, caps: Mapping[Arc, float]) -> float:
        """The maximum flow value with each arc of ``caps`` at its new capacity (arcs not
        in the graph are added). The flow kept here is not changed."""
        work = _Working(self.cap, self.flow)
        for (u, v), c in caps.items():
            work.set_cap(u, v, c)
        taken = self._take_back(caps, work)
        raised = any(c > self.cap.get(u, {}).get(v, 0.0) + self.eps for (u, v), c in caps.items())
        if not taken and not raised:
            return self.value
        have = self.value - taken
        room = self._bound(caps) - have
        if room <= self.eps:
            return have
        pushed, side = _augment(work, self.source, self.sink, self.eps, room)
        if side is not None:
            self._keep(side)
        return have + pushed

    def _keep(self, side: frozenset[int]) -> None:
        """Keep a changed graph's minimum cut: failures alike (a fabric's twins) meet it
        again, and then their flow needs no last search. The newest :data:`CUTS_KEPT`."""
        if any(side == kept for kept, _ in self.cuts):
            return
        self.cuts.append((side, self._capacity(side)))
        if len(self.cuts) > CUTS_KEPT:
            del self.cuts[4]  # the first four are the flow's own

    def _capacity(self, side: frozenset[int]) -> float:
        """The capacity of the cut ``side`` in the graph before any change (a vertex that
        is not in the graph has none)."""
        cap = self.cap
        return sum(c for u in side if u in cap for v, c in cap[u].items() if v not in side)

    def _bound(self, caps: Mapping[Arc, float]) -> float:
        """The least capacity of the kept cuts once ``caps`` apply."""
        best = math.inf
        for side, capacity in self.cuts:
            for (u, v), c in caps.items():
                if u in side and v not in side:
                    capacity += c - self.cap.get(u, {}).get(v, 0.0)
            best = min(best, capacity)
        return best

    def _take_back(self, caps: Mapping[Arc, float], work: _Working) -> float:
        """Lower the paths through each arc whose flow its new capacity no longer carries
        (in ``work``). What was taken back, in all."""
        left: dict[int, float] = {}
        taken = 0.0
        for (u, v), c in caps.items():
            over = work.flow.get(u, {}).get(v, 0.0) - c
            if over <= self.eps:
                continue
            for number in self.through.get((u, v), ()):
                path, amount = self.paths[number]
                have = left.get(number, amount)
                if have <= self.eps:
                    continue
                cut = min(have, over)
                left[number] = have - cut
                for a, b in itertools.pairwise(path):
                    work.push(a, b, -cut)
                taken += cut
                over -= cut
                if over <= self.eps:
                    break
        return taken


def _add(flow: Rows, u: int, v: int, amount: float) -> None:
    flow.setdefault(u, {})[v] = flow.get(u, {}).get(v, 0.0) + amount
    flow.setdefault(v, {})[u] = flow.get(v, {}).get(u, 0.0) - amount


def _max_flow(cap: Rows, source: int, sink: int) -> Rows:
    """The maximum flow from scratch (networkx's preflow-push), as net flow per arc."""
    import networkx as nx

    graph: nx.DiGraph[int] = nx.DiGraph()
    for u, row in cap.items():
        for v, c in row.items():
            if c > 0:
                graph.add_edge(u, v, capacity=c)
    flow: Rows = {}
    if source not in graph or sink not in graph:
        return flow
    _, by_arc = nx.maximum_flow(graph, source, sink)
    for u, row in by_arc.items():
        for v, f in row.items():
            if f:
                _add(flow, u, v, f)
    return flow


def _reach(cap: Rows, flow: Rows, start: int, eps: float, *, forward: bool) -> frozenset[int]:
    """What ``start`` reaches along residual arcs (``forward``), or what reaches it."""
    seen = {start}
    stack = [start]
    while stack:
        u = stack.pop()
        for v in cap[u]:
            if v in seen:
                continue
            a, b = (u, v) if forward else (v, u)
            if cap[a].get(b, 0.0) - flow.get(a, {}).get(b, 0.0) > eps:
                seen.add(v)
                stack.append(v)
    return frozenset(seen)


def _augment(
    work: _Working, source: int, sink: int, eps: float, room: float
) -> tuple[float, frozenset[int] | None]:
    """Push along shortest residual paths until none is left or ``room`` is pushed (a cut
    allows no more). What was pushed, in all, and where no path is left, the source's side
    of the minimum cut that stopped it.

    Each search meets at several vertices at once; the path through each is pushed in
    turn (the later ones see what the earlier took), so one search serves many paths."""
    pushed = 0.0
    while pushed < room - eps:
        ahead, behind, meets, dry = _search(work, source, sink, eps)
        if not meets:
            # The side whose search ran dry bounds the flow: what the source reaches, or
            # all but what reaches the sink.
            side = frozenset(ahead) if dry else frozenset(work.cap) - frozenset(behind)
            return pushed, side
        for meet in meets:
            arcs = []
            v = meet
            while v != source:
                arcs.append((ahead[v], v))
                v = ahead[v]
            v = meet
            while v != sink:
                arcs.append((v, behind[v]))
                v = behind[v]
            amount = min(work.residual(u, v) for u, v in arcs)
            if amount <= eps:
                continue
            for u, v in arcs:
                work.push(u, v, amount)
            pushed += amount
            if pushed >= room - eps:
                break
    return pushed, None


def _search(
    work: _Working, source: int, sink: int, eps: float
) -> tuple[dict[int, int], dict[int, int], list[int], bool]:
    """Shortest residual paths from ``source`` to ``sink``: a search from both ends at
    once, the cheaper frontier first (a failure frees a few arcs near one end; the other
    end's frontier may be the whole fabric). Each vertex's parent from the source, each
    one's child towards the sink, the vertices where the two met (the layer that met is
    searched to its end; none where a side ran dry) and whether the source's side ran
    dry."""
    cap, flow = work.cap, work.flow
    empty: dict[int, float] = {}
    ahead = {source: source}  # vertex -> its parent, from the source
    behind = {sink: sink}  # vertex -> its child, towards the sink
    front, back = [source], [sink]
    meets: list[int] = []
    while front and back and not meets:
        following = []
        # The cheaper side first: the one with fewer arcs to look at.
        if sum(len(cap[u]) for u in front) <= sum(len(cap[v]) for v in back):
            for u in front:
                row = flow.get(u, empty)
                for v, c in cap[u].items():
                    if v in ahead or c - row.get(v, 0.0) <= eps:
                        continue
                    ahead[v] = u
                    if v in behind:
                        meets.append(v)
                    following.append(v)
            front = following
        else:
            for v in back:
                # u -> v has residual where v -> u has: cap[u][v] - f(u, v) = cap[u][v] + f(v, u)
                row = flow.get(v, empty)
                for u in cap[v]:
                    if u in behind or cap[u][v] + row.get(u, 0.0) <= eps:
                        continue
                    behind[u] = v
                    if u in ahead:
                        meets.append(u)
                    following.append(u)
            back = following
    return ahead, behind, meets, not front


def _decompose(flow: Rows, source: int, sink: int, eps: float) -> list[tuple[list[int], float]]:
    """The flow as source-to-sink paths (each with its amount); cycles are dropped (they
    carry nothing from the source to the sink)."""
    out: Rows = {}
    for u, row in flow.items():
        for v, f in row.items():
            if f > eps:
                out.setdefault(u, {})[v] = f
    paths: list[tuple[list[int], float]] = []
    while out.get(source):
        path = [source]
        seen = {source: 0}
        while path[-1] != sink:
            onward = out.get(path[-1])
            if not onward:  # rounding left a dead end: drop what leads here
                del out[path[-2]][path[-1]]
                break
            v = next(iter(onward))
            if v in seen:  # a cycle: cancel it and walk on from where it closes
                cycle = [*path[seen[v] :], v]
                amount = min(out[a][b] for a, b in itertools.pairwise(cycle))
                _take(out, cycle, amount, eps)
                del path[seen[v] + 1 :]
                seen = {w: i for i, w in enumerate(path)}
                continue
            seen[v] = len(path)
            path.append(v)
        else:
            amount = min(out[a][b] for a, b in itertools.pairwise(path))
            _take(out, path, amount, eps)
            paths.append((path, amount))
    return paths


def _take(out: Rows, walk: list[int], amount: float, eps: float) -> None:
    for a, b in itertools.pairwise(walk):
        left = out[a][b] - amount
        if left > eps:
            out[a][b] = left
        else:
            del out[a][b]
