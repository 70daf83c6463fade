"""A compute-fabric cable is longer than the longest run the design allows.

Why it matters:
    The field guide's advice for GPU clusters is "compute nodes on either side of the
    switch; keep cable runs under 5 m": at 400 Gbps and more, short runs are what passive
    and active copper reach, cost least and draw no transceiver power, and every metre
    adds latency to the collectives. A long run from a GPU node to its leaf is an error
    (the node's rack is not laid out around its switch); a long run between two switches
    is a warning. The rule applies to compute-fabric links only: management copper
    reaches 100 m and storage optics are not the 5 m concern (CAB003 checks that every
    cable's media reaches). The length is the declared one where a link gives `length`,
    else the computed route plus the site's slack.

Example:
    [[racks.devices]]
    id = "a01-n01"
    model = "dgx-h100"
    position = 2

    [[racks.devices]]
    id = "b07-leaf1"     # a leaf switch six racks away in the next row
    model = "qm9700"
    position = 21

    [[links]]
    a = "a01-n01:ib1"
    b = "b07-leaf1:p1"   # 9.2 m route + 0.5 m slack

Fix:
    Move the switch closer: in the middle of the node's rack, with nodes above and below
    it, or cable the node to its own rack's leaf switch.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import LENGTH, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cabling._common import TOLERANCE, length_text, length_values


@rule("CAB001", "error", scope="link", thresholds=("cable_max",), severities=("error", "warning"))
def cable_too_long(analysis: Analysis) -> Iterator[Finding]:
    limit = float(analysis.thresholds["cable_max"])
    limit_text = fmt(limit, LENGTH)
    for link in analysis.links:
        if not link.compute or link.length is None or link.length <= limit + TOLERANCE:
            continue
        a, b = link.a.device, link.b.device
        assert a is not None and b is not None  # compute links are resolved
        gpu_end = a if a.is_gpu_node else b if b.is_gpu_node else None
        values = length_values(link, analysis)
        values["limit"] = limit
        if gpu_end is not None:
            yield Finding(
                link.entity,
                link.ref,
                f"{length_text(link, analysis)} from GPU node {gpu_end.id} is longer "
                f"than the {limit_text} limit (cable_max)",
                hint="move the switch closer (to the middle of the node's rack, with "
                "nodes above and below it) or cable the node to its own rack's "
                "leaf switch",
                values=values,
                severity="error",
            )
        else:
            between = "switches" if a.kind == b.kind == "switch" else f"{a.id} and {b.id}"
            yield Finding(
                link.entity,
                link.ref,
                f"{length_text(link, analysis)} between {between} is longer than "
                f"the {limit_text} limit (cable_max)",
                hint="place the two ends closer (the same or a neighbouring rack)",
                values=values,
                severity="warning",
            )
