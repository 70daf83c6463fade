"""``rackdesigner report``: the power, cooling, compute, network, storage and cost summary."""

from __future__ import annotations

import click

from rackdesigner.cli import progress
from rackdesigner.cli.conventions import (
    STDIN,
    STDIN_NAME,
    emit,
    format_option,
    output_for,
    output_option,
)
from rackdesigner.cli.loading import open_or_exit
from rackdesigner.model.collector import collection_paused
from rackdesigner.model.terminal import shown


@click.command()
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
@collection_paused()
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

    with progress.bar():
        progress.report(f"loading {shown(STDIN_NAME if layout == STDIN else layout)}", 0, 0)
        model = open_or_exit(layout).layout
        progress.report("analysing the layout", 0, 0)
        data = build(Analysis(model, file=STDIN_NAME if layout == STDIN else layout), hostfile)
        text = {"text": to_text, "json": to_json, "csv": to_csv}[fmt_](data)
    # For people, a label holding an escape sequence must not drive the terminal; the CSV
    # and JSON keep it exact, but on a terminal they are escaped too.
    emit(text, output, exact=fmt_ != "text")
