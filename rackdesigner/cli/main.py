"""The ``rackdesigner`` command line. Entry points only: the work happens in the core modules.

The headless commands never import Textual (a test checks), so ``validate`` in
CI starts fast and needs no terminal.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import sys
import textwrap
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from rackdesigner import __version__
from rackdesigner.cli import progress
from rackdesigner.cli.catalog_import import KEY as CATALOG_KEY
from rackdesigner.cli.catalog_import import CatalogGroup, catalog_import
from rackdesigner.cli.conventions import (
    STDIN,
    STDIN_NAME,
    Conventions,
    check_writable,
    emit,
    excluded,
    fail,
    format_option,
    output_for,
    output_option,
    refuse_overwrite,
    write_output,
    write_outputs,
)
from rackdesigner.model.terminal import shown
from rackdesigner.model.wording import plural

if TYPE_CHECKING:
    from rackdesigner.check.engine import FileResult
    from rackdesigner.layout_io.document import Document
    from rackdesigner.model.layout import Layout

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


def _batch() -> None:
    """Tune the interpreter for a short run over a large layout.

    Loading a 100,000-GPU layout creates millions of objects that all live until the
    process exits; the cyclic garbage collector would walk them again and again (half of
    the analysis time) to find nothing, since the model holds no reference cycles.
    """
    gc.disable()


def _use_color(stream: object) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


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


@click.group(
    cls=Conventions,
    invoke_without_command=True,
    subcommand_metavar="COMMAND [ARGS]... | LAYOUT",
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, "-V", "--version", prog_name="rackdesigner")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Lay out GPU-cluster racks, check them against hard-won rules, export what operations need.

    \b
    Start with:
      rackdesigner validate layouts/training-128.toml
      rackdesigner rules            # what is checked, and why
      rackdesigner catalog          # the built-in devices and GPUs
      rackdesigner LAYOUT           # open LAYOUT in the designer (a command name wins)
    """
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


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
    (standard input). ``exclude`` globs skip files (see cli_conventions.excluded)."""
    skipped = 0
    for path in paths:
        if path == STDIN:
            yield path
            continue
        p = Path(path)
        if _is_dir(p):
            found = sorted(
                f
                for f in p.rglob("*.toml")
                if (f.is_file() or _broken_link(f))
                and not any(part.startswith(".") for part in f.relative_to(p).parts[:-1])
            )
            kept = [f for f in found if not excluded(str(f), path, exclude)]
            layouts = [f for f in kept if looks_like_layout(f)]
            skipped += len(kept) - len(layouts)
            if not layouts:
                left_out = len(found) - len(kept)
                raise click.UsageError(
                    f"no *.toml layouts under {shown(path)}"
                    + (f" ({plural(left_out, 'file')} excluded by --exclude)" if left_out else "")
                )
            for f in layouts:
                yield str(f)
        elif excluded(path, None, exclude):
            continue
        elif only_layouts and p.is_file() and not looks_like_layout(p):
            skipped += 1
        else:
            yield path
    if skipped:
        click.echo(
            f"rackdesigner: skipped {plural(skipped, 'TOML file')} that "
            f"{'is' if skipped == 1 else 'are'} not a layout (no `format = 1`)",
            err=True,
        )


@cli.command(epilog=EPILOG_VALIDATE)
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@format_option("text", "json", "sarif", "junit", "github", help="Output format.")
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
    from rackdesigner.check.suppressions import (
        BY_BASELINE,
        BaselineError,
        apply_baseline,
        baselinable,
        baseline_json,
        parse_baseline,
    )

    if group_by and fmt_ != "text":
        raise click.UsageError("--group-by works with --format text only")
    if output == STDIN:
        output = None  # `-o -`: standard output, as for export --toml -
    if list(paths).count(STDIN) > 1:
        raise click.UsageError("standard input ('-') can be read only once")
    _batch()
    timings: dict[str, float] | None = {} if os.environ.get("RACKDESIGNER_TIMINGS") else None
    started = time.perf_counter()
    files = list(expand(paths, only_layouts, exclude))
    # Nothing is written onto an input: a layout, or the baseline being read (rewriting the
    # baseline itself with --write-baseline is how it is updated).
    inputs = [(f, "an input layout") for f in files]
    refuse_overwrite(
        [(output or "", "--output"), (write_baseline or "", "--write-baseline")],
        inputs,
    )
    refuse_overwrite([(output or "", "--output")], [(baseline or "", "the baseline")])
    # Fail now, not after a long check, where the report could not be written.
    check_writable(output)
    check_writable(write_baseline)
    known = None
    if baseline:
        try:
            known = parse_baseline(Path(baseline).read_text(encoding="utf-8"), baseline)
        except OSError as error:
            fail(f"cannot read baseline {baseline}: {error.strerror or error}")
        except (BaselineError, UnicodeDecodeError) as error:
            fail(str(error))
    # The checking machinery (pint, networkx) loads only once the command line is sound.
    from rackdesigner.check.engine import check_file
    from rackdesigner.check.formats import Options, renderer

    results: list[FileResult] = []
    # Findings are reported sorted by file, then line.
    files.sort()
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
            # Without a bar, progress only for runs that take a while, at most once a
            # second, on stderr.
            if bar is None and len(files) > 1 and now - reported >= 1.0:
                reported = now
                click.echo(
                    f"rackdesigner: checked {number} of {len(files)} files ({now - started:.1f} s)",
                    err=True,
                )
    began = time.perf_counter()
    diagnostics = [d for r in results for d in r.diagnostics]
    stale = 0
    if known is not None:
        _, stale = apply_baseline(known, diagnostics, [r.file for r in results])
    if write_baseline:
        # Today's findings become the known ones, for this run as for the next.
        recorded = [d for d in diagnostics if baselinable(d)]
        write_output(write_baseline, baseline_json(recorded))
        for d in recorded:
            d.suppressed = BY_BASELINE
        click.echo(
            f"rackdesigner: wrote {plural(len(recorded), 'finding')} to the baseline "
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
    options = Options(
        strict=strict,
        quiet=quiet,
        totals=totals,
        select=tuple(select),
        ignore=tuple(ignore),
        color=fmt_ == "text" and output is None and _use_color(sys.stdout),
        group_by=group_by,
    )
    text = renderer(fmt_)(results, options)
    if fmt_ != "text":  # the machine formats: exact, but escaped on a terminal
        emit(text, output, exact=True)
    elif output:
        write_output(output, text)
    else:
        click.echo(text, nl=False, color=options.color)
    if timings is not None:
        timings["output"] = time.perf_counter() - began
        timings["total"] = time.perf_counter() - started
        click.echo(json.dumps({"timings": {k: round(v, 4) for k, v in timings.items()}}), err=True)
    if any(d.is_load_error for d in diagnostics):
        sys.exit(2)
    if any(
        d.severity == "error" or (strict and d.severity == "warning")
        for d in diagnostics
        if not d.suppressed
    ):
        sys.exit(1)


def _stdin_text() -> str:
    """Standard input as layout text; a LayoutError (E000) when it cannot be one."""
    from rackdesigner.cli.conventions import read_stdin
    from rackdesigner.layout_io.reader import MAX_FILE_BYTES, decode_text
    from rackdesigner.model.diagnostics import Diagnostic, LayoutError

    data = read_stdin(MAX_FILE_BYTES)
    if len(data) > MAX_FILE_BYTES:
        raise LayoutError(
            [
                Diagnostic(
                    "E000",
                    "error",
                    f"more than the {MAX_FILE_BYTES / 2**20:.0f} MiB a layout may be; set "
                    "RACKDESIGNER_MAX_FILE_BYTES to raise the limit",
                    entity="file",
                    file=STDIN_NAME,
                    line=1,
                )
            ]
        )
    return decode_text(data, STDIN_NAME)


def _check_stdin(
    select: list[str], ignore: list[str], timings: dict[str, float] | None
) -> FileResult:
    from rackdesigner.check.engine import FileResult, check_file
    from rackdesigner.model.diagnostics import LayoutError

    try:
        text = _stdin_text()
    except LayoutError as error:
        return FileResult(STDIN_NAME, diagnostics=error.diagnostics)
    return check_file(STDIN_NAME, select=select, ignore=ignore, timings=timings, text=text)


def _load_or_exit(path: str) -> Layout:
    """Load a layout for a command that needs one ('-': standard input); print load errors
    and exit 2."""
    return _open_or_exit(path).layout


def _open_or_exit(path: str) -> Document:
    """Load a document (layout, source map, origin; '-': standard input, named
    ``<stdin>``); print load errors and exit 2."""
    from rackdesigner.check.engine import rule_config_errors
    from rackdesigner.check.formats.text import line
    from rackdesigner.layout_io.document import load
    from rackdesigner.model.diagnostics import LayoutError

    try:
        if path == STDIN:
            from rackdesigner.layout_io.document import loads

            document = loads(_stdin_text(), file=STDIN_NAME)
        else:
            document = load(path)
        errors = rule_config_errors(document, STDIN_NAME if path == STDIN else None)
        if errors:
            raise LayoutError(errors)
    except LayoutError as error:
        for d in error.diagnostics:
            click.echo(line(d, _use_color(sys.stderr)), err=True)
        sys.exit(2)
    return document


def _export_options(command: click.Command) -> click.Command:
    """Add one option per registered export kind and shared setting (exporters.py)."""
    from rackdesigner.export.registry import KINDS, SETTINGS

    for setting in reversed(SETTINGS):
        if setting.flag:
            option = click.option(setting.option, setting.dest, is_flag=True, help=setting.help)
        else:
            option = click.option(
                setting.option,
                setting.dest,
                type=click.Choice(setting.choices) if setting.choices else str,
                default=setting.default,
                show_default=setting.default is not None,
                metavar=setting.metavar,
                help=setting.help,
            )
        command = option(command)
    for entry in reversed(KINDS):
        command = click.option(
            entry.option,
            entry.dest,
            # A file given for a folder is one line from check_writable, not click's usage.
            type=click.Path(readable=False),
            metavar=entry.metavar,
            help=entry.help,
            multiple=True,  # to see a repeat, which click would drop silently
            callback=_one_path,
        )(command)
    return command


def _one_path(
    context: click.Context, parameter: click.Parameter, values: tuple[str, ...]
) -> str | None:
    """An export option's one path; given twice, refused (exit 2) rather than the first
    silently dropped: each option writes one file (``--hostfile`` derives the others)."""
    if len(values) > 1:
        names = ", ".join(values)
        raise click.BadParameter(
            f"given {len(values)} times ({names}); it writes one file: run export once per file",
            ctx=context,
            param=parameter,
        )
    return values[0] if values else None


def _write_outputs(outputs: list, inputs: list[str], also: Sequence[tuple[str, str]] = ()) -> None:
    """Write the exports as one (conventions.write_outputs). First, for whatever path an
    exporter chose (including ones it derives, such as one file per rack), refuse an output
    that is an input or that another output (or one of ``also``) writes too: nothing is
    written then."""
    refuse_overwrite(
        [*((str(o.path), "an export") for o in outputs), *also],
        [(source, "the input layout") for source in inputs],
    )
    # Every file is rendered by now; they are written as one (all, or none this run made).
    write_outputs([(output.path, output.data) for output in outputs])


def _export_help() -> tuple[str, str]:
    """``export``'s help and short help, from what the registry really writes."""
    from rackdesigner.export.registry import KINDS

    options = ["--toml", *(entry.option for entry in KINDS)]
    short = (
        "Write a layout in canonical TOML form"
        if not KINDS
        else f"Write a layout's files: {', '.join(options)}"
    )
    # One entry per kind, its description wrapped under it: the lines stay within 80 columns.
    kinds = [("--toml FILE", "The layout in canonical TOML form ('-' for stdout).")] + [
        (f"{entry.option} {entry.metavar}", entry.help) for entry in KINDS
    ]
    written = [
        line
        for name, description in kinds
        for line in [
            f"  {name}",
            *textwrap.wrap(description, 76, initial_indent="      ", subsequent_indent="      "),
        ]
    ]
    text = (
        (f"{short}." if not KINDS else f"{short}; any number in one run, from one load.") + "\n\n"
        "\b\nWrites:\n" + "\n".join(written) + "\n\n"
        "An output that is the input layout (or that two options name) is refused before "
        "anything is written; --toml onto its own input is the canonical rewrite in place "
        "(the formatter), which keeps the file's header comment and comments directly above "
        "a table, and is refused where it would drop other comments unless --force. A "
        "symlinked layout is rewritten where it points; the link stays.\n\n"
        "\b\nExamples:\n"
        "  rackdesigner export cluster.toml --toml cluster.toml   # canonical rewrite in place\n"
        "  rackdesigner export cluster.toml --toml -\n"
        "  rackdesigner export cluster.toml --slurm-topology topology.conf --hostfile hostfile \\\n"
        "      --cables cables.csv --power power.csv --bom bom.csv --graph fabric.json\n"
    )
    return text, short


