"""A large layout's TOML parsed in parts, for the same result with a fraction of the memory.

rtoml builds its own tree of the whole document before it hands Python the result: a
14 MB layout of 100,000 GPUs peaks at 450 MB (a 40 MB one at 830 MB) for a result of
190 MB, and the kernel's work of handing out those pages is a third of the parse. A
layout's bulk is two arrays of tables, ``[[racks]]`` and ``[[links]]``, whose tables each
stand alone: parsed a megabyte at a time, the peak is the result's size.

The text is cut only before a ``[[racks]]`` or ``[[links]]`` header line (the first of
each, then the first after every megabyte), and the parts are put together as the whole
text's parse would be, or not at all (None: the whole text is parsed as before, which
also finds any error and says where):

- A part's array of tables (the one its first header opens) continues the same array of
  the parts before; any other key a part has must be new. A key seen twice (a table
  declared again, ``[a.b]`` then ``[a.c]`` in another part, ``[[racks.devices]]`` after
  a ``[[links]]``) gives up, however valid, as does an array a part continues that the
  first part (the one with the top-level keys) already had: a static ``links = [...]``
  and ``[[links]]`` are an error in the whole text. Keys keep their order of first
  appearance, as in the whole text.
- A cut inside a multi-line array leaves the part before it unterminated: it does not
  parse, and the whole text is. A multi-line string could hold a line that looks like a
  header and still parse when cut, so a text with one is parsed whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

# Parsing in parts pays from a few megabytes (memory and the kernel's page faults); below
# that the whole text is parsed at once.
WHOLE_BELOW = 2_000_000
# Text per part: big enough that a part's own cost is noise, small enough that rtoml's tree
# of it is a few megabytes.
PART_SIZE = 1_000_000

# A header line a part may start at; group 1 is the array it opens.
_CUT = re.compile(r"\n\[\[(racks|links)\]\][ \t]*\r?\n")

Parse = Callable[[str], dict[str, Any]]


def parse_in_parts(
    text: str, parse: Parse, *, whole_below: int = WHOLE_BELOW, part_size: int = PART_SIZE
) -> dict[str, Any] | None:
    """``parse(text)``'s result, from parts of ``text`` (see the module); None where the text
    is small, has nothing to cut or a part does not parse or join as the whole would."""
    if len(text) < whole_below or '"""' in text or "'''" in text:
        return None
    cuts = _cuts(text, part_size)
    if not cuts:
        return None
    try:
        return _joined(text, cuts, parse)
    except Exception:  # any parse error, of any parser: the whole text says it properly
        return None


def _cuts(text: str, part_size: int) -> list[tuple[int, str]]:
    """Where the parts after the first start (offsets of header lines) and the array each
    one's header opens: before the first ``[[racks]]`` and ``[[links]]``, then before the
    first such header after every ``part_size`` characters."""
    found: dict[int, str] = {}
    for name in ("racks", "links"):
        match = re.search(rf"\n\[\[{name}\]\][ \t]*\r?\n", text)
        if match is not None:
            found[match.start() + 1] = name
    position = part_size
    while position < len(text):
        match = _CUT.search(text, position)
        if match is None:
            break
        found[match.start() + 1] = match.group(1)
        position = max(match.end(), position + part_size)
    return sorted(found.items())


def _joined(text: str, cuts: list[tuple[int, str]], parse: Parse) -> dict[str, Any] | None:
    result = parse(text[: cuts[0][0]])
    continued: set[str] = set()  # the arrays of tables the parts continue
    for number, (start, name) in enumerate(cuts):
        end = cuts[number + 1][0] if number + 1 < len(cuts) else len(text)
        part = parse(text[start:end])
        for key, value in part.items():
            if key == name and key in continued:
                result[key].extend(value)
            elif key in result:
                return None
            else:
                result[key] = value
                if key == name:
                    continued.add(key)
    return result
