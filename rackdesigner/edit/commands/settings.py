"""The layout's own settings beyond its sections' fields: ``[rules]`` (``select``,
``ignore``, ``[rules.thresholds]``), and a device model's port groups.

Every value is checked by the loader's own conversion: ``select`` and ``ignore`` by the
converter of ``[rules]`` (then by the rules' registry, as a file's codes are: a code that
matches no rule is refused), a threshold by loading it in a ``[rules.thresholds]`` table,
a port group's key by the converter of a ``ports`` entry.

Port groups belong to a device's model, not to the device (layout-format.md has no
device-level ``ports``): :class:`SetPortGroup` writes the model's groups into the layout's
own ``[catalog.MODEL]`` entry, which for a built-in model overrides only ``ports``, so
every device of that model changes with it, as it would in the file.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from rackdesigner.edit.base import Command, EditError, nearest
from rackdesigner.edit.index import LayoutIndex
from rackdesigner.layout_io import schema as s
from rackdesigner.layout_io.converters import FieldError, convert, field_of, parse_text
from rackdesigner.model.layout import DeviceType, Layout, PortGroup, RulesConfig
from rackdesigner.model.thresholds import THRESHOLDS


def _rules_value(key: str, value: Any) -> list[str] | None:
    """``select`` / ``ignore`` as the loader reads them, the codes known to the rules."""
    from rackdesigner.rules.registry import unknown_patterns

    field = field_of(s.RULES, key)
    if field is None or field.kind != "str_list":
        keys = [f.key for f in s.RULES if f.kind == "str_list"]
        raise EditError(f"has no field '{key}'{nearest(key, keys)}", entity="[rules]", key=key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        codes = parse_text(field, value) if isinstance(value, str) else convert(field, value)
    except FieldError as error:
        raise EditError(error.message, entity="[rules]", key=key, code=error.code) from None
    unknown = unknown_patterns([c.strip().upper() for c in codes])
    if unknown:
        raise EditError(
            f"{key}: no rule matches {', '.join(repr(c) for c in unknown)} "
            "(`rackdesigner rules` lists them)",
            entity="[rules]",
            key=key,
            code="E001",
        )
    return list(codes)


class UpdateRules(Command):
    """Set ``[rules] select`` and ``ignore`` (text like ``PLC006, STO`` or lists); empty
    text removes the key. A missing ``[rules]`` is created, and removed again on undo."""

    def __init__(self, fields: dict[str, Any] | None = None, /, **more: Any):
        super().__init__()
        self.fields = {**(fields or {}), **more}
        if not self.fields:
            raise EditError("nothing to change")
        self.label = f"Edit rules ({', '.join(self.fields)})"
        self._created = False
        self._old: dict[str, Any] = {}

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        values = {key: _rules_value(key, value) for key, value in self.fields.items()}
        self._created = layout.rules is None
        rules = layout.rules if layout.rules is not None else RulesConfig()
        self._old = {key: getattr(rules, key) for key in values}
        for key, value in values.items():
            setattr(rules, key, value)
        layout.rules = rules
        self._note()

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert layout.rules is not None
        for key, value in self._old.items():
            setattr(layout.rules, key, value)
        if self._created:
            layout.rules = None
        self._note()

    def _note(self) -> None:
        self.effect.everything = True
        self.refs = [("rules", "")]


def threshold_value(key: str, text: str) -> float:
    """A ``[rules.thresholds]`` value from typed text, converted by the loader itself (a
    one-key table loaded as a file is): the loader's message on a bad value."""
    from rackdesigner.layout_io.reader import load_text
    from rackdesigner.model.diagnostics import LayoutError

    entity = "[rules.thresholds]"
    if key not in THRESHOLDS:
        raise EditError(
            f"unknown threshold '{key}'{nearest(key, list(THRESHOLDS))}", entity=entity, key=key
        )
    stripped = text.strip()
    value = _toml_literal(stripped)
    document = f'format = 1\nname = "x"\n[rules.thresholds]\n{key} = {value}\n'
    try:
        layout = load_text(document)
    except LayoutError as error:
        first = error.diagnostics[0]
        message = first.message
        if first.code == "E000":  # text that is no TOML value at all
            message = f"{key} must be a value like {THRESHOLDS[key].default_text}, got {text!r}"
        raise EditError(message, entity=entity, key=key, code=first.code) from None
    assert layout.rules is not None
    return layout.rules.thresholds[key]


def _toml_literal(text: str) -> str:
    """``text`` as a TOML value: a number or a quoted string as typed (``5 m``)."""
    from rackdesigner.layout_io.toml_parse import TomlSyntaxError, parse_toml

    if text and "\n" not in text:
        try:
            parse_toml(f"v = {text}\n")
            return text
        except (TomlSyntaxError, ValueError):
            pass
    if len(text) >= 2 and text[0] == text[-1] == '"':
        text = text[1:-1]
    return json.dumps(text)


class UpdateThreshold(Command):
    """Set (or, with empty text, remove) one ``[rules.thresholds]`` value from text
    (``5 m``, ``4.0``), checked as the loader checks it."""

    def __init__(self, key: str, text: str | None):
        super().__init__()
        self.key, self.text = key, text
        shown = (text or "").strip() or "the default"
        self.label = f"Set threshold {key} to {shown}"
        self._had_rules = False
        self._had_key = False
        self._old: float | None = None

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        empty = self.text is None or not self.text.strip()
        if self.key not in THRESHOLDS:
            threshold_value(self.key, "")  # refuses with the loader's message
        value = None if empty else threshold_value(self.key, self.text or "")
        self._had_rules = layout.rules is not None
        rules = layout.rules if layout.rules is not None else RulesConfig()
        self._had_key = self.key in rules.thresholds
        self._old = rules.thresholds.get(self.key)
        if value is None:
            rules.thresholds.pop(self.key, None)
        else:
            rules.thresholds[self.key] = value
        layout.rules = rules
        self._note()

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        if not self._had_rules:
            layout.rules = None
        else:
            assert layout.rules is not None
            if self._had_key:
                assert self._old is not None
                layout.rules.thresholds[self.key] = self._old
            else:
                layout.rules.thresholds.pop(self.key, None)
        self._note()

    def _note(self) -> None:
        self.effect.everything = True
        self.refs = [("rules", "")]


