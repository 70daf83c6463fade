"""The ``rackdesigner`` command line: the group and ``main()``, the console script. Each
command group is a module of its own in this package; the work happens in the core.

The headless commands never import Textual (a test checks), so ``validate`` in
CI starts fast and needs no terminal.
"""

from __future__ import annotations

import contextlib
import os
import sys

import click

from rackdesigner import __version__
from rackdesigner.cli.catalog import catalog
from rackdesigner.cli.conventions import Conventions
from rackdesigner.cli.edit import edit  # the designer: imports Textual only when run
from rackdesigner.cli.export import export
from rackdesigner.cli.fabric import generate, new
from rackdesigner.cli.report import report
from rackdesigner.cli.rules import rules
from rackdesigner.cli.schema import schema
from rackdesigner.cli.validate import validate
from rackdesigner.model.terminal import shown


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


for _command in (validate, export, report, catalog, rules, schema, edit, new, generate):
    cli.add_command(_command)
# Imported when run (or listed): whatif loads networkx, diff, verify and the NetBox commands
# their own parts (requests).
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
