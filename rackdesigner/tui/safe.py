"""User text on the designer's screen: shown, never obeyed.

A layout is text anyone may have written, and the designer draws its names, ids, labels,
models and messages. Two things in such a string must not act:

- control, bidi and invisible characters (an escape sequence recolours the screen or sets
  the terminal's title, U+202E reverses the line): shown escaped (``\\x1b``, ``\\u202e``)
  by :func:`rackdesigner.model.terminal.shown`, the one function the command line uses too;
- markup: Textual and Rich read ``[red]`` or ``[@click=app.quit]`` in a string as style or
  action. Their ``escape`` functions miss some tags (``[B]``, ``[$accent]``), so user text
  never goes into markup at all: it is drawn as a Rich :class:`~rich.text.Text` or a
  Textual :class:`~textual.content.Content`, which are never parsed.

Every widget, dialog and notice draws user text through this module; the data keeps the
exact characters (an inspector field shows a value escaped and gives back the original
characters where the escapes stand for them: :func:`typed`).
"""

from __future__ import annotations

import re

from rich.text import Text
from textual.content import Content

from rackdesigner.model.terminal import shown, shown_lines

__all__ = ["content", "lines", "plain", "text", "typed"]


def plain(value: object) -> str:
    """A user string for a place that never reads markup (a Segment, ``Text.append``, a
    notice): its control, bidi and invisible characters escaped."""
    return shown(str(value))


def lines(value: object) -> str:
    """As :func:`plain`, for text of several lines: the newlines kept."""
    return shown_lines(str(value))


def text(value: object, style: str = "") -> Text:
    """A user string as a Rich Text (no markup read), escaped for the terminal."""
    return Text(shown_lines(str(value)), style=style)


def content(value: object) -> Content:
    """A user string as a Textual Content (a border title, a label, a static: no markup
    read), escaped for the terminal."""
    return Content(shown_lines(str(value)))


_ESCAPE = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))")


def typed(edited: str, original: str) -> str:
    """What a field means after editing: ``edited`` is the text of an input that showed
    ``original`` escaped (:func:`plain`); each escape in it that stands for a character
    of ``original`` which :func:`plain` escapes is that character again, so editing
    another part of a value keeps its characters exact. An escape the user typed for a
    character the value did not hold stays the text it is."""
    if "\\" not in edited:
        return edited
    unsafe = {c for c in original if shown(c) != c}
    if not unsafe:
        return edited

    def back(found: re.Match[str]) -> str:
        char = chr(int(next(g for g in found.groups() if g is not None), 16))
        return char if char in unsafe and plain(char) == found.group() else found.group()

    return _ESCAPE.sub(back, edited)
