"""The ``rackdesigner`` command line. Entry points only: the work happens in the core modules.

The headless commands never import Textual (a test checks), so ``validate`` in
CI starts fast and needs no terminal.
"""

from __future__ import annotations

import gc
import json
import os
import re
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from . import __version__
from .wording import plural

if TYPE_CHECKING:
    from .document import Document
    from .model import Layout

EPILOG_VALIDATE = """\b
Examples:
  rackdesigner validate layouts/training-128.toml
  rackdesigner validate layouts/ --format sarif --output results.sarif
  rackdesigner validate cluster.toml --select PWR,COOL --ignore PLC006 --strict

\b
Exit codes: 0 no errors (and no warnings with --strict), 1 rule errors found,
2 a file could not be read or parsed, or the command was used wrongly.
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
    from .rules.registry import unknown_patterns

    codes = [part.strip().upper() for part in value.split(",") if part.strip()]
    unknown = unknown_patterns(codes)
    if unknown:
        raise click.BadParameter(
            f"no rule matches {', '.join(unknown)} (`rackdesigner rules` lists them)"
        )
    return codes


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="rackdesigner")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Lay out GPU-cluster racks, check them against hard-won rules, export what operations need.

    \b
    Start with:
      rackdesigner validate layouts/training-128.toml
      rackdesigner rules            # what is checked, and why
      rackdesigner catalog          # the built-in devices and GPUs
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


def expand(paths: Sequence[str], only_layouts: bool = False) -> Iterator[str]:
    """Files as given; directories as every ``*.toml`` layout under them (hidden folders and
    TOML files that are not layouts, such as pyproject.toml, skipped)."""
    skipped = 0
    for path in paths:
        p = Path(path)
        if p.is_dir():
            found = sorted(
                f
                for f in p.rglob("*.toml")
                if f.is_file()
                and not any(part.startswith(".") for part in f.relative_to(p).parts[:-1])
            )
            layouts = [f for f in found if looks_like_layout(f)]
            skipped += len(found) - len(layouts)
            if not layouts:
                raise click.UsageError(f"no *.toml layouts under {path}")
            for f in layouts:
                yield str(f)
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
@click.option(
    "--format",
    "fmt_",
    type=click.Choice(["text", "json", "sarif", "junit", "github"]),
    default="text",
    show_default=True,
    help="Output format.",
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
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, writable=True),
    help="Write the report to FILE instead of stdout.",
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
    only_layouts: bool,
    totals: str,
) -> None:
    """Check layout files, or every *.toml layout under a directory."""
    from .engine import check_file
    from .formats import Options, renderer

    _batch()
    timings: dict[str, float] | None = {} if os.environ.get("RACKDESIGNER_TIMINGS") else None
    started = time.perf_counter()
    files = list(expand(paths, only_layouts))
    results = []
    # Findings are reported sorted by file, then line.
    files.sort()
    reported = started
    for number, file in enumerate(files, start=1):
        results.append(check_file(file, select=select, ignore=ignore, timings=timings))
        now = time.perf_counter()
        # Progress only for runs that take a while, at most once a second, on stderr.
        if len(files) > 1 and now - reported >= 1.0:
            reported = now
            click.echo(
                f"rackdesigner: checked {number} of {len(files)} files ({now - started:.1f} s)",
                err=True,
            )
    began = time.perf_counter()
    options = Options(
        strict=strict,
        quiet=quiet,
        totals=totals,
        select=tuple(select),
        ignore=tuple(ignore),
        color=fmt_ == "text" and output is None and _use_color(sys.stdout),
    )
    text = renderer(fmt_)(results, options)
    if output:
        _write(output, text)
    else:
        click.echo(text, nl=False, color=options.color)
    if timings is not None:
        timings["output"] = time.perf_counter() - began
        timings["total"] = time.perf_counter() - started
        click.echo(json.dumps({"timings": {k: round(v, 4) for k, v in timings.items()}}), err=True)
    diagnostics = [d for r in results for d in r.diagnostics]
    if any(d.is_load_error for d in diagnostics):
        sys.exit(2)
    if any(d.severity == "error" or (strict and d.severity == "warning") for d in diagnostics):
        sys.exit(1)


def _write(path: str, text: str) -> None:
    """Write a report to ``path``, or say why not and exit 2."""
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as error:
        click.echo(f"rackdesigner: cannot write {path}: {error.strerror or error}", err=True)
        sys.exit(2)


def _load_or_exit(path: str) -> Layout:
    """Load a layout for a command that needs one; print load errors and exit 2."""
    return _open_or_exit(path).layout


def _open_or_exit(path: str) -> Document:
    """Load a document (layout, source map, origin); print load errors and exit 2."""
    from .diagnostics import LayoutError
    from .document import load
    from .engine import rule_config_errors
    from .formats.text import line

    try:
        document = load(path)
        errors = rule_config_errors(document)
        if errors:
            raise LayoutError(errors)
    except LayoutError as error:
        for d in error.diagnostics:
            click.echo(line(d, _use_color(sys.stderr)), err=True)
        sys.exit(2)
    return document


def _export_options(command: click.Command) -> click.Command:
    """Add one option per registered export kind and shared setting (exporters.py)."""
    from .exporters import KINDS, SETTINGS

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
            type=click.Path(file_okay=not entry.directory),
            metavar=entry.metavar,
            help=entry.help,
        )(command)
    return command


def _write_outputs(outputs: list, inputs: list[str]) -> None:
    """Write each export atomically; an output that is an input is refused first."""
    from .layout_io.saving import write_atomic

    for output in outputs:
        for source in inputs:
            if output.path.exists() and os.path.samefile(output.path, source):
                click.echo(
                    f"rackdesigner: not writing {output.path}: it is the input layout", err=True
                )
                sys.exit(2)
    for output in outputs:
        try:
            output.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(output.path, output.data)
        except OSError as error:
            click.echo(f"rackdesigner: cannot write {output.path}: {error.strerror}", err=True)
            sys.exit(2)


@cli.command()
@click.argument("layout", type=click.Path(dir_okay=False))
@_export_options
@click.option(
    "--toml",
    "toml_out",
    type=click.Path(dir_okay=False),
    help="Write the layout in canonical form to FILE ('-' for stdout).",
)
@click.option(
    "--force", is_flag=True, help="Rewrite the layout in place even where comments cannot be kept."
)
def export(layout: str, toml_out: str | None, force: bool, **options: object) -> None:
    """Write a layout as diagrams and data files, any number in one run.

    \b
    Examples:
      rackdesigner export cluster.toml --toml cluster.toml   # canonical rewrite in place
      rackdesigner export cluster.toml --toml -
      rackdesigner export cluster.toml --slurm-topology topology.conf --hostfile hostfile \\
          --cables cables.csv --power power.csv --bom bom.csv --graph fabric.json

    Canonical form keeps the file's header comment and comments directly above a table.
    Rewriting a layout in place that has other comments is refused unless --force.
    """
    from .exporters import KINDS, SETTINGS, ExportContext, ExportError

    wanted = [(entry, options[entry.dest]) for entry in KINDS if options.get(entry.dest)]
    if not toml_out and not wanted:
        raise click.UsageError("nothing to export: give at least one output option (see --help)")
    from .document import CommentsLostError, SaveError, save
    from .layout_io import dumps

    _batch()
    document = _open_or_exit(layout)
    model = document.layout
    if wanted:
        for _, target in wanted:
            if Path(str(target)).exists() and os.path.samefile(str(target), layout):
                click.echo(f"rackdesigner: not writing {target}: it is the input layout", err=True)
                sys.exit(2)
        context = ExportContext(
            model, file=layout, settings={s.dest: options.get(s.dest) for s in SETTINGS}
        )
        outputs = []
        try:
            for entry, target in wanted:
                outputs.extend(entry.load()(context, Path(str(target))))
        except ExportError as error:
            click.echo(f"rackdesigner: {error}", err=True)
            sys.exit(2)
        _write_outputs(outputs, [layout])
    if not toml_out:
        return
    dropped = document.dropped_comments
    if toml_out == "-":
        if dropped:
            click.echo(f"rackdesigner: note: {CommentsLostError(layout, dropped)}", err=True)
        click.echo(dumps(model), nl=False)
        return
    try:
        save(document, toml_out, force=force)
    except CommentsLostError as error:
        click.echo(
            f"rackdesigner: not rewriting {layout}: {error}; move them above a "
            "table, or rerun with --force to drop them",
            err=True,
        )
        sys.exit(2)
    except SaveError as error:
        click.echo(f"rackdesigner: {error}", err=True)
        sys.exit(2)
    except OSError as error:
        click.echo(f"rackdesigner: cannot write {toml_out}: {error.strerror}", err=True)
        sys.exit(2)
    if dropped:  # written elsewhere, or in place with --force: say what the copy lacks
        click.echo(f"rackdesigner: note: {CommentsLostError(layout, dropped)}", err=True)


@cli.command()
@click.argument("layout", type=click.Path(dir_okay=False))
@click.option(
    "--format",
    "fmt_",
    type=click.Choice(["text", "json", "csv"]),
    default="text",
    show_default=True,
    help="json and csv give figures in SI base units.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    help="Write the report to FILE instead of stdout.",
)
@click.option(
    "--hostfile",
    "hostfile",
    default="hostfile",
    show_default=True,
    metavar="NAME",
    help="The hostfile the nccl-tests command names (as written by export --hostfile NAME).",
)
def report(layout: str, fmt_: str, output: str | None, hostfile: str) -> None:
    """Power, cooling, compute, network, storage and cost summary of a layout.

    \b
    Examples:
      rackdesigner report layouts/training-128.toml
      rackdesigner report cluster.toml --format csv -o cluster.csv
      rackdesigner report cluster.toml --hostfile hosts/cluster   # names it in mpirun
    """
    from .analysis import Analysis
    from .report import build, to_csv, to_json, to_text

    _batch()
    model = _load_or_exit(layout)
    data = build(Analysis(model, file=layout), hostfile)
    text = {"text": to_text, "json": to_json, "csv": to_csv}[fmt_](data)
    if output:
        _write(output, text)
    else:
        click.echo(text, nl=False)


@cli.command()
@click.argument("key", required=False)
@click.option(
    "--format", "fmt_", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def catalog(key: str | None, fmt_: str) -> None:
    """List the built-in device and GPU catalog, or show one entry with its figures.

    \b
    Examples:
      rackdesigner catalog
      rackdesigner catalog dgx-h100
      rackdesigner catalog h100-sxm --format json
    """
    from .catalog import builtin
    from .catalog_view import entry_json, entry_text, listing_text

    known = builtin()
    if key is None:
        if fmt_ == "json":
            click.echo(
                json.dumps(
                    {
                        "devices": {k: entry_json(v) for k, v in known.devices.items()},
                        "gpus": {k: entry_json(v) for k, v in known.gpus.items()},
                    },
                    indent=2,
                    ensure_ascii=False,
                )
            )
        else:
            click.echo(listing_text(known), nl=False)
        return
    entry = known.devices.get(key) or known.gpus.get(key)
    if entry is None:
        near = known.nearest(key) + known.nearest_gpu(key)
        hint = f"; did you mean {' or '.join(near)}?" if near else ""
        click.echo(f"rackdesigner: no catalog entry {key!r}{hint}", err=True)
        sys.exit(2)
    if fmt_ == "json":
        click.echo(json.dumps(entry_json(entry), indent=2, ensure_ascii=False))
    else:
        click.echo(entry_text(entry, known), nl=False)


@cli.command()
@click.argument("code", required=False)
@click.option(
    "--format",
    "fmt_",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
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
    from .diagnostics import LOAD_CODES
    from .rules.docs import explain, listing, markdown, rule_json
    from .rules.registry import all_rules

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
        click.echo(f"rackdesigner: no rule {code!r}{hint}", err=True)
        sys.exit(2)
    if fmt_ == "json":
        click.echo(json.dumps(rule_json(rule), indent=2, ensure_ascii=False))
    elif fmt_ == "markdown":
        click.echo(markdown([rule]), nl=False)
    else:
        click.echo(explain(rule), nl=False)


@cli.command()
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    help="Write the schema to FILE instead of stdout.",
)
def schema(output: str | None) -> None:
    """Print the JSON Schema of the layout format, for editor completion.

    \b
    Example (Taplo / Even Better TOML): save it and add to the top of a layout
      #:schema ./rackdesigner.schema.json
    """
    from .json_schema import layout_schema

    text = json.dumps(layout_schema(), indent=2, ensure_ascii=False) + "\n"
    if output:
        _write(output, text)
    else:
        click.echo(text, nl=False)


from .cli_edit import edit  # noqa: E402  (the designer; imports Textual only when run)
from .cli_fabric import generate as _generate_command  # noqa: E402
from .cli_fabric import new as _new_command  # noqa: E402

cli.add_command(edit)
cli.add_command(_new_command)
cli.add_command(_generate_command)


def main() -> None:
    try:
        cli(prog_name="rackdesigner")
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
        if isinstance(exit_.code, str):
            click.echo(exit_.code, err=True)
    except KeyboardInterrupt:
        click.echo("rackdesigner: interrupted", err=True)
        code = 130
    except Exception as error:  # a bug: say so without a traceback, and exit apart from 1
        if os.environ.get("RACKDESIGNER_DEBUG"):
            import traceback

            traceback.print_exc()
        click.echo(
            f"rackdesigner: internal error: {type(error).__name__}: {error}; please "
            "report it (set RACKDESIGNER_DEBUG=1 for the traceback)",
            err=True,
        )
        code = 2
    # Freeing a 100,000-GPU layout object by object takes longer than checking it; the
    # process is done, so leave without tearing the heap down.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
