"""``rackdesigner validate``: check layout files, or every layout under a folder."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from rackdesigner.check.formats import FORMATS
from rackdesigner.cli import progress
from rackdesigner.cli.conventions import (
    STDIN,
    STDIN_NAME,
    check_writable,
    emit,
    excluded,
    fail,
    format_option,
    output_option,
    refuse_overwrite,
    write_output,
)
from rackdesigner.model.collector import collection_paused
from rackdesigner.model.terminal import shown, wants_color
from rackdesigner.model.wording import plural

if TYPE_CHECKING:
    from collections import Counter

    from rackdesigner.check.engine import FileResult
    from rackdesigner.check.formats import Options
    from rackdesigner.check.suppressions import BaselineKey
    from rackdesigner.model.diagnostics import Diagnostic


EPILOG_VALIDATE = """\b
Examples:
  rackdesigner validate layouts/training-128.toml
  rackdesigner validate layouts/ --format sarif --output results.sarif
  rackdesigner validate cluster.toml --select PWR,COOL --ignore PLC006 --strict
  rackdesigner validate layouts/ --exclude 'problems/*' --baseline baseline.json
  rackdesigner validate layouts/ --write-baseline baseline.json   # adopt: record today's
  rackdesigner validate cluster.toml --group-by code
  python bench/generate.py --gpus 1024 | rackdesigner validate -

