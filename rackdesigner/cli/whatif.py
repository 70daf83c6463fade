"""``rackdesigner whatif``: what happens when a part fails (rackdesigner.whatif)."""

from __future__ import annotations

import click

from rackdesigner.cli.conventions import (
    STDIN,
    STDIN_NAME,
    emit,
    fail,
    format_option,
    output_for,
    output_option,
)
from rackdesigner.model.collector import collection_paused
from rackdesigner.whatif.parts import EACH_KINDS, KINDS


@click.command()
@click.argument("layout", type=click.Path(readable=False))
@click.option(
    "--fail",
    "fails",
    multiple=True,
    metavar="KIND:ID",
    help=f"A part that fails (repeat for several at once); KIND is one of {', '.join(KINDS)}.",
)
@click.option(
    "--each",
    type=click.Choice(EACH_KINDS),
    help="Rank every single failure of this kind by GPUs lost, worst first.",
)
@click.option(
    "--warmer-water",
    "warmer",
    metavar="DELTA",
    help="The facility water DELTA kelvin warmer than its design (5, 5K, 5 K): alone, with "
    "--fail, or with --each (every failure on the warmer water).",
)
@click.option(
    "--findings",
    is_flag=True,
    help="With --each: also the findings each failure raises, counted by code (the rules "
    "run again per failure: about a check each where a failure takes a whole side).",
)
@format_option("text", "json", "markdown", help="json gives figures in SI base units.")
@output_option()
@collection_paused()
def whatif(
    layout: str,
    fails: tuple[str, ...],
    each: str | None,
    warmer: str | None,
    findings: bool,
    fmt_: str,
    output: str | None,
) -> None:
    """What happens when parts fail: devices down and degraded, racks on the sides they
    kept, heat without cooling, the fabric left, the findings the failure raises ('-':
    standard input). Parts are rack parts, power chain elements (ups:ID, ats:ID, …) and
    water loops (loop:ID); --warmer-water raises the facility water's supply.

    \b
    Examples:
      rackdesigner whatif layouts/inference-32-b200.toml --fail side:A
      rackdesigner whatif cluster.toml --fail switch:spine-01 --fail feed:a01-B
      rackdesigner whatif cluster.toml --each switch      # single points of failure
      rackdesigner whatif cluster.toml --each rack --format markdown
      rackdesigner whatif cluster.toml --each switch --findings   # and what each raises
      rackdesigner whatif hall.toml --fail ups:ups-a        # a power chain element
      rackdesigner whatif hall.toml --each loop --warmer-water 5K

    \b
    Exit codes: 0 done, 2 the layout could not be read or a part is not in it.
    """
    if fails and each:
        fail("give --fail KIND:ID (one or more) or --each KIND, not both")
    if not (fails or each or warmer):
        fail("give --fail KIND:ID (one or more), --each KIND or --warmer-water DELTA")
    output = output_for(output, [(layout, "the input layout")])
    from rackdesigner.analysis import Analysis
    from rackdesigner.cli import progress
    from rackdesigner.cli.loading import open_or_exit
    from rackdesigner.whatif import PartError, WhatIf, parse_failure, render
    from rackdesigner.whatif.parts import warmer_water

    try:
        failures = [parse_failure(text) for text in fails]
        given = [warmer_water(warmer)] if warmer is not None else []
    except PartError as error:
        fail(str(error))
    document = open_or_exit(layout)
    analysis = Analysis(document.layout, file=STDIN_NAME if layout == STDIN else layout)
    engine = WhatIf(analysis)
    try:
        if each:
            with progress.bar():  # on a terminal only: a hall's ranking takes seconds
                ranked = engine.rank(each, findings=findings, given=given)
                text = render.ranking(fmt_, each, ranked)
        else:
            text = render.scenario(fmt_, engine.run([*given, *failures]))
    except PartError as error:
        fail(str(error))
    emit(text, output, exact=fmt_ == "json")
