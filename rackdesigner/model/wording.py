"""Small pieces of wording every message uses, so that findings read alike."""

from __future__ import annotations

import re

# Words whose plural is the word itself.
_INVARIANT = {"info"}


def plural(count: int, word: str, many: str | None = None) -> str:
    """``plural(1, "rack") == "1 rack"``, ``plural(3, "rack") == "3 racks"``; ``many`` for
    a plural not made with -s (``plural(2, "entry", "entries")``); thousands separated
    (``plural(1152, "cable") == "1,152 cables"``)."""
    if count == 1 or word in _INVARIANT:
        return f"{count:,} {word}"
    return f"{count:,} {many}" if many else f"{count:,} {word}s"


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
