"""User strings in GitHub-flavoured Markdown (a pull-request comment): shown, never obeyed.

A layout's names reach the Markdown of ``diff`` and ``whatif``, which CI posts on pull
requests. There a name must not become HTML (``<img src=...>``), a mention that notifies
someone (``@team``), a link, an image, emphasis, a new table column (``|``), a new line
(a newline), or the end of a code fence (a run of backticks). Three places, three
helpers:

- :func:`text` for prose and table cells: control characters shown as :func:`shown`
  does (a newline is ``\\x0a``), ``&``, ``<``, ``>`` as entities, ``@`` as ``&#64;`` (no
  mention, no e-mail link), Markdown's punctuation backslash-escaped (no link, image,
  emphasis or column), and ``://`` and ``www.`` broken so that no bare address becomes a
  link;
- :func:`code` for a name shown as code: a code span whose backtick run is longer than
  any in the name (in a table, ``|`` escaped as GFM reads it even in code);
- :func:`fenced` for a block of lines: a fence longer than any backtick run inside, so
  that no line closes it.

GitHub's renderer is cmark-gfm: a backslash escape or an entity is a text node of its
own, so a bare address split by one is not an autolink (GFM spec, "Autolinks
(extension)": an extended autolink must begin at the start of a line, after whitespace
or after ``*``, ``_``, ``~``, ``(``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rackdesigner.model.terminal import shown

__all__ = ["code", "fenced", "text"]

_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "@": "&#64;"}
# What acts inside a line: escapes, code, emphasis and strikethrough, links and images
# (``[``; ``!`` and ``(`` act only beside a bracket), table columns, HTML and entities,
# mentions, and the two openings of a bare address. Block syntax (``#``, ``-``, ``>`` at
# the start of a line) never applies: these strings are never a line's first thing.
_SPECIAL = re.compile(r"[\\`*_\[\]|~&<>@]|://|(?i:www)\.")
_BACKTICKS = re.compile(r"`+")


def _escape(found: re.Match[str]) -> str:
    piece = found.group()
    if piece in _ENTITIES:
        return _ENTITIES[piece]
    if piece == "://":
        return "\\:\\/\\/"
    if len(piece) == 4:  # www. in any case
        return piece[:3] + "\\."
    return "\\" + piece


def text(value: str) -> str:
    """``value`` as Markdown prose or a table cell's text: it reads as it is written and
    does nothing (see the module's docstring)."""
    return _SPECIAL.sub(_escape, shown(value))


def _longest_run(value: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(value)), default=0)


def code(value: str, *, table: bool = False) -> str:
    """``value`` as an inline code span, its controls shown escaped; ``table``: it stands
    in a table cell, where GFM splits on ``|`` even inside code (``\\|`` keeps it)."""
    body = shown(value)
    if not body:
        return "` `"
    ticks = "`" * (_longest_run(body) + 1)
    # A span's content that begins or ends with a backtick (or a space) needs a space
    # of padding, which the span then drops (CommonMark 6.1).
    if body[0] in "` " or body[-1] in "` ":
        body = f" {body} "
    if table:
        body = body.replace("|", "\\|")
    return f"{ticks}{body}{ticks}"


def fenced(lines: Iterable[str]) -> list[str]:
    """The lines as a fenced code block (the fence lines included): each line with its
    controls shown escaped, the fence a run of backticks longer than any inside."""
    body = [shown(line) for line in lines]
    ticks = "`" * max(3, max((_longest_run(line) for line in body), default=0) + 1)
    return [ticks, *body, ticks]
