"""The built-in media table (assets/catalog/media.toml): cited rows, one home for reach."""

from __future__ import annotations

import pytest

from rackdesigner.analysis.reach import (
    KEYS,
    choose_media,
    form_of,
    link_tech,
    medium,
    reach,
    speed_band,
)
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


@pytest.mark.parametrize(
    ("media", "form", "length", "ok"),
    [
        # NVIDIA's XDR parts list: linear active copper and single-mode fibre only
        ("dac", "split", 0.5, False),  # no passive DAC ("too short at 200G-PAM4")
        ("dac", "straight", 0.5, False),
        ("mmf", "split", 10.0, False),  # no multimode lasers yet
        ("aoc", "straight", 10.0, False),
        ("acc", "split", 2.0, True),  # MCA7K10 1:2 splitter, 1 to 2 m
        ("acc", "split", 2.5, False),
        ("acc", "straight", 3.0, True),  # MCA4K50, 1 to 3 m
        ("acc", "straight", 3.5, False),
        ("smf", "split", 500.0, True),  # MMS4A00-XM to MMS4A20-XM800: 500 m both
        ("smf", "straight", 500.0, True),
    ],
)
def test_xdr_parts_are_nvidias_xdr_list(media: str, form: str, length: float, ok: bool) -> None:
    found = reach(media, 800e9, None, None, form, "infiniband")
    assert (found is not None and length <= found[1]) is ok


def test_800g_is_xdr_on_infiniband_and_100g_pam4_on_ethernet() -> None:
    assert speed_band(800e9, "infiniband") == "XDR"
    assert speed_band(800e9, "ethernet") == speed_band(800e9) == "400G+"  # SN5600 800GbE
    assert speed_band(400e9, "infiniband") == "400G+"  # NDR
    assert speed_band(None, "infiniband") == "400G+"  # an unknown speed, as before
    # 800GbE keeps the 100G-PAM4 parts: a 2 m straight DAC and multimode fibre exist
    assert reach("dac", 800e9, None, None, "straight", "ethernet") == ("reach_dac", 2.0)
    assert reach("mmf", 800e9, None, None, "split", "ethernet") == ("reach_mmf", 50.0)
    assert link_tech("infiniband", None) == link_tech(None, "infiniband") == "infiniband"
    assert link_tech("infiniband", "ethernet") is None  # CAB004's finding: speed band only


def test_generators_choose_only_xdr_parts_and_their_transceivers() -> None:
    for length in (0.5, 1.9, 2.5, 3.0, 4.0, 40.0, 400.0):
        for form in ("straight", "split"):
            assert choose_media(length, 800e9, None, form, "infiniband") in ("acc", "smf")
    assert choose_media(1.5, 800e9, None, "split", "infiniband") == "acc"
    assert choose_media(2.5, 800e9, None, "split", "infiniband") == "smf"
    assert choose_media(2.5, 800e9, None, "straight", "infiniband") == "acc"
    assert choose_media(1.5, 800e9, None, "split", "ethernet") == "dac"
    # a layout's override of an XDR reach counts, as for every other row
    assert choose_media(2.5, 800e9, {"reach_acc_xdr_split": 3.0}, "split", "infiniband") == "acc"
    row = medium("smf", 800e9, form="split", tech="infiniband")
    assert row is not None
    assert (row.switch_transceiver, row.adapter_transceiver) == ("MMS4A00-XM", "MMS4A20-XM800")
