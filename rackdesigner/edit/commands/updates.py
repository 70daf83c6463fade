"""Setting the fields of one entity: a rack, feed, device or link, or a section of the layout
(``[site]``, ``[workload]``, the layout's own keys)."""

from __future__ import annotations

from typing import Any

from rackdesigner.edit.base import Command, EditError, unit_span
from rackdesigner.edit.commands.common import (
    _PLACE_KEYS,
    _check_feed_reference,
    _check_reference,
    _device,
    _feed,
    _in_fabric,
    _link,
    _rack,
    _slot_taken,
    _touch_device_links,
    cables_read,
    check_fit,
    check_link_ends,
)
from rackdesigner.edit.fields import coerce
from rackdesigner.edit.index import LayoutIndex
from rackdesigner.model.layout import Device, Feed, Layout, Link, Rack, Site, Workload


class _SetFields(Command):
    """Set fields of one entity; the common core of the Update commands and SetField."""

    kind = ""

    def __init__(self, entity_id: str, fields: dict[str, Any]):
        super().__init__()
        if not fields:
            raise EditError("nothing to change")
        self.entity_id = entity_id
        self.fields = dict(fields)
        self._old: dict[str, Any] = {}
        shown = ", ".join(self.fields)
        self.label = f"Edit {self.kind} {entity_id} ({shown})"

    def _target(self, layout: Layout, index: LayoutIndex) -> Any:
        raise EditError(f"cannot edit {self.kind} fields")  # overridden by each kind

    def _entity(self, target: Any) -> str:
        return f"{self.kind} {self.entity_id}"

    def _values(self, target: Any) -> dict[str, Any]:
        entity = self._entity(target)
        values = {}
        for key, value in self.fields.items():
            if key == "id":
                raise EditError(
                    "the id changes by renaming (RenameEntity), which also rewrites every "
                    "reference",
                    entity=entity,
                    key=key,
                )
            values[key] = coerce(self.kind, key, value, entity)
        return values

    def _check(
        self, layout: Layout, index: LayoutIndex, target: Any, values: dict[str, Any]
    ) -> None:
        """Refuse values that break the layout beyond one key (overridden by kinds)."""

    def _set(self, target: Any, values: dict[str, Any]) -> None:
        for key, value in values.items():
            setattr(target, key, value)

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        target = self._target(layout, index)
        values = self._values(target)
        self._check(layout, index, target, values)
        self._old = {key: getattr(target, key) for key in values}
        self._change(layout, index, target, values)
        self._note(layout, index, target, values)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        target = self._target(layout, index)
        self._change(layout, index, target, self._old)
        self._note(layout, index, target, self._old)

    def _change(
        self, layout: Layout, index: LayoutIndex, target: Any, values: dict[str, Any]
    ) -> None:
        self._set(target, values)

    def _note(
        self, layout: Layout, index: LayoutIndex, target: Any, values: dict[str, Any]
    ) -> None:
        self.effect.everything = True
        self.refs = [(self.kind, self.entity_id)]


class UpdateRack(_SetFields):
    """Set a rack's fields (``row``, ``slot``, ``height``, ``cooling``, ``cdu``, ...)."""

    kind = "rack"

    def __init__(self, rack_id: str, fields: dict[str, Any] | None = None, /, **more: Any):
        super().__init__(rack_id, {**(fields or {}), **more})

    def _target(self, layout: Layout, index: LayoutIndex) -> Rack:
        return _rack(index, self.entity_id)

    def _check(
        self, layout: Layout, index: LayoutIndex, target: Rack, values: dict[str, Any]
    ) -> None:
        if "row" in values or "slot" in values:
            row = values.get("row", target.row)
            slot = values.get("slot", target.slot)
            _slot_taken(layout, target, row, slot)
        if "height" in values:
            height = values["height"] if values["height"] is not None else 42.0
            for device in target.devices:
                units = index.units_of(device)
                if units and units.stop - 1 > height:
                    raise EditError(
                        f"height: device {device.id} occupies {unit_span(units)}, above "
                        f"U{height:g}; move it first",
                        entity=f"rack {target.id}",
                        key="height",
                    )
        for key in ("cdu", "door"):
            if key in values:
                _check_reference(index, target, key, values[key])

    def _note(
        self, layout: Layout, index: LayoutIndex, target: Rack, values: dict[str, Any]
    ) -> None:
        self.refs = [("rack", target.id)]
        self.effect.rack(target)
        # The site rules that read these fields run again, the others' findings stand; an
        # id or an ignore list reaches every rule's findings about the rack.
        if not values.keys() & {"id", "ignore"}:
            self.effect.site_keys = {f"rack.{key}" for key in values}
        if values.keys() & {"row", "slot", "height"}:
            # The rack's place moves every cable to it; a new row order moves every rack.
            self.effect.everything = "row" in values
            for device in target.devices:
                _touch_device_links(self.effect, index, device.id)


class UpdateFeed(_SetFields):
    """Set a feed's fields (``voltage``, ``current``, ``phases``, ``side``, ...)."""

    kind = "feed"

    def __init__(self, feed_id: str, fields: dict[str, Any] | None = None, /, **more: Any):
        super().__init__(feed_id, {**(fields or {}), **more})

    def _target(self, layout: Layout, index: LayoutIndex) -> Feed:
        return _feed(index, self.entity_id)[0]

    def _note(
        self, layout: Layout, index: LayoutIndex, target: Feed, values: dict[str, Any]
    ) -> None:
        self.refs = [("feed", target.id)]
        self.effect.rack(index.rack_of_feed(target.id))


