"""``rackdesigner push`` and ``rackdesigner pull``: a design into a NetBox and a NetBox site
back into a layout, through NetBox's REST API (docs/netbox.md).

Exit codes: 0 done (push: also when nothing needed changing), 1 NetBox refused, could not
be reached or answered what NetBox does not, 2 the command was used wrongly or the layout
could not be read. The token comes from an environment variable and is never printed; every
request is bounded in time (--timeout) and size (--max-response).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, TypeVar

import click

from rackdesigner.cli.conventions import (
    check_writable,
    fail,
    output_option,
    refuse_overwrite,
    write_output,
)
from rackdesigner.model.terminal import shown
from rackdesigner.netbox.http import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT

F = TypeVar("F", bound=Callable[..., Any])

_URL_HELP = "The NetBox to talk to, e.g. https://netbox.example.com."
_TOKEN_HELP = (
    "The environment variable holding the API token (v2 tokens: nbt_<key>.<secret>); "
    "the token itself is never given on the command line, nor printed."
)
_TIMEOUT_HELP = (
    "The longest one request to NetBox may take in all, from connecting to the last byte "
    "of the answer (a listing is one request per 1000 records)."
)
_MAX_RESPONSE_HELP = "The largest answer NetBox may give to one request, in MiB."
_INSECURE_HELP = (
    "Allow plain http:// to a host other than this machine (the token travels unencrypted)."
)

EPILOG_PUSH = """\b
Examples:
  export NETBOX_TOKEN=nbt_...   # or --token-env NAME
  rackdesigner push cluster.toml --netbox-url https://netbox.example.com --dry-run
  rackdesigner push cluster.toml --netbox-url https://netbox.example.com

\b
Exit codes: 0 pushed (or nothing to change), 1 NetBox refused a change, cannot be
reached or answered what NetBox does not (one line says what and where), 2 the layout
cannot be read or the command was used wrongly.
"""

EPILOG_PULL = """\b
Examples:
  rackdesigner pull --netbox-url https://netbox.example.com --site "Hall 3" -o hall3.toml
  rackdesigner validate hall3.toml

\b
Exit codes: 0 written, 1 NetBox refused, cannot be reached, has no such site or answered
what NetBox does not (one line says what and where; nothing is written), 2 the command was
used wrongly.
"""


def _connect(url: str, token_env: str, insecure: bool, timeout: float, max_response: float):
    from rackdesigner.netbox.client import NetBoxError, connect
    from rackdesigner.netbox.http import Limits

    limits = Limits(max_bytes=max(1, round(max_response * 2**20)), timeout=timeout)
    try:
        return connect(url, token_env, insecure, limits)
    except NetBoxError as error:
        fail(shown(str(error)))


def _netbox_options(command: F) -> F:
    for option in reversed(
        [
            click.option("--netbox-url", "url", required=True, help=_URL_HELP),
            click.option(
                "--token-env",
                default="NETBOX_TOKEN",
                show_default=True,
                metavar="VAR",
                help=_TOKEN_HELP,
            ),
            click.option("--insecure", is_flag=True, help=_INSECURE_HELP),
            click.option(
                "--timeout",
                type=click.FloatRange(0, 86400, min_open=True),
                default=DEFAULT_TIMEOUT,
                show_default=True,
                metavar="SECONDS",
                help=_TIMEOUT_HELP,
            ),
            click.option(
                "--max-response",
                type=click.FloatRange(0, 2**20, min_open=True),
                default=DEFAULT_MAX_BYTES / 2**20,
                show_default=True,
                metavar="MIB",
                help=_MAX_RESPONSE_HELP,
            ),
        ]
    ):
        command = option(command)
    return command


@click.command("push", epilog=EPILOG_PUSH)
@click.argument("layout", type=click.Path(dir_okay=False))
@_netbox_options
@click.option(
    "--dry-run", is_flag=True, help="List what push would create and update; change nothing."
)
def push(
    layout: str,
    url: str,
    token_env: str,
    insecure: bool,
    timeout: float,
    max_response: float,
    dry_run: bool,
) -> None:
    """Create or update LAYOUT's objects in NetBox: manufacturers, device types, roles, the
    site, racks, power panels and feeds, devices, interfaces and cables (the objects of
    ``export --netbox``). Idempotent: what already matches is left as it is, and a second
    push changes nothing; push never deletes."""
    from rackdesigner.analysis import Analysis
    from rackdesigner.cli.verify import _load
    from rackdesigner.netbox.bulk import bulk_rows
    from rackdesigner.netbox.client import NetBoxError
    from rackdesigner.netbox.push import push_rows

    backend = _connect(url, token_env, insecure, timeout, max_response)
    design = _load(layout)
    rows = bulk_rows(Analysis(design, file=layout))
    started = time.monotonic()
    done: list[object] = []

    def progress(change) -> None:
        done.append(change)
        click.echo(shown(change.line(dry_run)))

    try:
        plan = push_rows(backend, rows, dry_run=dry_run, progress=progress)
    except NetBoxError as error:
        click.echo(f"rackdesigner: {shown(str(error))}", err=True)
        if done and not dry_run:
            click.echo(
                "rackdesigner: the changes listed above were made; push again to finish", err=True
            )
        sys.exit(1)
    except ValueError as error:
        fail(shown(str(error)))
    summary = plan.lines()[-1]
    click.echo(f"{summary} in {time.monotonic() - started:.1f} s")


@click.command("pull", epilog=EPILOG_PULL)
@_netbox_options
@click.option("--site", required=True, help="The NetBox site to read (its name).")
@output_option("The layout file to write ('-': standard output).", required=True, dir_okay=False)
def pull(
    url: str,
    token_env: str,
    insecure: bool,
    timeout: float,
    max_response: float,
    site: str,
    output: str,
) -> None:
    """Read a NetBox site's racks, devices, power feeds and cables into a layout, to check
    an existing hall with ``rackdesigner validate``. Device types map to catalog entries;
    the ones the catalog lacks become entries of the layout's own [catalog]."""
    from rackdesigner.layout_io.writer import dumps
    from rackdesigner.netbox.client import NetBoxError
    from rackdesigner.netbox.pull import pull_site

    refuse_overwrite([(output, "--output")], [])
    check_writable(output)
    backend = _connect(url, token_env, insecure, timeout, max_response)
    try:
        pulled = pull_site(backend, site)
    except NetBoxError as error:
        click.echo(f"rackdesigner: {shown(str(error))}", err=True)
        sys.exit(1)
    for note in pulled.notes:
        click.echo(f"note: {shown(note)}", err=True)
    if output == "-":
        click.echo(dumps(pulled.layout), nl=False)
    else:
        write_output(output, dumps(pulled.layout))
    layout = pulled.layout
    devices = sum(len(rack.devices) for rack in layout.racks)
    feeds = sum(len(rack.feeds) for rack in layout.racks)
    click.echo(
        f"pulled {site!r}: {len(layout.racks)} racks, {devices} devices, {feeds} feeds, "
        f"{len(layout.links)} cables into {output}",
        err=True,
    )