_EXPORT_HELP, _EXPORT_SHORT_HELP = _export_help()


@cli.command(help=_EXPORT_HELP, short_help=_EXPORT_SHORT_HELP)
@click.argument("layout", type=click.Path(readable=False))
@_export_options
@click.option(
    "--toml",
    "toml_out",
    type=click.Path(),
    help="Write the layout in canonical form to FILE ('-' for stdout).",
)
@click.option(
    "--force", is_flag=True, help="Rewrite the layout in place even where comments cannot be kept."
)
def export(layout: str, toml_out: str | None, force: bool, **options: object) -> None:
    from rackdesigner.export.registry import KINDS, SETTINGS, ExportContext, ExportError

    wanted = [(entry, options[entry.dest]) for entry in KINDS if options.get(entry.dest)]
    if not toml_out and not wanted:
        raise click.UsageError("nothing to export: give at least one output option (see --help)")
    from rackdesigner.model.terminal import shown as escaped

    # Every output option is checked against the input before anything is loaded or
    # written; --toml onto the input is the formatter and is allowed.
    targets = [(str(target), entry.option) for entry, target in wanted]
    toml_target = [(toml_out, "--toml")] if toml_out and toml_out != STDIN else []
    refuse_overwrite(targets, [(layout, "the input layout")])
    refuse_overwrite([*targets, *toml_target], [])
    for entry, target in wanted:
        check_writable(str(target), parents=True, directory=entry.directory)
    if toml_target:
        check_writable(toml_out)
    from rackdesigner.layout_io import dumps
    from rackdesigner.layout_io.document import CommentsLostError, SaveError, save

    _batch()
    with progress.bar() as bar:
        progress.report(f"loading {shown(STDIN_NAME if layout == STDIN else layout)}", 0, 0)
        document = _open_or_exit(layout)
        model = document.layout
        if wanted:
            context = ExportContext(
                model, file=layout, settings={s.dest: options.get(s.dest) for s in SETTINGS}
            )
            outputs = []
            try:
                for entry, target in wanted:
                    outputs.extend(entry.load()(context, Path(str(target))))
            except ExportError as error:
                if bar is not None:
                    bar.close()
                fail(str(error))
            progress.report("writing the files", 0, 0)
            _write_outputs(outputs, [layout], toml_target)
    if not toml_out:
        return
    dropped = document.dropped_comments
    if toml_out == STDIN:
        if dropped:
            click.echo(
                f"rackdesigner: note: {escaped(str(CommentsLostError(layout, dropped)))}", err=True
            )
        emit(dumps(model), exact=True)
        return
    try:
        # Through a symlink the file it points to is rewritten and the link kept
        # (document.save, write_atomic).
        save(document, toml_out, force=force)
    except CommentsLostError as error:
        fail(
            f"not rewriting {layout}: {error}; move them above a "
            "table, or rerun with --force to drop them"
        )
    except SaveError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write {toml_out}: {error.strerror or error}")
    if dropped:  # written elsewhere, or in place with --force: say what the copy lacks
        click.echo(
            f"rackdesigner: note: {escaped(str(CommentsLostError(layout, dropped)))}", err=True
        )


