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

from rackdesigner.cli.conventions import fail
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
    help="Add the entries to this layout's [catalog] (its other lines stay as they are) "
    "instead of the user catalog.",
)
@click.option(
    "--replace",
    "replace_existing",
    is_flag=True,
    help="Replace an entry that exists already (in the file written, or a built-in or user "
    "entry it overrides; an override keeps that entry's kind). Without it such an entry is "
    "not imported.",
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
    replace_existing: bool,
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
    The file written is edited, not rewritten: its comments and other entries stay; two
    imports at once take turns. A key that exists already (in that file, or a built-in or
    user entry) is imported only with --replace, and an entry that overrides another
    never changes its kind.

    A file or an entry that cannot be imported is one line naming the file and the
    reason; the others are still imported.

    \b
    Exit codes: 0 every file imported, 1 some not imported (the others were),
    2 nothing could be written (the target cannot be read, edited or locked).

    \b
    Examples:
      rackdesigner catalog import ~/src/devicetype-library/device-types/Nvidia/QM9700.yaml \\
          --kind switch --tech infiniband
      rackdesigner catalog import dgx.yaml --kind gpu-node --gpu h100-sxm --gpus 8 \\
          --into cluster.toml
      rackdesigner catalog import dgx-h100.yaml --replace   # override the built-in's figures
    """
    from rackdesigner.netbox.devicetypes import Flags, read_paths

    if gpu is not None:  # a usage error: nothing is imported
        _check_gpu(gpu, into)
    missing = [path for path in paths if not path.exists() and not path.is_symlink()]
    for path in missing:
        _problem(f"{path}: no such file or folder")
    flags = Flags(kind, gpu, gpus, tech, liquid_fraction, psus_required)
    present = [path for path in paths if path not in missing]
    results = read_paths(list(present), flags) if present else []
    if not results and not missing:
        fail("no *.yaml or *.yml files under " + ", ".join(str(p) for p in paths))
    failed = [r for r in results if not r.ok]
    for result in failed:
        for problem in result.problems:
            _problem(problem)
    good = [(r.entry, r.file) for r in results if r.ok and r.entry is not None]
    written, refused = _write(good, into, replace_existing, {r.file: r.notes for r in results})
    not_imported = len(failed) + len(missing) + refused
    if not_imported:
        click.echo(
            f"rackdesigner: {plural(not_imported, 'file')} not imported"
            + ("" if written else "; nothing was written"),
            err=True,
        )
        sys.exit(1)


def _problem(text: str) -> None:
    click.echo(f"rackdesigner: {shown(text)}", err=True)


def _write(
    good: list, into: Path | None, replace_existing: bool, notes: dict[str, list[str]]
) -> tuple[int, int]:
    """Write the entries, say what was written, replaced and refused; how many were
    written and refused. Exit 2 when nothing could be written."""
    if not good:
        return 0, 0
    from rackdesigner.netbox.into_catalog import CatalogImportError, write_entries

    try:
        target, written, refused = write_entries(good, into, replace_existing=replace_existing)
    except CatalogImportError as error:
        fail(str(error))
    files = {entry.key: file for entry, file in good}
    for item in written:
        entry = item.entry
        click.echo(f"{shown(entry.key)}: {shown(entry.name or '')}")
        if item.replaced:
            kept = ""
            if item.kind_kept:
                kept = f"; its kind stays {item.kind_kept} (not the import's)"
            click.echo(f"  {shown(item.replaced)}{shown(kept)}")
        for note in notes.get(files[entry.key], ()):
            click.echo(f"  note: {shown(note)}")
    for refusal in refused:
        _problem(f"{refusal.file}: slug: {refusal.reason}")
    if written:
        click.echo(f"{plural(len(written), 'entry', 'entries')} written to {shown(target)}")
    return len(written), len(refused)


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
            pass  # the import reports it
    near = known.nearest_gpu(gpu)
    hint = f"; did you mean {' or '.join(near)}?" if near else ""
    fail(f"--gpu {gpu!r}: no such GPU in the catalog{hint}")