\b
Exit codes: 0 no errors (and no warnings with --strict), 1 rule errors found,
2 a file could not be read or parsed, or the command was used wrongly,
130 interrupted (Ctrl-C), 143 terminated (SIGTERM); nothing half-written is left.
"""


def _codes(ctx: click.Context, param: click.Parameter, value: str | None) -> list[str]:
    if not value:
        return []
    from rackdesigner.rules.registry import unknown_patterns

    codes = [part.strip().upper() for part in value.split(",") if part.strip()]
    unknown = unknown_patterns(codes)
    if unknown:
        raise click.BadParameter(
            f"no rule matches {shown(', '.join(unknown))} (`rackdesigner rules` lists them)"
        )
    return codes


_LAYOUT_MARK = re.compile(rb"^[ \t]*(format[ \t]*=|\[\[[ \t]*racks[ \t]*\]\])", re.M)


def looks_like_layout(path: Path) -> bool:
    """A TOML file with a top-level ``format`` key or a ``[[racks]]`` table near its top."""
    try:
        with path.open("rb") as stream:
            head = stream.read(64 * 1024)
    except OSError:
        return True  # let the loader report why it cannot be read
    return _LAYOUT_MARK.search(head) is not None


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False  # the loader says why it cannot be read


def _broken_link(path: Path) -> bool:
    """A symlink that leads to no file (dangling, or a loop): reported, not skipped."""
    try:
        return path.is_symlink() and not path.is_dir() and not path.is_file()
    except OSError:
        return False


def expand(
    paths: Sequence[str], only_layouts: bool = False, exclude: Sequence[str] = ()
) -> Iterator[str]:
    """Files as given; directories as every ``*.toml`` layout under them (hidden folders and
    TOML files that are not layouts, such as pyproject.toml, skipped); ``-`` as itself
    (standard input). ``exclude`` globs skip files (see conventions.excluded)."""
    skipped = 0
    for path in paths:
        p = Path(path)
        if path != STDIN and _is_dir(p):
            layouts, others = _layouts_under(path, exclude)
            skipped += others
            yield from layouts
        elif path != STDIN and excluded(path, None, exclude):
            continue
        elif path != STDIN and only_layouts and p.is_file() and not looks_like_layout(p):
            skipped += 1
        else:
            yield path
    if skipped:
        click.echo(
            f"rackdesigner: skipped {plural(skipped, 'TOML file')} that "
            f"{'is' if skipped == 1 else 'are'} not a layout (no `format = 1`)",
            err=True,
        )


def _layouts_under(folder: str, exclude: Sequence[str]) -> tuple[list[str], int]:
    """The ``*.toml`` layouts under ``folder`` (not in hidden folders, not excluded), and how
    many other TOML files were passed over; a usage error when there is no layout."""
    root = Path(folder)
    found = sorted(
        f
        for f in root.rglob("*.toml")
        if (f.is_file() or _broken_link(f))
        and not any(part.startswith(".") for part in f.relative_to(root).parts[:-1])
    )
    kept = [f for f in found if not excluded(str(f), folder, exclude)]
    layouts = [str(f) for f in kept if looks_like_layout(f)]
    if not layouts:
        left_out = len(found) - len(kept)
        raise click.UsageError(
            f"no *.toml layouts under {shown(folder)}"
            + (f" ({plural(left_out, 'file')} excluded by --exclude)" if left_out else "")
        )
    return layouts, len(kept) - len(layouts)


@click.command(epilog=EPILOG_VALIDATE)
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@format_option(
    *(format_.name for format_ in FORMATS),
    help="Output format: " + ", ".join(f"{f.name} ({f.help})" for f in FORMATS) + ".",
)
@click.option(
    "--select",
    callback=_codes,
    metavar="CODES",
    help="Run only these rules: codes or prefixes, comma-separated (replaces the "
    "file's [rules] select).",
)
@click.option(
    "--ignore",
    callback=_codes,
    metavar="CODES",
    help="Skip these rules, on top of the file's [rules] ignore.",
)
@click.option("--strict", is_flag=True, help="Warnings fail the run too (exit 1).")
@click.option("--quiet", "-q", is_flag=True, help="Print only the summary line.")
@output_option("Write the report to FILE instead of stdout ('-'), never onto an input.")
@click.option(
    "--exclude",
    multiple=True,
    metavar="GLOB",
    help="Skip files matching GLOB, relative to the folder named (`--exclude 'problems/*'`); "
    "repeatable.",
)
@click.option(
    "--baseline",
    type=click.Path(),
    metavar="FILE",
    help="Report only findings not recorded in FILE (written by --write-baseline): CI fails "
    "only on new problems.",
)
@click.option(
    "--write-baseline",
    type=click.Path(),
    metavar="FILE",
    help="Record today's findings in FILE (JSON: code and subject per finding); they then "
    "count as known, for this run and for --baseline FILE.",
)
@click.option(
    "--group-by",
    type=click.Choice(["code"]),
    help="Text format: one line per code with its count and first entities.",
)
@click.option(
    "--only-layouts",
    is_flag=True,
    help="Skip named files that are not layouts (no `format` key), as directories "
    "do; for hooks that pass every changed *.toml.",
)
@click.option(
    "--totals",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Per-rack totals table in text output (auto: layouts of up to 60 racks).",
)
@collection_paused()
def validate(
    paths: tuple[str, ...],
    fmt_: str,
    select: list[str],
    ignore: list[str],
    strict: bool,
    quiet: bool,
    output: str | None,
    exclude: tuple[str, ...],
    baseline: str | None,
    write_baseline: str | None,
    group_by: str | None,
    only_layouts: bool,
    totals: str,
) -> None:
    """Check layout files, or every *.toml layout under a directory ('-': standard input)."""
    if group_by and fmt_ != "text":
        raise click.UsageError("--group-by works with --format text only")
    if paths.count(STDIN) > 1:
        raise click.UsageError("standard input ('-') can be read only once")
    output = None if output == STDIN else output  # `-o -`: standard output, as for export
    timings: dict[str, float] | None = {} if os.environ.get("RACKDESIGNER_TIMINGS") else None
    started = time.perf_counter()
    files = list(expand(paths, only_layouts, exclude))
    _refuse_unsafe_outputs(files, output, baseline, write_baseline)
    known = _read_baseline(baseline)
    # The checking machinery (pint, networkx) loads only once the command line is sound.
    from rackdesigner.check.formats import Options

    # Findings are reported sorted by file, then line.
    results = _check_files(sorted(files), select, ignore, quiet, timings, started)
    began = time.perf_counter()
    diagnostics = [d for r in results for d in r.diagnostics]
    _apply_baselines(known, baseline, write_baseline, diagnostics, [r.file for r in results])
    options = Options(
        strict=strict,
        quiet=quiet,
        totals=totals,
        select=tuple(select),
        ignore=tuple(ignore),
        color=fmt_ == "text" and output is None and wants_color(sys.stdout),
        group_by=group_by,
    )
    _write_report(results, fmt_, output, options)
    if timings is not None:
        timings["output"] = time.perf_counter() - began
        timings["total"] = time.perf_counter() - started
        click.echo(json.dumps({"timings": {k: round(v, 4) for k, v in timings.items()}}), err=True)
    code = exit_code(diagnostics, strict)
    if code:
        sys.exit(code)


def _refuse_unsafe_outputs(
    files: Sequence[str], output: str | None, baseline: str | None, write_baseline: str | None
) -> None:
    """Nothing is written onto an input: a layout, or the baseline being read (rewriting
    the baseline itself with --write-baseline is how it is updated). An output that cannot
    be written fails now, not after a long check."""
    inputs = [(f, "an input layout") for f in files]
    refuse_overwrite(
        [(output or "", "--output"), (write_baseline or "", "--write-baseline")],
        inputs,
    )
    refuse_overwrite([(output or "", "--output")], [(baseline or "", "the baseline")])
    check_writable(output)
    check_writable(write_baseline)


def _read_baseline(baseline: str | None) -> Counter[BaselineKey] | None:
    """The findings ``--baseline`` records (None without it); one line and exit 2 when the
    file cannot be read or is not a baseline."""
    from rackdesigner.check.suppressions import BaselineError, read_baseline

    if not baseline:
        return None
    try:
        return read_baseline(baseline)
    except BaselineError as error:
        fail(str(error))


def _check_files(
    files: Sequence[str],
    select: list[str],
    ignore: list[str],
    quiet: bool,
    timings: dict[str, float] | None,
    started: float,
) -> list[FileResult]:
    """Each file checked, in order, with progress: a bar on a terminal; else, for runs
    that take a while (since ``started``), a line on stderr at most once a second."""
    from rackdesigner.check.engine import check_file

    results: list[FileResult] = []
    reported = started
    with progress.bar(quiet) as bar:
        for number, file in enumerate(files, start=1):
            shown_file = STDIN_NAME if file == STDIN else file
            progress.report(
                f"checking {shown(shown_file)}", number - 1, len(files) * (len(files) > 1)
            )
            if file == STDIN:
                results.append(_check_stdin(select, ignore, timings))
            else:
                results.append(check_file(file, select=select, ignore=ignore, timings=timings))
            now = time.perf_counter()
            if bar is None and len(files) > 1 and now - reported >= 1.0:
                reported = now
                click.echo(
                    f"rackdesigner: checked {number} of {len(files)} files ({now - started:.1f} s)",
                    err=True,
                )
    return results


def _apply_baselines(
    known: Counter[BaselineKey] | None,
    baseline: str | None,
    write_baseline: str | None,
    diagnostics: list[Diagnostic],
    files: list[str],
) -> None:
    """The findings ``--baseline`` records become known (suppressed); with
    ``--write-baseline`` today's findings become the known ones, for this run as for the
    next. Says on stderr what was written, or which entries no longer match."""
    from rackdesigner.check.suppressions import apply_baseline, record_baseline

    stale = 0
    if known is not None:
        _, stale = apply_baseline(known, diagnostics, files)
    if write_baseline:
        text, recorded = record_baseline(diagnostics)
        write_output(write_baseline, text)
        click.echo(
            f"rackdesigner: wrote {plural(recorded, 'finding')} to the baseline "
            f"{shown(write_baseline)}",
            err=True,
        )
    elif stale:
        click.echo(
            f"rackdesigner: {plural(stale, 'baseline entry', 'baseline entries')} no longer "
            f"{'matches' if stale == 1 else 'match'} a finding (fixed since); "
            f"--write-baseline {shown(str(baseline))} drops {'it' if stale == 1 else 'them'}",
            err=True,
        )


def _write_report(
    results: list[FileResult], fmt_: str, output: str | None, options: Options
) -> None:
    """The report in format ``fmt_``, to ``output`` or standard output: a machine format
    exactly (escaped only on a terminal), the text for people as it is."""
    from rackdesigner.check.formats import named

    format_ = named(fmt_)
    text = format_.load()(results, options)
    if not format_.for_people:
        emit(text, output, exact=True)
    elif output:
        write_output(output, text)
    else:
        click.echo(text, nl=False, color=options.color)


def exit_code(diagnostics: Sequence[Diagnostic], strict: bool) -> int:
    """2 when a file did not load; 1 with errors (with ``strict``, warnings too) that no
    ignore key or baseline suppresses; else 0."""
    if any(d.is_load_error for d in diagnostics):
        return 2
    failing = ("error", "warning") if strict else ("error",)
    return int(any(d.severity in failing for d in diagnostics if not d.suppressed))


def _check_stdin(
    select: list[str], ignore: list[str], timings: dict[str, float] | None
) -> FileResult:
    from rackdesigner.check.engine import FileResult, check_file
    from rackdesigner.cli.loading import stdin_text
    from rackdesigner.model.diagnostics import LayoutError

    try:
        text = stdin_text()
    except LayoutError as error:
        return FileResult(STDIN_NAME, diagnostics=error.diagnostics)
    return check_file(STDIN_NAME, select=select, ignore=ignore, timings=timings, text=text)
