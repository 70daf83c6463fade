"""Adding and removing racks (with their devices, and the cables of those devices)."""

from __future__ import annotations

from typing import Any

from rackdesigner.edit.base import Command, EditError, remove_identity
from rackdesigner.edit.commands.common import (
    _check_reference,
    _free_id,
    _in_fabric,
    _model,
    _rack,
    _remove_links,
    _restore_links,
    _row_order,
    _rows_moved,
    _slot_taken,
    check_fit,
)
from rackdesigner.edit.fields import coerce
from rackdesigner.edit.index import LayoutIndex
from rackdesigner.model.layout import Layout, Link, Rack


class AddRack(Command):
    """Add a rack (with the feeds and devices it holds), at the end or at ``at``.

    ``rack`` is a :class:`Rack` or a new rack's id; ``fields`` set its keys as text or values
    (``row="A", slot=3, height="48 U"``), checked as the loader checks them.
    """

    def __init__(self, rack: Rack | str, *, at: int | None = None, **fields: Any):
        super().__init__()
        self._where = 0  # its place in layout.racks, once applied
        self._given = rack
        self._fields = fields
        self._rack: Rack | None = rack if isinstance(rack, Rack) else None
        self._at = at
        rack_id = rack.id if isinstance(rack, Rack) else rack
        self.label = f"Add rack {rack_id}"

    def _build(self, index: LayoutIndex) -> Rack:
        if self._rack is not None:
            return self._rack
        rack_id = self._given if isinstance(self._given, str) else ""
        entity = f"rack {rack_id}"
        values = {}
        for key, value in self._fields.items():
            if key == "id":
                raise EditError("give the id as the first argument", entity=entity)
            values[key] = coerce("rack", key, value, entity)
        return Rack(rack_id, **values)

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        rack = self._build(index)
        _free_id(index, "rack", rack.id)
        _slot_taken(layout, None, rack.row, rack.slot)
        seen: set[str] = set()
        for feed in rack.feeds:
            _free_id(index, "feed", feed.id)
            if feed.id in seen:
                raise EditError(f"rack {rack.id} has two feeds {feed.id}; ids are unique")
            seen.add(feed.id)
        seen.clear()
        for device in rack.devices:
            _free_id(index, "device", device.id)
            if device.id in seen:
                raise EditError(f"rack {rack.id} has two devices {device.id}; ids are unique")
            seen.add(device.id)
            _model(index, device.model)
        # Fit the devices one by one against a scratch index of the new rack.
        scratch = LayoutIndex(Layout(name="", racks=[]), index.catalog)
        scratch.add_rack(Rack(rack.id, height=rack.height), with_contents=False)
        probe = scratch.rack(rack.id)
        assert probe is not None
        for device in rack.devices:
            try:
                check_fit(scratch, probe, device.model, device.position, device.face)
            except EditError as error:
                raise EditError(f"device {device.id}: {error}") from None
            scratch.add_device(device, probe)
        inside = {d.id for d in rack.devices}
        for key in ("cdu", "door"):
            value = getattr(rack, key)
            names = [] if value is None else [value] if isinstance(value, str) else list(value)
            outside = [name for name in names if name not in inside]
            if outside:
                _check_reference(index, rack, key, outside)
        rows = _row_order(layout)
        at = len(layout.racks) if self._at is None else max(0, min(self._at, len(layout.racks)))
        layout.racks.insert(at, rack)
        index.add_rack(rack)
        self._rack, self._where = rack, at
        self.refs = [("rack", rack.id)]
        self.effect.rack(rack)
        self.effect.fabric = any(_in_fabric(index, d) for d in rack.devices)
        self.effect.everything = _rows_moved(rows, _row_order(layout))

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        rack = self._rack
        assert rack is not None
        rows = _row_order(layout)
        self.effect.fabric = any(_in_fabric(index, d) for d in rack.devices)
        index.remove_rack(rack)
        remove_identity(layout.racks, rack)
        self.effect.rack(rack)
        self.effect.everything = _rows_moved(rows, _row_order(layout))


class RemoveRack(Command):
    """Remove a rack, its feeds, its devices and every link to them: one undo step."""

    def __init__(self, rack_id: str):
        super().__init__()
        self._rack: Rack | None = None  # what _apply removed, and where
        self._where = 0
        self.rack_id = rack_id
        self.label = f"Remove rack {rack_id}"
        self._removed: list[tuple[int, Link]] = []

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        rack = _rack(index, self.rack_id)
        rows = _row_order(layout)
        fabric = any(_in_fabric(index, d) for d in rack.devices)
        doomed: dict[int, Link] = {}
        for device in rack.devices:
            for link in index.links_of(device.id):
                doomed[id(link)] = link
        self._removed = _remove_links(layout, index, doomed)
        for _, link in self._removed:
            self.effect.link(link)
        index.remove_rack(rack)
        self._where = remove_identity(layout.racks, rack)
        self._rack = rack
        self.refs = [("rack", rack.id)] + [("device", d.id) for d in rack.devices]
        self.effect.rack(rack)
        self.effect.fabric = fabric or bool(doomed)
        self.effect.everything = _rows_moved(rows, _row_order(layout))

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self._rack is not None
        rows = _row_order(layout)
        layout.racks.insert(self._where, self._rack)
        index.add_rack(self._rack)
        _restore_links(layout, index, self._removed)
        for _, link in self._removed:
            self.effect.link(link)
        self.effect.rack(self._rack)
        self.effect.fabric = True
        self.effect.everything = _rows_moved(rows, _row_order(layout))
