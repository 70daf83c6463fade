"""``rackdesigner catalog import``: to the user catalog or a layout, the user catalog's
merge (after the built-ins, before a layout's own) and each entry's origin."""

from __future__ import annotations

import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import time
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


# -- editing the file, not rewriting it ----------------------------------------------------

SN5600 = str(LIBRARY / "Nvidia/SN5600.yaml")


def _device_yaml(tmp_path: Path, slug: str, model: str = "Imported") -> str:
    path = tmp_path / f"{slug}.yaml"
    path.write_text(
        f"manufacturer: Acme\nmodel: {model}\nslug: {slug}\nu_height: 2\nis_full_depth: true\n",
        encoding="utf-8",
    )
    return str(path)


def _user_catalog(config: Path, text: str) -> Path:
    path = config / "rackdesigner" / "catalog.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


HAND_WRITTEN = """\
# My catalog: hand-written, keep these words.

# A switch I measured myself.
[catalog.mine]  # trailing comment
kind = "switch"  # inline comment
name = "Mine"
cost = 1234

# Comment above the GPU.
[gpus.my-gpu]
name = "My GPU"
# last words
"""


def test_an_import_keeps_the_comments_and_the_other_entries(tmp_path: Path, config: Path) -> None:
    path = _user_catalog(config, HAND_WRITTEN)
    result = run("catalog", "import", QM9700, "--kind", "switch")
    assert result.exit_code == 0, result.output
    text = path.read_text(encoding="utf-8")
    for line in HAND_WRITTEN.splitlines():
        assert line in text.splitlines(), line
    assert text.startswith(HAND_WRITTEN.split("# Comment above the GPU.")[0])
    assert installed().devices["mine"].cost == 1234
    assert installed().devices["nvidia-qm9700"].kind == "switch"


def test_reimporting_a_key_is_refused_unless_replace(tmp_path: Path, config: Path) -> None:
    """A hand-edited entry is never replaced silently; --replace replaces it and says so."""
    path = _user_catalog(config, HAND_WRITTEN)
    source = _device_yaml(tmp_path, "mine", "Other")
    result = run("catalog", "import", source, "--kind", "storage")
    assert result.exit_code == 1
    assert f"{source}: slug: 'mine' is already in the user catalog; --replace" in result.stderr
    assert "nothing was written" in result.stderr
    assert path.read_text(encoding="utf-8") == HAND_WRITTEN
    result = run("catalog", "import", source, "--kind", "storage", "--replace")
    assert result.exit_code == 0, result.output
    assert "replaces its entry in the user catalog" in result.stdout
    mine = installed().devices["mine"]
    assert (mine.name, mine.kind, mine.cost) == ("Acme Other", "storage", None)
    text = path.read_text(encoding="utf-8")
    assert "# A switch I measured myself." in text and "# last words" in text
    assert "inline comment" not in text  # the replaced table's own lines are gone


def test_a_builtin_is_overridden_only_with_replace_and_keeps_its_kind(
    tmp_path: Path, config: Path
) -> None:
    """A file with slug dgx-h100 once turned the DGX H100 into a switch, silently."""
    source = _device_yaml(tmp_path, "dgx-h100")
    result = run("catalog", "import", source, "--kind", "switch")
    assert result.exit_code == 1
    assert "'dgx-h100' is already a built-in entry (NVIDIA DGX H100)" in result.stderr
    assert installed().devices["dgx-h100"].kind == "gpu-node"
    result = run("catalog", "import", source, "--kind", "switch", "--replace")
    assert result.exit_code == 0, result.output
    assert "overrides a built-in entry (NVIDIA DGX H100); its kind stays gpu-node" in (
        result.stdout
    )
    entry = installed().devices["dgx-h100"]
    assert (entry.kind, entry.name, entry.gpus) == ("gpu-node", "Acme Imported", 8)
    assert installed().origin("dgx-h100") == "built-in + user"


