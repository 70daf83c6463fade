from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rackdesigner.model.units import (
    APPARENT_POWER,
    BANDWIDTH,
    BYTE_RATE,
    CURRENT,
    DURATION,
    FLOW,
    HEIGHT,
    INFORMATION,
    LENGTH,
    LOSS,
    MASS,
    POWER,
    PRESSURE,
    RATIO,
    REAL_POWER,
    TEMPERATURE,
    TEMPERATURE_DIFFERENCE,
    VOLTAGE,
    Dimension,
    UnitError,
    canonical_text,
    fmt,
    parse,
)
from tests.strategies import examples


@pytest.mark.parametrize(
    ("text", "dim", "value"),
    [
        ("10.2 kW", POWER, 10200.0),
        ("700 W", POWER, 700.0),
        ("415 V", VOLTAGE, 415.0),
        ("63 A", CURRENT, 63.0),
        ("3 m", LENGTH, 3.0),
        ("600 mm", LENGTH, 0.6),
        ("9.8 ft", LENGTH, 2.98704),
        ("42 U", HEIGHT, 42.0),
        ("177.8 mm", HEIGHT, 4.0),  # 4 rack units of 44.45 mm, without float dust
        ("120 kg", MASS, 120.0),
        ("400 Gbps", BANDWIDTH, 400e9),
        ("400 Gbit/s", BANDWIDTH, 400e9),
        ("3.35 TB/s", BANDWIDTH, 3.35e12 * 8),
        ("2 TB", INFORMATION, 2e12 * 8),
        ("2 TiB", INFORMATION, 2 * 2**40 * 8),
        ("20 %", RATIO, 0.2),
        (0.8, RATIO, 0.8),
    ],
)
def test_parse_to_si(text: str, dim, value: float) -> None:
    assert parse(text, dim) == pytest.approx(value, rel=1e-12)


def test_rack_unit_is_not_the_enzyme_unit() -> None:
    assert parse("1 U", LENGTH) == pytest.approx(0.04445)


@pytest.mark.parametrize(
    ("text", "dim", "message"),
    [
        ("63 V", CURRENT, '"63 V" is a voltage, expected a current (A)'),
        ("3 m", POWER, '"3 m" is a length, expected a power (W)'),
        ("63", CURRENT, '"63" has no unit, expected a current (A)'),
        ("400 GHz", BANDWIDTH, '"400 GHz" is a frequency, expected a bandwidth'),
        ("2 TB", LENGTH, "is an amount of data, expected a length"),
        ("kW", POWER, "has no number"),
        ("-5 kW", POWER, "is negative"),
        ("3 furlongs", LENGTH, "is not a quantity"),
        ("", POWER, "has no number"),
    ],
)
def test_parse_errors_say_what_is_wrong(text: str, dim, message: str) -> None:
    with pytest.raises(UnitError, match=None) as error:
        parse(text, dim)
    assert message in str(error.value)


def test_numbers_without_units_are_refused_for_quantities() -> None:
    with pytest.raises(UnitError, match="has no unit"):
        parse(700, POWER)
    with pytest.raises(UnitError, match="boolean"):
        parse(True, POWER)


def test_bytes_are_not_dimensionless() -> None:
    with pytest.raises(UnitError):
        parse("2 TB", RATIO)


@pytest.mark.parametrize(
    ("value", "dim", "text"),
    [
        (41600.0, POWER, "41.6 kW"),
        (36227.0, POWER, "36.2 kW"),
        (400e9, BANDWIDTH, "400 Gbps"),
        (3.35e12 * 8, BYTE_RATE, "3.35 TB/s"),
        (5.6, LENGTH, "5.6 m"),
        (0.2, RATIO, "20 %"),
        (42.0, HEIGHT, "42 U"),
    ],
)
def test_format_for_people(value: float, dim, text: str) -> None:
    assert fmt(value, dim) == text


@pytest.mark.parametrize(
    ("value", "dim"),
    [
        (10200.0, POWER),
        (0.1, LENGTH),
        (400e9, BANDWIDTH),
        (6.4e11, INFORMATION),
        (4.5, HEIGHT),
        (1e-5, LENGTH),
        (123456.789, MASS),
        (1.0, BANDWIDTH),
    ],
)
def test_canonical_text_parses_back_exactly(value: float, dim) -> None:
    assert parse(canonical_text(value, dim), dim) == value


