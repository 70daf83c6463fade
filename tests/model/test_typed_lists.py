"""A list field typed as the inspector shows it: comma-separated, or as a TOML array."""

from __future__ import annotations

import pytest

from rackdesigner.edit import Session, SetField
from rackdesigner.layout_io import schema as s
from rackdesigner.layout_io.converters import value_of_text
from rackdesigner.layout_io.schema import Field
from rackdesigner.model.layout import Device, Layout, Rack
from rackdesigner.tui.widgets.inspector import field_text

IGNORE = next(f for f in s.RACK if f.key == "ignore")
CDU = next(f for f in s.RACK if f.key == "cdu")


@pytest.mark.parametrize(
    ("field", "text", "value"),
    [
        (IGNORE, "PWR008, STO", ["PWR008", "STO"]),
        (IGNORE, "PWR008", ["PWR008"]),
        (IGNORE, '["PWR008", "STO"]', ["PWR008", "STO"]),
        (CDU, "a01-cdu", "a01-cdu"),
        (CDU, "a01-cdu, a02-cdu", ["a01-cdu", "a02-cdu"]),
        (CDU, '"a01-cdu"', "a01-cdu"),
    ],
)
def test_list_text(field: s.Field, text: str, value: object) -> None:
    assert value_of_text(field, text) == value


def test_what_the_inspector_shows_for_a_list_can_be_typed_back() -> None:
    layout = Layout(
        name="t",
        racks=[Rack(id="a01", devices=[Device(id="a01-n01", model="dgx-h100", position=1)])],
    )
    session = Session(layout)
    session.do(SetField(("rack", "a01"), "ignore", "PWR008, STO"), fabric=False)
    shown = field_text(IGNORE, session.index.rack("a01").ignore)
    assert shown == "PWR008, STO"
    session.do(SetField(("rack", "a01"), "ignore", f"{shown}, PLC"), fabric=False)
    assert session.index.rack("a01").ignore == ["PWR008", "STO", "PLC"]


NVLINK = Field("nvlink", "bool", "GPUs in a node share an NVLink mesh")


@pytest.mark.parametrize(
    ("field", "text", "value"),
    [
        (NVLINK, "true", True),
        (NVLINK, "true # on", True),  # a TOML value with its comment, as TOML reads it
        (NVLINK, "false#", False),
        (CDU, "dac", "dac"),
        (IGNORE, "rear-door-hx", ["rear-door-hx"]),
    ],
)
def test_words_are_toml_values_only_where_toml_says_so(
    field: s.Field, text: str, value: object
) -> None:
    # Text starting with a letter skips the TOML parser (a fabric's 300,000 cables each
    # paid for its failure), except the four words TOML has, comment or not.
    assert value_of_text(field, text) == value


def test_what_the_inspector_shows_for_a_flag_can_be_typed_back() -> None:
    """A rack's ``blanking`` (v1.4) shows as TOML writes it, ``true``, which the field takes
    back (``True`` is refused: not a TOML boolean)."""
    blanking = next(f for f in s.RACK if f.key == "blanking")
    session = Session(Layout(name="t", racks=[Rack(id="a01", blanking=True)]))
    shown = field_text(blanking, session.index.rack("a01").blanking)  # type: ignore[union-attr]
    assert shown == "true"
    session.do(SetField(("rack", "a01"), "blanking", "false"), fabric=False)
    assert session.index.rack("a01").blanking is False  # type: ignore[union-attr]
    session.do(SetField(("rack", "a01"), "blanking", shown), fabric=False)
    assert session.index.rack("a01").blanking is True  # type: ignore[union-attr]
