"""Direct: one or two nodes cabled port to port, no switch (the field guide's smallest
cluster). Port k of the first node goes to port k of the second."""

from __future__ import annotations

from rackdesigner.design.generators.base import FabricPlan, FabricRequest, GenerateError
from rackdesigner.design.generators.build import Builder
from rackdesigner.model.layout import Layout


def generate(layout: Layout, request: FabricRequest) -> FabricPlan:
    b = Builder(layout, request)
    nodes = b.nodes
    n = len(nodes.ids)
    if n > 2:
        raise GenerateError(
            f"direct cables 1 or 2 nodes without a switch; {n} nodes need switches "
            "(--fabric leaf-spine)"
        )
    if n == 2:
        a, c = nodes.ids
        for r in range(nodes.rails):
            port = f"{nodes.group}{r + 1}"
            b.cable(a, port, c, port, nodes.speed, nodes.tech)
    counts = {
        "nodes": n,
        "leaves": 0,
        "spines": 0,
        "cores": 0,
        "tiers": 0,
        "node_node_cables": len(b.links),
    }
    what = f"{len(b.links)} node-to-node cables" if n == 2 else "a single node: nothing to cable"
    return b.finish(counts, [f"direct: {what}"])