@cli.command()
@click.argument("layout", type=click.Path(readable=False))
@format_option("text", "json", "csv", help="json and csv give figures in SI base units.")
@output_option("Write the report to FILE instead of stdout.")
@click.option(
    "--hostfile",
    "hostfile",
    default="hostfile",
    show_default=True,
    metavar="NAME",
    help="The hostfile the nccl-tests command names (as written by export --hostfile NAME).",
)
def report(layout: str, fmt_: str, output: str | None, hostfile: str) -> None:
    """Power, cooling, compute, network, storage and cost summary of a layout ('-':
    standard input).

    \b
    Examples:
      rackdesigner report layouts/training-128.toml
      rackdesigner report cluster.toml --format csv -o cluster.csv
      rackdesigner report cluster.toml --hostfile hosts/cluster   # names it in mpirun
    """
    output = output_for(output, [(layout, "the input layout")])  # `-o -`: standard output
    from rackdesigner.analysis import Analysis
    from rackdesigner.report.report import build, to_csv, to_json, to_text

    _batch()
    with progress.bar():
        progress.report(f"loading {shown(STDIN_NAME if layout == STDIN else layout)}", 0, 0)
        model = _load_or_exit(layout)
        progress.report("analysing the layout", 0, 0)
        data = build(Analysis(model, file=STDIN_NAME if layout == STDIN else layout), hostfile)
        text = {"text": to_text, "json": to_json, "csv": to_csv}[fmt_](data)
    # For people, a label holding an escape sequence must not drive the terminal; the CSV
    # and JSON keep it exact, but on a terminal they are escaped too.
    emit(text, output, exact=fmt_ != "text")


