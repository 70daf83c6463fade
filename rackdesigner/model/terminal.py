"""What reaches a person's terminal: user strings with their control characters shown, not obeyed.

A layout is text anyone may have written: an id, a label or a file name can hold an
escape sequence (which recolours or clears the terminal) or a right-to-left override
(which reverses the rest of the line, so ``a01 -> b02`` reads backwards). Text meant for
people shows such characters escaped (``\\x1b``, ``\\u202e``); machine formats (JSON,
SARIF, CSV, TOML) keep the exact text and escape it only as their syntax requires.
"""

from __future__ import annotations

import re

# C0 and C1 controls and DEL (Unicode category Cc), and the bidirectional formatting
# characters (Unicode's Bidi_Control property): embeddings, overrides, isolates and marks.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# The same, but a newline is the text's own line structure.
_UNSAFE_KEEP_NEWLINES = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str) -> str:
    """One user string for the terminal: every control and bidi character escaped."""
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text


def shown_lines(text: str) -> str:
    """Several lines for the terminal: as :func:`shown`, newlines kept."""
    return _UNSAFE_KEEP_NEWLINES.sub(_escape, text) if _UNSAFE_KEEP_NEWLINES.search(text) else text
