"""Write a layout as canonical TOML: the same layout always gives the same bytes.

Values are formatted by tomli-w; the document's shape is fixed here, because
tomli-w's own heuristics would put short arrays of tables (all the links) at
the top of the file as inline arrays. Canonical shape: top-level keys,
``[site]``, ``[workload]``, ``[rules]``, ``[meta]``, ``[catalog.*]``,
``[gpus.*]``, (v1.4) each ``[[power.elements]]`` and ``[transceivers.*]``, then each
``[[racks]]`` (feeds as inline tables) followed by its ``[[racks.devices]]``, (v1.4) each
``[[cooling.loops]]``, ``[[pathways]]`` and ``[[trunks]]``, then every ``[[links]]``. Keys
follow the schema's order. A quantity keeps the text it was read with; a new one gets the key's
canonical unit. The file's header comment and a comment directly above a
table are kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import tomli_w

from rackdesigner.layout_io import schema as s
from rackdesigner.model import layout as m
from rackdesigner.model.terminal import UNSAFE
from rackdesigner.model.thresholds import THRESHOLDS
from rackdesigner.model.units import (
    DURATION,
    POWER,
    RATIO,
    TEMPERATURE_DIFFERENCE,
    canonical_text,
    sci_text,
)

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
# What tomli-w leaves as it is of what terminals are tricked by: it escapes the C0 controls
# itself, and a newline or tab outside a string is the document's own.
_TOML_UNSAFE = re.compile(f"(?![\x00-\x1f\x7f]){UNSAFE.pattern}")
_THRESHOLD_ORDER = {key: number for number, key in enumerate(THRESHOLDS)}


def _threshold_order(key: str) -> int:
    return _THRESHOLD_ORDER.get(key, len(_THRESHOLD_ORDER))  # the loader keeps no other key


def dumps(layout: m.Layout) -> str:
    return "".join(_chunks(layout))


def _chunks(layout: m.Layout) -> Iterator[str]:
    if layout.comment:
        yield _comment(layout.comment)
        yield "\n"
    yield f"format = {layout.format}\n"
    yield from _body(s.TOP[1:], layout)
    if layout.site is not None:
        yield from _table("[site]", s.SITE, layout.site)
    if layout.workload is not None:
        yield from _table("[workload]", s.WORKLOAD, layout.workload)
    if layout.rules is not None:
        rules = layout.rules
        yield "\n"
        yield _comment(rules.comment)
        if rules.ignore is not None or rules.select is not None or not rules.thresholds:
            yield "[rules]\n"
            yield from _body(s.RULES, rules)
            if rules.thresholds:
                yield "\n"
        if rules.thresholds:
            yield "[rules.thresholds]\n"
            # In the catalogue's order: equal layouts give equal bytes.
            for key in sorted(rules.thresholds, key=_threshold_order):
                value = rules.thresholds[key]
                threshold = THRESHOLDS.get(key)
                if threshold is not None and threshold.dim is not None:
                    yield _kv(key, _quantity(value, threshold.dim, ratio=threshold.dim.unit == ""))
                else:
                    yield _kv(key, _sci(value) if threshold is None or value >= 1e6 else value)
    if layout.meta is not None:
        yield "\n"
        yield _escaped(tomli_w.dumps({"meta": layout.meta})) if layout.meta else "[meta]\n"
    for key, entry in sorted(layout.catalog.items()):
        yield from _table(f"[catalog.{_key(key)}]", s.DEVICE_TYPE, entry)
    for key, gpu in sorted(layout.gpus.items()):
        yield from _table(f"[gpus.{_key(key)}]", s.GPU, gpu)
    for element in layout.power_elements:  # (v1.4) the chain, sources first as written
        yield from _table("[[power.elements]]", s.ELEMENT, element)
    for key, part in sorted(layout.transceivers.items()):
        yield from _table(f"[transceivers.{_key(key)}]", s.TRANSCEIVER, part)
    for rack in layout.racks:
        yield from _table("[[racks]]", s.RACK, rack)
        for device in rack.devices:
            yield from _table("[[racks.devices]]", s.DEVICE, device)
    # (v1.4) The water loops after the racks whose devices they list, before the cables.
    for loop in layout.cooling_loops:
        yield from _table("[[cooling.loops]]", s.LOOP, loop)
    for pathway in layout.pathways:
        yield from _table("[[pathways]]", s.PATHWAY, pathway)
    for trunk in layout.trunks:
        yield from _table("[[trunks]]", s.TRUNK, trunk)
    for link in layout.links:
        yield from _table("[[links]]", s.LINK, link)


def _table(header: str, spec: tuple[s.Field, ...], entity: Any) -> Iterator[str]:
    """A blank line, the comment kept above the table, its header and its keys."""
    yield "\n"
    yield _comment(entity.comment)
    yield header + "\n"
    yield from _body(spec, entity)


def _comment(text: str | None) -> str:
    return "".join(f"#{line}\n" for line in text.split("\n")) if text else ""


def _key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _value(key)


def _body(spec: tuple[s.Field, ...], entity: Any) -> Iterator[str]:
    for field in spec:
        value = getattr(entity, field.key)
        if value is None:
            continue
        kind = field.kind
        if kind == "tables":
            if field.key == "feeds":
                if value:
                    yield _inline_array("feeds", [_fields(s.FEED, feed) for feed in value])
            elif field.key == "ports":
                yield _inline_array("ports", [_fields(s.PORT, group) for group in value])
            continue  # devices are written as [[racks.devices]] by the caller
        if kind == "table":
            continue
        yield _kv(field.key, _typed(field, value))


def _fields(spec: tuple[s.Field, ...], entity: Any) -> dict[str, Any]:
    return {f.key: _typed(f, v) for f in spec if (v := getattr(entity, f.key)) is not None}


class _Raw(str):
    """Text already in TOML syntax."""


def _typed(field: s.Field, value: Any) -> Any:
    kind = field.kind
    if kind == "qty":
        assert field.dim is not None
        return _quantity(value, field.dim)
    if kind == "ratio":
        assert field.dim is not None
        return _quantity(value, field.dim, ratio=True)
    if kind == "qty_pair":
        assert field.dim is not None
        return [_quantity(v, field.dim) for v in value]
    if kind == "number" and field.sci:
        return _sci(value)
    if kind == "overload":
        return [
            [_quantity(load, RATIO, ratio=True), _quantity(time, DURATION)] for load, time in value
        ]
    if kind == "qty_table":  # (v1.4) a CDU's [approach, capacity] points
        return [
            [_quantity(approach, TEMPERATURE_DIFFERENCE), _quantity(capacity, POWER)]
            for approach, capacity in value
        ]
    return value


def _quantity(value: float, dim: Any, ratio: bool = False) -> Any:
    if isinstance(value, m.Q):
        return value.text
    if ratio:
        return float(value)
    return canonical_text(value, dim)


def _sci(value: float) -> Any:
    """Large counts as ``70e9``, not ``70000000000.0``; exact, so reading gives the same float."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 1e6:
        return value
    number = float(value)
    if abs(number) >= 1e6:
        text = sci_text(number)
        if float(text) == number:
            return _Raw(text)
    return value


