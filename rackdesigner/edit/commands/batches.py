"""A field set by reference and text (what an inspector edits), and several commands as one
step."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rackdesigner.edit.base import Command, EditError
from rackdesigner.edit.commands.renames import RenameEntity
from rackdesigner.edit.commands.settings import SetDevicePorts, UpdateRules, UpdateThreshold
from rackdesigner.edit.commands.updates import (
    UpdateDevice,
    UpdateFeed,
    UpdateLink,
    UpdateRack,
    UpdateSection,
)
from rackdesigner.edit.index import LayoutIndex
from rackdesigner.model.layout import Layout
from rackdesigner.model.refs import KindId


class SetField(Command):
    """Set one field of the entity a reference names, from the text a person typed.

    The text is parsed as the loader parses the same value in a file (unit, dimension,
    limits), so a bad value gets the loader's message; empty text removes an optional key.
    ``id`` renames (every reference follows); a device's ``model``, ``position``, ``face``
    and ``side`` must fit; a rack's ``cdu`` and ``door`` must name such a device.

    The layout's settings page names its keys by section: ``("layout", "")`` with
    ``name``, ``site.power_budget``, ``workload.kind``, ``rules.select`` or
    ``thresholds.cable_max``; a device's port groups are ``ports.GROUP.KEY``
    (``ports.ib.speed``), set on its model (:class:`SetPortGroup`).
    """

    def __init__(self, ref: KindId, key: str, text: str):
        super().__init__()
        kind, entity_id = ref
        self.ref, self.key, self.text = ref, key, text
        self.inner: Command
        section, dot, rest = key.partition(".")
        if kind == "layout" and dot:
            kind, key = section, rest
        if kind == "device" and section == "ports" and dot:
            group, _, port_key = rest.rpartition(".")
            self.inner = SetDevicePorts(entity_id, group, {port_key: text})
        elif kind == "rules":
            self.inner = UpdateRules({key: text})
        elif kind == "thresholds":
            self.inner = UpdateThreshold(key, text)
        elif key == "id" and kind in ("rack", "feed", "device"):
            self.inner = RenameEntity(kind, entity_id, text.strip())
        elif kind == "rack":
            self.inner = UpdateRack(entity_id, {key: text})
        elif kind == "feed":
            self.inner = UpdateFeed(entity_id, {key: text})
        elif kind == "device":
            self.inner = UpdateDevice(entity_id, {key: text})
        elif kind == "link":
            self.inner = UpdateLink(entity_id, {key: text})
        elif kind in ("layout", "site", "workload"):
            self.inner = UpdateSection(kind, {key: text})
        else:
            raise EditError(f"{kind} fields cannot be edited here")
        name = f"{kind} {entity_id}" if entity_id else kind
        self.label = f"Set {name} {key} to {text.strip() or '(none)'}"

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        self.inner.apply(layout, index)
        self.effect, self.refs = self.inner.effect, self.inner.refs

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        self.inner.revert(layout, index)
        self.effect, self.refs = self.inner.effect, self.inner.refs


class Batch(Command):
    """Several commands as one step (a generated fabric, a template): all or none."""

    def __init__(self, commands: Iterable[Command], label: str):
        super().__init__()
        self.commands: Sequence[Command] = list(commands)
        self.label = label

    @property
    def size(self) -> int:
        return sum(command.size for command in self.commands)

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        done: list[Command] = []
        try:
            for command in self.commands:
                command.apply(layout, index)
                done.append(command)
        except EditError as error:
            for command in reversed(done):
                command.revert(layout, index)
            where = f"step {len(done) + 1} of {len(self.commands)}"
            raise EditError(
                f"{self.label}: {where} ({self.commands[len(done)].label}): {error}"
            ) from None
        self._collect(done)

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        for command in reversed(self.commands):
            command.revert(layout, index)
        self._collect(self.commands)

    def _collect(self, commands: Sequence[Command]) -> None:
        self.effect.site = False  # as any of its commands says
        refs: dict[KindId, None] = {}
        for command in commands:
            self.effect.merge(command.effect)
            refs.update(dict.fromkeys(command.refs))
        self.refs = list(refs)
