"""Loading a layout for ``whatif`` and ``diff``: from a path, standard input or text (a git
revision's), load errors printed and exit 2 (as ``cli.main`` does for its commands)."""

from __future__ import annotations

import gc
import os
import sys
from typing import TYPE_CHECKING

import click

from rackdesigner.cli.conventions import STDIN, STDIN_NAME

if TYPE_CHECKING:
    from rackdesigner.layout_io.document import Document


def batch() -> None:
    """A short run over a large layout: no cyclic garbage collection (see cli.main)."""
    gc.disable()


def _color() -> bool:
    return not os.environ.get("NO_COLOR") and sys.stderr.isatty()


def open_or_exit(path: str, text: str | None = None, name: str | None = None) -> Document:
    """The document at ``path`` ('-': standard input), or of ``text`` named ``name``; load
    errors on stderr and exit 2."""
    from rackdesigner.check.engine import rule_config_errors
    from rackdesigner.check.formats.text import line
    from rackdesigner.layout_io.document import load, loads
    from rackdesigner.layout_io.reader import MAX_FILE_BYTES, decode_text
    from rackdesigner.model.diagnostics import LayoutError

    try:
        if text is not None:
            document = loads(text, file=name or path)
            shown_name: str | None = name or path
        elif path == STDIN:
            from rackdesigner.cli.conventions import read_stdin

            data = read_stdin(MAX_FILE_BYTES)
            document = loads(decode_text(data, STDIN_NAME), file=STDIN_NAME)
            shown_name = STDIN_NAME
        else:
            document = load(path)
            shown_name = None
        errors = rule_config_errors(document, shown_name)
        if errors:
            raise LayoutError(errors)
    except LayoutError as error:
        for d in error.diagnostics:
            click.echo(line(d, _color()), err=True)
        sys.exit(2)
    return document
