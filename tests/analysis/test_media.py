"""The built-in media table (assets/catalog/media.toml): cited rows, one home for reach."""

from __future__ import annotations

import pytest

from rackdesigner.analysis.reach import KEYS, choose_media, form_of, medium, reach
from rackdesigner.layout_io.catalog import builtin, media_table
from rackdesigner.model.thresholds import THRESHOLDS


def test_every_row_is_cited_and_its_key_defaults_to_its_reach() -> None:
    rows = media_table()
    assert rows
    for row in rows:
        assert row.source.strip(), row
        assert row.key in THRESHOLDS, row
        assert THRESHOLDS[row.key].default == row.reach, row
    assert set(KEYS) == {row.key for row in rows}


def test_the_media_table_is_not_a_device_catalog_file() -> None:
    assert "media" not in builtin().devices


@pytest.mark.parametrize(
    ("media", "speed", "grade", "form", "length", "ok"),
    [
        ("dac", 400e9, None, "split", 2.5, True),  # MCP7Y00-N02A
        ("dac", 400e9, None, "split", 3.0, True),  # MCP7Y00-N003
        ("dac", 400e9, None, "split", 5.0, False),  # no 5 m passive DAC at 400G
        ("dac", 400e9, None, "straight", 2.5, False),  # MCP4Y10 stops at 2 m
        ("acc", 400e9, None, "straight", 5.0, True),  # MCA4J80-N005
        ("aoc", 400e9, None, "straight", 3.0, False),  # no NDR AOC
        ("aoc", 800e9, None, "split", 3.0, False),
        ("aoc", 200e9, None, "split", 20.0, True),  # HDR AOCs exist
        ("mmf", 400e9, "om3", "split", 40.0, False),  # SR4 on OM3: 30 m
        ("mmf", 400e9, "om4", "split", 50.0, True),
        ("smf", 400e9, None, "straight", 500.0, True),  # 2xDR4
        ("smf", 400e9, None, "split", 150.0, False),  # MMS4X00-NS400: 100 m
    ],
)
def test_parts_that_exist_and_parts_that_do_not(
    media: str, speed: float, grade: str | None, form: str, length: float, ok: bool
) -> None:
    found = reach(media, speed, grade, None, form)
    assert (found is not None and length <= found[1]) is ok


def test_generators_never_choose_an_aoc_at_400g_or_a_discontinued_part() -> None:
    for length in (0.5, 2.5, 3.5, 4.5, 7.0, 15.0, 40.0, 90.0, 400.0):
        for form in ("straight", "split"):
            assert choose_media(length, 400e9, form=form) != "aoc"
    row = medium("acc", 400e9, form="split")
    assert row is not None and not row.generate
    assert choose_media(4.5, 400e9, form="split") == "mmf"


def test_a_switch_to_a_node_is_split_and_switch_to_switch_straight() -> None:
    assert form_of(True, False) == form_of(False, True) == "split"
    assert form_of(True, True) == form_of(False, False) == "straight"
