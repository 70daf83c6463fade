"""``rackdesigner diff``: what a change to a layout means (rackdesigner.diff)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import click

from rackdesigner.cli.conventions import (
    emit,
    fail,
    format_option,
    output_for,
    output_option,
)
from rackdesigner.model.collector import collection_paused


def _git(args: list[str], where: Path) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], cwd=where, capture_output=True, check=False)
    except OSError as error:
        fail(f"cannot run git: {error.strerror or error}")


def _git_reason(done: subprocess.CompletedProcess[bytes]) -> str:
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else "no reason given"


def _git_text(path: str, rev: str) -> str:
    """The file at ``path`` as it is at git revision ``rev``, in its folder; exit 2 when git
    cannot give it.

    ``rev`` is the user's text, never an option of git's: it is resolved to a commit
    first (``git rev-parse --verify --end-of-options REV^{commit}``), and ``git show``
    is given the resolved hash, so a REV such as ``--output=FILE`` is only a revision
    that does not exist."""
    where = Path(path).resolve().parent
    resolved = _git(
        ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"], where
    )
    commit = resolved.stdout.decode("ascii", "replace").strip()
    if resolved.returncode != 0 or not re.fullmatch(r"[0-9a-f]{40}([0-9a-f]{24})?", commit):
        why = _git_reason(resolved) if resolved.stderr.strip() else "no such commit"
        fail(f"git revision {rev!r}: {why}")
    done = _git(["show", "--end-of-options", f"{commit}:./{Path(path).name}"], where)
    if done.returncode != 0:
        fail(f"git show {rev}:{path} failed: {_git_reason(done)}")
    return done.stdout.decode("utf-8", "replace")


@click.command()
@click.argument("old", type=click.Path(readable=False))
@click.argument("new", required=False, type=click.Path(readable=False))
@click.option(
    "--git",
    "rev",
    metavar="REV",
    help="Compare LAYOUT as it is at git revision REV with the file as it is now.",
)
@format_option(
    "text",
    "json",
    "markdown",
    help="markdown is a pull-request comment; json gives figures in SI base units.",
)
@click.option(
    "--fail-on",
    type=click.Choice(["changes", "new-errors"]),
    default="changes",
    show_default=True,
    help="Exit 1 on any change (as git diff --exit-code), or only on new error findings.",
)
@click.option(
    "--length-tolerance",
    type=float,
    default=0.5,
    show_default=True,
    metavar="M",
    help="Cable length changes of at most M metres are not reported.",
)
@output_option()
@collection_paused()
def diff(
    old: str,
    new: str | None,
    rev: str | None,
    fmt_: str,
    fail_on: str,
    length_tolerance: float,
    output: str | None,
) -> None:
    """What changed between two layouts, in racks, devices, cables, power, heat, the fabric,
    findings and cost; compared by entity id (renames detected), never by line.

    \b
    Examples:
      rackdesigner diff old.toml new.toml
      rackdesigner diff layouts/training-128.toml --git origin/main --format markdown
      rackdesigner diff a.toml b.toml --fail-on new-errors

    \b
    Exit codes (as git diff --exit-code): 0 no change, 1 changes (with --fail-on
    new-errors: only when the change adds error findings), 2 a file could not be read.
    """
    if (new is None) == (rev is None):
        fail("give OLD NEW, or LAYOUT --git REV")
    inputs = [(old, "the input layout")] + ([(new, "the input layout")] if new else [])
    output = output_for(output, inputs)
    from rackdesigner.cli.loading import open_or_exit
    from rackdesigner.diff import diff as compare
    from rackdesigner.diff.render import diff_data, diff_markdown, diff_text, to_json
    from rackdesigner.diff.sides import check_pair

    if rev is not None:
        old_name, new_name = f"{old}@{rev}", old
        before = open_or_exit(old, _git_text(old, rev), old_name, lines_too=False)
    else:
        assert new is not None
        old_name, new_name = old, new
        before = open_or_exit(old, lines_too=False)  # findings of a diff have no lines
    new_path = old if rev is not None else new
    assert new_path is not None
    # The old layout is checked (in a child process, for large layouts) while this one
    # loads the new layout; the new one's rules run only where the two differ.
    a, b, old_findings, new_findings = check_pair(
        before.layout, lambda: open_or_exit(new_path, lines_too=False).layout, old_name, new_name
    )
    result = compare(
        a,
        b,
        old_findings=old_findings,
        new_findings=new_findings,
        length_tolerance=length_tolerance,
    )
    if fmt_ == "json":
        text = to_json(diff_data(result, old_name, new_name))
    elif fmt_ == "markdown":
        text = diff_markdown(result, old_name, new_name)
    else:
        text = diff_text(result, old_name, new_name)
    emit(text, output, exact=fmt_ == "json")
    if fail_on == "new-errors":
        sys.exit(1 if result.new_errors else 0)
    sys.exit(0 if result.empty else 1)
