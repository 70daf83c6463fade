"""The storage tier in the exports: the appliances and storage cables in the NetBox bulk
import and the BOM; none of it in Slurm's topology (the compute fabric only)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from click.testing import CliRunner

from rackdesigner.cli.main import cli
from tests.conftest import ROOT

TRAINING = ROOT / "layouts" / "training-128.toml"


def _export(tmp_path: Path, *args: str) -> None:
    result = CliRunner().invoke(cli, ["export", *args, str(TRAINING)], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def test_netbox_bom_and_slurm(tmp_path: Path) -> None:
    """training-128's two ESS 3500 are NetBox devices with their 8 storage cables (4 each)
    to the two SN5600 and the 32 nodes' storage cables; the BOM counts 2 appliances; the
    Slurm topology names the compute switches only."""
    _export(
        tmp_path,
        "--netbox",
        str(tmp_path / "nb"),
        "--bom",
        str(tmp_path / "bom.csv"),
        "--slurm-topology",
        str(tmp_path / "topology.conf"),
    )
    devices = list(csv.DictReader(io.StringIO((tmp_path / "nb" / "08-devices.csv").read_text())))
    appliances = [d for d in devices if d["name"] in ("a03-stor1", "a03-stor2")]
    assert len(appliances) == 2
    cables = (tmp_path / "nb" / "11-cables.csv").read_text().splitlines()
    for appliance in ("a03-stor1", "a03-stor2"):
        client = [c for c in cables if c.startswith(f"{appliance},dcim.interface,eth")]
        assert len(client) == 4, client  # its four client ports, two on each SN5600
    bom = list(csv.reader(io.StringIO((tmp_path / "bom.csv").read_text())))
    assert any("ibm-ess3500" in row and "2" in row for row in bom)
    topology = (tmp_path / "topology.conf").read_text()
    assert "sw-stor" not in topology and "a03-stor" not in topology
