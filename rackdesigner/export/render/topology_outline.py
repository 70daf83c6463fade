"""The compute fabric as an outline (core → spine → leaf → nodes), for the designer's tree.

Grouped exactly as the topology drawing groups it (it reuses the drawing's boxes): a
scalable unit drawn once with a count, racks of nodes as one entry, a tier of many switches
merged by model. Each switch entry carries its oversubscription (down ÷ up) and its lateral
group's global ratio (v1.1), and is marked when it is a single point of failure.

A rack-scale rack (v1.2, docs/rack-scale.md) is one NVLink domain: its entry is the
domain, one block (``nvl-a03 · NVL72 · 72 GPUs · 18 trays``) with its uplinks to the compute
fabric and its switch trays under it, not 27 devices.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rackdesigner.export.render.topology_svg import Box, _FabricDrawing, _tier_name
from rackdesigner.model.wording import first_of, natural, plural

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.analysis.fabric_graph import Fabric
    from rackdesigner.analysis.facts import DeviceFacts, LinkFacts


# Device id -> its fabric cables: (the far end's device id, the cable's speed in bit/s).
Uplinks = dict[str, list[tuple[str, float | None]]]


@dataclass(slots=True)
class Entry:
    label: str
    target: str | None = None  # the device id selecting it jumps to
    spof: bool = False
    oversubscribed: bool = False
    children: list[Entry] = field(default_factory=list)
    network: str | None = None  # a root that is not a compute fabric: its port role


def _by_name(box: Box) -> tuple[tuple[str, int], ...]:
    """Switches in the order people count them: a09-spine2 before a09-spine10."""
    return natural(box.members[0].id if box.members else box.title)


def _ratio(value: float) -> str:
    return "∞:1" if math.isinf(value) else f"{value:.2f}:1"


def _switch(box: Box, fabric: Fabric, global_ratio: dict[str, float]) -> Entry:
    member = box.members[0] if box.members else None
    facts = fabric.switches.get(member.id) if member is not None else None
    parts = [box.title]
    if box.detail:
        parts.append(box.detail)
    ratio = facts.oversubscription if facts is not None and len(box.members) == 1 else None
    if len(box.members) > 1 and box.oversubscription is not None:
        parts.append(f"worst {_ratio(box.oversubscription)} ({box.oversubscribed} over 1:1)")
    elif ratio is not None:
        parts.append(f"down:up {_ratio(ratio)}")
    elif facts is not None and facts.top:
        parts.append("top tier")
    if member is not None and member.id in global_ratio:
        parts.append(f"global {global_ratio[member.id]:.2f}")
    spof = box.spof > 0
    if spof:
        parts.append("✖ single point of failure" if box.spof == 1 else f"✖ {box.spof} SPOFs")
    over = (box.oversubscription or 0.0) > 1.0 + 1e-9
    return Entry(" · ".join(parts), member.id if member else None, spof, over)


def fabric_outline(analysis: Analysis, fabric: Fabric) -> Entry:
    """A fabric as a tree: its head line, the tiers above the leaves, each class of alike
    scalable units (its leaves and its racks' nodes or NVLink domains), and the switches
    no GPU node reaches."""
    drawing = _FabricDrawing(analysis, fabric)
    drawing.build()
    global_ratio = {m: g.ratio for g in fabric.groups for m in g.members}
    root = Entry(_fabric_head(fabric), fabric.name, bool(fabric.cut_switches or fabric.cut_links))
    found: list[Uplinks] = []

    def uplinks() -> Uplinks:  # one pass over the fabric's cables, once a domain needs it
        if not found:
            found.append(_uplinks(fabric))
        return found[0]

    boxes = list(drawing.boxes.values())
    upper = sorted({b.tier for b in boxes if b.tier >= 2}, reverse=True)
    for tier in upper:
        members = sorted((b for b in boxes if b.tier == tier), key=_by_name)
        count = sum(len(b.members) for b in members)
        group = Entry(
            f"{_tier_name(tier, fabric.max_tier)} · {plural(count, 'switch', 'switches')}"
        )
        group.children = [_switch(b, fabric, global_ratio) for b in members]
        root.children.append(group)
    for index, same in enumerate(drawing.su_classes):
        root.children.append(
            _unit_entry(index, same, boxes, fabric, global_ratio, uplinks, analysis)
        )
    unreached = [b for b in boxes if b.tier < 0]
    if unreached:
        group = Entry(f"{_tier_name(-1, fabric.max_tier)}")
        group.children = [_switch(b, fabric, global_ratio) for b in sorted(unreached, key=_by_name)]
        root.children.append(group)
    return root


def _fabric_head(fabric: Fabric) -> str:
    """The fabric's line: name, technology, GPUs on nodes, oversubscription, the worst
    global ratio and its single points of failure."""
    head = (
        f"fabric {fabric.name} · {fabric.tech} · {plural(fabric.gpus, 'GPU')} on "
        f"{plural(len(fabric.nodes), 'node')} · oversubscription "
        f"{_ratio(fabric.oversubscription)}"
    )
    worst = fabric.worst_group()
    if worst is not None:
        head += f" · worst global ratio {worst.ratio:.2f}"
    if fabric.cut_switches or fabric.cut_links:
        head += f" · ✖ {len(fabric.cut_switches) + len(fabric.cut_links)} SPOFs"
    return head


def _unit_entry(
    index: int,
    same: list[dict[str, list[str]]],
    boxes: list[Box],
    fabric: Fabric,
    global_ratio: dict[str, float],
    uplinks: Callable[[], Uplinks],
    analysis: Analysis,
) -> Entry:
    """A class of alike scalable units, drawn once: its leaves, then its racks' nodes (a
    rack-scale rack as its NVLink domain)."""
    prefix = f"su{index}-"
    leaves = sorted((b for b in boxes if b.key.startswith(prefix + "l")), key=_by_name)
    nodes = [b for b in boxes if b.key.startswith(prefix + "n")]
    racks = len(same[0]["racks"])
    leaves_text = plural(len(same[0]["leaves"]), "leaf", "leaves")
    label = f"scalable unit {index + 1} · {leaves_text} · {plural(racks, 'rack')}"
    if len(same) > 1:
        label += f" · × {len(same)} like this"
    unit = Entry(label)
    for leaf in leaves:
        unit.children.append(_switch(leaf, fabric, global_ratio))
    for box in nodes:
        domain = _domain_entry(box, uplinks(), analysis)
        if domain is not None:
            unit.children.append(domain)
            continue
        first = box.members[0].id if box.members else None
        unit.children.append(Entry(f"{box.title} · {box.detail}", first))
    unit.spof = any(e.spof for e in unit.children)
    return unit


def _domain_entry(box: Box, uplinks: Uplinks, analysis: Analysis) -> Entry | None:
    """A box of one rack's NVLink compute trays as its domain: one block with its uplinks
    (the trays' cables to this fabric, by far end) and its switch trays; None for a box of
    ordinary nodes."""
    from rackdesigner.analysis.rack_scale import SHAPES, tray_role

    members = box.members
    if not members or any(tray_role(dev) != "compute" for dev in members):
        return None
    rack = members[0].rack
    name = rack.nvlink_domain
    if name is None or any(dev.rack is not rack for dev in members):
        return None
    shapes = {dev.type.nvl_domain for dev in members if dev.type is not None}
    only = shapes.pop() if len(shapes) == 1 else None
    shape = SHAPES.get(only) if only is not None else None
    gpus = sum(dev.gpus for dev in members)
    trays = len(members)
    parts = [name, *([shape.name] if shape else []), plural(gpus, "GPU"), plural(trays, "tray")]
    if name != f"nvl-{rack.id}":
        parts.append(f"rack {rack.id}")
    entry = Entry(" · ".join(parts), members[0].id)
    uplink = _uplinks_entry(members, uplinks)
    if uplink is not None:
        entry.children.append(uplink)
    # The switch trays hold no compute port, so the fabric does not list them: the rack does.
    found = (analysis.device_by_id.get(d.id) for d in rack.devices)
    switch_trays = [d for d in found if d is not None and tray_role(d) == "switch"]
    if switch_trays:
        model = switch_trays[0].device.model
        entry.children.append(
            Entry(
                f"NVLink switch trays · {len(switch_trays)} × {model} (NVLink in the rack)",
                switch_trays[0].id,
            )
        )
    return entry


def _uplinks_entry(members: list[DeviceFacts], uplinks: Uplinks) -> Entry | None:
    """A domain's uplinks: its trays' cables to this fabric, by far end (the three with
    the most first), with their speeds; None without any."""
    far: dict[str, int] = {}
    speeds: set[float] = set()
    for dev in members:
        for other, rate in uplinks.get(dev.id, ()):
            far[other] = far.get(other, 0) + 1
            if rate is not None:
                speeds.add(rate)
    cables = sum(far.values())
    if not cables:
        return None
    speed = "/".join(f"{v / 1e9:g}G" for v in sorted(speeds, reverse=True))
    switches = sorted(far, key=lambda d: (-far[d], d))
    # "… 1 more" hides a name where writing it takes no more room: four are named in full.
    shown = ", ".join(switches) if len(far) <= 4 else first_of(switches, 3)
    return Entry(
        f"uplinks · {cables:,} × {speed or '?'} to "
        f"{plural(len(far), 'switch', 'switches')}: {shown}",
        switches[0],
    )


def _uplinks(fabric: Fabric) -> Uplinks:
    """Each device's cables in the fabric: the far end's device and the cable's speed."""
    out: Uplinks = {}
    for link in fabric.links:
        for mine, other in ((link.a, link.b), (link.b, link.a)):
            if mine.device is not None and other.device is not None:
                out.setdefault(mine.device.id, []).append((other.device.id, link.speed))
    return out


def outline(analysis: Analysis) -> list[Entry]:
    """One entry per compute fabric, in the analysis' order, then the storage and the
    out-of-band (management) networks."""
    return [fabric_outline(analysis, fabric) for fabric in analysis.fabrics] + networks(analysis)


# The networks besides the compute fabrics, by the role of the ports their cables join.
NETWORK_NAMES = {"storage": "storage network", "management": "out-of-band (management) network"}
# A network with more switches than this lists them by model, each a range of ids.
LISTED = 24
# The models of devices on a network its line names (the most numerous), the rest counted.
ON_IT = 3


def networks(analysis: Analysis) -> list[Entry]:
    """The storage and the out-of-band networks: their switches (a switch with two or more
    of the network's cables; one with a single cable is a device on it, by its management
    port) with their cables, and the devices on them by model. A cable belongs to the
    storage network when either end is a storage port, else to the management network
    when either end is a management port (PortGroup.effective_role)."""
    cables: dict[str, dict[str, int]] = {role: {} for role in NETWORK_NAMES}
    devices: dict[str, dict[str, DeviceFacts]] = {role: {} for role in NETWORK_NAMES}
    for link in analysis.links:
        role = _network_of(link)
        if role is None:
            continue
        for end in (link.a, link.b):
            device = end.device
            assert device is not None
            cables[role][device.id] = cables[role].get(device.id, 0) + 1
            devices[role][device.id] = device
    out = []
    for role, counts in cables.items():
        if counts:
            out.append(_network(role, counts, devices[role]))
    return out


def _network_of(link: LinkFacts) -> str | None:
    if link.compute or link.a.device is None or link.b.device is None:
        return None
    if link.a.group is None or link.b.group is None or link.a.device is link.b.device:
        return None
    roles = {
        link.a.group.effective_role(link.a.device.kind),
        link.b.group.effective_role(link.b.device.kind),
    }
    return next((role for role in NETWORK_NAMES if role in roles), None)


def _network(role: str, counts: dict[str, int], devices: dict[str, DeviceFacts]) -> Entry:
    switches = sorted(
        (d for d in devices.values() if d.kind == "switch" and counts[d.id] > 1),
        key=lambda d: natural(d.id),
    )
    members = {d.id for d in switches}
    total = sum(counts.values()) // 2
    on = Counter(d.device.model for d in devices.values() if d.id not in members)
    most = sorted(on.items(), key=lambda item: (-item[1], item[0]))
    attached = ", ".join(f"{n:,} × {model}" for model, n in most[:ON_IT])
    if len(most) > ON_IT:
        attached += f", {plural(len(most) - ON_IT, 'more model')}"
    label = (
        f"{NETWORK_NAMES[role]} · {plural(len(switches), 'switch', 'switches')} · "
        f"{plural(total, 'cable')}" + (f" · on it: {attached}" if attached else "")
    )
    root = Entry(label, switches[0].id if switches else None, network=role)
    if len(switches) <= LISTED:
        root.children = [
            Entry(f"{d.id} · {d.device.model} · {plural(counts[d.id], 'cable')}", d.id)
            for d in switches
        ]
        return root
    by_model: dict[str, list[DeviceFacts]] = {}
    for d in switches:
        by_model.setdefault(d.device.model, []).append(d)
    for model, group in sorted(by_model.items()):
        span = f"{group[0].id} … {group[-1].id}" if len(group) > 1 else group[0].id
        root.children.append(
            Entry(f"{plural(len(group), 'switch', 'switches')} · {model} · {span}", group[0].id)
        )
    return root