@cli.group(cls=CatalogGroup, invoke_without_command=True)
@format_option("text", "json")
@click.option(
    "--power",
    "power",
    is_flag=True,
    help="List the power-chain models (UPSs, transformers) a power element may name.",
)
@click.pass_context
def catalog(ctx: click.Context, fmt_: str, power: bool) -> None:
    """List the device and GPU catalog (built-in, then the user catalog), or show one
    entry (`catalog KEY`) with its figures; `catalog import` reads NetBox device types;
    `catalog --power` lists the power-chain models with their sources.

    \b
    Examples:
      rackdesigner catalog
      rackdesigner catalog dgx-h100
      rackdesigner catalog h100-sxm --format json
      rackdesigner catalog --power
      rackdesigner catalog import ~/src/devicetype-library/device-types/Nvidia
    """
    if ctx.invoked_subcommand is not None:
        return
    if power:
        from rackdesigner.cli.catalog_view import power_listing_text, power_models_json
        from rackdesigner.layout_io.catalog import power_models

        models = power_models()
        if fmt_ == "json":
            text = json.dumps(power_models_json(models), indent=2, ensure_ascii=False) + "\n"
            emit(text, exact=True)
        else:
            emit(power_listing_text(models))
        return
    key = ctx.meta.get(CATALOG_KEY)
    from rackdesigner.cli.catalog_view import entry_json, entry_text, listing_text
    from rackdesigner.layout_io.catalog import installed

    known = installed()  # a broken user catalog: UserCatalogError, reported by main()
    if key is None:
        if fmt_ == "json":
            data = {
                "devices": {k: entry_json(v, known.origin(k)) for k, v in known.devices.items()},
                "gpus": {
                    k: entry_json(v, known.origin(k, gpu=True)) for k, v in known.gpus.items()
                },
            }
            emit(json.dumps(data, indent=2, ensure_ascii=False) + "\n", exact=True)
        else:
            emit(listing_text(known))  # imported names: escaped, as every command's
        return
    entry = known.devices.get(key) or known.gpus.get(key)
    if entry is None:
        near = known.nearest(key) + known.nearest_gpu(key)
        hint = f"; did you mean {' or '.join(near)}?" if near else ""
        click.echo(f"rackdesigner: no catalog entry {shown(repr(key))}{hint}", err=True)
        sys.exit(2)
    if fmt_ == "json":
        origin = known.origin(key, gpu=key not in known.devices)
        emit(json.dumps(entry_json(entry, origin), indent=2, ensure_ascii=False) + "\n", exact=True)
    else:
        emit(entry_text(entry, known))


