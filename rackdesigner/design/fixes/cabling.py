"""Cabling fixes: media that reaches (CAB003), the faster end's port group at the
rate the link runs at (CAB004).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis.reach import choose_media, link_tech, reach
from rackdesigner.design.fixes.base import Context, Plan, fixer
from rackdesigner.edit import SetPortGroup, UpdateLink
from rackdesigner.edit.index import end_device, port_key
from rackdesigner.layout_io.schema import ENDPOINT
from rackdesigner.model.layout import PortGroup
from rackdesigner.model.units import BANDWIDTH, canonical_text


def _port_group(context: Context, end: str) -> PortGroup | None:
    found = ENDPOINT.match(end)
    device = context.index.device(end_device(end)) if found else None
    dtype = context.index.type_of(device) if device is not None else None
    return dtype.port_group(found["group"]) if dtype is not None and found else None


def _port_speed(context: Context, end: str) -> float | None:
    group = _port_group(context, end)
    return float(group.speed) if group is not None and group.speed else None


@fixer("CAB003")
def media_that_reaches(context: Context) -> Iterator[Plan]:
    """A cable too long for its media gets one that reaches at the link's speed (its slower
    end): OM4 for OM3 multimode where that is enough, else the first of dac, acc, aoc, smf
    (the order the fabric generators choose in) that reaches; copper-rj45 is management
    cabling, a switch closer is the fix there."""
    link = context.link
    length = context.finding.values.get("length")
    if link is None or length is None or link.media in (None, "copper-rj45"):
        return
    speeds = [s for s in (_port_speed(context, link.a), _port_speed(context, link.b)) if s]
    speed = min(speeds) if speeds else None
    # 800G InfiniBand is XDR: its own parts (no DAC or multimode), not 800GbE's
    groups = (_port_group(context, link.a), _port_group(context, link.b))
    tech = link_tech(*(g.tech if g is not None else None for g in groups))
    thresholds = context.thresholds
    ref = context.finding.subject[1] if context.finding.subject else port_key(link.a)
    if link.media == "mmf" and link.grade == "om3":
        found = reach("mmf", speed, "om4", thresholds, tech=tech)
        if found is not None and float(length) <= found[1]:
            yield Plan(
                f"Cable {ref} with OM4 fibre (reaches {found[1]:g} m)",
                lambda: [UpdateLink(ref, grade="om4")],
            )
    media = choose_media(float(length), speed, thresholds, tech=tech)
    if media is None or media == link.media:
        return
    found = reach(media, speed, None, thresholds, tech=tech)
    grade = "os2" if media == "smf" and link.grade else None
    reaches = f", reaches {found[1]:g} m" if found else ""
    yield Plan(
        f"Cable {ref} with {media} instead of {link.media}{reaches}",
        lambda: [UpdateLink(ref, media=media, grade=grade)],
    )


@fixer("CAB004")
def slower_speed(context: Context) -> Iterator[Plan]:
    """Ends of one technology at two speeds: the link runs at the slower one. The faster
    end's port group is set to that speed on its model (the layout's ``[catalog.MODEL]``,
    as a layout that runs 400G adapters on a 200G fabric writes it), so no figure of this
    link changes. Every device of that model shares the group: offered only when none of
    its other cables runs faster than the new speed (the change slows no link)."""
    link = context.link
    values = context.finding.values
    if link is None or "speed_a" not in values or "speed_b" not in values:
        return
    if context.finding.severity == "error":
        return  # InfiniBand against Ethernet: another switch or adapter, a purchase
    speed_a, speed_b = float(values["speed_a"]), float(values["speed_b"])
    slow = min(speed_a, speed_b)
    fast_end = link.a if speed_a > speed_b else link.b
    found = ENDPOINT.match(fast_end)
    device = context.index.device(end_device(fast_end)) if found else None
    if device is None or found is None:
        return
    model, group = device.model, found["group"]
    if _group_runs_faster(context, model, group, slow):
        return  # another cable of that group would run slower
    text = canonical_text(slow, BANDWIDTH)
    ref = context.finding.subject[1] if context.finding.subject else link.a
    yield Plan(
        f"Set {model} ports {group} to {text}, the rate link {ref} runs at",
        lambda: [SetPortGroup(model, group, speed=text)],
    )


def _group_runs_faster(context: Context, model: str, group: str, speed: float) -> bool:
    """Whether a cable other than the finding's, on port group ``group`` of a device of
    ``model``, runs faster than ``speed`` (its far end is faster)."""
    for other_id in [d.id for _, d in context.layout.devices() if d.model == model]:
        for other in context.index.links_of(other_id):
            if other is context.link:
                continue
            for end, far in ((other.a, other.b), (other.b, other.a)):
                match = ENDPOINT.match(end)
                if match is None or match["device"] != other_id or match["group"] != group:
                    continue
                far_speed = _port_speed(context, far)
                if far_speed is not None and far_speed > speed * (1 + 1e-9):
                    return True
    return False
