"""``rackdesigner edit [LAYOUT]``: the designer app. Textual is imported only when it runs."""

from __future__ import annotations

import click


@click.command("edit")
@click.argument("layout", required=False, type=click.Path(dir_okay=False))
def edit(layout: str | None) -> None:
    """Open the designer on LAYOUT (created on the first save if it does not exist).

    Without LAYOUT an untitled layout opens; its first save asks for a path.

    \b
    Examples:
      rackdesigner edit layouts/training-128.toml
      rackdesigner layouts/training-128.toml      (the same)
      rackdesigner edit new-hall.toml             (a new, empty layout)

    Keys: ? help, ctrl+p command palette, ctrl+s save, ctrl+q quit.
    """
    from rackdesigner.model.collector import collection_paused

    # The designer's few hundred modules make only long-lived objects: collecting while
    # they are imported found nothing and cost 30 ms of CPU before the first frame (of
    # about 350, bench/tui.py); frozen, later full collections do not walk them either.
    with collection_paused(freeze_above=0):
        from rackdesigner.tui.app import run

    # 143 after a SIGTERM: the app autosaved, restored the terminal and said so in one line.
    if run(layout) == 143:
        raise click.exceptions.Exit(143)