class UpdateDevice(_SetFields):
    """Set a device's fields; a new model, position, face or side must fit where it is."""

    kind = "device"

    def __init__(self, device_id: str, fields: dict[str, Any] | None = None, /, **more: Any):
        super().__init__(device_id, {**(fields or {}), **more})
        self._fabric_before = False  # whether it was in the fabric before the change

    def _target(self, layout: Layout, index: LayoutIndex) -> Device:
        return _device(index, self.entity_id)[0]

    def _check(
        self, layout: Layout, index: LayoutIndex, target: Device, values: dict[str, Any]
    ) -> None:
        rack = index.rack_of(target.id)
        assert rack is not None
        if values.keys() & set(_PLACE_KEYS):
            model = values.get("model", target.model)
            position = values.get("position", target.position)
            face = values.get("face", target.face)
            try:
                check_fit(index, rack, model, position, face, moving=target)
            except EditError as error:
                key = next(k for k in _PLACE_KEYS if k in values)
                raise EditError(str(error), entity=f"device {target.id}", key=key) from None
        if "feed" in values:
            _check_feed_reference(index, rack, target, values["feed"])

    def _change(
        self, layout: Layout, index: LayoutIndex, target: Device, values: dict[str, Any]
    ) -> None:
        rack = index.rack_of(target.id)
        assert rack is not None
        self._fabric_before = _in_fabric(index, target)
        index.remove_device(target, rack)
        self._set(target, values)
        index.add_device(target, rack)

    def _note(
        self, layout: Layout, index: LayoutIndex, target: Device, values: dict[str, Any]
    ) -> None:
        self.refs = [("device", target.id)]
        self.effect.rack(index.rack_of(target.id))
        # A place matters to site rules only where the id is shared: PLC005 says where the
        # other device with it is.
        self.effect.site = index.is_shared("device", target.id) or not values.keys() <= {
            "position",
            "face",
            "side",
            "label",
            "notes",
        }
        if values.keys() & set(_PLACE_KEYS):
            _touch_device_links(self.effect, index, target.id)
        if "model" in values:
            self.effect.fabric = self._fabric_before or _in_fabric(index, target)


class UpdateLink(_SetFields):
    """Set a link's fields; new ends must be free, known ports."""

    kind = "link"

    def __init__(self, link: str | Link, fields: dict[str, Any] | None = None, /, **more: Any):
        self._ref = link
        super().__init__(link.a if isinstance(link, Link) else link, {**(fields or {}), **more})
        self._before = ("", "")  # its ends before the change
        self._link: Link | None = link if isinstance(link, Link) else None

    def _target(self, layout: Layout, index: LayoutIndex) -> Link:
        if self._link is None:
            self._link = _link(index, self._ref)
        return self._link

    def _check(
        self, layout: Layout, index: LayoutIndex, target: Link, values: dict[str, Any]
    ) -> None:
        if "a" in values or "b" in values:
            check_link_ends(
                index, values.get("a", target.a), values.get("b", target.b), ignore=target
            )

    def _change(
        self, layout: Layout, index: LayoutIndex, target: Link, values: dict[str, Any]
    ) -> None:
        self._before = (target.a, target.b)
        index.remove_link(target)
        self._set(target, values)
        index.add_link(target)

    def _note(
        self, layout: Layout, index: LayoutIndex, target: Link, values: dict[str, Any]
    ) -> None:
        self.refs = [("link", index.link_ref(target))]
        self.effect.link(target)
        cables_read(self, index)
        if values.keys() & {"a", "b"}:
            self.effect.fabric = True


class UpdateSection(_SetFields):
    """Set a field of the layout itself (``kind`` "layout"), of ``[site]`` or of
    ``[workload]``; a missing section is created, and removed again on undo."""

    def __init__(self, section: str, fields: dict[str, Any] | None = None, /, **more: Any):
        if section not in ("layout", "site", "workload"):
            raise EditError(f"there is no section {section}")
        self.kind = section
        super().__init__("", {**(fields or {}), **more})
        self.label = f"Edit {section} ({', '.join(self.fields)})"
        self._created = False

    def _entity(self, target: Any) -> str:
        return "layout" if self.kind == "layout" else f"[{self.kind}]"

    def _target(self, layout: Layout, index: LayoutIndex) -> Any:
        if self.kind == "layout":
            return layout
        return getattr(layout, self.kind) or (Site() if self.kind == "site" else Workload())

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        self._created = self.kind != "layout" and getattr(layout, self.kind) is None
        target = self._target(layout, index)
        values = self._values(target)
        if self.kind == "layout" and "name" in values and not (values["name"] or "").strip():
            raise EditError("a layout needs a name", entity="layout", key="name")
        self._old = {key: getattr(target, key) for key in values}
        self._set(target, values)
        if self._created:
            setattr(layout, self.kind, target)
        self.effect.everything = True
        self.refs = [(self.kind, "")]

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        target = self._target(layout, index)
        self._set(target, self._old)
        if self._created:
            setattr(layout, self.kind, None)
        self.effect.everything = True
