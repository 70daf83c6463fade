"""The warm maximum flow (rackdesigner.topology.flow) against networkx's from scratch."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from rackdesigner.topology.flow import WarmFlow


def _reference(cap: dict[int, dict[int, float]], source: int, sink: int) -> float:
    graph = nx.DiGraph()
    for u, row in cap.items():
        for v, c in row.items():
            if c > 0:
                graph.add_edge(u, v, capacity=c)
    if source not in graph or sink not in graph:
        return 0.0
    return float(nx.maximum_flow_value(graph, source, sink))


def _graph(rng: random.Random, n: int) -> dict[int, dict[int, float]]:
    """A random graph of cables (each direction its own capacity) and a source and sink
    (n and n + 1) on a few vertices each."""
    cap: dict[int, dict[int, float]] = {}
    for _ in range(rng.randint(n, 4 * n)):
        u, v = rng.sample(range(n), 2)
        c = float(rng.choice([0.5, 1, 2, 3, 5, 8]))
        cap.setdefault(u, {})[v] = c
        cap.setdefault(v, {})[u] = c
    for u in rng.sample(range(n), 3):
        cap.setdefault(n, {})[u] = float(rng.randint(1, 10))
    for u in rng.sample(range(n), 3):
        cap.setdefault(u, {})[n + 1] = float(rng.randint(1, 10))
    return cap


@pytest.mark.parametrize("seed", range(2))
def test_changed_capacities_give_the_maximum_flow(seed: int) -> None:
    """Lowered, raised and zeroed arcs and a new vertex, asked in turn of one flow: each
    answer is networkx's maximum flow of that changed graph from scratch (so the cuts the
    flow keeps from one change to the next never bound another wrongly)."""
    rng = random.Random(seed)
    for _ in range(40):
        n = rng.randint(4, 16)
        cap = _graph(rng, n)
        flow = WarmFlow(cap, n, n + 1)
        assert flow.value == pytest.approx(_reference(cap, n, n + 1))
        arcs = [(u, v) for u, row in flow.cap.items() for v in row]
        for query in range(8):
            changes = {}
            for _ in range(rng.randint(1, 6)):
                u, v = rng.choice(arcs)
                factor = rng.choice([0.0, 0.5, 1.5, 2.0])
                changes[u, v] = flow.cap[u][v] * factor + rng.choice([0.0, 0.0, 1.0])
            if rng.random() < 0.3:  # a vertex the graph had not: a leaf moved to a half
                extra = n + 2 + query % 2
                for x in rng.sample(range(n), 2):
                    changes[extra, x] = changes[x, extra] = 2.0
                changes[n, extra] = 3.0
            changed = {u: dict(row) for u, row in flow.cap.items()}
            for (u, v), c in changes.items():
                changed.setdefault(u, {})[v] = c
            assert flow.changed(changes) == pytest.approx(_reference(changed, n, n + 1))
