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

_TOKENS = re.compile(
    r"^[ \t]*(?P<h>\[\[?)[ \t]*(?P<name>[^\]\n#]*?)[ \t]*\]"  # table header
    r"|^[ \t]*(?P<arr>[A-Za-z0-9_-]+)[ \t]*=[ \t]*(?=\[)"  # array opener: key = [
    r"|(?P<tbl>[\[,])[ \t\r\n]*\{",  # an inline table opening inside an array
    re.M,
)
_COMMENT = re.compile(r"^[ \t]*#(?P<body>[^\n]*)$", re.M)
_TRAILING_COMMENT_CANDIDATE = re.compile(r"^[^#\n]*[^#\s\n][^\n]*#[^\n]*$", re.M)
_STRINGS = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'')


@dataclass(slots=True)
class LineMap:
    racks: list[int] = field(default_factory=list)
    feeds: list[list[int]] = field(default_factory=list)  # per rack
    devices: list[list[int]] = field(default_factory=list)  # per rack
    links: list[int] = field(default_factory=list)
    catalog: dict[str, int] = field(default_factory=dict)
    gpus: dict[str, int] = field(default_factory=dict)
    tables: dict[str, int] = field(default_factory=dict)  # site, workload, rules, ...
    comments: dict[int, str] = field(default_factory=dict)  # line -> full-line comment text
    trailing_comments: list[int] = field(default_factory=list)  # lines with a comment after code
    lines: list[str] | None = None  # the text split into lines, for key look-ups on errors

    @staticmethod
    def entity(items: list[int], index: int) -> int:
        return items[index] if index < len(items) else 0


def _unquote(name: str) -> list[str]:
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([^.\s]+)', name)
    return [a or b or c for a, b, c in parts]


def scan(text: str) -> LineMap:
    found = LineMap()
    line = 1
    position = 0
    array: str | None = None  # the array whose inline tables follow
    count = text.count
    for match in _TOKENS.finditer(text):
        start = match.start()
        line += count("\n", position, start)
        position = start
        if match.group("h") is not None:
            array = None
            double = match.group("h") == "[["
            parts = _unquote(match.group("name"))
            if not parts:
                continue
            head = parts[0]
            if double and parts == ["racks"]:
                found.racks.append(line)
                found.feeds.append([])
                found.devices.append([])
            elif double and parts == ["racks", "devices"] and found.racks:
                found.devices[-1].append(line)
            elif double and parts == ["racks", "feeds"] and found.racks:
                found.feeds[-1].append(line)
            elif double and parts == ["links"]:
                found.links.append(line)
            elif head in ("catalog", "gpus") and len(parts) >= 2:
                target = found.catalog if head == "catalog" else found.gpus
                target.setdefault(parts[1], line)
            elif not double:
                found.tables.setdefault(".".join(parts), line)
        elif match.group("arr") is not None:
            array = match.group("arr")
        else:
            # The match may begin on the line before the brace ("[\n    {"): count to the brace.
            brace = match.end() - 1
            brace_line = line + count("\n", start, brace)
            if array == "feeds" and found.racks:
                found.feeds[-1].append(brace_line)
            elif array == "devices" and found.racks:
                found.devices[-1].append(brace_line)
            elif array == "links":
                found.links.append(brace_line)
            elif array == "racks":
                found.racks.append(brace_line)
                found.feeds.append([])
                found.devices.append([])
    if "#" in text:
        _scan_comments(text, found)
    return found


def _scan_comments(text: str, found: LineMap) -> None:
    line = 1
    position = 0
    for match in _COMMENT.finditer(text):
        line += text.count("\n", position, match.start())
        position = match.start()
        found.comments[line] = match.group("body")
    line = 1
    position = 0
    for match in _TRAILING_COMMENT_CANDIDATE.finditer(text):
        line += text.count("\n", position, match.start())
        position = match.start()
        code = _STRINGS.sub('""', match.group(0))
        if "#" in code and not code.lstrip().startswith("#"):
            found.trailing_comments.append(line)


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
