"""Where each entity of a layout is defined in its file, found by one linear scan.

The TOML parsers return no positions, so the text is scanned once with a
regular expression for table headers (``[[racks]]``, ``[[racks.devices]]``,
``[[links]]``, ``[catalog.KEY]``), array openers (``feeds = [``) and the
inline tables inside them. Entities of an array are numbered in the order
the parser returns them, which is their order in the text. The scan also
finds comments, so that the writer can keep those it can.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Each pattern starts with a literal, so the regex engine jumps between candidates instead of
# trying every character: on a 13 MB layout the scan takes tens of milliseconds, not a second.
_HEADER = re.compile(r"\n[ \t]*(\[\[?)[ \t]*([^\]\n#]*?)[ \t]*\]")
_ARRAY = re.compile(r"=[ \t]*\[")
_BRACE = re.compile(r"\{")
_KNOWN = {
    "racks": ["racks"],
    "racks.devices": ["racks", "devices"],
    "racks.feeds": ["racks", "feeds"],
    "links": ["links"],
    "power.elements": ["power", "elements"],
    "cooling.loops": ["cooling", "loops"],
    "pathways": ["pathways"],
    "trunks": ["trunks"],
}
_HASH = re.compile("#")
_STRINGS = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')


@dataclass(slots=True)
class LineMap:
    racks: list[int] = field(default_factory=list)
    feeds: list[list[int]] = field(default_factory=list)  # per rack
    devices: list[list[int]] = field(default_factory=list)  # per rack
    links: list[int] = field(default_factory=list)
    pathways: list[int] = field(default_factory=list)  # (v1.4) the cable plant
    trunks: list[int] = field(default_factory=list)
    transceivers: dict[str, int] = field(default_factory=dict)
    catalog: dict[str, int] = field(default_factory=dict)
    gpus: dict[str, int] = field(default_factory=dict)
    ports: dict[str, list[int]] = field(default_factory=dict)  # catalog key -> port group lines
    power_elements: list[int] = field(default_factory=list)  # (v1.4) [[power.elements]]
    cooling_loops: list[int] = field(default_factory=list)  # (v1.4) [[cooling.loops]]
    tables: dict[str, int] = field(default_factory=dict)  # [site], [workload] and the like
    comments: dict[int, str] = field(default_factory=dict)  # line -> full-line comment text
    trailing_comments: list[int] = field(default_factory=list)  # lines with a comment after code
    lines: list[str] | None = None  # the text split into lines, for key look-ups on errors
    # Comment lines a canonical rewrite cannot keep (set by the reader once it attached the
    # others to their tables).
    dropped_comments: tuple[int, ...] = ()

    @staticmethod
    def entity(items: list[int], index: int) -> int:
        return items[index] if index < len(items) else 0


def _unquote(name: str) -> list[str]:
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([^.\s]+)', name)
    return [a or b or c for a, b, c in parts]


def _inline_tokens(text: str) -> list[tuple[int, str, str]]:
    """(position, kind, key) of array openers (``feeds = [``) and of the inline tables in
    arrays, in order. Few in a canonical file: only feeds and port groups are inline."""
    tokens: list[tuple[int, str, str]] = []
    for match in _ARRAY.finditer(text):
        begin = text.rfind("\n", 0, match.start()) + 1
        key = text[begin : match.start()].strip()
        if key and all(c.isalnum() or c in "_-" for c in key):
            tokens.append((begin, "=", key))
    for match in _BRACE.finditer(text):
        before = text[max(0, match.start() - 200) : match.start()].rstrip()
        if before.endswith(("[", ",")):
            tokens.append((match.start(), "{", ""))
    tokens.sort()
    return tokens


class _Scan:
    def __init__(self, text: str):
        self.text = text
        self.found = LineMap()
        self.line = 1
        self.position = 0
        self.array: str | None = None  # the array whose inline tables follow
        self.catalog_key: str | None = None  # the [catalog.KEY] table being read

    def at(self, start: int) -> int:
        self.line += self.text.count("\n", self.position, start)
        self.position = start
        return self.line

    def inline(self, start: int, kind: str, key: str) -> None:
        line = self.at(start)
        found = self.found
        if kind == "=":
            self.array = key
        elif self.array == "feeds" and found.racks:
            found.feeds[-1].append(line)
        elif self.array == "devices" and found.racks:
            found.devices[-1].append(line)
        elif self.array == "links":
            found.links.append(line)
        elif self.array == "elements":
            found.power_elements.append(line)
        elif self.array == "loops":
            found.cooling_loops.append(line)
        elif self.array in ("pathways", "trunks"):
            getattr(found, self.array).append(line)
        elif self.array == "ports" and self.catalog_key is not None:
            found.ports.setdefault(self.catalog_key, []).append(line)
        elif self.array == "racks":
            found.racks.append(line)
            found.feeds.append([])
            found.devices.append([])

    def header(self, start: int, double: bool, name: str) -> None:
        line = self.at(start)
        found = self.found
        self.array = None
        self.catalog_key = None
        if double:
            # The common headers by plain comparison; anything else is split properly.
            if name == "links":
                found.links.append(line)
                return
            if name == "racks.devices":
                if found.racks:
                    found.devices[-1].append(line)
                return
            if name == "racks":
                found.racks.append(line)
                found.feeds.append([])
                found.devices.append([])
                return
        parts = _KNOWN.get(name) or _unquote(name)
        if not parts:
            return
        if double and parts == ["racks"]:
            self.header(start, True, "racks")
        elif double and parts == ["racks", "devices"]:
            self.header(start, True, "racks.devices")
        elif double and parts == ["links"]:
            self.header(start, True, "links")
        elif double and parts == ["racks", "feeds"] and found.racks:
            found.feeds[-1].append(line)
        elif double and parts == ["power", "elements"]:
            found.power_elements.append(line)
        elif double and parts == ["cooling", "loops"]:
            found.cooling_loops.append(line)
        elif double and parts in (["pathways"], ["trunks"]):
            getattr(found, parts[0]).append(line)
        elif parts[0] in ("catalog", "gpus", "transceivers") and len(parts) >= 2:
            target = {"catalog": found.catalog, "gpus": found.gpus}.get(
                parts[0], found.transceivers
            )
            target.setdefault(parts[1], line)
            self.catalog_key = parts[1] if parts[0] == "catalog" and len(parts) == 2 else None
        elif not double:
            found.tables.setdefault(".".join(parts), line)


def scan(text: str) -> LineMap:
    state = _Scan(text)
    extras = _inline_tokens(text)
    pending = 0
    next_extra = extras[0][0] if extras else len(text) + 1
    source = "\n" + text  # so that a header on the first line is found too
    header = state.header
    links = state.found.links
    count = text.count
    for match in _HEADER.finditer(source):
        start = match.start(1) - 1
        if next_extra < start:
            while pending < len(extras) and extras[pending][0] < start:
                state.inline(*extras[pending])
                pending += 1
            next_extra = extras[pending][0] if pending < len(extras) else len(text) + 1
        opener, name = match.group(1, 2)
        if name == "links" and opener == "[[":
            # Most headers of a large layout: counted here rather than through header().
            state.line += count("\n", state.position, start)
            state.position = start
            state.array = state.catalog_key = None
            links.append(state.line)
            continue
        header(start, opener == "[[", name)
    for token in extras[pending:]:
        state.inline(*token)
    found = state.found
    if "#" in text:
        _scan_comments(text, found)
    return found


def headers(text: str) -> list[tuple[int, bool, list[str]]]:
    """Every table header of ``text``: the offset where its line starts, whether it opens
    an array of tables (``[[...]]``), and its dotted name's parts (quotes removed)."""
    # In "\n" + text a match starts at the newline before the header's line: that index,
    # in ``text``, is where the line starts.
    return [
        (match.start(), match.group(1) == "[[", _unquote(match.group(2)))
        for match in _HEADER.finditer("\n" + text)
    ]


def _scan_comments(text: str, found: LineMap) -> None:
    line = 1
    position = 0
    last_line = 0
    for match in _HASH.finditer(text):
        at = match.start()
        line += text.count("\n", position, at)
        position = at
        if line == last_line:
            continue
        begin = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        source = text[begin:end]
        if not source[: at - begin].strip():
            found.comments[line] = text[at + 1 : end]
            last_line = line
        elif "#" in _STRINGS.sub('""', source):
            # A comment after code, unless every '#' on the line is inside a string.
            found.trailing_comments.append(line)
            last_line = line


def key_line(text_lines: list[str], start: int, key: str) -> int:
    """The line of ``key = ...`` in the entity that starts at line ``start``, else ``start``."""
    if start <= 0:
        return start
    pattern = re.compile(rf"(^|[{{,\s]){re.escape(key)}\s*=")
    for number in range(start, min(len(text_lines), start + 400) + 1):
        source = text_lines[number - 1]
        if number > start and source.lstrip().startswith("["):
            break
        if pattern.search(source):
            return number
    return start
