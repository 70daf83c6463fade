"""Loading and saving layouts: precise errors, canonical output, line map, safe saves."""

from __future__ import annotations

from pathlib import Path

import pytest

from rackdesigner.layout_io import dumps, load_path, load_text
from rackdesigner.layout_io.document import loads
from rackdesigner.layout_io.reader import MAX_FILE_BYTES
from rackdesigner.model.diagnostics import LayoutError
from rackdesigner.model.layout import Q
from rackdesigner.model.refs import Ref

BASE = """\
format = 1
name = "test"

[[racks]]
id = "a01"
row = "A"
slot = 1
feeds = [
    { id = "a01-A", side = "A", voltage = "415 V", phases = 3, current = "63 A" },
    { id = "a01-B", side = "B", voltage = "415 V", phases = 3, current = "63 A" },
]

[[racks.devices]]
id = "a01-n01"
model = "dgx-h100"
position = 2

[[racks.devices]]
id = "a01-leaf1"
model = "qm9700"
position = 21

[[links]]
a = "a01-n01:ib1"
b = "a01-leaf1:p1"
media = "dac"
"""


def errors(text: str) -> list:
    with pytest.raises(LayoutError) as caught:
        load_text(text, file="x.toml")
    return caught.value.diagnostics


def test_loads_and_keeps_lines_in_the_source_map() -> None:
    document = loads(BASE)
    layout = document.layout
    rack = layout.racks[0]
    assert document.line(Ref("rack", "a01")) == 4
    assert [document.line(Ref("feed", f.id)) for f in rack.feeds] == [9, 10]
    assert [document.line(Ref("device", d.id)) for d in rack.devices] == [13, 18]
    assert document.line(Ref("link", "a01-n01:ib1")) == 23
    assert rack.feeds[0].current == 63.0
    assert rack.feeds[0].current.text == "63 A"


def test_wrong_unit_names_key_entity_and_dimension() -> None:
    (d,) = errors(
        BASE.replace(
            'current = "63 A" },\n    { id = "a01-B"', 'current = "63 V" },\n    { id = "a01-B"'
        )
    )
    assert d.code == "E002"
    assert d.line == 9
    assert d.text() == 'rack a01 feed a01-A: current "63 V" is a voltage, expected a current (A)'


def test_unknown_key_suggests_the_nearest() -> None:
    (d,) = errors(BASE.replace('media = "dac"', 'mdia = "dac"'))
    assert d.code == "E001"
    assert "unknown key 'mdia' (did you mean 'media'?)" in d.message
    assert d.line == 26
    assert d.entity == "link a01-n01:ib1 -> a01-leaf1:p1"


def test_missing_key() -> None:
    (d,) = errors(BASE.replace('model = "qm9700"\n', ""))
    assert d.code == "E001" and "missing key 'model'" in d.message and d.line == 18


def test_every_error_is_reported_at_once() -> None:
    found = errors(BASE.replace('"63 A"', '"63 V"').replace("position = 2\n", "position = 2.5\n"))
    assert sorted(d.code for d in found) == ["E001", "E002", "E002"]


def test_toml_syntax_error_has_line_and_column() -> None:
    (d,) = errors(BASE.replace('name = "test"', 'name = "test'))
    assert d.code == "E000"
    assert d.line == 2 and d.column > 0
    assert "line 2" in d.message


def test_newer_format_is_refused_naming_both_versions() -> None:
    (d,) = errors(BASE.replace("format = 1", "format = 2"))
    assert d.code == "E001" and "format 2" in d.message and "format 1" in d.message


