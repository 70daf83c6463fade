"""What the racks view draws: rows of racks in floor order and each rack's units per face.

Pure data built from the layout and its catalog (no Textual), so the view only paints.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rackdesigner.export.render.palette import PART_MARKS, drawn_kind
from rackdesigner.layout_io.catalog import Catalog
from rackdesigner.model.layout import Device, Layout, Rack


@dataclass(slots=True)
class Block:
    """A device as drawn: the units it covers on one face (lowest first) or its rail."""

    device: Device
    kind: str  # a palette kind or rack-scale part (palette.drawn_kind); "other" if unknown
    height: int  # rack units; 0 for side-mounted devices
    full_depth: bool
    # A 0U device drawn over some units of its rail only (lowest, highest): the NVL72
    # busbar, over its rack's trays and power shelves, as the elevations draw it.
    span: tuple[int, int] | None = None

    @property
    def top(self) -> int:
        return (self.device.position or 1) + max(self.height, 1) - 1


@dataclass(slots=True)
class RackPlan:
    rack: Rack
    height: int
    blocks: list[Block] = field(default_factory=list)
    left: list[Block] = field(default_factory=list)  # 0U devices on the left rail
    right: list[Block] = field(default_factory=list)
    _units: dict[str, dict[int, Block]] = field(default_factory=dict)

    def units(self, face: str) -> dict[int, Block]:
        """Unit → the device drawn there on ``face``; full-depth devices show on both."""
        known = self._units.get(face)
        if known is not None:
            return known
        out: dict[int, Block] = {}
        self._units[face] = out
        for block in self.blocks:
            if block.device.position is None:
                continue
            if not block.full_depth and (block.device.face or "front") != face:
                continue
            for unit in range(block.device.position, block.device.position + block.height):
                out.setdefault(unit, block)
        return out

    def rail(self, side: str, face: str | None = None) -> list[Block]:
        """The 0U devices on ``side``'s rail, as seen from ``face`` (None: from both). A
        side-rail device (a PDU) shows from both faces; one that names a face and no side
        (the NVL72 busbar, on the rear) only from its own."""
        blocks = self.left if side == "left" else self.right
        if face is None:
            return blocks
        return [b for b in blocks if b.device.side is not None or (b.device.face or face) == face]


def plan_rack(rack: Rack, catalog: Catalog) -> RackPlan:
    plan = RackPlan(rack, int(rack.height_u))
    busbars: list[Block] = []
    for device in rack.devices:
        entry = catalog.devices.get(device.model)
        height = int(entry.height_u) if entry is not None else 1
        kind = drawn_kind(entry)
        block = Block(device, kind, height, entry.full_depth if entry is not None else True)
        if kind == "busbar" and device.side is None:
            busbars.append(block)  # down the rear, on the right rail: see below
        elif height == 0:
            (plan.right if device.side == "right" else plan.left).append(block)
        else:
            plan.blocks.append(block)
    if busbars:
        # Over the rack-scale parts it feeds (the whole rack when it holds none).
        units = [
            u
            for b in plan.blocks
            if b.kind in PART_MARKS and b.device.position is not None
            for u in (b.device.position, b.top)
        ]
        span = (min(units), max(units)) if units else (1, plan.height)
        for block in busbars:
            block.span = span
        plan.right.extend(busbars)
    return plan


def rows_of(layout: Layout) -> list[tuple[str, list[Rack]]]:
    """Rows in the order they first appear; racks in a row by slot, unslotted ones last."""
    rows: dict[str, list[Rack]] = {}
    for rack in layout.racks:
        rows.setdefault(rack.row or "", []).append(rack)
    return [
        (name, sorted(racks, key=lambda r: (r.slot is None, r.slot or 0)))
        for name, racks in rows.items()
    ]
