"""Cabling rules (CAB): whether every cable reaches, runs at one rate and plugs into a free port.

A cable's length is the link's declared ``length`` where given, else the route
computed from the layout's geometry (layout-format.md, "Geometry") plus the
site's slack; :class:`~rackdesigner.analysis.LinkFacts` holds both.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from rackdesigner.analysis import Analysis, End, LinkFacts
from rackdesigner.analysis.reach import KEYS as REACH_KEYS
from rackdesigner.analysis.reach import reach, speed_band
from rackdesigner.layout_io.schema import ENDPOINT
from rackdesigner.model.diagnostics import Severity
from rackdesigner.model.units import BANDWIDTH, LENGTH, fmt
from rackdesigner.rules.base import Finding, rule

_TOLERANCE = 1e-6  # m: float dust from unit conversions is not a shortfall

_MEDIA_NAMES = {
    "dac": "passive copper",
    "acc": "active copper",
    "aoc": "active optical cable",
    "mmf": "multimode fibre",
    "smf": "single-mode fibre",
    "copper-rj45": "twisted-pair copper",
}
# Media a high-speed port can take instead, in order of preference (cost, power).
_UPGRADES = ("dac", "acc", "mmf", "aoc", "smf")


def _described(media: str, speed: float | None, grade: str | None) -> str:
    """``passive copper at 400G+``, ``multimode fibre OM3 at 200G``."""
    name = _MEDIA_NAMES.get(media, media)
    if media == "mmf":
        name += f" {(grade or 'om4').upper()}"
    if media in ("dac", "mmf"):
        name += f" at {speed_band(speed)}"
    return name


@cache
def _metres(value: float) -> str:
    # fmt caches too, but keyed by (value, Dimension); a float key is cheaper when a
    # layout with the default cable_max yields 100,000+ findings.
    return fmt(value, LENGTH)


def _length_text(link: LinkFacts, analysis: Analysis) -> str:
    """``declared length 7 m`` or ``computed length 6.2 m (5.7 m route + 500 mm slack)``."""
    assert link.length is not None
    if link.link.length is not None:
        return f"declared length {_metres(link.length)}"
    assert link.route is not None
    return (
        f"computed length {_metres(link.length)} ({_metres(link.route)} route + "
        f"{_metres(analysis.geometry.slack)} slack)"
    )


def _length_values(link: LinkFacts, analysis: Analysis) -> dict[str, float]:
    assert link.length is not None
    values = {"length": link.length}
    if link.link.length is None and link.route is not None:
        values["route"] = link.route
        values["slack"] = analysis.geometry.slack
    return values


@rule("CAB001", "error", scope="link", thresholds=("cable_max",), severities=("error", "warning"))
def cable_too_long(analysis: Analysis) -> Iterator[Finding]:
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
    limit = float(analysis.thresholds["cable_max"])
    limit_text = fmt(limit, LENGTH)
    for link in analysis.links:
        if not link.compute or link.length is None or link.length <= limit + _TOLERANCE:
            continue
        a, b = link.a.device, link.b.device
        assert a is not None and b is not None  # compute links are resolved
        gpu_end = a if a.is_gpu_node else b if b.is_gpu_node else None
        values = _length_values(link, analysis)
        values["limit"] = limit
        if gpu_end is not None:
            yield Finding(
                link.entity,
                link.ref,
                f"{_length_text(link, analysis)} from GPU node {gpu_end.id} is longer "
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
                f"{_length_text(link, analysis)} between {between} is longer than "
                f"the {limit_text} limit (cable_max)",
                hint="place the two ends closer (the same or a neighbouring rack)",
                values=values,
                severity="warning",
            )


@rule("CAB002", "error", scope="link")
def declared_shorter_than_route(analysis: Analysis) -> Iterator[Finding]:
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
    slack = analysis.geometry.slack
    for link in analysis.links:
        declared = link.link.length
        if declared is None or link.route is None:
            continue
        if float(declared) >= link.route - _TOLERANCE:
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


def _reach(analysis: Analysis, media: str, speed: float | None, grade: str | None = None) -> float:
    """The reach in m of a medium the table knows, with the layout's thresholds."""
    found = reach(media, speed, grade, analysis.thresholds)
    return found[1] if found is not None else 0.0


def _upgrade(analysis: Analysis, link: LinkFacts, media: str, length: float) -> str:
    """The fix for a medium that does not reach: the cheapest one that does."""
    if media == "copper-rj45":
        return "use fibre with transceivers, or put a management switch closer to the device"
    speed, grade = link.speed, link.link.grade
    if media == "mmf" and (grade or "om4") == "om3":
        better = _reach(analysis, "mmf", speed, "om4")
        if length <= better:
            return (
                f'use OM4 fibre (grade = "om4", reaches {fmt(better, LENGTH)}) or shorten the run'
            )
    current = _reach(analysis, media, speed, grade)
    for other in _UPGRADES:
        other_reach = _reach(analysis, other, speed)
        if other != media and length <= other_reach and other_reach > current:
            return (
                f"use {other} ({_MEDIA_NAMES[other]}, reaches {fmt(other_reach, LENGTH)}) or "
                "shorten the run"
            )
    return "shorten the run: place the two ends closer"


