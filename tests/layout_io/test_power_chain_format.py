"""The power chain in the layout format (v1.4): [[power.elements]], a feed's source and
position, the peak keys; the canonical writer's round trip; load errors with their lines."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.layout_io import dumps, load_text
from rackdesigner.layout_io.catalog import power_models
from rackdesigner.layout_io.json_schema import layout_schema
from rackdesigner.layout_io.schema import ELEMENT
from rackdesigner.model import layout as m
from rackdesigner.model.diagnostics import LayoutError
from rackdesigner.model.units import REAL_POWER, parse
from tests.strategies import examples, layouts, quantity, ratio, spec

HEADER = 'format = 1\nname = "t"\n'

CHAIN = """
[workload]
kind = "training"
peak_factor = 1.4
peak_duration = "3 s"

[[power.elements]]
id = "util"
kind = "utility"
capacity = "2 MW"
voltage = "480 V"

[[power.elements]]
id = "gen"
kind = "generator"
capacity = "2 MW"
start_time = "10 s"
step_load = "50 %"

[[power.elements]]
id = "ats"
kind = "ats"
fed_by = ["util", "gen"]
current = "4000 A"

[[power.elements]]
id = "ups-a"
kind = "ups"
fed_by = ["ats"]
model = "mge-galaxy-pw-225"
modules = 4
redundancy = "n+1"
runtime = "5 min"

[[power.elements]]
id = "tx-a"
kind = "transformer"
fed_by = ["ups-a"]
apparent_power = "300 kVA"
primary_voltage = "480 V"
voltage = "415 V"
efficiency = "98.5 %"

[[power.elements]]
id = "bus-a"
kind = "busway"
fed_by = ["tx-a"]
current = "800 A"
positions = 12
ignore = ["PWR029"]