@cli.command()
@click.argument("code", required=False)
@format_option(
    "text",
    "json",
    "markdown",
    help="markdown writes the whole catalogue as one page (docs/rules.md).",
)
def rules(code: str | None, fmt_: str) -> None:
    """List the rules (code, severity, title), or explain one.

    \b
    Examples:
      rackdesigner rules
      rackdesigner rules PWR001
      rackdesigner rules --format markdown > docs/rules.md
    """
    from rackdesigner.model.diagnostics import LOAD_CODES
    from rackdesigner.rules.docs import explain, listing, markdown, rule_json
    from rackdesigner.rules.registry import all_rules

    registry = all_rules()
    if code is None:
        if fmt_ == "markdown":
            click.echo(markdown(registry.values()), nl=False)
        elif fmt_ == "json":
            click.echo(
                json.dumps([rule_json(r) for r in registry.values()], indent=2, ensure_ascii=False)
            )
        else:
            click.echo(listing(registry.values()), nl=False)
        return
    if code.upper() in LOAD_CODES:
        click.echo(
            f"{code.upper()}: {LOAD_CODES[code.upper()]}\n\nA load error, not a rule: "
            "the file could not be turned into a layout, so no rule ran on it. It "
            "always fails the run (exit 2) and cannot be ignored; the message names "
            "the line, the key and what was expected."
        )
        return
    rule = registry.get(code.upper())
    if rule is None:
        import difflib

        near = difflib.get_close_matches(code.upper(), list(registry), n=3)
        hint = f"; did you mean {' or '.join(near)}?" if near else ""
        click.echo(f"rackdesigner: no rule {shown(repr(code))}{hint}", err=True)
        sys.exit(2)
    if fmt_ == "json":
        click.echo(json.dumps(rule_json(rule), indent=2, ensure_ascii=False))
    elif fmt_ == "markdown":
        click.echo(markdown([rule]), nl=False)
    else:
        click.echo(explain(rule), nl=False)


