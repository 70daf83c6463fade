"""A link's declared length is shorter than the route its cable has to run.

Why it matters:
    The route is the shortest path a cable can take between the two ports: the vertical
    distance inside one rack, or up to the overhead tray, along it and down again
    between racks (layout-format.md, "Geometry"). A cable shorter than that, before any
    service slack, does not reach. Often the length was copied from another link or a
    device moved after the cable was sized.

Example:
    [[racks.devices]]
    id = "a01-n01"
    model = "dgx-h100"
    position = 2         # 8 U: ports at its centre, 0.22 m above the floor

    [[racks.devices]]
    id = "a01-leaf1"
    model = "qm9700"
    position = 21        # ports 0.91 m above the floor

    [[links]]
    a = "a01-n01:ib1"
    b = "a01-leaf1:p1"
    length = "0.5 m"     # the route is 0.64 m

Fix:
    Order a longer cable (the route plus the slack), or remove `length` to use the
    computed one.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import LENGTH, fmt
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cabling._common import TOLERANCE


@rule("CAB002", "error", scope="link")
def declared_shorter_than_route(analysis: Analysis) -> Iterator[Finding]:
    slack = analysis.geometry.slack
    for link in analysis.links:
        declared = link.link.length
        if declared is None or link.route is None:
            continue
        if float(declared) >= link.route - TOLERANCE:
            continue
        yield Finding(
            link.entity,
            link.ref,
            f"declared length {fmt(float(declared), LENGTH)} is shorter than the "
            f"computed route {fmt(link.route, LENGTH)} (without slack)",
            hint=f"use a cable of at least {fmt(link.route + slack, LENGTH)} (the route "
            f"plus {fmt(slack, LENGTH)} slack) or remove `length` to use the "
            "computed length",
            values={"length": float(declared), "route": link.route},
        )
