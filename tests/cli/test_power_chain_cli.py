"""The command line's power-chain options: ``catalog --power`` and ``new
--power-redundancy`` / ``--peak-factor``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from rackdesigner.cli.main import cli
from rackdesigner.layout_io import load_path


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_catalog_power_lists_the_models_with_their_sources() -> None:
    code, out = run("catalog", "--power")
    assert code == 0
    assert "mge-galaxy-pw-225" in out and "overload 125 % for 10 min, 150 % for 1 min" in out
    assert "NVIDIA 800 VDC power rack / sidecar (reference architecture) (unverified)" in out
    code, out = run("catalog", "--power", "--format", "json")
    data = json.loads(out)
    assert data["doe2016-lvdt-500kva"]["efficiency"] == 0.9914
    assert "10 CFR 431.196" in data["doe2016-lvdt-500kva"]["source"]
    assert data["mge-galaxy-pw-225"]["overload"] == [[1.25, 600.0], [1.5, 60.0]]


def test_new_writes_the_redundancy_and_the_peak_factor_asked_for(tmp_path: Path) -> None:
    path = tmp_path / "hall.toml"
    code, out = run(
        "new", str(path), "--gpus", "64", "--power-redundancy", "n+1", "--peak-factor", "1.3"
    )
    assert code == 0, out
    layout = load_path(path)
    assert layout.workload is not None and layout.workload.peak_factor == 1.3
    ups = [e for e in layout.power_elements if e.kind == "ups"]
    assert ups and all(e.modules == 4 and e.redundancy == "n+1" for e in ups)
    assert "Power chain (N+1" in (layout.comment or "")
    code, out = run("new", str(tmp_path / "x.toml"), "--gpus", "64", "--power-redundancy", "3n")
    assert code == 2 and "'3n' is not one of '2n', 'n+1', 'block'" in out
