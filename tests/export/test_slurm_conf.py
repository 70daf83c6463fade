"""``export --slurm-conf FILE``: the GPU nodes' NodeName and PartitionName lines, and the
gres.conf beside FILE (slurmctld and slurmd read them in tests/export/test_slurm_real.py)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from rackdesigner.analysis import Analysis
from rackdesigner.cli.main import cli
from rackdesigner.export.slurm_conf import slurm_conf
from rackdesigner.layout_io import load_path, load_text
from tests.conftest import ROOT

TRAINING = ROOT / "layouts" / "training-128.toml"


def _node_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("NodeName=")]


def test_training_nodes_share_one_line_with_the_catalog_figures() -> None:
    """16 SYS-421GE-TNHR2-LCC: cpu_cores 112, memory "2 TB" = 2e12 B / 2^20 = 1,907,348.6
    MiB, rounded down to 1,907,348; 8 H100 SXM each: one line, one default partition."""
    nodes, gres = slurm_conf(Analysis(load_path(TRAINING)))
    (line,) = _node_lines(nodes)
    assert line == (
        "NodeName=a01-n[01-04],a02-n[01-04],a04-n[01-04],a05-n[01-04] CPUs=112 "
        "RealMemory=1907348 Gres=gpu:8 Features=h100-sxm,sys-421ge-tnhr2-lcc State=UNKNOWN"
    )
    partitions = [ln for ln in nodes.splitlines() if ln.startswith("PartitionName=")]
    assert partitions == [
        "PartitionName=gpu Nodes=a01-n[01-04],a02-n[01-04],a04-n[01-04],a05-n[01-04] "
        "Default=YES MaxTime=INFINITE State=UP"
    ]
    assert _node_lines(gres) == [
        "NodeName=a01-n[01-04],a02-n[01-04],a04-n[01-04],a05-n[01-04] Name=gpu "
        "File=/dev/nvidia[0-7]"
    ]


MIXED = """format = 1
name = "mixed\\nNodeName=evil"
[catalog.amd]
kind = "gpu-node"
height = "4 U"
gpu = "mi300x"
gpus = 8
cpu_cores = 96
memory = "1.5 TB"
[catalog.bare]
kind = "gpu-node"
height = "2 U"
gpu = "h100-pcie"
gpus = 2
[[racks]]
id = "r1"
[[racks.devices]]
id = "n1"
model = "amd"
position = 1
[[racks.devices]]
id = "n2"
model = "amd"
position = 5
hostname = "gpu-a.example"
[[racks.devices]]
id = "n3"
model = "bare"
position = 10
"""


def test_types_differ_by_line_and_vendor_and_missing_figures_are_said() -> None:
    """Two MI300X nodes (96 cores, 1.5 TB = 1,430,511 MiB) on one line under their host
    names, the bare PCIe node on its own without CPUs or RealMemory, which the header
    names; AMD GPUs are found by ROCm SMI, NVIDIA ones by their device files. The
    layout's name cannot start a line of its own."""
    nodes, gres = slurm_conf(Analysis(load_text(MIXED)))
    assert _node_lines(nodes) == [
        "NodeName=n1,gpu-a.example CPUs=96 RealMemory=1430511 Gres=gpu:8 "
        "Features=mi300x,amd State=UNKNOWN",
        "NodeName=n3 Gres=gpu:2 Features=h100-pcie,bare State=UNKNOWN",
    ]
    assert "# bare: no cpu_cores in the catalog, so no CPUs" in nodes
    assert "# bare: no memory in the catalog, so no RealMemory" in nodes
    assert _node_lines(gres) == [
        "NodeName=n1,gpu-a.example AutoDetect=rsmi Name=gpu",
        "NodeName=n3 Name=gpu File=/dev/nvidia[0-1]",
    ]
    for text in (nodes, gres):
        assert all(
            ln.startswith(("#", "NodeName=n", "PartitionName=")) or not ln
            for ln in text.splitlines()
        )


def test_the_command_writes_gres_conf_beside_the_file(tmp_path: Path) -> None:
    out = tmp_path / "etc" / "nodes.conf"
    result = CliRunner().invoke(cli, ["export", str(TRAINING), "--slurm-conf", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text().count("NodeName=") == 1
    assert (tmp_path / "etc" / "gres.conf").read_text().count("File=/dev/nvidia[0-7]") == 1


def test_a_file_named_gres_conf_and_a_layout_without_gpu_nodes_are_refused(
    tmp_path: Path,
) -> None:
    clash = CliRunner().invoke(
        cli, ["export", str(TRAINING), "--slurm-conf", str(tmp_path / "gres.conf")]
    )
    assert clash.exit_code == 2 and "gres.conf is written beside it" in clash.output
    layout = tmp_path / "none.toml"
    layout.write_text('format = 1\nname = "x"\n[[racks]]\nid = "r1"\n')
    empty = CliRunner().invoke(cli, ["export", str(layout), "--slurm-conf", str(tmp_path / "n")])
    assert empty.exit_code == 2 and "no GPU node" in empty.output
    assert not (tmp_path / "n").exists() and not (tmp_path / "gres.conf").exists()