def test_missing_format() -> None:
    (d,) = errors(BASE.replace("format = 1\n", ""))
    assert "missing key 'format'" in d.message


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('model = "dgx-h100"', 'model = "dgx-h100"\nposition2 = 3'), "unknown key 'position2'"),
        (("phases = 3, current", "phases = 2, current"), "must be one of 1 | 3"),
        (('voltage = "415 V"', 'voltage = "-415 V"'), "negative"),
        (("slot = 1", "slot = 0"), "must be at least 1"),
        (('a = "a01-n01:ib1"', 'a = "a01-n01"'), "is not a port reference"),
        (("[[racks]]\nid", '[[racks]]\ncooling = "water"\nid'), "must be one of air"),
    ],
)
def test_impossible_values_are_schema_errors(change: tuple[str, str], message: str) -> None:
    found = errors(BASE.replace(*change))
    assert any(message in d.message for d in found), found


def test_negative_power_in_catalog() -> None:
    text = BASE + '\n[catalog.node]\nkind = "gpu-node"\npower = "-3 kW"\n'
    (d,) = errors(text)
    assert d.code == "E002" and d.entity == "catalog entry node" and "negative" in d.message


def test_threshold_with_wrong_unit_is_refused() -> None:
    (d,) = errors(
        BASE.replace('name = "test"\n', 'name = "test"\n\n[rules.thresholds]\ncable_max = "5 kW"\n')
    )
    assert d.code == "E002" and "cable_max" in d.message and d.entity == "[rules.thresholds]"


def test_unknown_threshold_suggests() -> None:
    (d,) = errors(
        BASE.replace('name = "test"\n', 'name = "test"\n\n[rules.thresholds]\ncable_mx = "5 m"\n')
    )
    assert "did you mean 'cable_max'" in d.message


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_bytes(b'format = 1\nname = "caf\xe9"\n')
    with pytest.raises(LayoutError) as caught:
        load_path(path)
    (d,) = caught.value.diagnostics
    assert d.code == "E000" and "not UTF-8" in d.message and d.line == 2


def test_huge_file_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "huge.toml"
    with open(path, "wb") as stream:
        stream.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(LayoutError) as caught:
        load_path(path)
    assert "MiB" in caught.value.diagnostics[0].message


def test_missing_file() -> None:
    with pytest.raises(LayoutError, match="no such file"):
        load_path("/nonexistent/layout.toml")


def test_canonical_output_is_stable_and_round_trips() -> None:
    layout = load_text(BASE)
    text = dumps(layout)
    again = load_text(text)
    assert again == layout
    assert dumps(again) == text


def test_bidi_and_invisible_characters_are_written_as_toml_escapes() -> None:
    """A label holding U+202E (which reverses the rest of a line on a terminal), a
    zero-width space, a C1 control and a tag character is written ``\\u202e`` and so on,
    as the C0 controls are; reading the file gives the exact text back."""
    layout = load_text(BASE)
    label = "evil\u202etxet\u200b\x85\U000e0041\x1b[31m"
    layout.racks[0].label = label
    layout.meta = {"note": "x\u2066y"}
    text = dumps(layout)
    assert 'label = "evil\\u202etxet\\u200b\\u0085\\U000e0041\\u001b[31m"' in text
    assert 'note = "x\\u2066y"' in text
    assert not any(ch in text for ch in "\u202e\u200b\x85\U000e0041\x1b\u2066")
    again = load_text(text)
    assert again.racks[0].label == label
    assert again.meta == {"note": "x\u2066y"}


def test_inline_devices_and_links_get_lines() -> None:
    text = """\
format = 1
name = "inline"
links = [
    { a = "n1:ib1", b = "s1:p1" },
    { a = "n1:ib2", b = "s1:p2" },
]

[[racks]]
id = "r1"
devices = [
    { id = "n1", model = "dgx-h100", position = 1 },
    { id = "s1", model = "qm9700", position = 20 },
]
"""
    document = loads(text)
    assert [document.line(Ref("link", f"n1:ib{n}")) for n in (1, 2)] == [4, 5]
    assert [document.line(Ref("device", d)) for d in ("n1", "s1")] == [11, 12]


