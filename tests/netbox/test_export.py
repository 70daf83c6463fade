"""``export --netbox DIR``: the numbered files, CSV and YAML that read back as the rows."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import yaml
from click.testing import CliRunner

from rackdesigner.analysis import Analysis
from rackdesigner.cli.main import cli
from rackdesigner.export.netbox import csv_text, yaml_text
from rackdesigner.layout_io.reader import load_path
from rackdesigner.netbox.bulk import bulk_rows
from rackdesigner.netbox.cooling import with_cooling
from tests.conftest import ROOT

LAYOUT = ROOT / "layouts" / "training-128.toml"


def test_export_writes_the_files_in_import_order(tmp_path: Path) -> None:
    out = tmp_path / "netbox"
    result = CliRunner().invoke(cli, ["export", str(LAYOUT), "--netbox", str(out)])
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "01-manufacturers.csv",
        "02-device-types.yaml",
        "03-device-roles.csv",
        "04-sites.csv",
        "05-racks.csv",
        "06-power-panels.csv",
        "07-power-feeds.csv",
        "08-devices.csv",
        # no interfaces or power outlets to add: the device types create them all
        "11-cables.csv",
        # NetBox 4.7's cooling objects: its water loop fws-1, its two CDUs, its nodes
        "12-cooling-sources.csv",
        "13-cooling-feeds.csv",
        "14-cooling-intakes.csv",
        "15-cooling-outflows.csv",
        "16-cooling-intakes.csv",
    ]
    analysis = Analysis(load_path(LAYOUT))
    rows = dict(with_cooling(bulk_rows(analysis), analysis))  # for NetBox 4.7, the default
    types = list(yaml.safe_load_all((out / "02-device-types.yaml").read_text(encoding="utf-8")))
    assert types == rows["device-types"]
    with (out / "08-devices.csv").open(encoding="utf-8", newline="") as handle:
        devices = list(csv.DictReader(handle))
    assert [d["name"] for d in devices] == [d["name"] for d in rows["devices"]]


def test_export_refuses_a_file_as_the_directory(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x", encoding="utf-8")
    result = CliRunner().invoke(cli, ["export", str(LAYOUT), "--netbox", str(target)])
    assert result.exit_code == 2
    assert "not a directory" in result.output.lower()


def test_csv_cells() -> None:
    text = csv_text([{"name": "a, b", "mgmt_only": True}, {"name": "c", "extra": 1.5}])
    assert list(csv.reader(io.StringIO(text))) == [
        ["name", "mgmt_only", "extra"],
        ["a, b", "true", ""],
        ["c", "", "1.5"],
    ]


def test_yaml_documents_open_with_the_marker_netbox_detects() -> None:
    text = yaml_text([{"model": "x"}, {"model": "y"}])
    assert text.startswith("---\n")
    assert list(yaml.safe_load_all(text)) == [{"model": "x"}, {"model": "y"}]
