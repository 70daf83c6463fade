"""``rackdesigner verify``: exit codes, formats, unreadable scans without a traceback."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rackdesigner.asbuilt.report import CSV_COLUMNS
from rackdesigner.cli.main import cli
from tests.asbuilt.helpers import DATA, INFERENCE, TRAINING


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["verify", str(TRAINING), *args])
    return result.exit_code, result.stdout, result.stderr


def test_a_matching_fabric_exits_0() -> None:
    code, out, _ = _run("--ibnetdiscover", str(DATA / "training-128.scan"), "--ignore-speed")
    assert code == 0 and "matches the design: 256 cables" in out
    code, out, _ = _run("--lldp", str(DATA / "lldp"))
    assert code == 0


def test_differences_exit_1_in_every_format(tmp_path: Path) -> None:
    lines = (DATA / "training-128.scan").read_text().splitlines()
    # drop one cable on both ends: the first switch record's first port line and its echo
    first = next(i for i, line in enumerate(lines) if line.startswith("["))
    far = lines[first].split('"')[1]
    del lines[first]
    index = next(
        i for i, line in enumerate(lines) if line.startswith(("Switch", "Ca")) and far in line
    )
    del lines[index + 1]
    scan = tmp_path / "scan.txt"
    scan.write_text("\n".join(lines) + "\n")
    code, out, _ = _run("--ibnetdiscover", str(scan), "--ignore-speed")
    assert code == 1 and "missing" in out
    code, out, _ = _run("--ibnetdiscover", str(scan), "--ignore-speed", "--format", "json")
    assert code == 1 and [f["kind"] for f in json.loads(out)["findings"]] == ["missing"]
    code, out, _ = _run("--ibnetdiscover", str(scan), "--ignore-speed", "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert code == 1 and tuple(rows[0]) == CSV_COLUMNS and rows[1][6] == "missing"


def test_unreadable_scans_exit_2_naming_the_line(tmp_path: Path) -> None:
    text = (DATA / "training-128.scan").read_text()
    for name, body, where in [
        ("garbage.txt", text[:3000] + "\nnot a scan line\n", "garbage.txt:"),
        ("wrong.txt", (DATA / "lldp" / "a01-n01.json").read_text(), "wrong.txt:1"),
        ("binary.txt", "\x00\x01\x02", "binary.txt:1"),
    ]:
        path = tmp_path / name
        path.write_text(body)
        code, _, err = _run("--ibnetdiscover", str(path))
        assert code == 2 and where in err and "Traceback" not in err
    code, _, err = _run()
    assert code == 2 and "needs one scan" in err


def test_csv_names_are_escaped_on_a_terminal_and_never_formulas(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A node-name map names a switch with an OSC sequence, a bell and a formula. Into a
    pipe the CSV keeps the name exact but not as a formula (a leading '); on a terminal
    the control characters are shown escaped, as in the text."""
    from rackdesigner.cli import conventions

    hostile = "=cmd|\x1b]0;owned\x07\u202ea01"
    names = (DATA / "inference-32-b200.node-name-map").read_text()
    node_map = tmp_path / "map"
    node_map.write_text(names.replace('"a01-leaf"', f'"{hostile}"'))
    args = ["--ibnetdiscover", str(DATA / "unmanaged.scan"), "--node-name-map", str(node_map)]
    result = CliRunner().invoke(
        cli, ["verify", str(INFERENCE), *args, "--ignore-speed", "--format", "csv"]
    )
    assert result.exit_code == 1, result.output
    found = [row[9] for row in csv.reader(io.StringIO(result.stdout))]
    assert "'" + hostile in found  # exact, and text to a spreadsheet
    monkeypatch.setattr(conventions, "on_terminal", lambda: True)
    for fmt in ("csv", "json", "text"):
        result = CliRunner().invoke(
            cli, ["verify", str(INFERENCE), *args, "--ignore-speed", "--format", fmt]
        )
        assert result.exit_code == 1, result.output
        assert not set("\x1b\x07\u202e") & set(result.stdout), fmt
        assert "\\x0d" not in result.stdout, fmt  # CSV's CRLF ends lines, shown as nothing
        assert "\\x1b]0;owned\\x07\\u202ea01" in result.stdout.replace("\\\\", "\\"), fmt


def test_a_duplicate_guid_is_said_not_merged_into_miswirings(tmp_path: Path) -> None:
    """Two adapters flashed with one GUID: every cable naming that GUID is ambiguous.
    Merged, the two nodes read as a handful of miswired cables (8 in the report that found
    it); now the scan is refused with the reason, naming both records."""
    import re

    text = (DATA / "training-128.scan").read_text()
    cas = re.findall(r'^Ca\s+\d+\s+"H-([0-9a-f]+)"\s+# "([^"]*)"', text, re.M)
    (first, first_name), (second, second_name) = cas[0], cas[1]
    scan = tmp_path / "duplicate.scan"
    scan.write_text(text.replace(second, first))
    code, out, err = _run("--ibnetdiscover", str(scan), "--ignore-speed")
    assert code == 2 and out == "", out
    assert "duplicate GUID 0x" + first.rjust(16, "0") in err
    assert first_name in err and second_name in err
    assert "miswired" not in err and len(err.strip().splitlines()) == 1


def test_a_port_of_4301_digits_and_an_lldp_list_are_one_line_exit_2(tmp_path: Path) -> None:
    scan = tmp_path / "scan.txt"
    scan.write_text('Switch 65 "S-01" # "x"\n[1] "H-02"[' + "9" * 4301 + "]\n")
    code, out, err = _run("--ibnetdiscover", str(scan))
    assert code == 2 and out == ""
    assert err == (
        f"rackdesigner: cannot read the scan: {scan}:2: a port number of 999999999... "
        "(4301 digits): InfiniBand ports are 0 to 255\n"
    )
    lldp = tmp_path / "n1.json"
    lldp.write_text('{"lldp": [1]}')
    code, out, err = _run("--lldp", str(lldp))
    assert code == 2 and out == ""
    assert err == (
        f'rackdesigner: cannot read the scan: {lldp}:1: not lldpctl -f json output: "lldp" '
        "holds no object\n"
    )
