"""Properties that must hold for every layout: saving round-trips, validating never crashes."""

from __future__ import annotations

import math
import tomllib

import rtoml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rackdesigner.check.engine import check
from rackdesigner.layout_io import dumps, load_text
from rackdesigner.model.diagnostics import LayoutError
from rackdesigner.model.units import (
    BANDWIDTH,
    CURRENT,
    HEIGHT,
    INFORMATION,
    LENGTH,
    MASS,
    POWER,
    RATIO,
    VOLTAGE,
    UnitError,
    parse,
)
from rackdesigner.rules.registry import all_rules
from tests.strategies import examples, layouts

DIMENSIONS = (POWER, VOLTAGE, CURRENT, LENGTH, HEIGHT, MASS, INFORMATION, BANDWIDTH, RATIO)

SETTINGS = settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(layouts())
def test_save_then_load_gives_the_same_layout(layout) -> None:
    text = dumps(layout)
    loaded = load_text(text)
    assert loaded == layout
    # Canonical: saving what was read gives identical bytes.
    assert dumps(loaded) == text
    # The fast parser and the standard one agree on what the writer writes (one generated
    # layout serves both properties: generating is most of the cost).
    assert rtoml.loads(text) == tomllib.loads(text)


@SETTINGS
@given(layouts(max_racks=4))
def test_validator_never_raises_on_a_loadable_layout(layout) -> None:
    text = dumps(layout)
    loaded = load_text(text)  # the strategy builds only what the loader accepts
    _, diagnostics = check(loaded)
    for d in diagnostics:
        assert d.code in all_rules()
        assert d.severity in ("error", "warning", "info")
        assert d.line >= 0


@settings(max_examples=examples(100), deadline=None)
@given(st.text(max_size=300))
def test_loader_turns_any_text_into_a_layout_or_diagnostics(text: str) -> None:
    try:
        load_text("format = 1\nname = 'x'\n" + text)
    except LayoutError as error:
        assert error.diagnostics
        assert all(d.code in ("E000", "E001", "E002") for d in error.diagnostics)


_UNITS = [
    "W",
    "kW",
    "MW",
    "V",
    "kV",
    "A",
    "mA",
    "m",
    "mm",
    "ft",
    "in",
    "U",
    "kg",
    "lb",
    "t",
    "Gbps",
    "Gbit/s",
    "GB/s",
    "TB/s",
    "TB",
    "GiB",
    "%",
    "Hz",
    "s",
    "",
    "kW kW",
    "W/m",
    "furlong",
    "µm",
    "e",
    "nan",
    "inf",
]


@settings(max_examples=examples(300), deadline=None)
@given(
    st.one_of(
        st.text(max_size=30),
        st.builds(
            lambda number, unit: f"{number} {unit}",
            st.one_of(
                st.floats(allow_nan=True, allow_infinity=True),
                st.integers(-(10**30), 10**30),
                st.text("0123456789.eE+-*()", max_size=12),
            ),
            st.sampled_from(_UNITS),
        ),
    ),
    st.sampled_from(list(DIMENSIONS)),
)
def test_any_quantity_string_is_a_finite_value_or_a_unit_error(text: str, dim) -> None:
    try:
        value = parse(text, dim)
    except UnitError as error:
        assert str(error)
    else:
        assert math.isfinite(value) and value >= 0
