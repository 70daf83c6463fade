"""What reaches a person's terminal: user strings with their control characters shown, not obeyed.

A layout is text anyone may have written: an id, a label or a file name can hold an
escape sequence (which recolours or clears the terminal) or a right-to-left override
(which reverses the rest of the line, so ``a01 -> b02`` reads backwards). Text meant for
people shows such characters escaped (``\\x1b``, ``\\u202e``), and so are invisible ones
(a zero-width space after ``liquid`` would make a message reject what looks like the
right word); machine formats (JSON, SARIF, CSV, TOML) keep the exact text and escape it
only as their syntax requires.
"""

from __future__ import annotations

import os
import re

# What is escaped, in three groups:
# - C0 and C1 controls and DEL (Unicode category Cc): escape sequences, bells, carriage
#   returns that let a string rewrite the line or the terminal's title;
# - the bidirectional formatting characters (Unicode's Bidi_Control property):
#   embeddings, overrides, isolates and marks, which reorder what follows them;
# - invisible characters that make two strings look alike (``"liquid\u200b"`` reads as
#   ``liquid``): zero-width space, joiners, word joiner and invisible operators, soft
#   hyphen, line and paragraph separators, byte-order mark, Mongolian vowel separator and
#   variation selectors, Hangul fillers, interlinear annotation marks, and the tag
#   characters (U+E0000-U+E007F, invisible copies of ASCII).
# Emoji variation selectors (U+FE00-U+FE0F) are left alone: they change how a visible
# character is drawn, never hide one.
_UNSAFE_CLASS = (
    "\x00-\x1f\x7f-\x9f"
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    "\u00ad\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200d\u2028\u2029"
    "\u2060-\u2064\u206a-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb"
    "\U000e0000-\U000e007f"
)
_UNSAFE = re.compile(f"[{_UNSAFE_CLASS}]")
# For writers that escape the same characters in their own syntax (TOML's ``\u202e``).
UNSAFE = _UNSAFE
# The same, but a newline is the text's own line structure.
_UNSAFE_KEEP_NEWLINES = re.compile(f"(?!\n)[{_UNSAFE_CLASS}]")


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown(text: str) -> str:
    """One user string for the terminal: every control, bidi and invisible character
    escaped (``\\x1b``, ``\\u202e``, ``\\u200b``); everything else exactly as it is.

    The one function every front end uses for text from a layout or the command line:
    the command line's messages and the designer's widgets alike. It escapes for the
    terminal only; markup (Rich's ``[red]``) is the drawing code's own to escape.
    """
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text


def shown_lines(text: str) -> str:
    """Several lines for the terminal: as :func:`shown`, newlines kept."""
    return _UNSAFE_KEEP_NEWLINES.sub(_escape, text) if _UNSAFE_KEEP_NEWLINES.search(text) else text


def is_terminal(stream: object) -> bool:
    """Whether ``stream`` is a terminal (a person reads it, not a program); a stream without
    ``isatty``, or a closed one, is not."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # closed
        return False


def wants_color(stream: object) -> bool:
    """Whether text for ``stream`` may be coloured: a terminal, and ``NO_COLOR`` unset or
    empty (no-color.org)."""
    return not os.environ.get("NO_COLOR") and is_terminal(stream)
