"""A JSON Schema (draft 2020-12) of the layout format, generated from :mod:`.schema`.

Editors with TOML language servers (Taplo, Even Better TOML) use it for
completion and inline checks. Units cannot be checked by a JSON Schema beyond
a pattern, so quantities are described as strings with a number and a unit.
"""

from __future__ import annotations

import re
from typing import Any

from rackdesigner.layout_io import schema as s
from rackdesigner.model.thresholds import THRESHOLDS

_QUANTITY = r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*\S.*$"

# JSON Schema's "pattern" is an ECMA-262 regular expression: validators in other languages
# (check-jsonschema, ajv, JavaScript's RegExp) reject Python's own syntax. A Python group
# name (?P<name>...) becomes a plain group; anything else only Python reads is refused
# here, when the schema is made, rather than by a user's validator.
_PYTHON_GROUP_NAME = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")
_PYTHON_ONLY = (
    ("(?P=", "a named backreference"),
    ("(?#", "a comment group"),
    ("(?<=", "a lookbehind"),
    ("(?<!", "a lookbehind"),
    ("\\A", "\\A"),
    ("\\Z", "\\Z"),
    ("(?a", "an inline flag"),
    ("(?i", "an inline flag"),
    ("(?m", "an inline flag"),
    ("(?s", "an inline flag"),
    ("(?x", "an inline flag"),
    ("(?L", "an inline flag"),
    ("(?u", "an inline flag"),
    ("(?>", "an atomic group"),
)


def ecma_pattern(pattern: str) -> str:
    """``pattern`` (a Python regular expression) in ECMA-262 syntax, for a JSON Schema
    ``pattern``: named groups become plain groups (the schema never reads them). Raises
    ValueError for syntax ECMA-262 does not have."""
    out = _PYTHON_GROUP_NAME.sub("(", pattern)
    for token, what in _PYTHON_ONLY:
        if token in out:
            raise ValueError(f"{what} ({token}) is Python-only regex syntax: {pattern!r}")
    return out


def _field(field: s.Field) -> dict[str, Any]:
    kind = field.kind
    out: dict[str, Any]
    if kind == "str":
        out = {"type": "string"}
        if field.pattern:
            out["pattern"] = ecma_pattern(field.pattern)
    elif kind in ("int", "number"):
        out = {"type": "integer" if kind == "int" else "number"}
        if field.minimum is not None:
            out["minimum"] = field.minimum
        if field.maximum is not None:
            out["maximum"] = field.maximum
    elif kind == "bool":
        out = {"type": "boolean"}
    elif kind == "enum":
        out = {"enum": list(field.choices)}
    elif kind == "qty":
        assert field.dim is not None
        out = {"type": "string", "pattern": _QUANTITY}
    elif kind == "ratio":
        out = {
            "anyOf": [
                {"type": "number", "minimum": 0, "maximum": 1},
                {"type": "string", "pattern": r"^\s*\d+(\.\d+)?\s*%\s*$"},
            ]
        }
    elif kind == "str_list":
        out = {"type": "array", "items": {"type": "string"}}
    elif kind == "str_or_list":
        out = {
            "anyOf": [
                {"type": "string", "minLength": 1},
                {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
            ]
        }
    elif kind == "int_map":
        out = {
            "type": "object",
            "properties": {str(k): {"type": "integer", "minimum": 0} for k in field.choices},
            "additionalProperties": False,
        }
    elif kind == "overload":  # (v1.4) [load, time] pairs
        load = {
            "anyOf": [
                {"type": "number", "minimum": 1},
                {"type": "string", "pattern": r"^\s*\d+(\.\d+)?\s*%\s*$"},
            ]
        }
        out = {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "array",
                "prefixItems": [load, {"type": "string", "pattern": _QUANTITY}],
                "minItems": 2,
                "maxItems": 2,
            },
        }
    elif kind == "qty_table":
        pair = {
            "type": "array",
            "items": {"type": "string", "pattern": _QUANTITY},
            "minItems": 2,
            "maxItems": 2,
        }
        out = {"type": "array", "items": pair, "minItems": 1}
    elif kind == "str_pair":
        out = {
            "type": "array",
            "items": {"type": "string", "minLength": 1},
            "minItems": 2,
            "maxItems": 2,
        }
    elif kind == "num_pair":
        out = {
            "type": "array",
            "items": {"type": "number", "minimum": field.minimum or 0},
            "minItems": 2,
            "maxItems": 2,
        }
    elif kind == "qty_pair":
        out = {
            "type": "array",
            "items": {"type": "string", "pattern": _QUANTITY},
            "minItems": 2,
            "maxItems": 2,
        }
    else:
        out = {}
    description = field.doc
    if field.dim is not None and kind in ("qty", "qty_pair"):
        description += f" ({field.dim.name}, a string with a unit)"
    out["description"] = description
    return out


