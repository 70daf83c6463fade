"""``rackdesigner diff`` on the command line: formats and git-like exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from rackdesigner.cli.main import cli
from tests.conftest import ROOT
from tests.gfm import assert_inert

LAYOUT = ROOT / "layouts" / "inference-32-b200.toml"


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def _changed(tmp_path: Path) -> Path:
    text = LAYOUT.read_text(encoding="utf-8")
    old = (
        'id = "a02-B", side = "B", circuit = "PP1-B-02", voltage = "415 V", phases = 3, '
        'current = "63 A"'
    )
    assert old in text
    path = tmp_path / "new.toml"
    path.write_text(text.replace(old, old.replace("63 A", "32 A")), encoding="utf-8")
    return path


def test_no_change_exits_0() -> None:
    result = run("diff", str(LAYOUT), str(LAYOUT))
    assert result.exit_code == 0, result.output
    assert "no change" in result.output


def test_changes_exit_1_and_new_errors(tmp_path: Path) -> None:
    new = _changed(tmp_path)
    result = run("diff", str(LAYOUT), str(new))
    assert result.exit_code == 1
    assert "rack a02 changed: feed a02-B current 63 A → 32 A" in result.output
    assert run("diff", str(LAYOUT), str(new), "--fail-on", "new-errors").exit_code == 1
    # The other way round fixes errors and adds none.
    assert run("diff", str(new), str(LAYOUT), "--fail-on", "new-errors").exit_code == 0
    data = json.loads(run("diff", str(LAYOUT), str(new), "--format", "json").output)
    assert data["changed"] is True
    assert {f["code"] for f in data["findings"]["new"]} >= {"PWR001"}


def test_unreadable_file_exits_2(tmp_path: Path) -> None:
    assert run("diff", str(LAYOUT), str(tmp_path / "missing.toml")).exit_code == 2
    assert run("diff", str(LAYOUT)).exit_code == 2


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_git_revision(tmp_path: Path) -> None:
    path = tmp_path / "cluster.toml"
    shutil.copy(LAYOUT, path)

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=tmp_path,
            check=True,
            capture_output=True,
        )

    git("init", "-q")
    git("add", "cluster.toml")
    git("commit", "-q", "-m", "one")
    assert run("diff", str(path), "--git", "HEAD").exit_code == 0
    path.write_text(_changed(tmp_path).read_text(encoding="utf-8"), encoding="utf-8")
    result = run("diff", str(path), "--git", "HEAD", "--format", "markdown")
    assert result.exit_code == 1
    assert "| errors **Δ** | 0 | 3 |" in result.output
    assert run("diff", str(path), "--git", "no-such-rev").exit_code == 2


def test_a_file_with_errors_is_reported_with_its_lines(tmp_path: Path) -> None:
    """diff reads files without their lines; one that does not load is read again with
    them, so that its errors say where, as validate's do."""
    text = LAYOUT.read_text(encoding="utf-8")
    broken = tmp_path / "broken.toml"
    broken.write_text(text.replace('current = "63 A"', 'current = "lots"', 1), encoding="utf-8")
    result = run("diff", str(LAYOUT), str(broken))
    assert result.exit_code == 2
    shown = [row for row in result.output.splitlines() if row.startswith(str(broken))]
    line = text[: text.index('current = "63 A"')].count("\n") + 1
    assert shown and all(f":{line}:" in row for row in shown), result.output


def test_a_catalog_comment_is_read_as_before(tmp_path: Path) -> None:
    """A [catalog] entry is compared whole, comment and all: a file with one is read
    with its comments (a comment-only change still reads as that entry changed)."""
    text = LAYOUT.read_text(encoding="utf-8")
    entry = '\n[catalog.my-node]\nname = "My node"\nkind = "gpu-node"\nheight = "2 U"\n'
    old, new = tmp_path / "old.toml", tmp_path / "new.toml"
    old.write_text(text + entry, encoding="utf-8")
    new.write_text(text + entry.replace("\n[catalog", "\n# a note\n[catalog"), encoding="utf-8")
    result = run("diff", str(old), str(new))
    assert "catalog entry my-node changed" in result.output, result.output


def test_where_a_catalog_entry_may_hold_a_comment() -> None:
    from rackdesigner.cli.loading import _catalog_comments

    assert _catalog_comments("a = 1\n# x\n\n[catalog.a]\nk = 1\n[[racks]]\n# y\n")
    assert _catalog_comments("[catalog.a]\nk = 1 # c\n[[racks]]\n")
    # A comment in another table before, or in the racks after, is not a catalog's.
    assert not _catalog_comments("[site]\n# x\nb = 2\n\n[catalog.a]\nk = 1\n[[racks]]\n# y\n")
    assert not _catalog_comments("# header\n[site]\nb = 2\n")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_revision_is_never_an_option_of_git(tmp_path: Path) -> None:
    """``--git=--output=P`` once reached ``git show --output=P:./cluster.toml``, which
    truncated the file at that path; now it is a revision that does not exist."""
    path = tmp_path / "cluster.toml"
    shutil.copy(LAYOUT, path)
    for args in (["init", "-q"], ["add", "cluster.toml"], ["commit", "-q", "-m", "one"]):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=tmp_path,
            check=True,
            capture_output=True,
        )
    planted = tmp_path / "p:." / "cluster.toml"  # what --output=p:./cluster.toml names
    planted.parent.mkdir()
    planted.write_text("keep me", encoding="utf-8")
    for rev in (f"--output={tmp_path / 'p'}", "-p", "--all"):
        result = run("diff", str(path), "--git", rev)
        assert result.exit_code == 2, (rev, result.output)
        assert "no such commit" in result.stderr, result.stderr
    assert planted.read_text(encoding="utf-8") == "keep me"
    # A revision git resolves works as before, and an abbreviated or symbolic one too.
    assert run("diff", str(path), "--git", "HEAD~0").exit_code == 0


@pytest.mark.parametrize("fmt", ["text", "json", "markdown"])
def test_output_onto_an_input_is_refused(tmp_path: Path, fmt: str) -> None:
    old, new = tmp_path / "old.toml", _changed(tmp_path)
    shutil.copy(LAYOUT, old)
    before = {p: p.read_bytes() for p in (old, new)}
    for target in (old, new):
        result = run("diff", str(old), str(new), "--format", fmt, "-o", str(target))
        assert result.exit_code == 2, result.output
        assert "it is the input layout" in result.stderr and "nothing was written" in result.stderr
    assert {p: p.read_bytes() for p in (old, new)} == before


def test_markdown_escapes_hostile_names(tmp_path: Path) -> None:
    """Names from the layouts (a device id with a backtick, a pipe, HTML, a mention and a
    link; file names with backticks) reach the pull-request comment inert: tables keep
    their columns, no tag, link or mention appears, no fence is closed early."""
    hostile = "a02-`|<img/src=x>@team[x](y)"
    old = tmp_path / "old ``` @you <b>.toml"
    old.write_text(LAYOUT.read_text(encoding="utf-8").replace('"a02-', f'"{hostile}'))
    new = tmp_path / "new.toml"
    new.write_text(_changed(tmp_path).read_text().replace('"a02-', f'"{hostile}'))
    result = run("diff", str(old), str(new), "--format", "markdown")
    assert result.exit_code == 1, result.output
    assert "**PWR001**" in result.stdout and "&#64;team" in result.stdout
    assert_inert(result.stdout)
