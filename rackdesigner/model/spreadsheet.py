"""CSV cells a spreadsheet shows, never runs: the one rule for every CSV rackdesigner writes.

A spreadsheet reads a cell that begins with ``=``, ``+``, ``-`` or ``@`` as a formula (and
a tab or carriage return first can hide one): a device named ``=HYPERLINK(...)`` in a
layout would become a live formula in the technician's sheet. Following OWASP's advice on
CSV injection (https://owasp.org/www-community/attacks/CSV_Injection), such a cell gets a
leading ``'``, which spreadsheets take as "this is text" and do not show. Numbers are
never changed: ``-3.5`` and ``-0.79`` stay numbers, because they are (a cell is left alone
when it reads as a number). Quoting is the csv module's (RFC 4180).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import IO, Any

__all__ = ["FORMULA_START", "Writer", "cell", "cells", "needs_care"]

FORMULA_START = frozenset("=+-@\t\r")
# A line of cells joined with commas in which some cell may begin a formula.
_RISK = re.compile(r"(?:^|,)[=+\-@\t\r]")


# A number as a spreadsheet reads one: digits, a point, an exponent (not Python's "nan",
# "inf" or "1_000", which a spreadsheet would take for a formula's names).
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _number(text: str) -> bool:
    return _NUMBER.fullmatch(text) is not None


def cell(value: Any) -> str:
    """One cell's text: None is empty, a number as ``str`` writes it, text starting with
    ``= + - @``, a tab or a carriage return with a leading ``'`` unless it is a number."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    if text and text[0] in FORMULA_START and not _number(text):
        return "'" + text
    return text


def cells(values: Iterable[Any]) -> list[str]:
    return [cell(value) for value in values]


def needs_care(line: str) -> bool:
    """Whether a row joined with commas may hold a cell :func:`cell` would change (a fast
    path's test: most rows hold none)."""
    return _RISK.search(line) is not None


class Writer:
    """``csv.writer`` (RFC 4180: CRLF unless told otherwise) whose every cell goes through
    :func:`cell`."""

    def __init__(self, out: IO[str], lineterminator: str = "\r\n") -> None:
        self._writer = csv.writer(out, lineterminator=lineterminator)

    def writerow(self, row: Iterable[Any]) -> None:
        self._writer.writerow(cells(row))
