"""Applying a :class:`FabricPlan` to a layout: directly (``new``, ``generate``) or as the edit
layer's one-step ``Batch`` (the designer)."""

from __future__ import annotations

import textwrap

from ...model import Layout, RulesConfig
from .base import FabricPlan


def cable_comment_lines(text: str) -> str:
    """The comment above ``[rules.thresholds]``, wrapped (each line starts with a space)."""
    return "\n".join(" " + line for line in textwrap.wrap(text.strip(), 88))


def apply_plan(layout: Layout, plan: FabricPlan) -> None:
    """Add ``plan`` to ``layout`` in place: remove the replaced links, add the network racks
    (after the last rack of their row), place the switches (before the first device above
    them), add the cables and raise ``cable_max`` where the plan says so."""
    if plan.remove_links:
        gone = {id(link) for link in plan.remove_links}
        layout.links = [link for link in layout.links if id(link) not in gone]
    for _, rack in plan.new_racks:
        last = max(
            (i for i, other in enumerate(layout.racks) if other.row == rack.row), default=None
        )
        if last is None:
            layout.racks.append(rack)
        else:
            layout.racks.insert(last + 1, rack)
    by_id = {rack.id: rack for rack in layout.racks}
    for rack_id, device in plan.devices:
        devices = by_id[rack_id].devices
        at = len(devices)
        if device.position is not None:
            for i, other in enumerate(devices):
                if other.position is not None and other.position > device.position:
                    at = i
                    break
        devices.insert(at, device)
    layout.links.extend(plan.links)
    if plan.cable_max is not None:
        if layout.rules is None:
            layout.rules = RulesConfig()
        layout.rules.thresholds["cable_max"] = plan.cable_max
        comment = cable_comment_lines(plan.cable_comment or "")
        old = layout.rules.comment
        layout.rules.comment = f"{old}\n{comment}" if old else comment
