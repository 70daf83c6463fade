"""The v1.1 keys of the layout format: side labels, CDU lists, grades, PDU feeds and outlets,
rack footprints, PSU inlets, chassis depths and the new thresholds."""

from __future__ import annotations

import pytest

from rackdesigner.layout_io import dumps, load_path, load_text
from rackdesigner.layout_io.json_schema import layout_schema
from rackdesigner.model.diagnostics import LayoutError
from rackdesigner.model.thresholds import THRESHOLDS, resolve
from tests.conftest import ROOT

SAMPLE = ROOT / "tests" / "data" / "v11-keys.toml"


def errors(text: str) -> list:
    with pytest.raises(LayoutError) as caught:
        load_text(text, file="x.toml")
    return caught.value.diagnostics


def test_every_v11_key_loads_and_round_trips() -> None:
    layout = load_path(SAMPLE)
    rack = layout.racks[0]
    assert [f.side for f in rack.feeds] == ["A", "B", "C"]
    assert rack.cdus == ["cdu-1", "cdu-2"]
    assert (rack.weight_kg, rack.width_m, rack.depth_m) == (160.0, 0.8, 1.2)
    assert rack.devices[0].feed == "a01-A"
    assert layout.links[0].grade == "om3"
    assert layout.site is not None and layout.site.floor_load_max == 1200.0
    pdu, node = layout.catalog["my-pdu"], layout.catalog["my-node"]
    assert pdu.outlets == {"c13": 24, "c19": 12}
    assert node.psu_inlet == "c20"
    assert node.chassis_depth == pytest.approx(0.9)
    thresholds = resolve(layout.rules.thresholds if layout.rules else None)
    assert thresholds["power_factor"] == 0.95
    assert thresholds["floor_load_max"] == 1400.0
    text = dumps(layout)
    assert load_text(text) == layout
    assert dumps(load_text(text)) == text


def test_rack_defaults_and_a_single_cdu() -> None:
    layout = load_text('format = 1\nname = "x"\n[[racks]]\nid = "a"\ncdu = "c"\n')
    rack = layout.racks[0]
    assert rack.cdus == ["c"]
    assert (rack.weight_kg, rack.width_m, rack.depth_m) == (150.0, 0.6, 1.2)


def test_v11_threshold_defaults() -> None:
    values = resolve(None)
    assert values["gpu_feed_min_voltage"] == 200.0
    assert values["reach_dac"] == 2.0
    assert values["power_factor"] == 1.0
    assert values["single_phase_max"] == 8000.0
    assert values["floor_load_max"] == 1500.0
    assert (values["reach_dac_200g"], values["reach_dac_100g"]) == (3.0, 5.0)
    assert (values["reach_mmf_om3"], values["reach_mmf_200g"]) == (30.0, 100.0)
    assert values["reach_mmf_200g_om3"] == 70.0


RACK = 'format = 1\nname = "x"\n[[racks]]\nid = "a01"\n'
FEEDS = (
    'feeds = [ { id = "a01-A", side = "A", voltage = "415 V", phases = 3, current = "32 A" } ]\n'
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            RACK + 'feeds = [ { id = "f", side = "A B", voltage = "415 V", phases = 3, '
            'current = "32 A" } ]\n',
            'side "A B" must match',
        ),
        (
            RACK + 'feeds = [ { id = "f", side = "ABCDEFGHI", voltage = "415 V", phases = 3, '
            'current = "32 A" } ]\n',
            "1-8 letters",
        ),
        (RACK + "cdu = []\n", "cdu must be a device id or a non-empty array"),
        (RACK + 'cdu = ["a", 3]\n', "cdu must be a device id"),
        (RACK + 'width = "0 mm"\n', "width must be more than 0"),
        (RACK + 'weight = "3 m"\n', "weight"),
        (
            'format = 1\nname = "x"\n[catalog.p]\nkind = "pdu"\noutlets = { c15 = 2 }\n',
            "outlets has an unknown key 'c15'",
        ),
        (
            'format = 1\nname = "x"\n[catalog.p]\nkind = "pdu"\noutlets = { c13 = -1 }\n',
            "c13 must be a count",
        ),
        (
            'format = 1\nname = "x"\n[catalog.p]\nkind = "gpu-node"\npsu_inlet = "c15"\n',
            "psu_inlet must be one of",
        ),
        ('format = 1\nname = "x"\n[site]\nfloor_load_max = "1500 kg"\n', "floor load"),
        (
            'format = 1\nname = "x"\n[rules.thresholds]\npower_factor = 1.2\n',
            "at most 1",
        ),
    ],
)
def test_bad_v11_values_are_refused(text: str, message: str) -> None:
    found = errors(text)
    assert any(message in d.message for d in found), [d.message for d in found]


