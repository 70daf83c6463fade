"""What if…: the worker's message and the shading it becomes (the part is chosen in a
ChoiceScreen, or typed in a PromptScreen: controllers/whatif.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from textual.message import Message

from rackdesigner.model.wording import plural

if TYPE_CHECKING:
    from rackdesigner.whatif import Impact


class WhatIfDone(Message):
    """A failure's impact (``impact``), or why it names no part (``error``)."""

    def __init__(self, token: object, part: str, impact: Impact | None, error: str | None):
        self.token = token
        self.part = part
        self.impact = impact
        self.error = error
        super().__init__()


@dataclass(slots=True)
class Shading:
    """A what-if shown over the layout (never part of it)."""

    part: str
    impact: Impact
    shade: dict[str, str] = field(default_factory=dict)  # device -> down / degraded / cut off
    where: dict[str, str] = field(default_factory=dict)  # device -> rack

    @property
    def figures(self) -> str:
        """The header's line: GPUs lost, the fabric left, what to press."""
        from rackdesigner.whatif.render import summary

        impact = self.impact
        parts = [f"what if {self.part} fails: {summary(impact)}"]
        if impact.down:
            parts.append(f"{plural(len(impact.down), 'device')} down")
        for fabric in impact.fabrics:
            if fabric.switches_lost or fabric.cables_lost:
                parts.append(
                    f"{fabric.name}: {fabric.switches_lost} switches, {fabric.cables_lost} "
                    f"cables lost, largest job {fabric.largest_gpus} of {fabric.gpus} GPUs"
                )
        if impact.harmless:
            parts.append("nothing is lost")
        parts.append("esc clears")
        return " · ".join(parts)


def shading_of(part: str, impact: Impact, rack_of: dict[str, str]) -> Shading:
    """Which devices to shade how: down, degraded (power-capped, or a rail cut), cut off
    from their fabric's largest part."""
    shading = Shading(part, impact)
    for loss in impact.down:
        shading.shade[loss.id] = "down"
        shading.where[loss.id] = loss.rack
    for loss in impact.degraded:
        shading.shade.setdefault(loss.id, "degraded")
        shading.where[loss.id] = loss.rack
    for fabric in impact.fabrics:
        for node in fabric.cut_off:
            shading.shade.setdefault(node, "cut off")
        for node in fabric.rails_cut:
            shading.shade.setdefault(node, "degraded")
    for device in shading.shade:
        if device not in shading.where and device in rack_of:
            shading.where[device] = rack_of[device]
    return shading
