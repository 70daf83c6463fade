"""Parse TOML text fast, and report syntax errors with tomllib's line and column.

rtoml (Rust) parses a large layout 6-14 times faster than the standard
library, and a very large one in parts (layout_io/toml_parts.py) in a third of the
memory. Its results are the same for valid TOML (tests prove it on the examples and on
generated documents); for invalid TOML we ask tomllib, whose messages users know, and
take the location from whichever parser gives one.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

from rackdesigner.layout_io.toml_parts import parse_in_parts

try:
    import rtoml
except ImportError:  # pragma: no cover - rtoml is a declared dependency; stay usable without it
    rtoml = None  # type: ignore[assignment]  # mypy's idiom for an optional module

_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_AT_END = re.compile(r"\s*\(at end of document\)\s*$")
_RTOML_AT = re.compile(r"at line (\d+) column (\d+)")


class TomlSyntaxError(ValueError):
    def __init__(self, message: str, line: int, column: int):
        self.message = message
        self.line = line
        self.column = column
        super().__init__(f"{message} (line {line}, column {column})")


# What rtoml accepts beyond TOML 1.0, which tomllib (and every other tool a layout meets)
# refuses: inline tables over several lines or with a trailing comma, and the \e and \x
# escapes of TOML 1.1. Where any may be present, tomllib decides.
_MULTILINE_INLINE_TABLE = re.compile(r"\{[^}\n]*\n")
_TRAILING_COMMA = re.compile(r",[ \t]*\}")


def _beyond_toml_1_0(text: str) -> bool:
    # Separate searches, each starting with a literal the regex engine can jump to, cost
    # a fraction of one alternation over a 13 MB layout.
    return (
        "\\e" in text
        or "\\x" in text
        or _TRAILING_COMMA.search(text) is not None
        or _MULTILINE_INLINE_TABLE.search(text) is not None
    )


def parse_toml(text: str) -> dict[str, Any]:
    hint = ""
    if rtoml is not None:
        try:
            data = parse_in_parts(text, rtoml.loads) or rtoml.loads(text)
        except rtoml.TomlParsingError as error:
            hint = str(error)
        except (ValueError, TypeError, RecursionError) as error:
            hint = str(error)
        else:
            if not _beyond_toml_1_0(text):
                return data
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise _syntax_error(str(error), hint, text) from None
    except RecursionError:
        raise TomlSyntaxError("tables or arrays nested too deeply", 1, 1) from None


_DUPLICATE = re.compile(r"^(Cannot overwrite a value|Cannot declare \(.*\) twice)")
_KEY_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_DOTTED_KEY = rf"{_KEY_PART}(?:[ \t]*\.[ \t]*{_KEY_PART})*"
_KEY_LINE = re.compile(rf"^[ \t]*({_DOTTED_KEY})[ \t]*=")
_HEADER_LINE = re.compile(rf"^[ \t]*(\[\[?)[ \t]*({_DOTTED_KEY})[ \t]*\]")


def _dotted(key: str) -> str:
    return re.sub(r"[ \t]*\.[ \t]*", ".", key)


def _duplicate(text: str, line: int) -> TomlSyntaxError | None:
    """A duplicate key or table, named, at its line: TOML parsers only say "cannot overwrite
    a value" at the end of the second value, which leaves the user to find which."""
    lines = text.split("\n")
    line = min(max(line, 1), len(lines))
    header = _HEADER_LINE.match(lines[line - 1])
    if header:
        name = _dotted(header.group(2))
        first = next(
            (
                number
                for number in range(1, line)
                if (other := _HEADER_LINE.match(lines[number - 1]))
                and other.group(1) == "["
                and _dotted(other.group(2)) == name
            ),
            None,
        )
        problem = (
            f"duplicate table [{name}]: declared twice (first on line {first})"
            if first
            else f"duplicate key: table [{name}] names a key that is already set"
        )
        return TomlSyntaxError(problem, line, header.start(2) + 1)
    # The value may span lines: the key is on the last assignment line at or above.
    for number in range(line, 0, -1):
        found = _KEY_LINE.match(lines[number - 1])
        if found is None:
            if _HEADER_LINE.match(lines[number - 1]):
                return None
            continue
        key = _dotted(found.group(1))
        first = None
        for earlier in range(number - 1, 0, -1):
            source = lines[earlier - 1]
            if _HEADER_LINE.match(source):
                break
            if (other := _KEY_LINE.match(source)) and _dotted(other.group(1)) == key:
                first = earlier
                break
        where = f" (first set on line {first})" if first else ""
        return TomlSyntaxError(
            f"duplicate key '{key}': a key may be set only once in a table{where}",
            number,
            found.start(1) + 1,
        )
    return None


def _syntax_error(message: str, rtoml_message: str, text: str) -> TomlSyntaxError:
    if _DUPLICATE.match(message):
        place = _RTOML_AT.search(rtoml_message) or _AT.search(message)
        if place and (named := _duplicate(text, int(place[1]))):
            return named
    if found := _AT.search(message):
        return TomlSyntaxError(message[: found.start()], int(found[1]), int(found[2]))
    message = _AT_END.sub("", message)
    if found := _RTOML_AT.search(rtoml_message):
        return TomlSyntaxError(message, int(found[1]), int(found[2]))
    lines = text.split("\n")
    return TomlSyntaxError(message, len(lines), len(lines[-1]) + 1)
