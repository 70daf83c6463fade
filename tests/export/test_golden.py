"""Golden files: every data export of one small layout, byte for byte.

After an intended change, rewrite them with
``RACKDESIGNER_REGENERATE_GOLDEN=1 python -m pytest tests/export/test_golden.py`` and
review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from rackdesigner import analysis as analysis_module
from rackdesigner.cli.main import cli
from tests.conftest import ROOT

DATA = ROOT / "tests" / "data" / "exports"
SMALL = DATA / "small.toml"
GOLDEN = DATA / "golden"
OUTPUTS = {
    "--graph": ["graph.json", "graph.dot", "graph.graphml", "graph.gexf"],
    "--slurm-topology": ["topology.conf", "topology.yaml"],
    "--hostfile": ["hostfile"],
    "--cables": ["cables.csv"],
    "--power": ["power.csv"],
    "--bom": ["bom.csv"],
}


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """All outputs; several of one option take several runs (one file per option)."""
    out = tmp_path_factory.mktemp("golden")
    rounds = max(len(names) for names in OUTPUTS.values())
    for number in range(rounds):
        args = ["export", str(SMALL)]
        for option, names in OUTPUTS.items():
            if number < len(names):
                args += [option, str(out / names[number])]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("name", [n for names in OUTPUTS.values() for n in names])
def test_export_matches_golden(exported: Path, name: str) -> None:
    data = (exported / name).read_bytes()
    golden = GOLDEN / name
    if os.environ.get("RACKDESIGNER_REGENERATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_bytes(data)
    assert data == golden.read_bytes(), f"{name} differs from {golden}"
    if name.endswith(".csv"):  # RFC 4180: CRLF ends every record
        assert data.endswith(b"\r\n") and b"\n" not in data.replace(b"\r\n", b"")
    else:
        assert b"\r" not in data
    assert not data.startswith(b"\xef\xbb\xbf")
    data.decode("utf-8")


def test_several_exports_load_and_analyse_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = []
    original = analysis_module.Analysis.__init__

    def counting(self: object, *args: object, **kwargs: object) -> None:
        made.append(1)
        original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(analysis_module.Analysis, "__init__", counting)
    args = ["export", str(SMALL)]
    for option, names in OUTPUTS.items():
        args += [option, str(tmp_path / names[0])]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert len(made) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(n[0] for n in OUTPUTS.values())
