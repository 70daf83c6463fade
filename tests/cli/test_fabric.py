"""``rackdesigner new`` and ``rackdesigner generate`` in process, with click's CliRunner."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from rackdesigner.cli import fabric as cli_fabric
from rackdesigner.cli.main import cli
from rackdesigner.design.templates import TEMPLATES
from rackdesigner.layout_io import dumps, load_path
from rackdesigner.model.diagnostics import Diagnostic
from tests.builders import panel_every_open_unit
from tests.conftest import ROOT


def run(*args: str) -> tuple[int, str, str]:
    runner = CliRunner()
    result = runner.invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_list_names_every_template_on_one_line() -> None:
    code, out, _ = run("new", "--list")
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == list(TEMPLATES)
    assert {"small", "medium", "large", "training-128", "inference-32", "superpod"} <= set(
        TEMPLATES
    )


def test_new_writes_canonical_toml_with_a_header(tmp_path: Path) -> None:
    target = tmp_path / "c.toml"
    code, out, err = run("new", str(target), "--gpus", "128")
    assert code == 0, err
    # h100-sxm has a cold-plate node in the catalog: liquid by default (fabrics.md)
    assert out.startswith(f"wrote {target}: 128 x h100-sxm in 16 sys-421ge-tnhr2-lcc")
    assert "validate: 0 errors" in out
    text = target.read_text()
    assert text.startswith(f"# Made by: rackdesigner new {target} --gpus 128\n")
    assert "rail fabric" in text.splitlines()[1]
    tomllib.loads(text)
    assert dumps(load_path(target)) == text  # canonical: a rewrite changes nothing
    # v1.2: no threshold written; the summary counts the runs over 5 m, which validate
    # reports as CAB001 warnings (the header names the rule, no count an edit makes stale)
    assert err == "" and "[rules.thresholds]" not in text
    assert "run longer than 5 m" in out and "CAB001 x" in out
    assert "# Cables: " in text


def test_new_template_superpod(tmp_path: Path) -> None:
    target = tmp_path / "pod.toml"
    code, out, err = run("new", str(target), "--template", "superpod", "--sus", "2")
    assert code == 0, err
    assert "16 leaves, 8 spines" in out


def test_force_overwrites_and_without_it_nothing_is_written(tmp_path: Path) -> None:
    target = tmp_path / "c.toml"
    target.write_text("keep me")
    code, _, err = run("new", str(target), "--gpus", "16")
    assert code == 2 and target.read_text() == "keep me"
    assert err.strip() == f"rackdesigner: {target} exists; rerun with --force to overwrite it"
    code, _, err = run("new", str(target), "--gpus", "16", "--force")
    assert code == 0, err
    assert target.read_text().startswith("# Made by:")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--gpus", "12"], "--gpus 12: a multiple of 8 (the GPUs of one sys-421ge-tnhr2-lcc)"),
        (
            ["--gpus", "1024", "--leaf", "qm8700", "--su-nodes", "32"],
            "leaf qm8700 has 40 p ports; an SU of 32",
        ),
        (["--gpus", "1024", "--leaf", "dgx-h100"], "not a switch"),
        (["--gpus", "1024", "--spine", "qm97"], "no such model in the catalog"),
        (["--gpus", "1024", "--oversubscription", "0.5"], "--oversubscription 0.5: below 1"),
        (["--template", "huge"], "unknown template 'huge'"),
        (["--gpus", "64", "--fabric", "direct"], "direct cables 1 or 2 nodes"),
        (["--gpus", "8", "--fabric", "dragonfly"], "at least 2 nodes"),
        (["--gpus", "8192", "--fabric", "leaf-spine"], "use --fabric rail"),
        (["--gpus", "64", "--node", "dgx-h100", "--cooling", "liquid"], "has no cold plates"),
        (["--gpus", "64", "--gpu", "mi300x"], "no GPU node in the catalog holds 8 x mi300x"),
        (["--gpus", "64", "--voltage", "120V", "--phases", "1"], "outlets"),
        (["--gpus", "200000"], "from 8 to 131,072"),
    ],
)
def test_bad_requests_say_why_in_one_line_and_write_nothing(
    tmp_path: Path, args: list[str], message: str
) -> None:
    target = tmp_path / "bad.toml"
    code, out, err = run("new", str(target), *args)
    assert code == 2
    assert message in err
    assert err.count("\n") == 1 and err.startswith("rackdesigner: ")
    assert out == ""
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


def test_gpus_is_required_without_a_template(tmp_path: Path) -> None:
    code, _, err = run("new", str(tmp_path / "x.toml"))
    assert code == 2
    assert "Usage:" in err and "--gpus is required without --template" in err


def test_a_layout_with_errors_is_written_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(layout: object, file: str, source_map: object = None) -> list[Diagnostic]:
        return [Diagnostic("PWR001", "error", "too much", file=file)]

    monkeypatch.setattr(cli_fabric, "_check", failing)
    target = tmp_path / "c.toml"
    code, out, err = run("new", str(target), "--gpus", "16")
    assert code == 1 and target.exists()
    assert "PWR001" in err and "validate: 1 error," in out


def hall(tmp_path: Path, *args: str, gpus: str = "32") -> Path:
    """A layout from ``new``, without its site power budget and room cooling (v1.4), both
    sized for its first fabric."""
    target = tmp_path / "hall.toml"
    code, _, err = run("new", str(target), "--gpus", gpus, *args)
    assert code == 0, err
    layout = load_path(target)
    assert layout.site is not None
    layout.site.power_budget = None
    layout.site.cooling_capacity = None
    target.write_text(dumps(layout))
    return target


def test_generate_reports_a_blown_power_budget(tmp_path: Path) -> None:
    source = tmp_path / "hall.toml"
    run("new", str(source), "--gpus", "32", "--fabric", "leaf-spine", "--no-redundant")
    out_file = tmp_path / "rail.toml"
    code, _, err = run(
        "generate", str(source), "--fabric", "rail", "--replace", "-o", str(out_file)
    )
    assert code == 1 and out_file.exists()  # written, and the rules say what is wrong
    assert "PWR007" in err


def test_generate_replaces_a_fabric_into_a_new_file(tmp_path: Path) -> None:
    # The compute fabric alone: the storage fabric new adds has tests of its own.
    source = hall(tmp_path, "--fabric", "leaf-spine", "--no-redundant", "--no-storage")
    before = source.read_text()
    out_file = tmp_path / "rail.toml"
    code, out, err = run(
        "generate", str(source), "--fabric", "rail", "--replace", "-o", str(out_file)
    )
    assert code == 0, err
    assert source.read_text() == before  # the input is never rewritten without --force
    assert "32 old links removed" in out and "validate: 0 errors" in out
    layout = load_path(out_file)
    assert len(layout.links) == 32 * 2  # 32 node ports, 32 leaf uplinks
    assert out_file.read_text().startswith("# Made by: rackdesigner new")  # header kept


def test_generate_refuses_nodes_with_links_without_replace(tmp_path: Path) -> None:
    source = hall(tmp_path, "--fabric", "leaf-spine")
    before = source.read_text()
    code, _, err = run("generate", str(source), "--fabric", "rail", "--force")
    assert code == 2 and source.read_text() == before
    assert "already end at these nodes" in err and "--replace" in err
    assert err.count("\n") == 1


def test_generate_no_new_racks_refuses_when_no_rack_has_room(tmp_path: Path) -> None:
    # air racks of one DGX H100 each, every open unit blanked
    source = hall(tmp_path, "--fabric", "leaf-spine", "--cooling", "air")
    source.write_text(dumps(panel_every_open_unit(load_path(source))))
    code, _, err = run(
        "generate", str(source), "--fabric", "rail", "--replace", "--no-new-racks", "--force"
    )
    assert code == 2
    assert "no rack has room for a leaf switch" in err and err.count("\n") == 1


def test_generate_in_place_needs_force(tmp_path: Path) -> None:
    source = hall(tmp_path, "--fabric", "leaf-spine")
    code, _, err = run("generate", str(source), "--fabric", "rail", "--replace")
    assert code == 2 and "without --force" in err
    code, out, err = run("generate", str(source), "--fabric", "rail", "--replace", "--force")
    assert code == 0, err
    assert "network racks added" not in out or "added network rack" in out


def test_generate_selects_nodes_by_glob(tmp_path: Path) -> None:
    source = hall(tmp_path, "--fabric", "direct", gpus="16")
    layout = load_path(source)
    layout.links.clear()
    bare = tmp_path / "bare.toml"
    bare.write_text(dumps(layout))
    code, _, err = run(
        "generate",
        str(bare),
        "--fabric",
        "direct",
        "--nodes",
        "a02-n0[12]",  # a01 holds the CDUs
        "-o",
        str(tmp_path / "two.toml"),
    )
    assert code == 0, err
    assert len(load_path(tmp_path / "two.toml").links) == 8
    code, _, err = run("generate", str(bare), "--fabric", "rail", "--nodes", "zz*", "--force")
    assert code == 2 and "no GPU node id matches" in err


def test_generate_dash_output_is_refused_not_a_file_named_dash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    layout = tmp_path / "small.toml"
    layout.write_text((ROOT / "tests/data/conventions-small.toml").read_text())
    result = CliRunner().invoke(
        cli, ["generate", str(layout), "--fabric", "direct", "--replace", "-o", "-"]
    )
    assert result.exit_code == 2 and "give -o FILE" in result.stderr
    assert not (tmp_path / "-").exists()


def test_new_and_generate_share_the_generators_options() -> None:
    """One list of the generators' options serves both commands: same names, same help."""
    from rackdesigner.design.generators import FABRICS

    def options(command: str) -> dict[str, str | None]:
        params = cli.commands[command].params
        return {p.name or "": getattr(p, "help", None) for p in params}

    shared = ["leaf", "spine", "core", "oversubscription", "su_nodes"]
    shared += ["strict_cables", "rail_planes", "redundant", "cabling"]
    new, generate = options("new"), options("generate")
    assert {name: new[name] for name in shared} == {name: generate[name] for name in shared}
    assert cli_fabric.FABRIC_CHOICES == FABRICS


