"""Markdown read back as GitHub's renderer would read it: CommonMark with GFM's tables and
strikethrough (markdown-it-py), for the tests of what ``diff`` and ``whatif`` write."""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt

GFM = MarkdownIt("commonmark").enable(["table", "strikethrough"])
# For reading the text tokens: text_join would merge an entity (&#64;) back into the text
# around it; kept apart, an "@" left in a text token is one GitHub would read as a mention.
_TOKENS = MarkdownIt("commonmark").enable(["table", "strikethrough"]).disable("text_join")


@dataclass
class Read:
    html: str
    tags: set[str]  # every HTML element the Markdown makes
    row_cells: list[int]  # cells per table row, every table
    prose: list[str]  # text outside code, as written (entities and escapes apart)


def read(markdown: str) -> Read:
    html = GFM.render(markdown)
    rows = re.findall(r"<tr>(.*?)</tr>", html, re.S)
    prose = [
        child.content
        for token in _TOKENS.parse(markdown)
        if token.type == "inline"
        for child in token.children or ()
        if child.type == "text"
    ]
    return Read(
        html,
        set(re.findall(r"<([a-z][a-z0-9]*)", html)),
        [len(re.findall(r"<t[dh][ >]", row)) for row in rows],
        prose,
    )


SAFE_TAGS = {"h3", "p", "ul", "li", "strong", "table", "thead", "tbody", "tr", "th", "td"}
SAFE_TAGS |= {"code", "pre", "details", "summary"}


def assert_inert(markdown: str) -> None:
    """Every table keeps its columns; no tag beyond the report's own; no mention."""
    found = read(markdown)
    assert len(set(found.row_cells)) <= 1, found.row_cells
    assert found.tags <= SAFE_TAGS, found.tags - SAFE_TAGS
    assert not [text for text in found.prose if "@" in text], found.prose
    assert "\u202e" not in markdown and "\x1b" not in markdown
