"""``rackdesigner whatif`` on the command line."""

from __future__ import annotations

import json

from click.testing import CliRunner

from rackdesigner.cli.main import cli
from tests.conftest import ROOT
from tests.gfm import assert_inert

LAYOUT = str(ROOT / "layouts" / "inference-32-b200.toml")


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_fail_one_side() -> None:
    result = run("whatif", LAYOUT, "--fail", "side:A")
    assert result.exit_code == 0, result.output
    assert "0 down, 32 degraded" in result.output
    # Each rack runs on side B alone: the redundancy is used up, nothing over capacity.
    assert "new findings: 2" in result.output
    assert "warning PWR001 rack a01: redundancy lost: with side A lost" in result.output
    assert "error" not in result.output


def test_fail_json() -> None:
    result = run("whatif", LAYOUT, "--fail", "rack:a01", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["failures"] == ["rack:a01"]
    assert data["gpus_down"] == 16


def test_each_markdown() -> None:
    result = run("whatif", LAYOUT, "--each", "feed", "--format", "markdown")
    assert result.exit_code == 0, result.output
    assert "| `feed:a01-A` | 16 |" in result.output


def test_unknown_part_and_usage_exit_2() -> None:
    assert run("whatif", LAYOUT, "--fail", "switch:nope").exit_code == 2
    assert run("whatif", LAYOUT, "--fail", "bogus").exit_code == 2
    assert run("whatif", LAYOUT).exit_code == 2
    assert run("whatif", LAYOUT, "--fail", "side:A", "--each", "rack").exit_code == 2


def test_each_with_findings_counts_new_codes() -> None:
    result = run("whatif", LAYOUT, "--each", "rack", "--findings", "--format", "json")
    assert result.exit_code == 0, result.output
    failures = json.loads(result.output)["failures"]
    assert failures and all(isinstance(f["new_codes"], dict) for f in failures)
    plain = json.loads(run("whatif", LAYOUT, "--each", "rack", "--format", "json").output)
    assert all("new_codes" not in f for f in plain["failures"])


def test_output_onto_the_input_is_refused(tmp_path) -> None:
    import os
    import shutil

    layout = tmp_path / "cluster.toml"
    shutil.copy(LAYOUT, layout)
    link = tmp_path / "link.toml"
    os.symlink(layout, link)
    before = layout.read_bytes()
    for args in (["--fail", "side:A"], ["--each", "rack", "--format", "markdown"]):
        result = run("whatif", str(layout), *args, "-o", str(link))
        assert result.exit_code == 2, result.output
        assert "it is the input layout" in result.stderr
    assert layout.read_bytes() == before


HOSTILE_ID = "a01-`|<img/src=x>@team[x](y)\u202e"


def _hostile_layout(tmp_path) -> str:
    text = (ROOT / "layouts" / "inference-32-b200.toml").read_text(encoding="utf-8")
    path = tmp_path / "hostile.toml"
    path.write_text(text.replace('"a01-leaf', f'"{HOSTILE_ID}'), encoding="utf-8")
    return str(path)


def test_markdown_escapes_hostile_names(tmp_path) -> None:
    """A device id holding a backtick, a pipe, HTML, a mention, a link and a bidi override:
    every table keeps its columns, no tag or link appears, no mention is left, and the
    terminal gets no raw bidi character."""
    layout = _hostile_layout(tmp_path)
    for args in (
        ["--fail", f"switch:{HOSTILE_ID}"],
        ["--each", "switch"],
        ["--each", "switch", "--findings"],
    ):
        result = run("whatif", layout, *args, "--format", "markdown")
        assert result.exit_code == 0, result.output
        assert_inert(result.stdout)


FALSE_2N = str(ROOT / "tests" / "rules" / "PWR024" / "fires.toml")


def test_the_false_2n_hall_s_utility_takes_every_gpu() -> None:
    """tests/rules/PWR024/fires.toml: both UPSs behind one ATS on one utility: losing it
    takes the 8 DGX H100, 64 GPUs, down."""
    result = run("whatif", FALSE_2N, "--fail", "utility:utility-1")
    assert result.exit_code == 0, result.output
    assert "GPUs: 64 down, 0 degraded (power-capped), 0 cut off" in result.output
    assert "lost with it (nothing left to feed them): ats ats-1, ups ups-a, ups ups-b" in (
        result.output
    )
    ranked = json.loads(run("whatif", FALSE_2N, "--each", "ats", "--format", "json").output)
    assert [(f["failures"], f["gpus_down"]) for f in ranked["failures"]] == [(["ats:ats-1"], 64)]


def test_an_unknown_element_says_which_ids_exist() -> None:
    result = run("whatif", FALSE_2N, "--fail", "ups:NOPE")
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert line == "rackdesigner: no ups NOPE in the power chain; its ups ids: ups-a, ups-b"


def test_warmer_water_alone_with_a_failure_and_with_each() -> None:
    """tests/data/whatif/chain-and-loop.toml: CDUs c1 and c2, 80 kW at 5 K, hold 35 °C on
    the 30 °C loop fws; 5 K warmer leaves them 0 K: not judged, its 64 GPUs said. A layout
    without a facility loop, or a bad delta, exits 2."""
    loop = str(ROOT / "tests" / "data" / "whatif" / "chain-and-loop.toml")
    alone = run("whatif", loop, "--warmer-water", "5")
    assert alone.exit_code == 0, alone.output
    assert alone.output.startswith("What if the facility water is 5 K warmer:\n")
    assert "2 racks, 64 GPUs on it" in alone.output
    both = run("whatif", loop, "--warmer-water", "5 K", "--fail", "side:A", "--format", "json")
    data = json.loads(both.output)
    assert (data["warmer_water"], data["failures"]) == (5.0, ["side:A"])
    assert data["not_rated"][0]["gpus"] == 64
    each = run("whatif", loop, "--warmer-water", "5K", "--each", "rack")
    assert each.output.startswith("Every single rack failure on facility water 5 K warmer")
    bad = run("whatif", loop, "--warmer-water", "warm")
    assert bad.exit_code == 2 and "warmer water 'warm'" in bad.output
    none = run("whatif", LAYOUT, "--warmer-water", "5")
    assert none.exit_code == 2 and "no facility water loop" in none.output


def test_fail_a_storage_appliance_and_rank_them() -> None:
    """training-128's IBM ESS 3500 (worked in tests/whatif/test_storage_whatif.py): one
    lost reads 91 of 182 GB/s, the checkpoint 9.8 s (was 4.9 s); --each storage ranks both."""
    training = str(ROOT / "layouts" / "training-128.toml")
    result = run("whatif", training, "--fail", "storage:a03-stor1", "--format", "json")
    assert result.exit_code == 0, result.output
    storage = json.loads(result.output)["storage"]
    assert storage["read_left"] == 91e9 * 8 and storage["read"] == 182e9 * 8
    assert round(storage["checkpoint_seconds_left"], 6) == 9.8
    ranked = run("whatif", training, "--each", "storage")
    assert ranked.exit_code == 0, ranked.output
    assert "storage:a03-stor1  0 GPUs lost; storage reads 50% left" in ranked.output
    wrong = run("whatif", training, "--fail", "storage:a03-sw-stor1")
    assert wrong.exit_code == 2
    assert "a03-sw-stor1 is a switch, not a storage appliance (fail it as switch:ID)" in (
        wrong.output
    )
