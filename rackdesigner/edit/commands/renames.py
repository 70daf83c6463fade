"""Renaming a rack, feed or device, with every reference to it."""

from __future__ import annotations

from typing import Any

from rackdesigner.edit.base import Command, EditError, check_id
from rackdesigner.edit.commands.common import _device, _feed, _free_id, _in_fabric, _rack
from rackdesigner.edit.index import LayoutIndex, end_device
from rackdesigner.model.layout import Layout, Link, Rack


class RenameEntity(Command):
    """Give a rack, feed or device a new id and rewrite every reference to it: links' ends,
    racks' ``cdu`` and ``door``, PDUs' ``feed``."""

    def __init__(self, kind: str, old: str, new: str):
        super().__init__()
        if kind not in ("rack", "feed", "device"):
            raise EditError(f"only racks, feeds and devices have ids to rename, not {kind}s")
        self.kind, self.old, self.new = kind, old, new
        self.label = f"Rename {kind} {old} to {new}"
        self._changes: list[tuple[Any, str, Any, Any]] = []  # (object, attribute, old, new)

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        kind, old, new = self.kind, self.old, self.new
        if kind == "rack":
            entity: Any = _rack(index, old)
        elif kind == "feed":
            entity = _feed(index, old)[0]
        else:
            entity = _device(index, old)[0]
        check_id(kind, new)
        if new == old:
            raise EditError(f"{kind} {old} is already called {new}")
        _free_id(index, kind, new)
        changes: list[tuple[Any, str, Any, Any]] = [(entity, "id", old, new)]
        if kind == "device":
            for link in index.links_of(old):
                for end in ("a", "b"):
                    text = getattr(link, end)
                    if end_device(text) == old:
                        changes.append((link, end, text, new + text[len(old) :]))
            for rack in layout.racks:
                for key in ("cdu", "door"):
                    value = getattr(rack, key)
                    if value == old:
                        changes.append((rack, key, value, new))
                    elif isinstance(value, list) and old in value:
                        renamed = [new if name == old else name for name in value]
                        changes.append((rack, key, value, renamed))
        elif kind == "feed":
            holder = index.rack_of_feed(old)
            for device in holder.devices if holder is not None else ():
                if device.feed == old:
                    changes.append((device, "feed", old, new))
        self._changes = changes
        self._run(index, forward=True)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        self._run(index, forward=False)

    def _run(self, index: LayoutIndex, forward: bool) -> None:
        entity = self._changes[0][0]
        links = [obj for obj, _, _, _ in self._changes if isinstance(obj, Link)]
        unique_links = list({id(link): link for link in links}.values())
        fabric = False
        for link in unique_links:
            index.remove_link(link)
        rack: Rack | None = entity
        if self.kind == "device":
            rack = index.rack_of(entity.id)
        elif self.kind == "feed":
            rack = index.rack_of_feed(entity.id)
        assert rack is not None  # _apply found the entity in the index
        if self.kind == "device":
            fabric = _in_fabric(index, entity)
            index.remove_device(entity, rack)
        elif self.kind == "feed":
            index.remove_feed(entity, rack)
        else:
            index.remove_rack(entity, with_contents=False)
        for obj, key, old, new in self._changes:
            setattr(obj, key, new if forward else old)
        if self.kind == "device":
            index.add_device(entity, rack)
        elif self.kind == "feed":
            index.add_feed(entity, rack)
        else:
            index.add_rack(entity, with_contents=False)
        for link in unique_links:
            index.add_link(link)
            self.effect.link(link)
        for obj, key, _, _ in self._changes:
            if isinstance(obj, Rack) and key in ("cdu", "door"):
                self.effect.rack(obj)
        self.effect.rack(rack)
        self.effect.fabric = fabric or bool(unique_links)
        # A rack's id names its findings and a CDU's serves other racks: the site rules
        # (duplicate ids, shared circuits, CDU loads) read them all.
        self.refs = [(self.kind, self.new if forward else self.old)]