LINK = (
    RACK
    + '[[racks.devices]]\nid = "n"\nmodel = "dgx-h100"\nposition = 2\n'
    + '[[links]]\na = "n:ib1"\nb = "n:ib2"\n'
)


@pytest.mark.parametrize(
    ("media", "grade", "ok"),
    [
        ("mmf", "om3", True),
        ("mmf", "om5", True),
        ("smf", "os2", True),
        ("mmf", "os2", False),
        ("smf", "om4", False),
        ("dac", "om4", False),
        (None, "om4", False),
    ],
)
def test_grade_needs_its_fibre(media: str | None, grade: str, ok: bool) -> None:
    text = LINK + (f'media = "{media}"\n' if media else "") + f'grade = "{grade}"\n'
    if ok:
        assert load_text(text).links[0].grade == grade
    else:
        (d,) = errors(text)
        grade_line = text.splitlines().index(f'grade = "{grade}"') + 1
        assert d.code == "E001" and "grade" in d.message and d.line == grade_line


def test_feed_is_for_pdus_only_and_names_a_feed_of_its_rack() -> None:
    node = RACK + FEEDS + '[[racks.devices]]\nid = "n"\nmodel = "dgx-h100"\nposition = 2\n'
    (d,) = errors(node + 'feed = "a01-A"\n')
    assert d.code == "E001" and "PDUs only" in d.message and d.line == 10
    pdu = RACK + FEEDS + '[[racks.devices]]\nid = "p"\nmodel = "pdu-3ph-415v-32a"\n'
    assert load_text(pdu + 'feed = "a01-A"\n').racks[0].devices[0].feed == "a01-A"
    (d,) = errors(pdu + 'feed = "a01-X"\n')
    assert "names no feed of rack a01" in d.message and "a01-A" in d.message


def test_json_schema_describes_the_v11_keys() -> None:
    schema = layout_schema()
    rack = schema["properties"]["racks"]["items"]
    assert {"weight", "width", "depth", "cdu"} <= set(rack["properties"])
    feed = rack["properties"]["feeds"]["items"]["properties"]
    assert feed["side"]["pattern"] == r"^[A-Za-z0-9_-]{1,8}$"
    device = rack["properties"]["devices"]["items"]["properties"]
    assert "feed" in device
    assert "grade" in schema["properties"]["links"]["items"]["properties"]
    entry = schema["properties"]["catalog"]["additionalProperties"]["properties"]
    assert set(entry["outlets"]["properties"]) == {"c13", "c19"}
    assert {"psu_inlet", "chassis_depth"} <= set(entry)
    thresholds = schema["properties"]["rules"]["properties"]["thresholds"]["properties"]
    assert set(THRESHOLDS) == set(thresholds)


def test_every_threshold_is_documented_with_its_default() -> None:
    """docs/layout-format.md's threshold table is the user's list: a key the loader accepts
    but the table leaves out cannot be found (reach_dac_split and reach_smf_split were)."""
    doc = (ROOT / "docs" / "layout-format.md").read_text(encoding="utf-8")
    for key, threshold in THRESHOLDS.items():
        default = threshold.default_text
        quoted = f'"{default}"' if " " in default else default  # a quantity is a string
        assert f"| `{key}` | `{quoted}` |" in doc, key