def test_new_cabling_structured_writes_panels_trunks_and_pathways(tmp_path: Path) -> None:
    """``new --cabling structured``: every fibre link between two switch racks is a channel
    (via two panels and a trunk); the header and the summary say so; the layout validates
    with no error; the trays over the rows are written (v1.4)."""
    target = tmp_path / "s.toml"
    code, out, err = run("new", str(target), "--gpus", "512", "--cabling", "structured")
    assert code == 0, err
    layout = load_path(target)
    channels = [link for link in layout.links if link.via]
    assert channels and layout.trunks and layout.pathways
    assert "structured cabling:" in out and "validate: 0 errors" in out
    assert "--cabling structured" in (layout.comment or "")
    assert "Cable plant:" in (layout.comment or "")


def test_generate_cabling_structured_on_an_existing_hall(tmp_path: Path) -> None:
    """``generate --cabling structured`` on a layout without pathways: the switch-to-switch
    fibre runs through panels and trunks; no pathway is added to the user's hall."""
    source = tmp_path / "in.toml"
    assert run("new", str(source), "--gpus", "512")[0] == 0
    plain = load_path(source)
    plain.pathways = []
    source.write_text(dumps(plain), encoding="utf-8")
    target = tmp_path / "out.toml"
    code, _, err = run(
        "generate",
        str(source),
        "--fabric",
        "rail",
        "--replace",
        "--cabling",
        "structured",
        "-o",
        str(target),
    )
    assert code in (0, 1), err
    layout = load_path(target)
    assert layout.trunks and any(link.via for link in layout.links)
    assert layout.pathways == []


def test_new_storage_pod_sus_makes_smaller_storage_pods(tmp_path: Path) -> None:
    """512 GPUs are 64 nodes in 2 SUs of 32: one storage pod by default (4 SUs a pod), two
    with ``--storage-pod-sus 1``, each with its own appliance; the option's default is the
    storage generator's."""
    from rackdesigner.design.storage_fabric import POD_SUS

    default = next(p for p in cli.commands["new"].params if p.name == "storage_pod_sus")
    assert default.default == POD_SUS
    out = tmp_path / "pods.toml"
    code, _, _ = run("new", str(out), "--gpus", "512", "--storage-pod-sus", "1")
    assert code == 0
    header = out.read_text(encoding="utf-8")
    assert "Storage: 2 appliances (ddn-ai400x2t)" in header
    assert "on a storage fabric of its own in 2 pods" in header
    code, _, err = run("new", str(tmp_path / "x.toml"), "--gpus", "512", "--storage-pod-sus", "0")
    assert code == 2 and "--storage-pod-sus" in err
    assert not (tmp_path / "x.toml").exists()
