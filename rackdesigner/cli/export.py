"""``rackdesigner export``: a layout's files, one option per kind of
:data:`rackdesigner.export.registry.KINDS`, and ``--toml`` (the canonical rewrite)."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from rackdesigner.cli import progress
from rackdesigner.cli.conventions import (
    STDIN,
    STDIN_NAME,
    F,
    check_writable,
    emit,
    fail,
    refuse_overwrite,
    write_outputs,
)
from rackdesigner.cli.loading import open_or_exit
from rackdesigner.model.collector import collection_paused
from rackdesigner.model.terminal import shown

if TYPE_CHECKING:
    from rackdesigner.layout_io.document import Document


def _export_options(command: F) -> F:
    """Add one option per registered export kind and shared setting (export/registry.py)."""
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


@click.command(help=_EXPORT_HELP, short_help=_EXPORT_SHORT_HELP)
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
@collection_paused()
def export(layout: str, toml_out: str | None, force: bool, **options: object) -> None:
    from rackdesigner.export.registry import KINDS, SETTINGS, ExportContext, ExportError

    wanted = [(entry, options[entry.dest]) for entry in KINDS if options.get(entry.dest)]
    if not toml_out and not wanted:
        raise click.UsageError("nothing to export: give at least one output option (see --help)")
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
    with progress.bar() as bar:
        progress.report(f"loading {shown(STDIN_NAME if layout == STDIN else layout)}", 0, 0)
        document = open_or_exit(layout)
        if wanted:
            context = ExportContext(
                document.layout,
                file=layout,
                settings={s.dest: options.get(s.dest) for s in SETTINGS},
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
    if toml_out:
        _write_toml(document, layout, toml_out, force)


def _write_toml(document: Document, layout: str, toml_out: str, force: bool) -> None:
    """``--toml``: the layout in canonical form to standard output, another file, or its
    own (the formatter, refused where comments would be lost unless ``force``); a note
    names the comments the copy lacks."""
    from rackdesigner.layout_io import dumps
    from rackdesigner.layout_io.document import CommentsLostError, SaveError, save

    dropped = document.dropped_comments
    note = (
        f"rackdesigner: note: {shown(str(CommentsLostError(layout, dropped)))}" if dropped else ""
    )
    if toml_out == STDIN:
        if dropped:
            click.echo(note, err=True)
        emit(dumps(document.layout), exact=True)
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
        click.echo(note, err=True)
