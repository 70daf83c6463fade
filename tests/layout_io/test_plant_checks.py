"""(v1.4) The cable plant's tables: bad input refused with one message, its file and line;
a good plant written canonically and read back the same."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.layout_io import dumps, load_text
from rackdesigner.model.diagnostics import LayoutError
from tests.strategies import examples

RACKS = """format = 1
name = "plant"

[[racks]]
id = "a01"
row = "A"
slot = 1

[[racks.devices]]
id = "a01-sw"
model = "qm9700"
position = 21

[[racks.devices]]
id = "a01-pp1"
model = "fibre-panel-mpo-1u"
position = 40

[[racks]]
id = "b01"
row = "B"
slot = 1

[[racks.devices]]
id = "b01-sw"
model = "qm9700"
position = 21

[[racks.devices]]
id = "b01-pp1"
model = "fibre-panel-mpo-1u"
position = 40
"""

GOOD = """
[[pathways]]
id = "tray-a"
row = "A"
slots = [0, 1]
width = "300 mm"
depth = "100 mm"

[[pathways]]
id = "tray-b"
row = "B"
slots = [0, 1]
width = "300 mm"
depth = "100 mm"

[[pathways]]
id = "cross-0"
rows = ["A", "B"]
slot = 0
width = "300 mm"
depth = "100 mm"

