"""``rackdesigner catalog`` as a group: ``catalog [KEY]`` shows entries as before, and
``catalog import PATH...`` reads NetBox devicetype-library YAML into catalog entries
(docs/netbox.md).

:class:`CatalogGroup` keeps ``rackdesigner catalog KEY`` working: a first argument that is
not a subcommand's name is the entry to show.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from rackdesigner.cli.conventions import fail, os_error_text
from rackdesigner.model.layout import DEVICE_KINDS, PORT_TECH
from rackdesigner.model.terminal import shown
from rackdesigner.model.wording import plural

KEY = "rackdesigner.catalog.key"
_VALUED = ("--format",)  # the group's options that take a value


class CatalogGroup(click.Group):
    """A group whose first positional argument, when no subcommand's name, is an entry key
    (``ctx.meta[KEY]``) for the group's own callback."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        rest = list(args)
        index = 0
        while index < len(rest):
            token = rest[index]
            if token == "--":
                index += 1
                break
            if token in _VALUED:
                index += 2
                continue
            if token.startswith("-"):
                index += 1
                continue
            break
        if index < len(rest) and rest[index] not in self.commands:
            ctx.meta[KEY] = rest.pop(index)
        return super().parse_args(ctx, rest)


@click.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--into",
    "into",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the entries to this layout's [catalog] (through the document, so its "
    "comments stay) instead of the user catalog.",
)
@click.option("--kind", type=click.Choice(DEVICE_KINDS), help="What the devices are.")
@click.option("--gpu", help="GPU model (a GPU key of the catalog), e.g. h100-sxm.")
@click.option("--gpus", type=click.IntRange(min=1), help="GPUs per device.")
@click.option(
    "--tech",
    type=click.Choice(PORT_TECH),
    help="What the QSFP/OSFP ports carry (NetBox's cage types do not say).",
)
@click.option(
    "--liquid-fraction",
    type=click.FloatRange(0, 1),
    help="Share of the heat that goes to cold plates (0-1).",
)
@click.option(
    "--psus-required",
    type=click.IntRange(min=1),
    help="Power supplies that carry full load.",
)
def catalog_import(
    paths: tuple[Path, ...],
    into: Path | None,
    kind: str | None,
    gpu: str | None,
    gpus: int | None,
    tech: str | None,
    liquid_fraction: float | None,
    psus_required: int | None,
) -> None:
    """Import NetBox devicetype-library YAML files (or folders, recursing) as catalog
    entries: to the user catalog, or with --into to a layout's [catalog].

    What NetBox does not know (what a device is, its GPUs, what QSFP/OSFP ports carry,
    how many PSUs carry full load) comes from the options or stays unset with a note.
    A file that cannot be imported is one line per problem naming the file and the key;
    the other files are still imported, and the exit status is 1.

    \b
    Examples:
      rackdesigner catalog import ~/src/devicetype-library/device-types/Nvidia/QM9700.yaml \\
          --kind switch --tech infiniband
      rackdesigner catalog import dgx.yaml --kind gpu-node --gpu h100-sxm --gpus 8 \\
          --into cluster.toml
    """
    from rackdesigner.netbox.devicetypes import Flags, read_paths

    for path in paths:
        if not path.exists():
            fail(f"{path}: no such file or folder")
    flags = Flags(kind, gpu, gpus, tech, liquid_fraction, psus_required)
    if gpu is not None:
        _check_gpu(gpu, into)
    results = read_paths(list(paths), flags)
    if not results:
        fail("no *.yaml or *.yml files under " + ", ".join(str(p) for p in paths))
    good = [r for r in results if r.ok and r.entry is not None]
    failed = [r for r in results if not r.ok]
    for result in failed:
        for problem in result.problems:
            click.echo(f"rackdesigner: {shown(problem)}", err=True)
    entries = {r.entry.key: r.entry for r in good if r.entry is not None}
    if entries:
        target = _write(entries, into)
        for result in good:
            assert result.entry is not None
            click.echo(f"{shown(result.entry.key)}: {shown(result.entry.name or '')}")
            for note in result.notes:
                click.echo(f"  note: {shown(note)}")
        click.echo(f"{plural(len(entries), 'entry', 'entries')} written to {shown(target)}")
    if failed:
        click.echo(f"rackdesigner: {plural(len(failed), 'file')} not imported", err=True)
        sys.exit(1)


def _check_gpu(gpu: str, into: Path | None) -> None:
    from rackdesigner.layout_io.catalog import installed

    known = installed()
    if gpu in known.gpus:
        return
    if into is not None and into.exists():
        from rackdesigner.layout_io.document import load
        from rackdesigner.model.diagnostics import LayoutError

        try:
            if gpu in load(into).layout.gpus:
                return
        except (LayoutError, OSError):
            pass  # _write reports it
    near = known.nearest_gpu(gpu)
    hint = f"; did you mean {' or '.join(near)}?" if near else ""
    fail(f"--gpu {gpu!r}: no such GPU in the catalog{hint}")


def _write(entries: dict, into: Path | None) -> str:
    """Merge the entries into the layout or the user catalog; the file written."""
    from rackdesigner.layout_io.document import SaveError, load, save
    from rackdesigner.model.diagnostics import LayoutError

    if into is not None:
        try:
            document = load(into)
        except LayoutError as error:
            fail(f"{into}: not a layout: {error}")
        except OSError as error:
            fail(os_error_text(error, into))
        document.layout.catalog.update(entries)
        try:
            save(document)
        except SaveError as error:
            fail(f"not writing {into}: {error}")
        except OSError as error:
            fail(os_error_text(error, into))
        return str(into)
    return _write_user(entries)


def _write_user(entries: dict) -> str:
    from rackdesigner.layout_io.catalog import (
        UserCatalogError,
        catalog_toml,
        user,
        user_catalog_path,
    )
    from rackdesigner.layout_io.saving import write_atomic

    path = user_catalog_path()
    try:
        devices, gpus = user()
    except UserCatalogError as error:
        fail(f"the user catalog is not valid, not changing it: {error}")
    merged = {**devices, **entries}
    text = catalog_toml(merged, gpus)
    header = (
        "# rackdesigner user catalog: merged after the built-in entries and before a\n"
        "# layout's own. `rackdesigner catalog import` writes it; `rackdesigner catalog`\n"
        "# shows each entry's origin.\n\n"
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, (header + text).encode("utf-8"))
    except OSError as error:
        fail(os_error_text(error, path))
    return str(path)
