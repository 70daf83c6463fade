"""``rackdesigner rules``: the rules listed, or one explained."""

from __future__ import annotations

import json
import sys

import click

from rackdesigner.cli.conventions import format_option
from rackdesigner.model.terminal import shown


@click.command()
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