[[racks]]
id = "a01"
feeds = [
    { id = "a01-A", side = "A", voltage = "415 V", phases = 3, current = "63 A", \
source = "bus-a", position = 3 },
]
"""


def errors(text: str) -> list:
    with pytest.raises(LayoutError) as caught:
        load_text(HEADER + text, file="x.toml")
    return caught.value.diagnostics


def test_a_chain_loads_with_its_models_figures_left_to_the_model() -> None:
    layout = load_text(HEADER + CHAIN)
    ids = [e.id for e in layout.power_elements]
    assert ids == ["util", "gen", "ats", "ups-a", "tx-a", "bus-a"]
    ups = layout.power_elements[3]
    assert ups.model == "mge-galaxy-pw-225" and ups.capacity is None
    assert (ups.modules, ups.redundancy, float(ups.runtime or 0)) == (4, "n+1", 300.0)
    assert layout.racks[0].feeds[0].source == "bus-a"
    assert layout.racks[0].feeds[0].position == 3
    assert layout.workload is not None and layout.workload.peak_factor == 1.4
    assert float(layout.workload.peak_duration or 0) == 3.0
    model = power_models()["mge-galaxy-pw-225"].figures
    assert model.overload == [(1.25, 600.0), (1.5, 60.0)]


def test_the_canonical_form_round_trips_a_chain() -> None:
    layout = load_text(HEADER + CHAIN)
    text = dumps(layout)
    assert load_text(text) == layout
    assert dumps(load_text(text)) == text
    # Elements come after the catalog tables and before the racks, in file order.
    assert text.index("[[power.elements]]") < text.index("[[racks]]")


@st.composite
def chained_layouts(draw: st.DrawFn) -> m.Layout:
    """A generated layout with a valid chain: a utility, a tree of elements below it (each
    fed by an earlier one), every leaf named by a feed or another element."""
    layout = draw(layouts())
    feeds = [f for rack in layout.racks for f in rack.feeds]
    count = draw(st.integers(0, 4))
    capacity = draw(
        st.sampled_from(["750 kW", "1.6 MW", "2 MW"]).map(lambda s: m.Q(parse(s, REAL_POWER), s))
        | st.integers(1, 10_000).map(lambda kw: kw * 1e3)
    )
    elements = [m.PowerElement("u0", "utility", capacity=capacity)]
    kinds = ["switchgear", "ups", "transformer", "rpp", "busway", "ats"]
    for number in range(1, count + 1):
        kind = draw(st.sampled_from(kinds))
        parent = elements[draw(st.integers(0, number - 1))].id
        extra: dict[str, object] = {}
        if kind == "ups":
            extra = {
                "modules": draw(st.integers(1, 6)),
                "redundancy": draw(st.sampled_from(m.REDUNDANCY)),
                "overload": [(1.25, 600.0)],
            }
        elif kind in ("rpp", "busway"):
            extra = {"positions": draw(st.integers(1, 42))}
        elif kind == "transformer":
            extra = {"efficiency": draw(ratio(spec(ELEMENT, "efficiency")))}
        elements.append(
            m.PowerElement(
                f"e{number}",
                kind,
                [parent],
                current=draw(st.none() | quantity(spec(ELEMENT, "current"))),
                voltage=draw(st.none() | quantity(spec(ELEMENT, "voltage"))),
                label=draw(st.none() | st.just("row A")),
                **extra,  # type: ignore[arg-type]
            )
        )
    fed = {p for e in elements for p in e.fed_by or ()}
    leaves = [e.id for e in elements if e.id not in fed]
    if leaves and not feeds:
        return dataclasses.replace(layout, power_elements=[])  # nothing to hang them on
    for number, feed in enumerate(feeds):
        feed.source = (
            leaves[number % len(leaves)] if number < len(leaves) or draw(st.booleans()) else None
        )
    named = {f.source for f in feeds if f.source}
    if not set(leaves) <= named:
        for feed in feeds:
            feed.source = None
        return dataclasses.replace(layout, power_elements=[])
    for feed in feeds:
        if feed.source is not None:
            feed.position = draw(st.none() | st.integers(1, 42))
    return dataclasses.replace(layout, power_elements=elements)


@settings(max_examples=examples(50), deadline=None)
@given(chained_layouts())
def test_save_then_load_gives_the_same_layout_with_a_chain(layout: m.Layout) -> None:
    text = dumps(layout)
    loaded = load_text(text)
    assert loaded == layout
    assert dumps(loaded) == text


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        (  # a cycle
            '[[power.elements]]\nid = "u"\nkind = "utility"\n\n'
            '[[power.elements]]\nid = "a"\nkind = "rpp"\nfed_by = ["b"]\n\n'
            '[[power.elements]]\nid = "b"\nkind = "rpp"\nfed_by = ["a"]\n',
            15,
            "cycle: a <- b <- a",
        ),
        (  # fed by nothing, not a source
            '[[power.elements]]\nid = "r"\nkind = "rpp"\n\n'
            '[[racks]]\nid = "x"\nfeeds = [ { id = "x-A", voltage = "415 V", phases = 3, '
            'current = "63 A", source = "r" } ]\n',
            3,
            "rpp r is fed by nothing",
        ),
        (  # feeds nothing
            '[[power.elements]]\nid = "u"\nkind = "utility"\ncapacity = "1 MW"\n',
            3,
            "utility u feeds nothing",
        ),
        (  # a feed naming an unknown element
            '[[power.elements]]\nid = "ups-a"\nkind = "utility"\n\n'
            '[[racks]]\nid = "x"\nfeeds = [\n    { id = "x-A", voltage = "415 V", phases = 3, '
            'current = "63 A", source = "ups-b" },\n]\n',
            10,
            "source \"ups-b\" names no power element (did you mean 'ups-a'?)",
        ),
        (  # a key of another kind
            '[[power.elements]]\nid = "u"\nkind = "utility"\nruntime = "5 min"\n\n'
            '[[racks]]\nid = "x"\nfeeds = [ { id = "x-A", voltage = "415 V", phases = 3, '
            'current = "63 A", source = "u" } ]\n',
            6,
            "runtime is a key of ups elements",
        ),
        (  # a model the catalog does not have
            '[[power.elements]]\nid = "u"\nkind = "utility"\n\n'
            '[[power.elements]]\nid = "p"\nkind = "ups"\nfed_by = ["u"]\n'
            'model = "liebert-exl-s1-120"\n\n'
            '[[racks]]\nid = "x"\nfeeds = [ { id = "x-A", voltage = "415 V", phases = 3, '
            'current = "63 A", source = "p" } ]\n',
            11,
            "did you mean 'liebert-exl-s1-1200'?",
        ),
    ],
)
def test_a_chain_that_cannot_be_one_is_an_e001_at_its_line(
    text: str, line: int, words: str
) -> None:
    found = [d for d in errors(text) if words in d.message]
    assert found, [d.message for d in errors(text)]
    assert (found[0].code, found[0].line, found[0].file) == ("E001", line, "x.toml")


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("capacity", '"1200 kVA"', "is an apparent power (VA), expected a real power (W)"),
        ("apparent_power", '"1 MW"', "is a real power (W), expected an apparent power (VA)"),
        ("capacity", '"400 A"', "is a current, expected a real power (W)"),
        ("current", '"480 V"', "is a voltage, expected a current (A)"),
    ],
)
def test_a_rating_in_the_wrong_unit_is_an_e002(key: str, value: str, words: str) -> None:
    text = f'[[power.elements]]\nid = "u"\nkind = "utility"\n{key} = {value}\n'
    found = [d for d in errors(text) if d.code == "E002"]
    assert len(found) == 1 and words in found[0].message and found[0].line == 6


def test_an_overload_table_must_be_load_and_time_pairs_above_100_percent() -> None:
    text = (
        '[[power.elements]]\nid = "u"\nkind = "utility"\n\n'
        '[[power.elements]]\nid = "p"\nkind = "ups"\nfed_by = ["u"]\n'
        'overload = [["90 %", "10 min"]]\n'
    )
    assert any("must be above 100 %" in d.message for d in errors(text))
    text = text.replace('[["90 %", "10 min"]]', '[["125 %", "10 m"]]')
    assert any("is a length, expected a time" in d.message for d in errors(text))


def test_the_json_schema_describes_the_chain() -> None:
    schema = layout_schema()
    element = schema["properties"]["power"]["properties"]["elements"]["items"]
    assert element["required"] == ["id", "kind"]
    assert "overload" in element["properties"] and "fed_by" in element["properties"]
    feed = schema["properties"]["racks"]["items"]["properties"]["feeds"]["items"]
    assert {"source", "position"} <= set(feed["properties"])
