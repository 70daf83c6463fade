"""``report``'s network section: per fabric and tier, and the nccl-tests acceptance command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from rackdesigner.cli.main import cli
from tests.conftest import ROOT

TRAINING = ROOT / "layouts" / "training-128.toml"
STARTER = ROOT / "layouts" / "starter-4x-a6000.toml"
SMALL = ROOT / "tests" / "data" / "exports" / "small.toml"


def report_json(path: Path, *extra: str) -> dict:
    result = CliRunner().invoke(cli, ["report", str(path), "--format", "json", *extra])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_training_fabric_per_tier() -> None:
    (fabric,) = report_json(TRAINING)["network"]["fabrics"]
    tiers = {t["tier"]: t for t in fabric["tiers"]}
    assert tiers[1]["switches"] == 8 and tiers[2]["switches"] == 2 and tiers[2]["top"]
    assert tiers[1]["oversubscription"] == pytest.approx(1.0)
    assert tiers[1]["cable_count"] == 128 and tiers[2]["cable_count"] == 128
    # (v1.4) The stock lengths are the part's own: 400G active copper comes in 3, 4 and 5 m
    # (MCA4J80-N003 to -N005, media.toml), so a 3.6 m run orders the 4 m part.
    assert {(c["media"], c["stock_length"]) for c in tiers[2]["cables"]} == {
        ("acc", 4.0),
        ("acc", 5.0),
    }
    assert fabric["oversubscription"] == pytest.approx(1.0) and fabric["global_ratio"] is None
    assert fabric["bisection"] == pytest.approx(128 * 400e9 / 2)
    assert fabric["bisection_ratio"] == pytest.approx(1.0)
    assert fabric["hops"] == 4
    # DGX H100, 8 × 400 Gbit/s at 1:1: 8 × 50 GB/s × 0.85 = 340 GB/s (rules.md NET007).
    assert fabric["allreduce_inter_node"] == pytest.approx(340e9 * 8)
    nccl = fabric["nccl_test"]
    assert nccl["command"] == (
        "mpirun --hostfile hostfile -np 128 all_reduce_perf -b 128M -e 8G -f 2 -g 1"
    )
    assert nccl["expected_busbw"] == fabric["allreduce_inter_node"]


def test_hostfile_option_names_the_file_in_the_command() -> None:
    (fabric,) = report_json(TRAINING, "--hostfile", "hosts/my cluster")["network"]["fabrics"]
    assert fabric["nccl_test"]["command"].startswith("mpirun --hostfile 'hosts/my cluster' -np 128")
    text = CliRunner().invoke(cli, ["report", str(TRAINING), "--hostfile", "h1"]).output
    # One line a run: the command, the -np it applies to and the busbw it should reach.
    assert "acceptance tests (nccl-tests busbw at the large sizes" in text
    assert (
        "      mpirun --hostfile h1 -np 128 all_reduce_perf -b 128M -e 8G -f 2 -g 1: about "
        "340 GB/s (the whole fabric" in text
    )
    assert "mpirun --hostfile h1 -np 8 all_reduce_perf -b 128M -e 8G -f 2 -g 1: about 382" in text
    assert "tier 1: 8 switches, oversubscription 1:1" in text


def test_a_node_without_fabric_still_gets_its_test() -> None:
    data = report_json(STARTER)
    assert data["network"]["fabrics"] == []
    test = data["network"]["node_test"]
    assert test["np"] == 4 and "-np 4 all_reduce_perf" in test["command"]


def test_csv_has_the_fabric_figures() -> None:
    result = CliRunner().invoke(cli, ["report", str(SMALL), "--format", "csv"])
    rows = result.output.splitlines()
    entity = "network,fabric r1-leaf1"
    for metric in ("oversubscription tier 1,2.0", "bisection,3200000000000.0", "hops,2"):
        assert f"{entity},{metric}" in "\n".join(rows)
    assert any(row.startswith(f"{entity},cables tier 2 mmf 5 m,1") for row in rows)


def test_nodes_without_a_fabric_are_tested_one_at_a_time() -> None:
    """tests/rules/CMP008/fires.toml: 4 GPU nodes of 8 GPUs and no compute fabric. Nothing
    joins them, so the run is inside one node: -np 8 (not the 32 GPUs of all four), run on
    each node in turn."""
    data = report_json(ROOT / "tests" / "rules" / "CMP008" / "fires.toml")
    test = data["network"]["node_test"]
    assert (test["np"], test["nodes"]) == (8, 4) and "-np 8 all_reduce_perf" in test["command"]
    text = CliRunner().invoke(
        cli, ["report", str(ROOT / "tests" / "rules" / "CMP008" / "fires.toml")]
    ).output
    assert "no fabric joins the 4 GPU nodes: run it on each node in turn" in text
