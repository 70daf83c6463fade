"""``rackdesigner catalog``: the device and GPU catalog, listed or one entry shown;
``catalog import`` (cli/catalog_import.py) reads NetBox device types."""

from __future__ import annotations

import json
import sys

import click

from rackdesigner.cli.catalog_import import KEY as CATALOG_KEY
from rackdesigner.cli.catalog_import import CatalogGroup, catalog_import
from rackdesigner.cli.conventions import emit, format_option
from rackdesigner.model.terminal import shown


@click.group(cls=CatalogGroup, invoke_without_command=True)
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


catalog.add_command(catalog_import)
