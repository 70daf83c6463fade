"""Field values for edits, parsed and checked exactly as the loader does."""

from __future__ import annotations

from typing import Any

from rackdesigner.edit.base import EditError, nearest
from rackdesigner.layout_io import schema as s
from rackdesigner.layout_io.converters import FieldError, convert, field_of, parse_text
from rackdesigner.model.layout import Q
from rackdesigner.model.units import UnitError, canonical_text

# The schema of each kind of entity a field edit reaches.
SPECS: dict[str, tuple[s.Field, ...]] = {
    "layout": s.TOP,
    "site": s.SITE,
    "workload": s.WORKLOAD,
    "rack": s.RACK,
    "feed": s.FEED,
    "device": s.DEVICE,
    "link": s.LINK,
}


def schema_field(kind: str, key: str, entity: str) -> s.Field:
    spec = SPECS[kind]
    found = field_of(spec, key)
    if found is None or found.kind in ("table", "tables") or (kind == "layout" and key == "format"):
        keys = [f.key for f in spec if f.kind not in ("table", "tables") and f.key != "format"]
        raise EditError(f"has no field '{key}'{nearest(key, keys)}", entity=entity, key=key)
    return found


def coerce(kind: str, key: str, value: Any, entity: str) -> Any:
    """The model value for ``key`` of an entity of ``kind``, from text a person typed or a
    Python value; ``None`` (or empty text) removes an optional key.

    Raises :class:`EditError` carrying the loader's message for the same value.
    """
    field = schema_field(kind, key, entity)
    empty = value is None or (isinstance(value, str) and not value.strip())
    if empty and not (field.required and field.kind == "str"):
        if field.required:
            raise EditError(
                f"missing key '{key}' ({field.doc})", entity=entity, key=key, code="E001"
            )
        return None
    try:
        if isinstance(value, Q):
            return convert(field, value.text)
        if isinstance(value, str):
            return parse_text(field, value)
        if (
            field.kind == "qty"
            and field.dim is not None
            and isinstance(value, int | float)
            and not isinstance(value, bool)
        ):
            # An SI float from code: written in the key's canonical unit, checked like text.
            try:
                text = canonical_text(float(value), field.dim)
            except UnitError:  # negative or not finite: let the converter say so
                text = f"{float(value)!r} {field.dim.unit}"
            return convert(field, text)
        if field.kind == "qty_pair" and isinstance(value, tuple):
            value = list(value)
        return convert(field, value)
    except FieldError as error:
        raise EditError(error.message, entity=entity, key=key, code=error.code) from None
