"""``rackdesigner schema``: the JSON Schema of the layout format."""

from __future__ import annotations

import json

import click

from rackdesigner.cli.conventions import emit, output_for, output_option


@click.command()
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
