"""CSV cells a spreadsheet shows, never runs (OWASP CSV injection): text that would start a
formula gets a leading ``'``; numbers, negative ones too, are never changed."""

from __future__ import annotations

import csv
import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.model.spreadsheet import FORMULA_START, Writer, cell, needs_care
from tests.strategies import examples


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ('=HYPERLINK("http://x","y")', '\'=HYPERLINK("http://x","y")'),
        ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=1", "'\t=1"),
        ("\r=1", "'\r=1"),
        ("-0.79", "-0.79"),  # a number as text stays a number
        ("+5", "+5"),
        ("-1e3", "-1e3"),
        ("-nan", "'-nan"),  # Python's float() reads it; a spreadsheet reads a formula
        ("-inf", "'-inf"),
        ("a01-n01", "a01-n01"),  # only the first character matters
        ("", ""),
        (None, ""),
        (-3.5, "-3.5"),
        (-7, "-7"),
        (0.1, "0.1"),
    ],
)
def test_cells_by_hand(value: object, written: str) -> None:
    assert cell(value) == written


@settings(max_examples=examples(200), deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False) | st.integers())
def test_numbers_are_never_changed(number: float) -> None:
    assert cell(number) == str(number)
    assert cell(str(number)) == str(number)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.text(alphabet="=+-@\t\r a1.,\"'e", max_size=8), min_size=1, max_size=5))
def test_no_cell_read_back_starts_a_formula(row: list[str]) -> None:
    out = io.StringIO(newline="")
    Writer(out).writerow(row)
    (back,) = list(csv.reader(io.StringIO(out.getvalue(), newline="")))
    for original, text in zip(row, back, strict=True):
        if text and text[0] in FORMULA_START:
            assert re.fullmatch(r"[+-][\d.]+(e[+-]?\d+)?", text), text  # only a number may
        assert text in (original, "'" + original)
    joined = ",".join(row)
    if any(cell(value) != value for value in row):
        assert needs_care(joined)  # the fast path never skips a cell that changes
