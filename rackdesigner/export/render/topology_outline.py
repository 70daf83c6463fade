"""The compute fabric as an outline (core → spine → leaf → nodes), for the designer's tree.

Grouped exactly as the topology drawing groups it (it reuses the drawing's boxes): a
scalable unit drawn once with a count, racks of nodes as one entry, a tier of many switches
merged by model. Each switch entry carries its oversubscription (down ÷ up) and its lateral
group's global ratio (v1.1), and is marked when it is a single point of failure.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rackdesigner.export.render.topology_svg import Box, _FabricDrawing, _tier_name

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.analysis.fabric_graph import Fabric


@dataclass(slots=True)
class Entry:
    label: str
    target: str | None = None  # the device id selecting it jumps to
    spof: bool = False
    oversubscribed: bool = False
    children: list[Entry] = field(default_factory=list)


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
    drawing = _FabricDrawing(analysis, fabric)
    drawing.build()
    global_ratio = {m: g.ratio for g in fabric.groups for m in g.members}
    head = (
        f"fabric {fabric.name} · {fabric.tech} · {fabric.gpus:,} GPUs on "
        f"{len(fabric.nodes):,} nodes · oversubscription {_ratio(fabric.oversubscription)}"
    )
    worst = fabric.worst_group()
    if worst is not None:
        head += f" · worst global ratio {worst.ratio:.2f}"
    if fabric.cut_switches or fabric.cut_links:
        head += f" · ✖ {len(fabric.cut_switches) + len(fabric.cut_links)} SPOFs"
    root = Entry(head, fabric.name, bool(fabric.cut_switches or fabric.cut_links))
    boxes = list(drawing.boxes.values())
    upper = sorted({b.tier for b in boxes if b.tier >= 2}, reverse=True)
    for tier in upper:
        members = [b for b in boxes if b.tier == tier]
        count = sum(len(b.members) for b in members)
        group = Entry(f"{_tier_name(tier, fabric.max_tier)} · {count} switches")
        group.children = [_switch(b, fabric, global_ratio) for b in members]
        root.children.append(group)
    for index, same in enumerate(drawing.su_classes):
        prefix = f"su{index}-"
        leaves = [b for b in boxes if b.key.startswith(prefix + "l")]
        nodes = [b for b in boxes if b.key.startswith(prefix + "n")]
        racks = len(same[0]["racks"])
        label = f"scalable unit {index + 1} · {len(same[0]['leaves'])} leaves · {racks} racks"
        if len(same) > 1:
            label += f" · × {len(same)} like this"
        unit = Entry(label)
        for leaf in leaves:
            unit.children.append(_switch(leaf, fabric, global_ratio))
        for box in nodes:
            first = box.members[0].id if box.members else None
            unit.children.append(Entry(f"{box.title} · {box.detail}", first))
        unit.spof = any(e.spof for e in unit.children)
        root.children.append(unit)
    unreached = [b for b in boxes if b.tier < 0]
    if unreached:
        group = Entry(f"{_tier_name(-1, fabric.max_tier)}")
        group.children = [_switch(b, fabric, global_ratio) for b in unreached]
        root.children.append(group)
    return root


def outline(analysis: Analysis) -> list[Entry]:
    """One entry per compute fabric, in the analysis' order."""
    return [fabric_outline(analysis, fabric) for fabric in analysis.fabrics]
