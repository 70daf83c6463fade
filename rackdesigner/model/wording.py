"""Small pieces of wording every message uses, so that findings read alike."""

from __future__ import annotations

import re
from collections.abc import Sequence

# Words whose plural is the word itself.
_INVARIANT = {"info"}


def plural(count: int, word: str, many: str | None = None) -> str:
    """``plural(1, "rack") == "1 rack"``, ``plural(3, "rack") == "3 racks"``; ``many`` for
    a plural not made with -s (``plural(2, "entry", "entries")``); thousands separated
    (``plural(1152, "cable") == "1,152 cables"``)."""
    if count == 1 or word in _INVARIANT:
        return f"{count:,} {word}"
    return f"{count:,} {many}" if many else f"{count:,} {word}s"


def first_of(
    items: Sequence[str],
    limit: int,
    *,
    sep: str = ", ",
    more: str = "more",
    total: int | None = None,
) -> str:
    """The first ``limit`` items, then how many are left: ``a, b, c and 4 more``; ``sep``
    between the items, ``more`` after the count (``and 4 more racks``). All of them, as
    they are, when there are no more than ``limit``. ``total``: how many there are where
    only the first few were kept."""
    shown = sep.join(items[:limit])
    rest = (len(items) if total is None else total) - limit
    return f"{shown} {and_more(rest, more)}" if rest > 0 else shown


def and_more(rest: int, more: str = "more") -> str:
    """``and 1,234 more``: what a list that stops short leaves out (``""`` for none), for
    a list :func:`first_of` cannot join (one line each)."""
    return f"and {rest:,} {more}" if rest > 0 else ""


def name_list(items: Sequence[str], limit: int = 3) -> str:
    """A list as a sentence says it: ``a``, ``a and b``, ``a, b and c``, and past ``limit``
    items ``a, b, c and 4 more``."""
    if len(items) > limit:
        return first_of(items, limit)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def at_least(unknown: bool) -> str:
    """ "at least " where a total leaves out devices of unknown draw or weight."""
    return "at least " if unknown else ""


_FORM_FACTOR_NAMES = {"sxm": "SXM", "oam": "OAM", "pcie": "PCIe"}


def form_factor_name(form_factor: str) -> str:
    """``sxm`` as people write it: ``SXM``."""
    return _FORM_FACTOR_NAMES.get(form_factor, form_factor)


def a_form_factor(form_factor: str) -> str:
    """``an SXM``, ``an OAM``, ``a PCIe``: as the letters are said."""
    name = form_factor_name(form_factor)
    return f"{'an' if name[:1] in 'AEFHILMNORSX' else 'a'} {name}"


def natural(name: str) -> tuple[tuple[str, int], ...]:
    """Sort key: ``a2-spine10`` after ``a2-spine9`` (digit runs compared as numbers), as
    people count."""
    parts = re.findall(r"(\D*)(\d*)", name)
    return tuple((text, int(digits) if digits else -1) for text, digits in parts if text or digits)


def duration(seconds: float) -> str:
    """``"45 s"``, ``"12.5 min"``, ``"2.1 h"``: a time in the unit a person reads it in."""
    if seconds < 120:
        return f"{seconds:.3g} s"
    if seconds < 7200:
        return f"{seconds / 60:.3g} min"
    return f"{seconds / 3600:.3g} h"