def test_good_files_are_imported_around_bad_and_missing_ones(tmp_path: Path, config: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("manufacturer: [unclosed\n", encoding="utf-8")
    result = run("catalog", "import", QM9700, str(bad), str(tmp_path / "gone.yaml"), SN5600)
    assert result.exit_code == 1
    assert "2 entries written to" in result.stdout
    assert f"{bad}: bad YAML" in result.stderr
    assert f"{tmp_path / 'gone.yaml'}: no such file or folder" in result.stderr
    assert result.stderr.splitlines()[-1] == "rackdesigner: 2 files not imported"
    assert {"nvidia-qm9700", "nvidia-sn5600"} <= set(installed().devices)


def test_into_a_layout_keeps_every_line_and_refuses_an_existing_key(
    tmp_path: Path, config: Path
) -> None:
    """A comment inside a table, which a canonical rewrite cannot keep, stays; so does the
    rest of the file, byte for byte; the layout's own entry is refused without --replace,
    and an override of a built-in keeps its kind."""
    layout = tmp_path / "inference.toml"
    text = (ROOT / "layouts" / "inference-32-b200.toml").read_text(encoding="utf-8")
    text = text.replace("[catalog.dgx-b200]\n", "[catalog.dgx-b200]\n# measured at the PDU\n")
    layout.write_text(text, encoding="utf-8")
    result = run("catalog", "import", QM9700, "--kind", "switch", "--into", str(layout))
    assert result.exit_code == 0, result.output
    after = layout.read_text(encoding="utf-8")
    changes = difflib.SequenceMatcher(None, text.splitlines(), after.splitlines()).get_opcodes()
    inserted = [after.splitlines()[j1:j2] for op, _, _, j1, j2 in changes if op != "equal"]
    assert [op for op, *_ in changes if op != "equal"] == ["insert"]  # nothing else changed
    assert "[catalog.nvidia-qm9700]" in inserted[0]
    assert load(layout).layout.catalog["nvidia-qm9700"].kind == "switch"
    again = run("catalog", "import", QM9700, "--kind", "switch", "--into", str(layout))
    assert again.exit_code == 1 and f"is already in the [catalog] of {layout}" in again.stderr
    builtin_key = _device_yaml(tmp_path, "dgx-b200", "B")
    result = run("catalog", "import", builtin_key, "--kind", "pdu", "--into", str(layout))
    assert result.exit_code == 1 and "a built-in entry (NVIDIA DGX B200)" in result.stderr
    result = run(
        "catalog", "import", builtin_key, "--kind", "pdu", "--into", str(layout), "--replace"
    )
    assert result.exit_code == 0, result.output
    assert "over a built-in entry" in result.stdout and "kind stays gpu-node" in result.stdout
    from rackdesigner.layout_io.catalog import for_layout

    entry = for_layout(load(layout).layout).devices["dgx-b200"]
    assert entry.kind == "gpu-node" and entry.name == "Acme B"
    assert "# measured at the PDU" not in layout.read_text(encoding="utf-8")  # replaced
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_two_imports_at_once_both_land(tmp_path: Path, config: Path) -> None:
    """Two writers race: the second reads the file while the first holds the lock, waits,
    and then adds its entry to what the first wrote."""
    import threading

    from rackdesigner.netbox import into_catalog
    from rackdesigner.netbox.devicetypes import read_file

    first = read_file(_device_yaml(tmp_path, "one")).entry
    second = read_file(_device_yaml(tmp_path, "two")).entry
    assert first is not None and second is not None
    inside = threading.Event()
    real_read = into_catalog._read

    def slow_read(path: Path, *, layout: bool):  # the first writer waits inside the lock
        target = real_read(path, layout=layout)
        if not inside.is_set():
            inside.set()
            time.sleep(0.3)
        return target

    errors: list[BaseException] = []

    def write(entry) -> None:
        try:
            into_catalog.write_entries([(entry, "x.yaml")], None, replace_existing=False)
        except BaseException as error:
            errors.append(error)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(into_catalog, "_read", slow_read)
        one = threading.Thread(target=write, args=(first,))
        one.start()
        assert inside.wait(5)
        two = threading.Thread(target=write, args=(second,))
        two.start()
        one.join(10)
        two.join(10)
    assert not errors
    assert {"one", "two"} <= set(installed().devices)


@pytest.mark.slow
def test_concurrent_import_processes_both_land(tmp_path: Path, config: Path) -> None:
    """Six rounds of two `catalog import` processes started together: both entries land
    every time (before the lock, 4 of 6 rounds kept only one)."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(config)}
    for round_ in range(6):
        a, b = _device_yaml(tmp_path, f"a{round_}"), _device_yaml(tmp_path, f"b{round_}")
        runs = [
            subprocess.Popen(
                [sys.executable, "-m", "rackdesigner", "catalog", "import", source],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            for source in (a, b)
        ]
        for process in runs:
            _, err = process.communicate(timeout=120)
            assert process.returncode == 0, err
        assert {f"a{round_}", f"b{round_}"} <= set(installed().devices)