def _kv(key: str, value: Any) -> str:
    return f"{key} = {_value(value)}\n"


def _value(value: Any) -> str:
    kind = type(value)
    if kind is _Raw:
        return str(value)
    if kind is str:
        simple = value.isprintable() and '"' not in value and "\\" not in value
        if simple and not UNSAFE.search(value):
            return f'"{value}"'
    elif kind is int:
        return str(value)
    elif kind is bool:
        return "true" if value else "false"
    elif kind is float:
        return (
            repr(value)
            if value == value and abs(value) != float("inf")
            else tomli_w.dumps({"v": value})[4:-1]
        )
    elif kind is list and not any(isinstance(v, dict) for v in value):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    elif kind is dict:
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    return _escaped(tomli_w.dumps({"v": value})[4:-1])


def _escaped(toml: str) -> str:
    """TOML text with the characters a terminal would be tricked by (bidi overrides,
    invisible ones, C1 controls; :data:`~rackdesigner.model.terminal.UNSAFE`) written as
    escapes (``\\u202e``), as tomli-w writes the C0 controls: a file shown with ``cat`` or
    in a review reads as what it holds, and reading it gives the same text. Outside its
    strings, tomli-w's TOML is ASCII."""
    return _TOML_UNSAFE.sub(_toml_escape, toml) if _TOML_UNSAFE.search(toml) else toml


def _toml_escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _inline_array(key: str, tables: list[dict[str, Any]]) -> str:
    if not tables:
        return f"{key} = []\n"
    return f"{key} = [\n" + "".join(f"    {_value(t)},\n" for t in tables) + "]\n"