@rule(
    "CAB003",
    "error",
    scope="link",
    thresholds=REACH_KEYS,
)
def media_reach(analysis: Analysis) -> Iterator[Finding]:
    """A link's cable media cannot reach the link's length at its speed and fibre grade.

    Why it matters:
        Reach depends on the medium, the link's speed (its slower end) and, for multimode
        fibre, the fibre's `grade`. IEEE 802.3 and NVIDIA's LinkX documentation: passive
        copper (DAC) reaches 2 m at 100G per lane (400G, 800G; `reach_dac`), 3 m at 200G
        (`reach_dac_200g`) and 5 m at 100G (`reach_dac_100g`); active copper (ACC) 5 m;
        multimode fibre with SR4/SR8 transceivers 50 m on OM4/OM5 and 30 m on OM3 at 400G
        and more (`reach_mmf`, `reach_mmf_om3`), 100 m and 70 m at 200G and below
        (`reach_mmf_200g`, `reach_mmf_200g_om3`); active optical cable 100 m; single-mode
        fibre with DR transceivers 500 m; twisted-pair copper (RJ45) 100 m. Speed bands:
        above 200 Gbit/s (or an unknown speed) is 400G+, above 100 up to 200 is 200G, the
        rest 100G; a multimode link without `grade` is taken as OM4. Beyond its reach the
        link does not train up or runs with errors. The length is the declared one where a
        link gives `length`, else the computed route plus the site's slack. Links without
        `media` are not checked.

    Example:
        [[links]]
        a = "a01-n01:ib1"
        b = "a02-leaf1:p1"   # next rack, DGX at U2, leaf at U21: 4.3 m at 400G
        media = "dac"        # reaches 2 m at 400G

    Fix:
        Use a medium that reaches (acc, mmf, aoc, smf; OM4 instead of OM3), or place the
        ends closer.
    """
    thresholds = analysis.thresholds
    reaches: dict[tuple[str, float | None, str | None], tuple[str, float]] = {}
    for link in analysis.links:
        media = link.link.media
        if media is None or link.length is None:
            continue
        grade = link.link.grade
        # 150,000 cables share a handful of (media, speed, grade): look each up once.
        known = reaches.get((media, link.speed, grade))
        if known is None:
            # one table for this rule and the generators (rackdesigner/reach.py); media
            # it does not know are not judged
            known = reaches[(media, link.speed, grade)] = reach(
                media, link.speed, grade, thresholds
            ) or ("", -1.0)
        key, limit = known
        if limit < 0 or link.length <= limit + _TOLERANCE:
            continue
        values = _length_values(link, analysis)
        values["reach"] = limit
        yield Finding(
            link.entity,
            link.ref,
            f"{_length_text(link, analysis)} is beyond the {fmt(limit, LENGTH)} reach "
            f"of its {media} cable ({_described(media, link.speed, grade)}, {key})",
            hint=_upgrade(analysis, link, media, link.length),
            values=values,
        )


@rule("CAB004", "error", scope="link", severities=("error", "warning"))
def mismatched_ends(analysis: Analysis) -> Iterator[Finding]:
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
    for link in analysis.links:
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


def _problem_hint_and_values(end: End) -> tuple[str, dict[str, float]]:
    if end.group is not None:  # resolved, but the port is taken
        return "move one of the two links to a free port", {}
    if end.device is None:
        match = ENDPOINT.match(end.text)
        if match is None:
            return 'write the end as "<device id>:<port group><index>", e.g. "a01-n01:ib1"', {}
        return "use the id of a device in the layout", {}
    dtype = end.device.type
    match = ENDPOINT.match(end.text)
    if dtype is None or match is None:
        return "fix the device's model (PLC005)", {}
    group = dtype.port_group(match["group"])
    if group is None:
        return "use one of the model's port groups", {}
    return (
        f"use a port between {group.name}1 and {group.name}{group.count}",
        {"index": float(match["index"]), "ports": float(group.count)},
    )


@rule("CAB005", "error", scope="link")
def unresolved_end(analysis: Analysis) -> Iterator[Finding]:
    """A link end names an unknown device or port, or a port that another link already uses.

    Why it matters:
        A cable needs two existing, free ports. An end that names no device of the layout,
        a port group its model does not have, a port number beyond the group's count, or a
        port another link already uses cannot be cabled, and a device with more links than
        ports is found here too. A link whose end does not resolve is left out of the
        fabric, so the topology rules do not see it.

    Example:
        [[links]]
        a = "a01-n01:ib1"
        b = "a01-leaf1:p1"

        [[links]]
        a = "a01-n02:ib1"
        b = "a01-leaf1:p1"   # p1 is already used by the link above

    Fix:
        Correct the device id or port name, or move the link to a free port.
    """
    for link in analysis.links:
        for label, end in (("a", link.a), ("b", link.b)):
            if end.problem is None:
                continue
            hint, values = _problem_hint_and_values(end)
            yield Finding(
                link.entity,
                link.ref,
                f"end {label} ({end.text}): {end.problem}",
                hint=hint,
                values=values,
                related=() if end.clash is None else (analysis.links[end.clash].ref,),
            )
