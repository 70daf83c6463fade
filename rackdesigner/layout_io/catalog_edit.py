"""Set catalog entries in a TOML file's text, leaving every other line as it was.

``rackdesigner catalog import`` adds entries to the user catalog or a layout's
``[catalog]``. Rewriting the file from its parsed data would drop its comments and the
form of the other entries; here only the tables of the entries being set change:

- an entry already written as a ``[catalog.KEY]`` table (with its sub-tables such as
  ``[[catalog.KEY.ports]]``) is replaced where it stands; the comment lines just above
  the next table stay, as they describe that table;
- a new entry is added after the last ``[catalog.*]`` table, or at the end of the file.

The new text is then parsed and compared with the old one's data with only those entries
changed: anything else (an entry written inline, ``catalog = {...}``, a header inside a
multi-line string) is :class:`CatalogEditError`, and nothing is written. One scan of the
text's headers (:func:`~rackdesigner.layout_io.linemap.headers`) and two parses: linear
in the file, as loading it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rackdesigner.layout_io.linemap import headers
from rackdesigner.layout_io.toml_parse import parse_toml

__all__ = ["CatalogEditError", "set_entries"]

_BLANK_OR_COMMENT = re.compile(r"[ \t]*(#[^\n]*)?\n?")


class CatalogEditError(ValueError):
    """The entries cannot be set by editing the tables in place (the message says why)."""


def _span_end(text: str, start: int, end: int) -> int:
    """The end of a table that runs from ``start`` to the next header at ``end``, without
    the blank and comment lines just above that header."""
    lines = text[start:end].splitlines(keepends=True)
    kept = len(lines)
    while kept > 1 and _BLANK_OR_COMMENT.fullmatch(lines[kept - 1]):
        kept -= 1
    return start + sum(len(line) for line in lines[:kept])


def _spans(text: str) -> tuple[dict[str, list[tuple[int, int]]], int | None]:
    """Where each ``[catalog.KEY]`` and its sub-tables stand, and the end of the last one."""
    found = headers(text)
    spans: dict[str, list[tuple[int, int]]] = {}
    last_end: int | None = None
    for index, (start, _double, parts) in enumerate(found):
        if len(parts) < 2 or parts[0] != "catalog":
            continue
        end = found[index + 1][0] if index + 1 < len(found) else len(text)
        end = _span_end(text, start, end)
        spans.setdefault(parts[1], []).append((start, end))
        last_end = end
    return spans, last_end


def _with_newline(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def set_entries(text: str, entries: Mapping[str, str]) -> str:
    """``text`` with each ``entries`` key's ``[catalog.KEY]`` tables replaced by the TOML
    given for it (a ``[catalog.KEY]`` table, as ``catalog_toml`` writes one), or added.
    :class:`CatalogEditError` when the result would not be exactly that; a TOML syntax
    error of ``text`` itself propagates (``TomlSyntaxError``, a ValueError)."""
    before = parse_toml(text)
    spans, last_end = _spans(text)
    edits: list[tuple[int, int, str]] = []  # (start, end, new text), applied from the end
    added: list[str] = []
    for key, entry in entries.items():
        entry = _with_newline(entry)
        places = spans.get(key)
        if not places:
            added.append(entry)
            continue
        (first_start, first_end), *others = places
        edits.append((first_start, first_end, entry))
        edits.extend((start, end, "") for start, end in others)
    if added:
        where = len(text) if last_end is None else last_end
        block = "\n".join(added)
        before_text = text[:where]
        gap = "" if not before_text else ("\n" if before_text.endswith("\n") else "\n\n")
        tail = "" if where == len(text) or text.startswith("\n", where) else "\n"
        edits.append((where, where, gap + block + tail))
    new = text
    for start, end, replacement in sorted(edits, key=lambda e: e[0], reverse=True):
        new = new[:start] + replacement + new[end:]
    _check(before, new, entries)
    return new


def _check(before: dict[str, Any], new: str, entries: Mapping[str, str]) -> None:
    """The new text's data is the old data with exactly ``entries`` set, or raise."""
    expected = dict(before)
    catalog = dict(expected.get("catalog") or {})
    for key, entry in entries.items():
        catalog[key] = parse_toml(entry)["catalog"][key]
    expected["catalog"] = catalog
    try:
        after = parse_toml(new)
    except ValueError as error:
        raise CatalogEditError(_why(entries, str(error))) from None
    if after != expected:
        raise CatalogEditError(_why(entries, "the edit would change other data"))


def _why(entries: Mapping[str, str], detail: str) -> str:
    keys = ", ".join(entries)
    return (
        f"cannot set {keys} by editing the file's [catalog.KEY] tables in place ({detail}); "
        "an entry written inline (catalog = {...} or under [catalog]) must be moved to a "
        "[catalog.KEY] table first"
    )
