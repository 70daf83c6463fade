"""What the loader refuses, naming the line and the key: ids, positions below 1,
model_params, duplicate keys, and the ``ignore`` key on racks, devices and links."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from rackdesigner.check.engine import check_file
from rackdesigner.layout_io import dumps, load_text
from rackdesigner.layout_io.json_schema import layout_schema
from rackdesigner.model.diagnostics import LayoutError
from tests.conftest import rackdesigner_command

HEAD = 'format = 1\nname = "x"\n'


def errors(text: str) -> list[str]:
    with pytest.raises(LayoutError) as caught:
        load_text(text, file="t.toml")
    return [f"{d.line}: {d.code} {d.entity}: {d.message}" for d in caught.value.diagnostics]


def device(device_id: str, extra: str = "") -> str:
    return (
        HEAD
        + '[[racks]]\nid = "r1"\n'
        + f'[[racks.devices]]\nid = "{device_id}"\nmodel = "cpu-node-1u"\nposition = 2\n{extra}'
    )


@pytest.mark.parametrize(
    ("device_id", "problem"),
    [
        ("a01:n01", "must not contain ':'"),
        ("a01 n01", "must not contain whitespace"),
        ("a01\\tn01", "must not contain whitespace"),
        ("a01\\u00a0n01", "must not contain whitespace"),  # no-break space
        ("a01\\u001bn01", "must not contain control characters"),
        ("a01\\u0085n01", "must not contain whitespace"),  # NEL: C1 control and whitespace
        ("a01\\u009bn01", "must not contain control characters"),  # CSI
        ("x" * 65, "must be at most 64 characters, got 65"),
        ("", "must not be empty"),
    ],
)
def test_bad_device_ids_are_refused_at_load(device_id: str, problem: str) -> None:
    (found,) = errors(device(device_id))
    assert found.startswith("6: E001 device ") and f"id {problem}" in found, found


def test_rack_and_feed_ids_follow_the_same_rule() -> None:
    text = (
        HEAD + '[[racks]]\nid = "row a"\nfeeds = [{ id = "f:1", voltage = "230 V", phases = 1, '
        'current = "16 A" }]\n'
    )
    found = errors(text)
    assert any("E001 rack row a: id must not contain whitespace" in f for f in found), found
    assert any("feed f:1: id must not contain ':'" in f for f in found), found


def test_good_ids_load_including_64_characters_and_unicode() -> None:
    layout = load_text(device("x" * 64) + '[[racks]]\nid = "Räck-ü.1_ä"\n')
    assert layout.racks[0].devices[0].id == "x" * 64
    assert layout.racks[1].id == "Räck-ü.1_ä"


def test_right_to_left_override_is_not_a_control_character() -> None:
    # layout-format.md refuses whitespace, ':' and control characters (Unicode Cc); a bidi
    # override (Cf) loads, and every terminal output shows it escaped instead.
    layout = load_text(device("a\\u202eb"))
    assert layout.racks[0].devices[0].id == "a\u202eb"


@pytest.mark.parametrize("position", [0, -3])
def test_positions_below_1_are_load_errors_like_above_100(position: int) -> None:
    (found,) = errors(device("d1").replace("position = 2", f"position = {position}"))
    assert found == f"8: E001 device d1: position must be at least 1, got {position}"
    (found,) = errors(device("d1").replace("position = 2", "position = 101"))
    assert found == "8: E001 device d1: position must be at most 100, got 101"


def test_model_params_has_a_plausible_upper_limit() -> None:
    (found,) = errors(HEAD + "[workload]\nkind = 'training'\nmodel_params = 7e20\n")
    assert found == "5: E001 [workload]: model_params must be at most 1e+15, got 7e+20"
    assert load_text(HEAD + "[workload]\nmodel_params = 1.8e12\n").workload.model_params == 1.8e12


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        (
            'name = "y"\n',
            "duplicate key 'name': a key may be set only once in a table (first set on line 2)",
            3,
        ),
        (
            '[[racks]]\nid = "a"\nrow = "A"\nid = "b"\n',
            "duplicate key 'id': a key may be set only once in a table (first set on line 4)",
            6,
        ),
        (
            "[site]\nslack = '1 m'\n[site]\n",
            "duplicate table [site]: declared twice (first on line 3)",
            5,
        ),
        ("[site]\nslack = [\n'1 m',\n]\nslack = '2 m'\n", "duplicate key 'slack'", 7),
    ],
)
def test_a_duplicate_toml_key_names_the_key(text: str, message: str, line: int) -> None:
    (found,) = errors(HEAD + text)
    assert found.startswith(f"{line}: E000 ") and message in found, found


# -- the ignore key ----------------------------------------------------------------------------

IGNORING = (
    HEAD
    + '[[racks]]\nid = "r1"\nignore = ["PLC006"]\n'
    + '[[racks.devices]]\nid = "d1"\nmodel = "cpu-node-1u"\nposition = 2\n'
    + 'ignore = ["PWR", "PLC001"]\n'
    + '[[links]]\na = "d1:eth1"\nb = "d1:eth2"\nignore = ["cab"]\n'
)


def test_ignore_key_loads_and_writes_canonically() -> None:
    layout = load_text(IGNORING)
    assert layout.racks[0].ignore == ["PLC006"]
    assert layout.racks[0].devices[0].ignore == ["PWR", "PLC001"]
    assert layout.links[0].ignore == ["cab"]
    text = dumps(layout)
    assert 'ignore = ["PLC006"]\n' in text and 'ignore = ["cab"]\n' in text
    assert load_text(text) == layout and dumps(load_text(text)) == text


def test_ignore_key_names_known_rules_only() -> None:
    # Whether a code names a rule is checked after loading (the loader imports no rule,
    # architecture.md), with the loader's E001 form and the key's line: the file is refused.
    text = IGNORING.replace('["cab"]', '["CAB", "XYZ9", "E001"]')
    result = check_file("t.toml", text=text)
    assert not result.loaded
    found = [f"{d.line}: {d.code} {d.entity}: {d.message}" for d in result.diagnostics]
    assert found == [
        "14: E001 link d1:eth1 -> d1:eth2: ignore must name rules: no rule matches 'XYZ9', "
        "'E001' (codes or prefixes; `rackdesigner rules` lists them)"
    ]
    assert errors(IGNORING.replace('["PLC006"]', '"PLC006"'))[0].endswith(
        'ignore must be an array of strings, got "PLC006"'
    )


def test_json_schema_has_the_v1_1_rules() -> None:
    schema = layout_schema()
    rack = schema["properties"]["racks"]["items"]
    device_schema = rack["properties"]["devices"]["items"]
    link = schema["properties"]["links"]["items"]
    pattern = re.compile(device_schema["properties"]["id"]["pattern"])
    assert pattern.match("a01-n01") and not pattern.match("a01:n01")
    assert not pattern.match("a b") and not pattern.match("x" * 65) and not pattern.match("")
    assert not pattern.match("a\x1bb")
    assert device_schema["properties"]["position"]["minimum"] == 1
    assert schema["properties"]["workload"]["properties"]["model_params"]["maximum"] == 1e15
    for table in (rack, device_schema, link):
        assert table["properties"]["ignore"]["type"] == "array"
    json.dumps(schema)


def test_bad_ids_and_keys_end_to_end(tmp_path: Path) -> None:
    """One real run over a folder of v1.1 refusals: each names file, line and key."""
    (tmp_path / "colon.toml").write_text(device("a01:n01"))
    (tmp_path / "position.toml").write_text(device("d1").replace("position = 2", "position = 0"))
    (tmp_path / "params.toml").write_text(HEAD + "[workload]\nmodel_params = 7e20\n")
    (tmp_path / "dup.toml").write_text(HEAD + 'name = "again"\n')
    result = subprocess.run(
        [*rackdesigner_command(), "validate", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    out = result.stdout
    assert f"{tmp_path / 'colon.toml'}:6: error E001 device a01:n01: id must not contain ':'" in out
    assert (
        f"{tmp_path / 'position.toml'}:8: error E001 device d1: position must be at least 1" in out
    )
    assert (
        f"{tmp_path / 'params.toml'}:4: error E001 [workload]: model_params must be at most" in out
    )
    assert f"{tmp_path / 'dup.toml'}:3: error E000 TOML syntax: duplicate key 'name'" in out
    assert out.splitlines()[-1] == "4 errors, 0 warnings, 0 info in 4 files"
