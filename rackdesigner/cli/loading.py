"""Loading a layout for a command: from a path, standard input or text (a git revision's),
its load errors (and E001, a rule code that names no rule) printed and exit 2. Every
command that reads a layout loads it here."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from rackdesigner.cli.conventions import STDIN, STDIN_NAME, read_stdin
from rackdesigner.model.terminal import wants_color

if TYPE_CHECKING:
    from rackdesigner.layout_io.document import Document


def _catalog_comments(text: str) -> bool:
    """Whether a '#' (a comment, or one in a string: no matter) is between the comment lines
    directly above the file's first ``[catalog…]`` header and the first header of another
    section after its last one: the comments a catalog entry may hold."""
    import re

    headers = [(m.start(), m.group(1)) for m in re.finditer(r"^\[{1,2}\s*([^\]]*)", text, re.M)]
    catalog = [i for i, (_, name) in enumerate(headers) if name.strip().startswith("catalog")]
    if not catalog:
        return False
    start = headers[catalog[0]][0]
    lines = text[:start].split("\n")[:-1]
    while lines and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        start -= len(lines.pop()) + 1
    # The first table of another section after the last catalog one ends them (a line
    # that merely starts with "[" inside a value does not: the region only grows).
    after = catalog[-1] + 1
    others = ("racks", "links", "site", "workload", "rules")
    end = next(
        (at for at, name in headers[after:] if name.strip().split(".")[0] in others), len(text)
    )
    return "#" in text[start:end]


def open_or_exit(
    path: str, text: str | None = None, name: str | None = None, *, lines_too: bool = True
) -> Document:
    """The document at ``path`` ('-': standard input), or of ``text`` named ``name``; load
    errors on stderr and exit 2. Without ``lines_too`` a file is read without its lines
    and comments (``diff`` reports neither) where that is the same layout: not where a
    ``[catalog]`` entry may have a comment (``diff`` compares entries whole), and not when
    it has errors (read again with its lines, to say where)."""
    from rackdesigner.check.formats.text import line
    from rackdesigner.check.rule_codes import rule_code_errors
    from rackdesigner.layout_io.document import load, loads
    from rackdesigner.model.diagnostics import LayoutError

    if not lines_too and (text is not None or path != STDIN):
        try:
            quick = (
                load(path, lines_too=False)
                if text is None
                else loads(text, file=name or path, lines_too=False)
            )
        except LayoutError:
            pass  # read again below, with the lines that say where
        else:
            commented = bool(quick.layout.catalog) and _catalog_comments(quick._text or "#")
            if not commented and not rule_code_errors(quick, name if text is not None else None):
                return quick
    try:
        if text is not None:
            document = loads(text, file=name or path)
            shown_name: str | None = name or path
        elif path == STDIN:
            document = loads(stdin_text(), file=STDIN_NAME)
            shown_name = STDIN_NAME
        else:
            document = load(path)
            shown_name = None
        errors = rule_code_errors(document, shown_name)
        if errors:
            raise LayoutError(errors)
    except LayoutError as error:
        for d in error.diagnostics:
            click.echo(line(d, wants_color(sys.stderr)), err=True)
        sys.exit(2)
    return document


def stdin_text() -> str:
    """Standard input as layout text; a LayoutError (E000) when it cannot be one: more than
    the size a layout may be (as a file of that size is refused), or not UTF-8."""
    from rackdesigner.layout_io.reader import MAX_FILE_BYTES, decode_text
    from rackdesigner.model.diagnostics import Diagnostic, LayoutError

    data = read_stdin(MAX_FILE_BYTES)
    if len(data) > MAX_FILE_BYTES:
        raise LayoutError(
            [
                Diagnostic(
                    "E000",
                    "error",
                    f"more than the {MAX_FILE_BYTES / 2**20:.0f} MiB a layout may be; set "
                    "RACKDESIGNER_MAX_FILE_BYTES to raise the limit",
                    entity="file",
                    file=STDIN_NAME,
                    line=1,
                )
            ]
        )
    return decode_text(data, STDIN_NAME)
