"""The loader's value converters, public: one key's value in, the model's value or the
loader's own message out.

The editing core (``SetField``) and the designer's inspector parse what a person types
with exactly these functions, so a bad value gets the message a bad file would get
(``current "63 V" is a voltage, expected a current (A)``). The converters themselves live
in :mod:`.reader`; this module only names them for other callers.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from rackdesigner.layout_io import schema as s
from rackdesigner.layout_io.reader import _converter, _ValueProblem
from rackdesigner.layout_io.toml_parse import TomlSyntaxError, parse_toml
from rackdesigner.model.units import UnitError

__all__ = [
    "FieldError",
    "ValueProblem",
    "convert",
    "converter",
    "field_of",
    "parse_text",
    "value_of_text",
]

# A value of the right kind outside the key's limits or choices (E001 in a file).
ValueProblem = _ValueProblem


class FieldError(ValueError):
    """A value the loader would refuse; ``code`` is the load error it would be (E001, E002)
    and ``str(error)`` the loader's message, key first ("height ...")."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


@cache
def converter(field: s.Field) -> Callable[[Any], Any]:
    """The function the loader converts ``field``'s TOML value with.

    It returns the model's value (a quantity string becomes a :class:`~rackdesigner.model.layout.Q`)
    and raises :class:`~rackdesigner.model.units.UnitError` or :data:`ValueProblem`.
    """
    return _converter(field)


def field_of(spec: tuple[s.Field, ...], key: str) -> s.Field | None:
    """The schema field ``key`` of a table's ``spec`` (``schema.RACK``, ...), if any."""
    for field in spec:
        if field.key == key:
            return field
    return None


def convert(field: s.Field, value: Any) -> Any:
    """Convert a TOML value as the loader does; raise :class:`FieldError` with its message."""
    try:
        return converter(field)(value)
    except UnitError as error:
        raise FieldError("E002", f"{field.key} {error}") from None
    except _ValueProblem as problem:
        raise FieldError("E001", f"{field.key} {problem}") from None


def value_of_text(field: s.Field, text: str) -> Any:
    """The TOML value a person means by ``text`` typed for ``field``.

    Strings are taken as typed (quotes optional); lists of strings as a TOML array or
    comma-separated (``PWR008, STO``, as the designer's inspector shows them); other kinds
    read the text as a TOML value (``42``, ``0.8``, ``true``), and text that is no TOML
    value is a string,
    so ``63 A`` and ``"63 A"`` are the same quantity and ``42`` for a height is the loader's
    "42 has no unit" message.
    """
    stripped = text.strip()
    if field.kind == "str":
        if len(stripped) >= 2 and stripped[0] == stripped[-1] and stripped[0] in "\"'":
            value = _toml_value(stripped)
            if isinstance(value, str):
                return value
        return stripped
    value = _toml_value(stripped)
    if field.kind in ("str_list", "str_or_list", "str_pair") and (
        value is _NOT_TOML or isinstance(value, str)
    ):
        # A list as the inspector shows it: ``PWR008, STO`` (a TOML array works too).
        text = value if isinstance(value, str) else stripped
        items = [item.strip() for item in text.split(",") if item.strip()]
        if field.kind == "str_or_list" and len(items) == 1:
            return items[0]
        return items
    return stripped if value is _NOT_TOML else value


def parse_text(field: s.Field, text: str) -> Any:
    """``text`` typed for ``field`` converted as the loader converts the same value in a file."""
    return convert(field, value_of_text(field, text))


_NOT_TOML = object()


# The only TOML values that start with a letter. Anything else starting with one and
# without a comment ("dac", "front", "rear-door-hx"; not "true # on") is no TOML value, and
# is known without the parser's failure, which costs a syntax error's message each time (a
# generated fabric's 300,000 cables).
_TOML_WORDS = frozenset({"true", "false", "inf", "nan"})


def _toml_value(text: str) -> Any:
    if not text or "\n" in text:
        return _NOT_TOML
    if text[0].isalpha() and "#" not in text and text not in _TOML_WORDS:
        return _NOT_TOML
    try:
        return parse_toml(f"v = {text}\n")["v"]
    except (TomlSyntaxError, KeyError, ValueError):
        return _NOT_TOML