[[trunks]]
id = "t1"
a = "a01-pp1"
b = "b01-pp1"
fibres = 144
media = "smf"
"""


def errors(text: str) -> list[tuple[int, str]]:
    with pytest.raises(LayoutError) as caught:
        load_text(text, file="plant.toml")
    return [(d.line, f"{d.code} {d.entity}: {d.message}") for d in caught.value.diagnostics]


def line_of(text: str, needle: str) -> int:
    return text.split("\n").index(needle) + 1


def test_a_good_plant_loads() -> None:
    layout = load_text(RACKS + GOOD)
    assert [p.id for p in layout.pathways] == ["tray-a", "tray-b", "cross-0"]
    assert layout.trunks[0].fibres == 144


def test_pathways_that_do_not_connect() -> None:
    text = RACKS + GOOD.replace(
        'slots = [0, 1]\nwidth = "300 mm"\ndepth = "100 mm"\n\n[[pathways]]\nid = "cross-0"',
        'slots = [1, 1]\nwidth = "300 mm"\ndepth = "100 mm"\n\n[[pathways]]\nid = "cross-0"',
    )
    found = errors(text)
    assert len(found) == 1
    line, message = found[0]
    assert line == line_of(text, 'id = "tray-b"') - 1  # the table's header
    assert "pathways do not connect: tray-b (along row B from slot 1 to 1)" in message
    assert "meets none of tray-a, cross-0" in message


def test_a_tray_with_no_size() -> None:
    text = RACKS + GOOD.replace(
        'rows = ["A", "B"]\nslot = 0\nwidth = "300 mm"\n', 'rows = ["A", "B"]\nslot = 0\n'
    )
    ((line, message),) = errors(text)
    assert line == line_of(text, 'id = "cross-0"') - 1
    assert "an overhead-tray needs its size for the fill check (CAB006): missing width" in message


def test_a_trunk_between_unknown_panels() -> None:
    text = RACKS + GOOD.replace('b = "b01-pp1"', 'b = "b01-pp2"') + GOOD[:0]
    found = errors(text)
    assert found == [
        (
            line_of(text, 'b = "b01-pp2"'),
            'E001 trunk t1: a trunk runs between patch panels: b = "b01-pp2" names no device '
            "of the layout (did you mean b01-pp1?)",
        )
    ]
    switch = RACKS + GOOD.replace('a = "a01-pp1"', 'a = "a01-sw"')
    ((_, message),) = errors(switch)
    assert 'a = "a01-sw" is a switch, not a patch panel' in message


def test_a_channel_whose_parts_do_not_join() -> None:
    link = '\n[[links]]\na = "a01-sw:p1"\nb = "b01-sw:p1"\nmedia = "smf"\nvia = {via}\n'
    joined = RACKS + GOOD + link.format(via='["a01-pp1:p1", "b01-pp1:p1"]')
    assert load_text(joined).links[0].via == ["a01-pp1:p1", "b01-pp1:p1"]
    apart = (
        RACKS
        + GOOD.replace('b = "b01-pp1"', 'b = "a01-pp1"')
        + link.format(via='["a01-pp1:p1", "b01-pp1:p1"]')
    )
    messages = [m for _, m in errors(apart)]
    assert any(
        "no trunk joins panels a01-pp1 and b01-pp1: the channel's parts do not join" in m
        for m in messages
    )
    named = RACKS + GOOD + link.format(via='["a01-pp1:p1", "b01-pp1:p1"]') + 'trunk = "t9"\n'
    ((line, message),) = errors(named)
    assert line == line_of(named, 'trunk = "t9"')
    assert 'trunk = "t9" names no trunk' in message
    alone = RACKS + GOOD + '\n[[links]]\na = "a01-sw:p1"\nb = "b01-sw:p1"\ntrunk = "t1"\n'
    ((_, message),) = errors(alone)
    assert "the link has no via" in message


def test_an_unknown_transceiver_part() -> None:
    text = (
        RACKS
        + '\n[[links]]\na = "a01-sw:p1"\nb = "b01-sw:p1"\nmedia = "mmf"\n'
        + ('a_transceiver = "MMA4Z00-NX"\n')
    )
    ((line, message),) = errors(text)
    assert line == line_of(text, 'a_transceiver = "MMA4Z00-NX"')
    assert 'a_transceiver = "MMA4Z00-NX" is no transceiver part (did you mean' in message


def test_a_pathway_needs_a_place_on_the_grid() -> None:
    text = RACKS + '\n[[pathways]]\nid = "x"\nrow = "Q"\nwidth = "1 m"\ndepth = "1 m"\n'
    ((_, message),) = errors(text)
    assert 'row = "Q" names no row of the layout (its rows: A, B)' in message
    text = RACKS + '\n[[pathways]]\nid = "x"\nwidth = "1 m"\ndepth = "1 m"\n'
    ((_, message),) = errors(text)
    assert "a pathway needs a position" in message


def test_the_plant_is_written_canonically_and_read_back() -> None:
    text = (
        RACKS
        + GOOD
        + (
            '\n[[links]]\na = "a01-sw:p1"\nb = "b01-sw:p1"\nmedia = "smf"\n'
            'via = ["a01-pp1:p1", "b01-pp1:p1"]\ntrunk = "t1"\na_transceiver = "MMS4X00-NM"\n'
            '\n[transceivers.MY-DR4]\ncage = "osfp-flat"\nports = 1\nmedia = "smf"\n'
            'loss_budget = "3 dB"\n'
        )
    )
    layout = load_text(text)
    written = dumps(layout)
    assert dumps(load_text(written)) == written
    assert written.index("[transceivers.MY-DR4]") < written.index("[[racks]]")
    assert written.index("[[pathways]]") < written.index("[[trunks]]") < written.index("[[links]]")


@settings(max_examples=examples(40), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(("overhead-tray", "ladder-rack", "under-floor")),
            st.sampled_from(("A", "B")),
            st.integers(0, 3),
            st.integers(0, 3),
            st.integers(50, 900),
            st.one_of(st.none(), st.floats(0.1, 0.9)),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_any_pathways_round_trip(rows: list[tuple[str, str, int, int, int, float | None]]) -> None:
    """Runs along rows A and B, of any kind, span and size: what is read is written back
    the same (the layout may refuse pathways that do not connect: then nothing to write)."""
    text = RACKS
    for number, (kind, row, low, high, width, fill) in enumerate(rows):
        low, high = sorted((low, high))
        text += (
            f'\n[[pathways]]\nid = "p{number}"\nkind = "{kind}"\nrow = "{row}"\n'
            f'slots = [{low}, {high}]\nwidth = "{width} mm"\ndepth = "100 mm"\n'
        )
        if fill is not None:
            text += f"fill_max = {fill!r}\n"
    try:
        layout = load_text(text)
    except LayoutError as error:
        assert all("do not connect" in d.message for d in error.diagnostics)
        return
    written = dumps(layout)
    again = load_text(written)
    assert again.pathways == layout.pathways
    assert dumps(again) == written