def _table(spec: tuple[s.Field, ...], nested: dict[str, Any] | None = None) -> dict[str, Any]:
    properties = {f.key: _field(f) for f in spec if f.kind not in ("table", "tables")}
    properties.update(nested or {})
    return {
        "type": "object",
        "properties": properties,
        "required": [f.key for f in spec if f.required],
        "additionalProperties": False,
    }


def layout_schema() -> dict[str, Any]:
    port = _table(s.PORT)
    device_type = _table(
        s.DEVICE_TYPE, {"ports": {"type": "array", "items": port, "description": "port groups"}}
    )
    rack = _table(
        s.RACK,
        {
            "feeds": {"type": "array", "items": _table(s.FEED), "description": "power feeds"},
            "devices": {
                "type": "array",
                "items": _table(s.DEVICE),
                "description": "mounted devices",
            },
        },
    )
    thresholds = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            key: (
                {"type": "number", "description": t.description}
                if t.dim is None
                else {
                    "type": ["string", "number"] if t.dim.unit == "" else "string",
                    "description": f"{t.description} (default {t.default_text})",
                }
            )
            for key, t in THRESHOLDS.items()
        },
    }
    rules = _table(s.RULES, {"thresholds": thresholds})
    top = _table(
        s.TOP,
        {
            "site": _table(s.SITE),
            "workload": _table(s.WORKLOAD),
            "rules": rules,
            "meta": {"type": "object", "description": "free-form"},
            "catalog": {
                "type": "object",
                "additionalProperties": device_type,
                "description": "device types beside the built-in catalog",
            },
            "gpus": {
                "type": "object",
                "additionalProperties": _table(s.GPU),
                "description": "GPU models beside the built-in table",
            },
            "power": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "elements": {
                        "type": "array",
                        "items": _table(s.ELEMENT),
                        "description": "(v1.4) the power chain's elements",
                    }
                },
                "description": "(v1.4) the power chain behind the racks' feeds",
            },
            "cooling": _table(
                s.COOLING,
                {
                    "loops": {
                        "type": "array",
                        "items": _table(s.LOOP),
                        "description": "(v1.4) the water loops",
                    }
                },
            ),
            "racks": {"type": "array", "items": rack},
            "links": {"type": "array", "items": _table(s.LINK)},
            "pathways": {
                "type": "array",
                "items": _table(s.PATHWAY),
                "description": "(v1.4) cable pathways: trays, ladder racks, risers",
            },
            "trunks": {
                "type": "array",
                "items": _table(s.TRUNK),
                "description": "(v1.4) fibre trunks between patch panels",
            },
            "transceivers": {
                "type": "object",
                "additionalProperties": _table(s.TRANSCEIVER),
                "description": "(v1.4) transceiver parts beside the built-in table",
            },
        },
    )
    top["properties"]["format"]["const"] = 1
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://rackdesigner.dev/schema/layout-v1.json",
        "title": "rackdesigner layout, format 1",
        **top,
    }
