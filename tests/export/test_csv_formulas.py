"""Every CSV export makes a would-be formula text (a leading ``'``, OWASP CSV injection):
ids and labels from a layout reach the cable, power-cord and NetBox tables, the bill of
materials and the report; numbers, negative ones too, are unchanged."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from click.testing import CliRunner

from rackdesigner.cli.main import cli
from rackdesigner.model.spreadsheet import FORMULA_START
from tests.conftest import ROOT

NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def hostile_layout(tmp_path: Path) -> Path:
    """The fine-tuning node with a rack, a server and a switch whose ids start formulas (ids
    hold no spaces or colons, so these are the worst an id can be) and labels that do."""
    text = (ROOT / "layouts" / "finetune-8gpu.toml").read_text(encoding="utf-8")
    text = text.replace('"a01-n01', '"=1+2').replace('"a01-mgmt', '"@SUM(A1)')
    # (v1.4) the rack's vertical manager: its id is the cable schedule's route
    text = text.replace('id = "vm-a01"', 'id = "=vm(1)"')
    text = text.replace('"a01"', '"-2+3"').replace('"a01-', '"+cmd-')
    text = text.replace('label = "HGX H100 8-GPU"', 'label = "=HYPERLINK(\\"http://x\\",\\"y\\")"')
    path = tmp_path / "hostile.toml"
    path.write_text(text, encoding="utf-8")
    return path


def formula_cells(text: str) -> list[str]:
    rows = csv.reader(io.StringIO(text, newline=""))
    return [c for row in rows for c in row if c[:1] in FORMULA_START and not NUMBER.fullmatch(c)]


def test_no_csv_export_holds_a_formula(tmp_path: Path) -> None:
    layout = hostile_layout(tmp_path)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli,
        [
            "export", str(layout), "--cables", str(out / "cables.csv"),
            "--power", str(out / "power.csv"), "--bom", str(out / "bom.csv"),
            "--netbox", str(out / "netbox"), "--labels", str(out / "labels.csv"),
            "--pull-sheets", str(out / "pulls"),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    files = sorted(out.rglob("*.csv"))
    assert len(files) > 4
    texts = {f.name: f.read_text(encoding="utf-8") for f in files}
    report = CliRunner().invoke(cli, ["report", str(layout), "--format", "csv"])
    assert report.exit_code == 0, report.output
    texts["report"] = report.stdout
    for name, text in texts.items():
        assert formula_cells(text) == [], name
    assert "'=1+2" in texts["cables.csv"] and "'@SUM(A1)" in texts["cables.csv"]
    assert "'-2+3" in texts["power.csv"] and "'=1+2" in texts["power.csv"]
    # (v1.4) the labels and pull sheets: a device id that starts a formula, a pathway's id
    assert "'=1+2" in texts["labels.csv"]
    sheets = "".join(text for name, text in texts.items() if name[:1].isdigit())
    assert "'=1+2" in sheets and "'=vm(1)" in sheets
    assert any("'=HYPERLINK" in text for text in texts.values())
    # Numbers stay numbers: the cable lengths are the same as in a plain layout's table.
    lengths = [row[11] for row in csv.reader(io.StringIO(texts["cables.csv"]))][1:]
    assert lengths and all(NUMBER.fullmatch(length) for length in lengths)
