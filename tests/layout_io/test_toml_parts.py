"""A large layout parsed in parts gives the whole text's parse, or gives up (None) so that
the whole text is parsed: never a different document, never an invalid one accepted."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import rtoml
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.layout_io.toml_parse import parse_toml
from rackdesigner.layout_io.toml_parts import parse_in_parts

LAYOUTS = sorted((Path(__file__).parents[2] / "layouts").glob("*.toml"))


def parts(text: str, size: int = 1) -> dict[str, object] | None:
    # Every cut the text allows: a part per [[racks]] or [[links]] header (size 1).
    return parse_in_parts(text, rtoml.loads, whole_below=0, part_size=size)


@pytest.mark.parametrize("path", LAYOUTS, ids=lambda p: p.name)
def test_every_bundled_layout_parses_in_parts_as_whole(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    whole = rtoml.loads(text)
    for size in (1, 5_000):
        found = parts(text, size)
        assert found is not None  # each has racks and links to cut at
        assert found == whole
        assert list(found) == list(whole)  # keys in the order of the whole text


def test_a_small_text_is_parsed_whole() -> None:
    text = "format = 1\n" + "[[links]]\na = 'x:p1'\n" * 3
    assert parse_in_parts(text, rtoml.loads) is None  # under 2 MB
    assert parts(text) == rtoml.loads(text)


@pytest.mark.parametrize(
    "text",
    [
        # a static array and an array of tables of the same name: an error in the whole
        'links = [{ a = "x" }]\n[site]\n\n[[links]]\na = "y"\n\n[[links]]\na = "z"\n',
        # a table declared twice, in two parts
        '[site]\nx = 1\n\n[[links]]\na = "y"\n\n[site]\ny = 2\n\n[[links]]\na = "z"\n',
        # a key of the first part set again after the cut
        'name = "n"\n\n[[racks]]\nid = "r"\n\n[[links]]\na = "y"\n\n[name]\n',
    ],
)
def test_what_the_whole_text_refuses_is_refused(text: str) -> None:
    """Each text is invalid TOML: parsed in parts, each part alone would be valid, so the
    parts give up and the whole text's error is what the user sees."""
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)
    assert parts(text) is None


@pytest.mark.parametrize(
    "text",
    [
        # [[racks.devices]] after another table still belongs to the last rack
        '[[racks]]\nid = "a"\n\n[[racks]]\nid = "b"\n\n[site]\nx = 1\n\n'
        '[[racks.devices]]\nid = "d"\n\n[[links]]\na = "y"\n',
        # [a.b] and [a.c] in different parts: valid, but given up
        '[a.b]\nx = 1\n\n[[links]]\na = "y"\n\n[a.c]\nx = 2\n',
        # a cut inside a multi-line array
        "v = [\n1,\n[[links]]\n]\n",
        # a header line inside a multi-line string
        'd = """\n[[links]]\na = "q"\n"""\n\n[[links]]\na = "y"\n',
    ],
)
def test_what_cannot_be_joined_is_parsed_whole(text: str) -> None:
    try:
        whole: object = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        whole = None
    found = parts(text)
    assert found is None or found == whole
    if whole is not None:
        assert parse_toml(text) == whole


def test_crlf_line_ends_and_comments() -> None:
    text = (
        '# a layout\r\nformat = 1\r\n\r\n[[racks]]\r\nid = "a"\r\n\r\n'
        '[[racks.devices]]\r\nid = "n"\r\n\r\n[[racks]]  \r\nid = "b"\r\n'
        '# links\r\n[[links]]\r\na = "x" # end\r\n\r\n[[links]]\r\na = "y"\r\n'
    )
    found = parts(text)
    assert found == tomllib.loads(text)
    assert found is not None and [r["id"] for r in found["racks"]] == ["a", "b"]


_SECTIONS = st.sampled_from(
    [
        '[[racks]]\nid = "r"\n',
        '[[racks.devices]]\nid = "d"\nposition = 1\n',
        "[racks.extra]\nx = 1\n",
        '[[links]]\na = "n:p1"\nb = "s:p1"\n',
        '[[links]]\na = "n:p2" # a comment\n',
        '[site]\npitch = "600 mm"\n',
        '[workload]\nkind = "training"\n',
        '[catalog.x]\nkind = "switch"\n',
        '[catalog.y]\nkind = "pdu"\n',
        '[[power.elements]]\nid = "u"\n',
        "v = [\n  [1, 2],\n]\n",
        "# a comment\n",
        "\n",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    top=st.sampled_from(["", 'format = 1\nname = "n"\n', 'links = [{ a = "x" }]\n']),
    sections=st.lists(_SECTIONS, max_size=14),
    size=st.sampled_from([1, 30, 200]),
)
def test_parts_give_the_whole_or_nothing(top: str, sections: list[str], size: int) -> None:
    """Random documents of the tables a layout has, in any order (valid or not): in parts,
    the same document as the whole text's parse, or None."""
    text = top + "\n".join(sections)
    try:
        whole: object = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        whole = None
    found = parts(text, size)
    if found is not None:
        assert found == whole
        assert list(found) == list(whole)  # type: ignore[arg-type]
