"""Placing, moving and removing devices."""

from __future__ import annotations

from typing import Any

from rackdesigner.edit.base import Command, EditError, remove_identity
from rackdesigner.edit.commands.common import (
    ID_PREFIX,
    KEEP,
    _check_feed_reference,
    _device,
    _free_id,
    _in_fabric,
    _model,
    _rack,
    _remove_links,
    _restore_links,
    _touch_device_links,
    check_fit,
)
from rackdesigner.edit.fields import coerce
from rackdesigner.edit.index import LayoutIndex
from rackdesigner.model.layout import Device, Layout, Link, Rack


class PlaceDevice(Command):
    """Place a device of ``model`` in a rack at ``position`` (its lowest unit), on ``face``
    (half-depth devices) or ``side`` (0U devices). Without ``id`` it gets the next free
    ``<rack>-<prefix>NN`` (``a01-n05``; the prefix by kind, :data:`ID_PREFIX`)."""

    def __init__(
        self,
        rack_id: str,
        model: str,
        position: int | None = None,
        face: str | None = None,
        side: str | None = None,
        *,
        id: str | None = None,
        at: int | None = None,
        **fields: Any,
    ):
        super().__init__()
        self._rack: Rack | None = None  # where _apply put it
        self.rack_id = rack_id
        self.model = model
        self.position = position
        self.face = face
        self.side = side
        self.device_id = id
        self._fields = fields
        self._at = at
        self._device: Device | None = None
        where = f" at U{position}" if position is not None else ""
        self.label = f"Place {model} in {rack_id}{where}"

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        rack = _rack(index, self.rack_id)
        if self._device is None:
            dtype = _model(index, self.model)
            device_id = self.device_id
            if device_id is None:
                prefix = f"{rack.id}-{ID_PREFIX.get(dtype.kind or 'other', 'd')}"
                device_id = index.next_id(prefix, "device")
            entity = f"device {device_id}"
            values: dict[str, Any] = {}
            for key, value in (
                ("position", self.position),
                ("face", self.face),
                ("side", self.side),
                *self._fields.items(),
            ):
                if key in ("id", "model"):
                    raise EditError(f"give the {key} as its own argument", entity=entity)
                values[key] = coerce("device", key, value, entity)
            device = Device(device_id, self.model, **values)
        else:
            device = self._device
        _free_id(index, "device", device.id)
        check_fit(index, rack, device.model, device.position, device.face)
        if device.feed is not None:
            _check_feed_reference(index, rack, device, device.feed)
        at = len(rack.devices) if self._at is None else max(0, min(self._at, len(rack.devices)))
        rack.devices.insert(at, device)
        index.add_device(device, rack)
        self._device, self._rack = device, rack
        self.device_id = device.id
        self.label = f"Place {device.id} ({device.model}) in {rack.id}" + (
            f" at U{device.position}" if device.position is not None else ""
        )
        self.refs = [("device", device.id), ("rack", rack.id)]
        self.effect.rack(rack)
        self.effect.fabric = _in_fabric(index, device)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self._rack is not None
        assert self._device is not None
        self.effect.fabric = _in_fabric(index, self._device)
        index.remove_device(self._device, self._rack)
        remove_identity(self._rack.devices, self._device)
        self.effect.rack(self._rack)

    @property
    def device(self) -> Device | None:
        """The device placed (after the first apply)."""
        return self._device


