"""User strings in GitHub-flavoured Markdown: read back with a CommonMark parser with GFM
tables and strikethrough (markdown-it-py), no input adds a column, a tag, a link, a
mention or a line, or gets out of a code fence."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rackdesigner.model.markdown import code, fenced, text
from rackdesigner.model.terminal import shown
from tests.gfm import GFM
from tests.strategies import examples

# Text that tries every trick: markup characters, HTML, mentions, addresses, fences.
hostile = st.lists(
    st.sampled_from(
        [
            *"`|\\*_~[]()!<>&@#:/.\n\r\t -=+x",
            *("```", "www.", "https://", "<img src=x>", "@team", "\u202e", "\x1b", "&amp;"),
        ]
    ),
    max_size=20,
).map("".join) | st.text(max_size=40)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.cells: list[str] = []
        self._in_cell = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)
        if tag == "td":
            self._in_cell = True
            self.cells.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._in_cell = False

    def handle_data(self, data: str) -> None:
        if self._in_cell:
            self.cells[-1] += data


def _parse(markdown: str) -> _Tags:
    parser = _Tags()
    parser.feed(GFM.render(markdown))
    return parser


@settings(max_examples=examples(300), deadline=None)
@given(hostile)
@example("a | b")
@example("<img src=x onerror=alert(1)>")
@example("x\n```\ny")
@example("[click](https://evil.example)")
def test_no_name_adds_a_column_a_tag_or_a_link(value: str) -> None:
    row = f"| {text(value)} | {code(value, table=True)} | end |"
    parsed = _parse(f"| a | b | c |\n|---|---|---|\n{row}\n")
    assert parsed.tags.count("td") == 3, row  # no column gained or lost
    assert set(parsed.tags) <= {"table", "thead", "tbody", "tr", "th", "td", "code"}, row
    # Both cells read back as the name, its controls shown escaped (a newline too).
    assert parsed.cells[0] == shown(value).strip() or not value.strip()
    assert parsed.cells[1].strip() == shown(value).strip() or not shown(value).strip()
    assert parsed.cells[2] == "end"


@settings(max_examples=examples(300), deadline=None)
@given(hostile)
def test_prose_has_no_mention_html_or_bare_address(value: str) -> None:
    escaped = text(value)
    assert "@" not in escaped and "<" not in escaped and ">" not in escaped
    assert "\n" not in escaped and "\r" not in escaped
    # A bare address (GFM's extended autolinks) needs "://" or "www." as it is written.
    assert "://" not in escaped and not re.search("www\\.", escaped, re.I)
    parsed = _parse(f"Device {escaped} changed")
    assert parsed.tags == ["p"], escaped


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(hostile, max_size=5))
def test_no_line_gets_out_of_its_fence(lines: list[str]) -> None:
    block = fenced(lines)
    html = GFM.render("\n".join(["<details><summary>x</summary>", "", *block, "", "after"]))
    # One code block holding every line, and the text after it is still a paragraph.
    assert html.count("<pre><code>") == 1, block
    assert html.rstrip().endswith("<p>after</p>"), block
    assert len(block) == len(lines) + 2 and all("\n" not in line for line in block)


@pytest.mark.parametrize(
    ("value", "escaped"),
    [
        ("@team", "&#64;team"),
        ("<img src=x>", "&lt;img src=x&gt;"),
        ("a|b", "a\\|b"),
        ("[x](https://e.example)", "\\[x\\](https\\:\\/\\/e.example)"),
        ("line\nnext", "line\\\\x0anext"),
        ("a01-n01 2.5 kW", "a01-n01 2.5 kW"),  # ordinary names stay readable
    ],
)
def test_text_by_hand(value: str, escaped: str) -> None:
    assert text(value) == escaped


def test_code_spans_by_hand() -> None:
    assert code("a01") == "`a01`"
    assert code("a`b") == "``a`b``"
    assert code("`x") == "`` `x ``"
    assert code("a|b", table=True) == "`a\\|b`"
    assert fenced(["```", "x"]) == ["````", "```", "x", "````"]
