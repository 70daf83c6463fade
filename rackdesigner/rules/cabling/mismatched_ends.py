"""The two ends of a link differ in technology, or in speed within one technology.

Why it matters:
    An InfiniBand port does not link with an Ethernet port: the link never comes up
    (error). Two ports of one technology at different speeds negotiate down: an NDR
    400G port cabled to an HDR 200G switch runs at 200G (warning), and every bandwidth
    figure (oversubscription, NET003, NET007, the bisection) counts the link at the
    slower rate, so the fabric may be slower than designed. Ends whose speed or
    technology is not known are not compared.

Example:
    [[links]]
    a = "a01-n01:ib1"    # DGX H100: 400 Gbps InfiniBand
    b = "a01-leaf1:p1"   # QM8700: 200 Gbps InfiniBand

Fix:
    Cable ports of the same technology and speed (a switch of the nodes' generation),
    or set the port group's `speed` to the rate the link is meant to run at.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.diagnostics import Severity
from rackdesigner.model.units import BANDWIDTH, fmt
from rackdesigner.rules.base import Finding, rule


@rule("CAB004", "error", scope="link", severities=("error", "warning"))
def mismatched_ends(analysis: Analysis) -> Iterator[Finding]:
    # The ends' groups decide: the cables of a port pair whose ends agree are passed over
    # without a look (a hall's 176,000 cables join a handful of pairs).
    agree: set[int] = set()
    for link in analysis.links:
        pair = link.pair
        if pair is not None and id(pair) in agree:
            continue
        ga, gb = link.a.group, link.b.group
        if ga is None or gb is None:
            continue
        parts: list[str] = []
        hints: list[str] = []
        values: dict[str, float] = {}
        severity: Severity = "warning"
        if ga.tech and gb.tech and ga.tech != gb.tech:
            severity = "error"
            parts.append(f"technology: {ga.tech} ({link.a.text}) vs {gb.tech} ({link.b.text})")
            hints.append("cable InfiniBand ports to InfiniBand and Ethernet to Ethernet")
        if (
            ga.speed is not None
            and gb.speed is not None
            and abs(ga.speed - gb.speed) > 1e-6 * max(ga.speed, gb.speed)
        ):
            parts.append(
                f"speed: {fmt(ga.speed, BANDWIDTH)} ({link.a.text}) vs "
                f"{fmt(gb.speed, BANDWIDTH)} ({link.b.text})"
            )
            hints.append(
                "use ports of one speed (a switch of the nodes' generation), or set "
                "the port group's speed to the rate the link runs at"
            )
            values = {"speed_a": float(ga.speed), "speed_b": float(gb.speed)}
        if not parts:
            if pair is not None:
                agree.add(id(pair))
            continue
        message = "the ends differ in " + "; and in ".join(parts)
        if severity == "warning" and link.speed is not None:
            message += f": the link runs at {fmt(link.speed, BANDWIDTH)}"
        yield Finding(
            link.entity,
            link.ref,
            message,
            hint="; ".join(hints),
            values=values,
            severity=severity,
        )