class MoveDevice(Command):
    """Move a device within its rack or to another one; what is not given stays."""

    def __init__(
        self,
        device_id: str,
        rack_id: str | None = None,
        position: int | None = KEEP,
        face: str | None = KEEP,
        side: str | None = KEEP,
    ):
        super().__init__()
        # What _apply changed: the device, its racks before and after, its old values and
        # its place in the rack it left.
        self._device: Device | None = None
        self._source: Rack | None = None
        self._target: Rack | None = None
        self._old: dict[str, Any] = {}
        self._where = 0
        self.device_id = device_id
        self.rack_id = rack_id
        self.values = {
            key: value
            for key, value in (("position", position), ("face", face), ("side", side))
            if value is not KEEP
        }
        where = [rack_id] if rack_id else []
        if position is not KEEP and position is not None:
            where.append(f"U{position}")
        self.label = f"Move {device_id} to {' '.join(where)}" if where else f"Move {device_id}"

    def check(self, index: LayoutIndex) -> None:
        """Refuse (EditError) as applying would, changing nothing: the designer asks
        about a move's rename only when the move itself can be made."""
        self._checked(index)

    def _checked(self, index: LayoutIndex) -> tuple[Device, Rack, Rack, dict[str, Any]]:
        device, source = _device(index, self.device_id)
        target = _rack(index, self.rack_id) if self.rack_id else source
        entity = f"device {device.id}"
        values = {key: coerce("device", key, v, entity) for key, v in self.values.items()}
        position = values.get("position", device.position)
        face = values.get("face", device.face)
        check_fit(index, target, device.model, position, face, moving=device)
        return device, source, target, values

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        device, source, target, values = self._checked(index)
        feed = device.feed
        if (
            target is not source
            and feed is not None
            and not any(f.id == feed for f in target.feeds)
        ):
            values["feed"] = None  # a PDU leaves its feed behind in the other rack
        self._old = {key: getattr(device, key) for key in values}
        self._source, self._target, self._device = source, target, device
        self.effect.fabric = target is not source and _in_fabric(index, device)
        index.remove_device(device, source)
        for key, value in values.items():
            setattr(device, key, value)
        if target is not source:
            self._where = remove_identity(source.devices, device)
            target.devices.append(device)
        index.add_device(device, target)
        self._note(index)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self._device is not None and self._source is not None and self._target is not None
        device, source, target = self._device, self._source, self._target
        self.effect.fabric = target is not source and _in_fabric(index, device)
        index.remove_device(device, target)
        for key, value in self._old.items():
            setattr(device, key, value)
        if target is not source:
            remove_identity(target.devices, device)
            source.devices.insert(self._where, device)
        index.add_device(device, source)
        self._note(index)

    def _note(self, index: LayoutIndex) -> None:
        assert self._device is not None and self._source is not None and self._target is not None
        device, source, target = self._device, self._source, self._target
        self.refs = [("device", device.id), ("rack", source.id)]
        if target is not source:
            self.refs.append(("rack", target.id))
        self.effect.rack(source)
        self.effect.rack(target)
        self.effect.site = target is not source or index.is_shared("device", device.id)
        _touch_device_links(self.effect, index, device.id)


class RemoveDevice(Command):
    """Remove a device and the links to it: one undo step."""

    def __init__(self, device_id: str):
        super().__init__()
        self._device: Device | None = None  # what _apply removed, and where
        self._rack: Rack | None = None
        self._where = 0
        self.device_id = device_id
        self.label = f"Remove device {device_id}"
        self._removed: list[tuple[int, Link]] = []

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        device, rack = _device(index, self.device_id)
        fabric = _in_fabric(index, device)
        doomed = {id(link): link for link in index.links_of(device.id)}
        self._removed = _remove_links(layout, index, doomed)
        index.remove_device(device, rack)
        self._where = remove_identity(rack.devices, device)
        self._device, self._rack = device, rack
        self.refs = [("device", device.id), ("rack", rack.id)]
        self.effect.rack(rack)
        for _, link in self._removed:
            self.effect.link(link)
        self.effect.fabric = fabric

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self._device is not None and self._rack is not None
        self._rack.devices.insert(self._where, self._device)
        index.add_device(self._device, self._rack)
        _restore_links(layout, index, self._removed)
        self.effect.rack(self._rack)
        for _, link in self._removed:
            self.effect.link(link)
        self.effect.fabric = _in_fabric(index, self._device)
