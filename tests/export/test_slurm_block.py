"""``export --slurm-topology FILE --slurm-plugin block``: one block per NVLink domain."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from rackdesigner.analysis import Analysis
from rackdesigner.cli.main import cli
from rackdesigner.export.graph_files import build_graph
from rackdesigner.export.slurm import (
    SlurmNameError,
    block_sizes,
    hostfiles,
    topology_block_conf,
    topology_block_yaml,
)
from rackdesigner.layout_io import load_path
from tests.conftest import ROOT
from tests.export.test_slurm import expand

SU = ROOT / "layouts" / "gb200-nvl72-su.toml"
TRAINING = ROOT / "layouts" / "training-128.toml"


@pytest.fixture(scope="module")
def su() -> Analysis:
    return Analysis(load_path(SU))


def _blocks(text: str) -> tuple[dict[str, list[str]], list[int]]:
    blocks: dict[str, list[str]] = {}
    sizes: list[int] = []
    for raw in re.sub(r"\\\n", "", text).splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = dict(item.split("=", 1) for item in line.split())
        if "BlockSizes" in fields:
            sizes = [int(n) for n in fields["BlockSizes"].split(",")]
        else:
            blocks[fields["BlockName"]] = expand(fields["Nodes"])
    return blocks, sizes


def test_eight_racks_are_eight_blocks_of_18_trays(su: Analysis) -> None:
    blocks, sizes = _blocks(topology_block_conf(su))
    assert len(blocks) == 8
    assert all(len(nodes) == 18 for nodes in blocks.values())
    assert blocks["nvl-a04"] == [f"a04-c{k:02d}" for k in range(1, 19)]
    # Topograph: [D, 2D, 4D, ... 2^k D], k = floor(log2 8) = 3.
    assert sizes == [18, 36, 72, 144]
    every = [n for nodes in blocks.values() for n in nodes]
    assert len(every) == len(set(every)) == 144


def test_block_sizes_follow_topograph() -> None:
    assert block_sizes(18, 1) == [18]
    assert block_sizes(18, 7) == [18, 36, 72]
    assert block_sizes(18, 16) == [18, 36, 72, 144, 288]


def test_yaml_has_the_block_topology_and_the_tree_alongside(su: Analysis) -> None:
    document = yaml.safe_load(topology_block_yaml(su))
    block, tree = document
    assert block["topology"] == "block" and block["cluster_default"] is True
    assert block["block"]["block_sizes"] == [18, 36, 72, 144]
    assert [b["block"] for b in block["block"]["blocks"]][:2] == ["nvl-a04", "nvl-a05"]
    assert all(len(expand(b["nodes"])) == 18 for b in block["block"]["blocks"])
    assert tree["topology"] == "tree" and tree["cluster_default"] is False
    assert tree["tree"]["switches"]


def test_a_layout_without_domains_is_refused_for_block() -> None:
    with pytest.raises(SlurmNameError, match="no NVLink domain"):
        topology_block_conf(Analysis(load_path(TRAINING)))


def test_cli_slurm_plugin_block(tmp_path: Path) -> None:
    target = tmp_path / "topology.conf"
    result = CliRunner().invoke(
        cli,
        ["export", str(SU), "--slurm-topology", str(target), "--slurm-plugin", "block"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert "BlockSizes=18,36,72,144" in target.read_text()
    # The default plugin stays tree.
    tree = tmp_path / "tree.conf"
    result = CliRunner().invoke(cli, ["export", str(SU), "--slurm-topology", str(tree)])
    assert result.exit_code == 0 and "SwitchName=" in tree.read_text()


def test_hostfile_slots_per_tray(su: Analysis) -> None:
    ((_, text),) = hostfiles(su)
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    assert len(lines) == 144
    assert all(line.endswith(" slots=4") for line in lines)


def test_graph_nodes_carry_the_domain(su: Analysis) -> None:
    data = build_graph(su)
    nodes = dict(data.nodes)
    assert nodes["a04-c01"]["nvlink_domain"] == "nvl-a04"
    assert not any("nvlink_domain" in attrs for n, attrs in nodes.items() if "leaf" in n)
    json.dumps(nodes)
