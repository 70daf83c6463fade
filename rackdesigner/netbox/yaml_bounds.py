"""A device-type YAML file read within bounds: its size, its nesting and what its aliases
expand to, each far beyond any file of NetBox's devicetype-library.

Measured on the 2,984 device types of the library (nautobot/devicetype-library, the NetBox
library's layout, at 663225e, 2024-04-08): the largest file is 10.9 KB
(Pluribus/Freedom-E28Q-L.yaml), none nests deeper than 3 (a mapping of lists of
mappings), none has an anchor or an alias, and the longest has 1,322 YAML events. The
bounds:

- **size**: 1 MiB (about 100 times the largest file). PyYAML builds the objects in
  Python at about 1.6 s per MB with libyaml and 5.6 s without (a 1.3 MB file of
  interfaces, measured on this project's machines), so an 8.7 MB file took over a minute.
- **nesting**: 20 levels. PyYAML's pure-Python composer recurses once a level (10,000
  levels: RecursionError); libyaml stops at 1,000 with a message of its own.
- **aliases**: at most 100, and the document with every alias expanded at most 100,000
  nodes. An alias is a reference, so "billion laughs" (nine levels of ten aliases each)
  costs nothing to load, but anything that walks or prints the value (a message showing
  it) walks 10^9 nodes.

The document is checked from the parser's events before anything is built (a linear pass,
in C where libyaml is there), then loaded.
"""

from __future__ import annotations

import os
from typing import Any

MAX_BYTES = 2**20
MAX_DEPTH = 20
MAX_ALIASES = 100
MAX_NODES = 100_000


class YamlBoundsError(ValueError):
    """A file over one of the bounds; the message says which and by how much."""


def read_bounded(path: str | os.PathLike[str]) -> str:
    """The file's text: at most :data:`MAX_BYTES` are read (a FIFO or ``/dev/zero`` too),
    UTF-8. OSError and UnicodeDecodeError as reading raises them."""
    with open(path, "rb") as handle:
        data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise YamlBoundsError(
            f"more than {MAX_BYTES // 2**20} MiB: not a device type (the library's largest "
            "is about 11 KB)"
        )
    return data.decode("utf-8")


def load_all(text: str) -> list[Any]:
    """The documents of ``text``, after :func:`check` (YamlBoundsError, yaml.YAMLError)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    check(yaml.parse(text, Loader=loader))
    try:
        return list(yaml.load_all(text, Loader=loader))
    except (ValueError, OverflowError) as error:
        # A scalar the constructor cannot make: an integer of more than 4,300 digits
        # (Python's limit on converting text), a date out of range.
        raise YamlBoundsError(f"a value cannot be read: {error}") from None


def check(events: Any) -> None:
    """Go through the parser's events: nesting depth, alias count, and the node count with
    aliases expanded (an anchored node's size is known when it ends)."""
    import yaml

    depth = aliases = nodes = 0
    sizes: dict[str, int] = {}  # anchor: its node's expanded size
    open_anchors: list[tuple[str | None, int]] = []  # (anchor, node count when it began)
    for event in events:
        if isinstance(event, yaml.AliasEvent):
            aliases += 1
            if aliases > MAX_ALIASES:
                raise YamlBoundsError(f"more than {MAX_ALIASES} aliases (*name)")
            nodes += sizes.get(event.anchor or "", 1)
        elif isinstance(event, yaml.ScalarEvent):
            nodes += 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        elif isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                where = f" (line {mark.line + 1})" if mark is not None else ""
                raise YamlBoundsError(f"nested more than {MAX_DEPTH} levels deep{where}")
            open_anchors.append((event.anchor, nodes))
            nodes += 1
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
            anchor, start = open_anchors.pop()
            if anchor is not None:
                sizes[anchor] = nodes - start
        if nodes > MAX_NODES:
            raise YamlBoundsError(
                f"more than {MAX_NODES:,} values with its aliases expanded (a device type of "
                "the library has at most about 1,300)"
            )