def test_the_fast_units_parse_exactly_as_pint_does(monkeypatch: pytest.MonkeyPatch) -> None:
    from rackdesigner.model import units

    dims = {
        d.name: d
        for d in (
            POWER,
            VOLTAGE,
            CURRENT,
            LENGTH,
            HEIGHT,
            MASS,
            INFORMATION,
            BANDWIDTH,
            DURATION,
            REAL_POWER,
            APPARENT_POWER,
            TEMPERATURE_DIFFERENCE,
            FLOW,
            PRESSURE,
            LOSS,
        )
    }
    cases = [
        (f"{number} {symbol}", dims[name])
        for name, table in units._FAST.items()
        for symbol in table
        for number in ("0", "1", "0.8", "44.45", "10.2", "415", "1e3", "3.35")
    ]

    def parsed(text: str, dim: Dimension) -> float | str:
        try:
            return units._parse_uncached(text, dim)
        except UnitError as error:  # beyond the plausible: the same message either way
            return str(error)

    fast = [parsed(text, dim) for text, dim in cases]
    monkeypatch.setattr(units, "_FAST", {})
    assert fast == [parsed(text, dim) for text, dim in cases]
    with pytest.raises(UnitError) as slow:
        units._parse_uncached("-3 kW", POWER)
    monkeypatch.undo()
    with pytest.raises(UnitError) as quick:
        units._parse_uncached("-3 kW", POWER)
    assert str(quick.value) == str(slow.value)


def _pint_compact(value: float, dim, digits: int) -> str:
    """How fmt formatted every quantity before its fast path: through pint's to_compact."""
    from rackdesigner.model.units import registry

    quantity = registry().Quantity(value, dim.unit)
    if dim.display != dim.unit:
        quantity = quantity.to(dim.display)
    compact = quantity.to_compact()
    text = f"{float(compact.magnitude):.{digits}g}"
    if "e" in text:
        text = f"{float(compact.magnitude):,.0f}"
    return f"{text} {compact.units:~P}"


@settings(max_examples=examples(300), deadline=None)
@given(
    st.one_of(
        st.floats(min_value=1e-13, max_value=1e21),
        st.builds(
            lambda mantissa, exponent: mantissa * 10.0**exponent,
            st.sampled_from([1.0, 9.995, 99.95, 999.5, 1.005, 0.5, 123.456]),
            st.integers(-12, 20),
        ),
    ),
    st.sampled_from(["power", "voltage", "current", "length", "data", "bandwidth", "byte rate"]),
    st.sampled_from([3, 4, 5, 7]),
)
def test_fmt_without_pint_prints_what_pint_printed(value: float, name: str, digits: int) -> None:
    from rackdesigner.model import units

    dim = {
        "power": units.POWER,
        "voltage": units.VOLTAGE,
        "current": units.CURRENT,
        "length": units.LENGTH,
        "data": units.INFORMATION,
        "bandwidth": units.BANDWIDTH,
        "byte rate": units.BYTE_RATE,
    }[name]
    assert units.fmt(value, dim, digits) == _pint_compact(value, dim, digits)


@pytest.mark.parametrize(
    ("text", "dim", "value"),
    [
        ("30 °C", TEMPERATURE, 30.0),
        ("303.15 K", TEMPERATURE, 30.0),
        ("86 °F", TEMPERATURE, 30.0),
        ("30 degC", TEMPERATURE, 30.0),
        ("5 K", TEMPERATURE_DIFFERENCE, 5.0),
        ("5 °C", TEMPERATURE_DIFFERENCE, 5.0),
        ("1200 L/min", FLOW, 0.02),
        ("72 m^3/h", FLOW, 0.02),
        ("20 L/s", FLOW, 0.02),
        ("35 psi", PRESSURE, 241316.505261),
        ("2.4 bar", PRESSURE, 240000.0),
    ],
)
def test_the_liquid_loop_units(text: str, dim: Dimension, value: float) -> None:
    """(v1.4) 86 °F = (86 - 32) x 5/9 = 30 °C; 303.15 K - 273.15 = 30 °C; a "5 °C"
    approach is a difference of 5 K; 1,200 L/min = 1.2 m³ / 60 s = 0.02 m³/s = 72 m³/h;
    35 psi x 6,894.757 Pa/psi = 241,316.5 Pa."""
    assert parse(text, dim) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "dim", "message"),
    [
        ("45 kW", TEMPERATURE, "is a power, expected a temperature"),
        ("45", TEMPERATURE, "has no unit"),
        ("-300 °C", TEMPERATURE, "below absolute zero"),
        ("5 kW", TEMPERATURE_DIFFERENCE, "is a power, expected a temperature difference"),
        ("3 m", FLOW, "is a length, expected a flow"),
    ],
)
def test_the_liquid_loop_units_refuse_the_wrong_kind(text: str, dim: Dimension, message: str):
    with pytest.raises(UnitError, match=message):
        parse(text, dim)


def test_the_liquid_loop_units_format_as_datasheets_write_them() -> None:
    assert fmt(0.02, FLOW) == "1,200 L/min"
    assert fmt(31.5, TEMPERATURE) == "31.5 °C"
    assert fmt(5.0, TEMPERATURE_DIFFERENCE) == "5 K"
    assert parse(canonical_text(30.0, TEMPERATURE), TEMPERATURE) == 30.0
    assert parse(canonical_text(0.02, FLOW), FLOW) == 0.02
