"""Fields of the records NetBox answers, read with the checks a server's answer needs.

A record is a JSON object (:func:`rackdesigner.netbox.client.checked_record` has made sure
of that and of its whole-number ``id``); its fields are whatever the server sent. Each
reader here takes the field's NetBox meaning (text, a number, a choice, a related object)
and gives it, or raises :class:`~rackdesigner.netbox.client.NetBoxError` naming the record,
the field and the value: a NetBox that answers ``"position": Infinity`` or a rack without a
name is one line, never an internal error.
"""

from __future__ import annotations

import math
from typing import Any

from rackdesigner.netbox.client import NetBoxError


def where(noun: str, record: dict[str, Any]) -> str:
    """How a message names a record: ``device 12 'a01-gpu01'``."""
    name = record.get("name") or record.get("model")
    return f"{noun} {record.get('id')}" + (f" {name!r}" if isinstance(name, str) else "")


def _bad(place: str, key: str, value: Any, why: str) -> NetBoxError:
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    return NetBoxError(f"NetBox's {place} has {key} {text}: {why}")


def text(record: dict[str, Any], key: str, place: str, required: bool = False) -> str | None:
    """A text field; ``None`` (or an error when ``required``) when it is empty."""
    value = record.get(key)
    if value is None or value == "":
        if required:
            raise NetBoxError(f"NetBox's {place} has no {key}")
        return None
    if not isinstance(value, str):
        raise _bad(place, key, value, "not text")
    return value


def required(record: dict[str, Any], key: str, place: str) -> str:
    """A text field that must be there (a rack's name)."""
    value = text(record, key, place)
    if value is None:
        raise NetBoxError(f"NetBox's {place} has no {key}")
    return value


def choice(record: dict[str, Any], key: str, place: str) -> str | None:
    """A choice field's value: NetBox writes ``{"value": ..., "label": ...}``; a plain
    string (what a write takes) is read too."""
    value = record.get(key)
    if isinstance(value, dict):
        value = value.get("value")
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise _bad(place, key, value, "not one of NetBox's choices")
    return value


def number(record: dict[str, Any], key: str, place: str) -> float | None:
    """A finite number (NetBox writes decimals as numbers or as text: ``"10.5"``)."""
    value = record.get(key)
    if isinstance(value, dict) and "value" in value:  # a choice with a numeric value
        value = value["value"]
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise _bad(place, key, value, "not a number")
    try:
        result = float(value)
    except ValueError:
        raise _bad(place, key, value, "not a number") from None
    except OverflowError:
        raise _bad(place, key, value, "too large a number") from None
    if not math.isfinite(result):
        raise _bad(place, key, value, "not a finite number")
    return result


def whole(record: dict[str, Any], key: str, place: str) -> int | float | None:
    """A number, as an int when it is whole (``42.0`` is ``42``)."""
    result = number(record, key, place)
    if result is None:
        return None
    return int(result) if result.is_integer() else result


def related_id(value: Any) -> int | None:
    """The id of a related object (NetBox nests it as ``{"id": ..., ...}``), or ``None``."""
    if isinstance(value, dict):
        value = value.get("id")
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def related_name(value: Any) -> str | None:
    """The name a nested related object carries, or ``None``."""
    name = value.get("name") if isinstance(value, dict) else None
    return name if isinstance(name, str) else None


def items(record: dict[str, Any], key: str, place: str) -> list[dict[str, Any]]:
    """A list of JSON objects (a cable's terminations); empty when absent."""
    value = record.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise _bad(place, key, value, "not a list of objects")
    return value
