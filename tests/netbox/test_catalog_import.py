"""``rackdesigner catalog import``: to the user catalog or a layout, the user catalog's
merge (after the built-ins, before a layout's own) and each entry's origin."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from rackdesigner.cli.main import cli
from rackdesigner.layout_io.catalog import (
    UserCatalogError,
    for_layout,
    installed,
    user_catalog_path,
)
from rackdesigner.layout_io.document import load
from rackdesigner.model.layout import DeviceType, Layout
from tests.conftest import ROOT

LIBRARY = ROOT / "tests/data/netbox/devicetypes"
QM9700 = str(LIBRARY / "Nvidia/QM9700.yaml")


@pytest.fixture(autouse=True)
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_import_writes_the_user_catalog_and_the_listing_shows_the_origin(config: Path) -> None:
    result = run("catalog", "import", QM9700, "--kind", "switch", "--tech", "infiniband")
    assert result.exit_code == 0, result.output
    path = config / "rackdesigner" / "catalog.toml"
    assert user_catalog_path() == path and path.exists()
    assert "nvidia-qm9700: Nvidia QM9700" in result.output
    assert f"1 entry written to {path}" in result.output
    entry = installed().devices["nvidia-qm9700"]
    assert entry.kind == "switch" and entry.ports and entry.ports[0].tech == "infiniband"
    listing = run("catalog")
    line = next(x for x in listing.output.splitlines() if x.startswith("nvidia-qm9700 "))
    assert line.rstrip().endswith("user")
    assert (
        next(x for x in listing.output.splitlines() if x.startswith("qm9700 "))
        .rstrip()
        .endswith("built-in")
    )
    shown = run("catalog", "nvidia-qm9700")
    assert shown.exit_code == 0 and "Origin: user" in shown.output
    data = json.loads(run("catalog", "nvidia-qm9700", "--format", "json").output)
    assert data["origin"] == "user" and data["kind"] == "switch"


def test_the_user_catalog_merges_after_the_builtins_and_before_the_layout(config: Path) -> None:
    folder = config / "rackdesigner"
    folder.mkdir(parents=True)
    (folder / "catalog.toml").write_text(
        '[catalog.qm9700]\ncost = 1\n\n[catalog.mine]\nkind = "other"\nname = "Mine"\n',
        encoding="utf-8",
    )
    known = installed()
    assert known.devices["qm9700"].cost == 1 and known.devices["qm9700"].kind == "switch"
    assert known.origin("qm9700") == "built-in + user" and known.origin("mine") == "user"
    layout = Layout(name="x", catalog={"mine": DeviceType("mine", name="Layout's")})
    merged = for_layout(layout)
    assert merged.devices["mine"].name == "Layout's" and merged.devices["mine"].kind == "other"
    assert merged.origin("mine") == "user + layout"
    assert merged.origin("dgx-h100") == "built-in"


def test_import_into_a_layout_keeps_its_comments(tmp_path: Path, config: Path) -> None:
    layout = tmp_path / "finetune.toml"
    shutil.copy(ROOT / "layouts" / "finetune-8gpu.toml", layout)
    before = layout.read_text(encoding="utf-8")
    result = run(
        "catalog", "import", str(LIBRARY / "Nvidia/DGC-A100.yaml"), "--into", str(layout),
        "--kind", "gpu-node", "--gpu", "a100-sxm", "--gpus", "8",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    after = layout.read_text(encoding="utf-8")
    comments = [line for line in before.splitlines() if line.startswith("#")]
    assert comments and all(line in after.splitlines() for line in comments)
    entry = load(layout).layout.catalog["nvidia-dgx-a100-640gb"]
    assert (entry.kind, entry.gpu, entry.gpus) == ("gpu-node", "a100-sxm", 8)
    assert not (config / "rackdesigner" / "catalog.toml").exists()


def test_bad_files_are_reported_and_the_others_imported(config: Path) -> None:
    result = CliRunner().invoke(cli, ["catalog", "import", str(ROOT / "tests/data/netbox")])
    assert result.exit_code == 1
    assert "5 entries written to" in result.stdout
    errors = [line for line in result.stderr.splitlines() if line.startswith("rackdesigner: ")]
    assert any("broken.yaml: bad YAML: line 5" in line for line in errors)
    assert any(
        "unknown-type.yaml: interfaces[0].type: unknown interface type" in line for line in errors
    )
    assert errors[-1] == "rackdesigner: 3 files not imported"
    assert set(installed().devices) >= {"ap8886", "nvidia-sn5600"}


def test_an_unknown_gpu_is_refused_before_anything_is_written(config: Path) -> None:
    result = run("catalog", "import", QM9700, "--gpu", "h100-sxn")
    assert result.exit_code == 2 and "did you mean h100-sxm" in result.output
    assert not (config / "rackdesigner").exists()


def test_catalog_key_still_works() -> None:
    assert "NVIDIA DGX H100" in run("catalog", "dgx-h100").output
    assert run("catalog", "--format", "json", "h100-sxm").exit_code == 0
    missing = run("catalog", "dgx-h10")
    assert missing.exit_code == 2


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[catalog.x\n", "Expected ']'"),
        ('[catalog.x]\nheight = "two"\n', 'line 2: catalog entry x: height "two" has no number'),
    ],
)
def test_a_broken_user_catalog_is_one_line_naming_it(config: Path, text: str, said: str) -> None:
    folder = config / "rackdesigner"
    folder.mkdir(parents=True)
    (folder / "catalog.toml").write_text(text, encoding="utf-8")
    with pytest.raises(UserCatalogError, match=re.escape(said)):
        installed()
    layout = str(ROOT / "layouts" / "finetune-8gpu.toml")
    result = subprocess.run(
        [sys.executable, "-m", "rackdesigner", "validate", layout],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "XDG_CONFIG_HOME": str(config)},
    )
    assert result.returncode == 2
    assert result.stderr.startswith(
        f"rackdesigner: the user catalog is not valid: {folder / 'catalog.toml'}: "
    )
    assert said in result.stderr and "internal error" not in result.stderr


HOSTILE = "EVIL\x1b]0;pwned\x07\u202eTXET\nFORGED line"


def test_imported_names_reach_the_terminal_escaped(tmp_path: Path, config: Path) -> None:
    """A device type whose model holds an OSC sequence, a bell, a bidi override and a
    newline: the import's own lines, the listing and `catalog KEY` show it escaped, on
    one line; the JSON keeps it exact."""
    source = tmp_path / "evil.yaml"
    source.write_text(
        "manufacturer: Acme\nmodel: " + json.dumps(HOSTILE) + "\nslug: evil\nu_height: 1\n"
        "is_full_depth: true\n",
        encoding="utf-8",
    )
    imported = run("catalog", "import", str(source), "--kind", "other")
    assert imported.exit_code == 0, imported.output
    for result in (imported, run("catalog"), run("catalog", "evil")):
        assert not set("\x1b\x07\u202e") & set(result.output), result.output
        assert not any(line.startswith("FORGED") for line in result.output.splitlines())
        assert "EVIL\\x1b]0;pwned\\x07\\u202eTXET\\x0aFORGED line" in result.output
    data = json.loads(run("catalog", "evil", "--format", "json").stdout)
    assert data["name"] == f"Acme {HOSTILE}"