def test_quantities_keep_their_text_and_new_ones_get_canonical_units() -> None:
    layout = load_text(
        BASE.replace('"63 A" },\n    { id = "a01-B"', '"0.063 kA" },\n    { id = "a01-B"')
    )
    feed = layout.racks[0].feeds[0]
    assert isinstance(feed.current, Q) and feed.current == 63.0
    assert 'current = "0.063 kA"' in dumps(layout)
    feed.current = 80.0
    assert 'current = "80 A"' in dumps(layout)


def test_model_params_written_in_engineering_notation() -> None:
    layout = load_text(
        BASE.replace('name = "test"\n', 'name = "test"\n\n[workload]\nmodel_params = 70000000000\n')
    )
    assert "model_params = 70e9" in dumps(layout)


def test_comments_kept_above_tables_and_dropped_elsewhere_are_counted() -> None:
    text = "# header\n# more\n" + BASE.replace(
        '[[racks.devices]]\nid = "a01-leaf1"', '# the leaf\n[[racks.devices]]\nid = "a01-leaf1"'
    ).replace('media = "dac"', 'media = "dac"  # trailing')
    document = loads(text)
    out = dumps(document.layout)
    assert out.startswith("# header\n# more\n\nformat = 1\n")
    assert "# the leaf\n[[racks.devices]]" in out
    assert document.dropped_comments == (text.split("\n").index('media = "dac"  # trailing') + 1,)


def test_a_new_catalog_entry_needs_a_kind_but_an_override_does_not() -> None:
    (d,) = errors(BASE + '\n[catalog.mynode]\nheight = "2 U"\n')
    assert d.code == "E001" and "missing key 'kind'" in d.message
    layout = load_text(BASE + '\n[catalog.dgx-h100]\npower = "11 kW"\n')
    assert layout.catalog["dgx-h100"].kind is None


def test_an_error_in_a_later_port_group_names_its_own_line() -> None:
    text = BASE + (
        '\n[catalog.sw]\nkind = "switch"\nports = [\n'
        '    { name = "p", count = 8, speed = "400 Gbps" },\n'
        '    { name = "q", count = 8, speed = "400 V" },\n]\n'
    )
    (d,) = errors(text)
    assert d.entity == "catalog entry sw port group q"
    assert d.line == text.split("\n").index('    { name = "q", count = 8, speed = "400 V" },') + 1


# -- hostname (v1.1) -----------------------------------------------------------------------


def test_hostname_loads_and_saves() -> None:
    text = BASE.replace("position = 2\n", 'position = 2\nhostname = "gpu001.hpc"\n', 1)
    layout = load_text(text)
    assert layout.racks[0].devices[0].hostname == "gpu001.hpc"
    assert layout.racks[0].devices[1].hostname is None
    assert 'hostname = "gpu001.hpc"' in dumps(layout)
    assert load_text(dumps(layout)) == layout


@pytest.mark.parametrize(
    ("hostname", "message"),
    [
        ("-gpu1", "is not a host name"),
        ("gpu 1", "is not a host name"),
        ("gpu1.", "is not a host name"),
        ("g" * 65, "has 65 characters; a host name has at most 64"),
    ],
)
def test_bad_hostname_is_a_schema_error(hostname: str, message: str) -> None:
    text = BASE.replace("position = 2\n", f'position = 2\nhostname = "{hostname}"\n', 1)
    with pytest.raises(LayoutError) as caught:
        load_text(text)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code == "E001" and message in diagnostic.message
    assert diagnostic.entity == "device a01-n01"


def test_hostname_is_in_the_json_schema() -> None:
    import re

    from rackdesigner.layout_io.json_schema import layout_schema

    device = layout_schema()["properties"]["racks"]["items"]["properties"]["devices"]["items"]
    pattern = device["properties"]["hostname"]["pattern"]
    assert (
        re.match(pattern, "gpu001")
        and not re.match(pattern, "gpu_001-")
        and not re.match(pattern, "g" * 65)
    )
