"""Applying a :class:`FabricPlan` to a layout: directly (``new``, ``generate``) or as the edit
layer's one-step ``Batch`` (the designer)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rackdesigner.design.generators.base import FabricPlan
from rackdesigner.edit.base import Command
from rackdesigner.edit.base import Command as _CommandBase
from rackdesigner.model.layout import DeviceType, Layout, RulesConfig

if TYPE_CHECKING:
    from rackdesigner.edit import Batch
    from rackdesigner.edit.index import LayoutIndex


def apply_plan(layout: Layout, plan: FabricPlan) -> None:
    """Add ``plan`` to ``layout`` in place: remove the replaced links, add the network racks
    (after the last rack of their row), place the switches (before the first device above
    them), add the cables and set the catalog entries. It never writes a threshold: runs
    longer than ``cable_max`` stay CAB001 warnings."""
    layout.catalog.update(plan.catalog)
    if plan.remove_links:
        gone = {id(link) for link in plan.remove_links}
        layout.links = [link for link in layout.links if id(link) not in gone]
    if plan.remove_devices:
        doomed = set(plan.remove_devices)
        for rack in layout.racks:
            if any(d.id in doomed for d in rack.devices):
                rack.devices = [d for d in rack.devices if d.id not in doomed]
    for rack in plan.new_racks:
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


def to_batch(layout: Layout, plan: FabricPlan) -> Batch:
    """``plan`` as one edit step: applying it gives the layout :func:`apply_plan` gives, and
    undoing it gives back ``layout`` as it was (the designer runs a fabric so)."""
    from rackdesigner.edit import AddLink, AddRack, Batch, PlaceDevice, RemoveDevice, RemoveLink

    commands: list[Command] = [SetCatalogEntry(entry) for entry in plan.catalog.values()]
    commands.extend(RemoveLink(link) for link in plan.remove_links)
    commands.extend(RemoveDevice(device_id) for device_id in plan.remove_devices)
    rows = [rack.row for rack in layout.racks]
    for rack in plan.new_racks:
        last = max((i for i, row in enumerate(rows) if row == rack.row), default=None)
        at = len(rows) if last is None else last + 1
        rows.insert(at, rack.row)
        commands.append(AddRack(rack, at=at))
    doomed = set(plan.remove_devices)
    positions: dict[str, list[int | None]] = {
        rack.id: [d.position for d in rack.devices if d.id not in doomed] for rack in layout.racks
    }
    for rack in plan.new_racks:
        positions[rack.id] = [d.position for d in rack.devices]
    for rack_id, device in plan.devices:
        placed = positions[rack_id]
        at = len(placed)
        if device.position is not None:
            for i, other in enumerate(placed):
                if other is not None and other > device.position:
                    at = i
                    break
        placed.insert(at, device.position)
        fields = {"label": device.label} if device.label else {}
        commands.append(
            PlaceDevice(rack_id, device.model, device.position, id=device.id, at=at, **fields)
        )
    commands.extend(AddLink.of(link) for link in plan.links)
    return Batch(commands, plan.label)


class SetThreshold(_CommandBase):
    """Set a ``[rules.thresholds]`` value (SI), adding ``comment`` to the comment above it."""

    def __init__(self, key: str, value: float, comment: str | None = None):
        super().__init__()
        self.key, self.value, self.comment = key, value, comment
        self.label = f"Set threshold {key}"
        # What _apply found: whether [rules] was there, the old value and comment.
        self._had_rules = False
        self._old: float | None = None
        self._old_comment: str | None = None

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        self._had_rules = layout.rules is not None
        rules = layout.rules if layout.rules is not None else RulesConfig()
        self._old = rules.thresholds.get(self.key)
        self._old_comment = rules.comment
        rules.thresholds[self.key] = self.value
        if self.comment:
            rules.comment = f"{rules.comment}\n{self.comment}" if rules.comment else self.comment
        layout.rules = rules
        self.refs = [("rules", "")]
        self.effect.everything = True

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        if not self._had_rules:
            layout.rules = None
        else:
            assert layout.rules is not None
            if self._old is None:
                layout.rules.thresholds.pop(self.key, None)
            else:
                layout.rules.thresholds[self.key] = self._old
            layout.rules.comment = self._old_comment
        self.effect.everything = True


class SetCatalogEntry(_CommandBase):
    """Set the layout's ``[catalog.KEY]`` entry (a node model's compute ports at the rate
    its fabric runs them), keeping the entry it replaces for undo."""

    def __init__(self, entry: DeviceType):
        super().__init__()
        self.entry = entry
        self.label = f"Set catalog entry {entry.key}"

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        self._old = layout.catalog.get(self.entry.key)
        layout.catalog[self.entry.key] = self.entry
        self._refresh(layout, index)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        if self._old is None:
            layout.catalog.pop(self.entry.key, None)
        else:
            layout.catalog[self.entry.key] = self._old
        self._refresh(layout, index)

    def _refresh(self, layout: Layout, index: LayoutIndex) -> None:
        from rackdesigner.layout_io.catalog import for_layout

        index.catalog = for_layout(layout)
        self.refs = [("catalog", self.entry.key)]
        self.effect.everything = self.effect.fabric = True
