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

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule


@rule("NET005", "warning", scope="fabric")
def single_points_of_failure(analysis: Analysis) -> Iterator[Finding]:
    for fabric in analysis.fabrics:
        if not fabric.cut_switches and not fabric.cut_links:
            continue
        total = len(fabric.nodes)
        name = fabric.site()[0]
        for dev, parts in fabric.cut_switches:
            yield Finding(
                f"device {dev.id}",
                dev.ref,
                f"its loss splits the {total:,} GPU nodes of {name} into {parts} "
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
                f"({total:,} GPU nodes)",
                hint="add a second cable, to another switch where possible",
                values={"cut_off": float(cut_off), "nodes": float(total)},
            )