# The keys of a port group a person edits (its name is how links name the ports).
PORT_KEYS = ("count", "speed", "tech", "role")


class SetPortGroup(Command):
    """Set keys of one port group of a device model (``count``, ``speed``, ``tech``,
    ``role``), in the layout's ``[catalog.MODEL]``; empty text removes an optional key.

    Every device of the model changes with it (the groups are the model's). A smaller
    ``count`` is refused while a link uses a port it would drop."""

    def __init__(
        self, model: str, group: str, fields: dict[str, Any] | None = None, /, **more: Any
    ):
        super().__init__()
        self.model, self.group = model, group
        self.fields = {**(fields or {}), **more}
        if not self.fields:
            raise EditError("nothing to change")
        self.label = f"Set {model} ports {group} ({', '.join(self.fields)})"
        self._had = False
        self._old: DeviceType | None = None

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        entity = f"catalog entry {self.model}"
        dtype = index.catalog.devices.get(self.model)
        if dtype is None:
            raise EditError(f"there is no device model {self.model}", entity=entity)
        groups = list(dtype.ports or ())
        at = next((n for n, g in enumerate(groups) if g.name == self.group), None)
        if at is None:
            names = [g.name for g in groups]
            raise EditError(
                f"has no port group '{self.group}'{nearest(self.group, names)}",
                entity=entity,
                key="ports",
            )
        values = {key: self._value(key, value, entity) for key, value in self.fields.items()}
        group = replace(groups[at], **values)
        if group.count < groups[at].count:
            self._check_count(layout, index, group.count)
        groups[at] = group
        self._had = self.model in layout.catalog
        self._old = layout.catalog.get(self.model)
        if self._old is not None:
            entry = replace(self._old, ports=groups)
        else:
            entry = DeviceType(self.model, ports=groups)
        layout.catalog[self.model] = entry
        self._refresh(layout, index)

    def _value(self, key: str, value: Any, entity: str) -> Any:
        field = field_of(s.PORT, key)
        if field is None or key not in PORT_KEYS:
            raise EditError(
                f"has no port group key '{key}'{nearest(key, list(PORT_KEYS))}",
                entity=entity,
                key=key,
            )
        empty = value is None or (isinstance(value, str) and not value.strip())
        if empty:
            if field.required:
                raise EditError(
                    f"missing key '{key}' ({field.doc})", entity=entity, key=key, code="E001"
                )
            return None
        try:
            return parse_text(field, value) if isinstance(value, str) else convert(field, value)
        except FieldError as error:
            raise EditError(error.message, entity=entity, key=key, code=error.code) from None

    def _check_count(self, layout: Layout, index: LayoutIndex, count: int) -> None:
        from rackdesigner.layout_io.schema import ENDPOINT

        for _rack, device in layout.devices():
            if device.model != self.model:
                continue
            for link in index.links_of(device.id):
                for end in (link.a, link.b):
                    found = ENDPOINT.match(end)
                    if (
                        found
                        and found["device"] == device.id
                        and found["group"] == self.group
                        and int(found["index"]) > count
                    ):
                        raise EditError(
                            f"count: port {end} is cabled ({link.a} -> {link.b}); remove "
                            "that link first",
                            entity=f"catalog entry {self.model}",
                            key="count",
                        )

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        if self._had:
            assert self._old is not None
            layout.catalog[self.model] = self._old
        else:
            layout.catalog.pop(self.model, None)
        self._refresh(layout, index)

    def _refresh(self, layout: Layout, index: LayoutIndex) -> None:
        from rackdesigner.layout_io.catalog import for_layout

        index.catalog = for_layout(layout)
        self.refs = [("catalog", self.model)]
        self.effect.everything = self.effect.fabric = True


class SetDevicePorts(Command):
    """:class:`SetPortGroup` for the model of a device (what its inspector page edits)."""

    def __init__(
        self, device_id: str, group: str, fields: dict[str, Any] | None = None, /, **more: Any
    ):
        super().__init__()
        self.device_id, self.group = device_id, group
        self.fields = {**(fields or {}), **more}
        self.inner: SetPortGroup | None = None
        self.label = f"Set {device_id} ports {group} ({', '.join(self.fields)})"

    def _apply(self, layout: Layout, index: LayoutIndex) -> None:
        if self.inner is None:
            device = index.device(self.device_id)
            if device is None:
                raise EditError(f"there is no device {self.device_id}")
            self.inner = SetPortGroup(device.model, self.group, self.fields)
            self.label = self.inner.label
        self.inner.apply(layout, index)
        self.effect, self.refs = self.inner.effect, [("device", self.device_id), *self.inner.refs]

    def _revert(self, layout: Layout, index: LayoutIndex) -> None:
        assert self.inner is not None
        self.inner.revert(layout, index)
        self.effect, self.refs = self.inner.effect, [("device", self.device_id), *self.inner.refs]


def port_group_of(index: LayoutIndex, model: str, group: str) -> PortGroup | None:
    """The port group ``group`` of ``model`` as the layout's catalog has it now."""
    dtype = index.catalog.devices.get(model)
    return dtype.port_group(group) if dtype is not None else None
