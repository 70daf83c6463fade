"""Setting catalog entries by editing the file's text: every other line stays, the data is
the old data with exactly those entries set, and what cannot be edited in place is refused."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.layout_io.catalog_edit import CatalogEditError, set_entries
from rackdesigner.layout_io.toml_parse import parse_toml
from tests.strategies import examples

KEYS = ["a", "b", "c-d", "e_1", "f"]


def entry(key: str, version: int) -> str:
    return f'[catalog.{key}]\nname = "{key} v{version}"\ncost = {version}\n'


@st.composite
def catalog_files(draw: st.DrawFn) -> tuple[str, dict[str, int], list[str]]:
    """A catalog file: some entries, some with a port sub-table, a GPU table, and comments
    above tables and at the ends; its entries' versions and its comment lines."""
    keys = draw(st.lists(st.sampled_from(KEYS), unique=True, max_size=4))
    parts, comments = [], []
    if draw(st.booleans()):
        parts.append("# head comment\n")
        comments.append("# head comment")
    for number, key in enumerate(keys):
        if draw(st.booleans()):
            parts.append(f"# about {key}\n")
            comments.append(f"# about {key}")
        parts.append(entry(key, 0))
        if draw(st.booleans()):
            parts.append(f'[[catalog.{key}.ports]]\nname = "p"\ncount = {number + 1}\n')
        parts.append("\n" * draw(st.integers(0, 2)))
        if draw(st.booleans()):
            parts.append('[gpus.g]\nname = "G"\n' if "[gpus.g]" not in "".join(parts) else "")
    if draw(st.booleans()):
        parts.append("# tail comment\n")
        comments.append("# tail comment")
    return "".join(parts), dict.fromkeys(keys, 0), comments


@settings(max_examples=examples(200), deadline=None)
@given(catalog_files(), st.lists(st.lists(st.sampled_from(KEYS), min_size=1, max_size=3)))
def test_edit_sequences_keep_every_other_line(
    file: tuple[str, dict[str, int], list[str]], edits: list[list[str]]
) -> None:
    text, versions, comments = file
    for version, keys in enumerate(edits, start=1):
        before = parse_toml(text)
        text = set_entries(text, {key: entry(key, version) for key in keys})
        after = parse_toml(text)
        for key in keys:
            versions[key] = version
            assert after["catalog"][key] == {"name": f"{key} v{version}", "cost": version}
        # Nothing else changed: the other entries and the GPUs are as they were.
        others = {k: v for k, v in (before.get("catalog") or {}).items() if k not in keys}
        assert {k: v for k, v in after["catalog"].items() if k not in keys} == others
        assert after.get("gpus") == before.get("gpus")
    assert set(parse_toml(text).get("catalog") or {}) == set(versions)
    lines = text.splitlines()
    assert all(comment in lines for comment in comments)


def test_an_entry_replaced_where_it_stands_by_hand() -> None:
    text = (
        "# mine\n\n[catalog.a]  # the first\nname = 'A'\n[[catalog.a.ports]]\nname = 'p'\n"
        "count = 1\n\n# about b\n[catalog.b]\nname = 'B'\n"
    )
    assert set_entries(text, {"a": '[catalog.a]\nname = "A2"\n'}) == (
        "# mine\n\n[catalog.a]\nname = \"A2\"\n\n# about b\n[catalog.b]\nname = 'B'\n"
    )
    assert set_entries(text, {"z": '[catalog.z]\nname = "Z"\n'}).endswith(
        "[catalog.b]\nname = 'B'\n\n[catalog.z]\nname = \"Z\"\n"
    )


@pytest.mark.parametrize(
    "text",
    [
        'catalog = { a = { name = "inline" } }\n',
        '[catalog]\na = { name = "inline" }\n',
        '[catalog]\na.name = "dotted"\n',
    ],
)
def test_an_entry_written_inline_is_refused(text: str) -> None:
    with pytest.raises(CatalogEditError, match=r"must be moved to a \[catalog\.KEY\] table"):
        set_entries(text, {"a": '[catalog.a]\nname = "A"\n'})