@cli.command()
@output_option("Write the schema to FILE instead of stdout.")
def schema(output: str | None) -> None:
    """Print the JSON Schema of the layout format, for editor completion.

    \b
    Example (Taplo / Even Better TOML): save it and add to the top of a layout
      #:schema ./rackdesigner.schema.json
    """
    output = output_for(output)
    from rackdesigner.layout_io.json_schema import layout_schema

    emit(json.dumps(layout_schema(), indent=2, ensure_ascii=False) + "\n", output, exact=True)


from rackdesigner.cli.edit import edit  # noqa: E402  (the designer; imports Textual only when run)
from rackdesigner.cli.fabric import generate as _generate_command  # noqa: E402
from rackdesigner.cli.fabric import new as _new_command  # noqa: E402

catalog.add_command(catalog_import)
cli.add_command(edit)
cli.add_command(_new_command)
cli.add_command(_generate_command)
# Imported when run (or listed): whatif loads networkx, diff, verify and the NetBox commands
# their own parts (pynetbox).
cli.lazy.update(
    {
        "whatif": "rackdesigner.cli.whatif:whatif",
        "diff": "rackdesigner.cli.diff:diff",
        "verify": "rackdesigner.cli.verify:verify",
        "push": "rackdesigner.cli.netbox:push",
        "pull": "rackdesigner.cli.netbox:pull",
    }
)


def main() -> None:
    from rackdesigner.cli.conventions import interrupted
    from rackdesigner.layout_io.catalog import UserCatalogError
    from rackdesigner.layout_io.saving import terminate_on_sigterm

    # SIGTERM (a CI cancellation) cleans up as Ctrl-C does, and exits 143.
    terminate_on_sigterm()
    try:
        cli(prog_name="rackdesigner")
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        if isinstance(exit_.code, str):
            click.echo(exit_.code, err=True)
    except KeyboardInterrupt as error:
        code = interrupted(error)
    except UserCatalogError as error:  # not a bug: the user's catalog.toml is broken
        click.echo(f"rackdesigner: the user catalog is not valid: {shown(str(error))}", err=True)
        code = 2
    except Exception as error:  # a bug: say so without a traceback, and exit apart from 1
        if os.environ.get("RACKDESIGNER_DEBUG"):
            import traceback

            traceback.print_exc()
        click.echo(
            f"rackdesigner: internal error: {type(error).__name__}: {shown(str(error))}; please "
            "report it (set RACKDESIGNER_DEBUG=1 for the traceback)",
            err=True,
        )
        code = 2
    # Freeing a 100,000-GPU layout object by object takes longer than checking it; the
    # process is done, so leave without tearing the heap down.
    for stream in (sys.stdout, sys.stderr):
        # A reader that went away (`| head`) needs nothing more.
        with contextlib.suppress(OSError):
            stream.flush()
    os._exit(code)
