"""A compute-fabric cable is longer than the run the design aims for (5 m): latency.

Why it matters:
    The field guide's advice for GPU clusters is "compute nodes on either side of the
    switch; keep cable runs under 5 m": short runs are what copper reaches at 400 Gbps
    and more, cost least, draw no transceiver power, and every metre adds about 5 ns to
    the collectives (light and signals in a cable travel about 0.2 m/ns; NVIDIA's LinkX
    copper is specified at 4.5 ns/m). A longer run is not a fault: NVIDIA's SuperPOD
    designs cable nodes to their leaves with optics at 10 to 50 m. So a run past
    `cable_max` is a warning that says the latency it adds; whether the cable's medium
    can reach the run at all is CAB003's error. The rule applies to compute-fabric links
    only: management copper reaches 100 m and storage optics are not the 5 m concern.
    The length is the declared one where a link gives `length`, else the computed route
    plus the site's slack.

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
    b = "b07-leaf1:p1"   # 9.2 m route + 0.5 m slack: about 24 ns more than 5 m
    media = "mmf"

Fix:
    Move the switch closer: in the middle of the node's rack, with nodes above and below
    it, or cable the node to its own rack's leaf switch. Where the layout means the longer
    runs (a rail-optimised leaf serves every rack of its scalable unit), raise `cable_max`
    in `[rules.thresholds]`.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import DURATION, LENGTH, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cabling._common import TOLERANCE, length_text, length_values

# About 5 ns per metre: the field guide's figure (signals travel about 0.2 m/ns in a cable;
# NVIDIA's LinkX DACs are specified at 4.5 ns/m).
NS_PER_METRE = 5.0


@rule("CAB001", "warning", scope="link", thresholds=("cable_max",))
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
        added = (link.length - limit) * NS_PER_METRE
        values["added_latency_ns"] = added
        latency = (
            f"about {fmt(added * 1e-9, DURATION, 2)} more latency than a {limit_text} run "
            f"({NS_PER_METRE:g} ns per metre)"
        )
        if gpu_end is not None:
            yield Finding(
                link.entity,
                link.ref,
                f"{length_text(link, analysis)} from GPU node {gpu_end.id} is longer "
                f"than the {limit_text} cable_max: {latency}",
                hint="move the switch closer (to the middle of the node's rack, with "
                "nodes above and below it) or cable the node to its own rack's "
                "leaf switch; raise cable_max where the layout means the longer runs",
                values=values,
            )
        else:
            between = "switches" if a.kind == b.kind == "switch" else f"{a.id} and {b.id}"
            yield Finding(
                link.entity,
                link.ref,
                f"{length_text(link, analysis)} between {between} is longer than "
                f"the {limit_text} cable_max: {latency}",
                hint="place the two ends closer (the same or a neighbouring rack)",
                values=values,
            )
