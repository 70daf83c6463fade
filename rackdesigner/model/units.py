"""The application's one UnitRegistry: parse quantities at the boundary, format them for people.

Layouts write every physical quantity as a string with a unit (``"10.2 kW"``).
The loader turns each into an SI float once, through :func:`parse`, which
caches by text because the same strings repeat thousands of times in a large
layout. Everything after loading computes on plain floats; pint only returns
when a number is formatted for a person (:func:`fmt`).
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pint is imported lazily: commands that parse nothing never pay for it
    import pint


@dataclass(frozen=True, slots=True)
class Dimension:
    """A kind of quantity a layout key expects, and the unit its floats are held in."""

    name: str  # "power", used in messages: "expected a power (W)"
    unit: str  # the unit floats are held in (SI, except rack units for heights)
    display: str  # the unit people read, before pint picks a prefix
    article: str = "a"


POWER = Dimension("power", "W", "W")
VOLTAGE = Dimension("voltage", "V", "V")
CURRENT = Dimension("current", "A", "A")
LENGTH = Dimension("length", "m", "m")
HEIGHT = Dimension("height", "U", "U")  # rack heights and device heights, held in rack units
MASS = Dimension("mass", "kg", "kg")
INFORMATION = Dimension("amount of data", "bit", "B", article="an")
BANDWIDTH = Dimension("bandwidth", "bit/s", "bps")
# Memory and NVLink bandwidths are quoted in bytes per second; same dimension, other display.
BYTE_RATE = Dimension("bandwidth", "bit/s", "B/s")
RATIO = Dimension("ratio", "", "%")
# Latency and other short times, held in seconds: 2.5e-10 reads "250 ps", not "0 ns".
DURATION = Dimension("time", "s", "s")
# Floor loading: a rack's weight over its footprint (PLC008).
AREAL_MASS = Dimension("floor load", "kg/m^2", "kg/m²")
# (v1.4) A power-chain element's ratings: a real power (W) and an apparent power (VA) are
# one dimension to pint, but a UPS's "1200 kVA" is not its kW rating: each refuses the
# other's units, so a rating written in the wrong one is an error, not a silent mistake.
REAL_POWER = Dimension("real power", "W", "W")
APPARENT_POWER = Dimension("apparent power", "VA", "VA", article="an")
# (v1.4) The liquid loop: a coolant temperature (held in degrees Celsius, a coherent SI
# derived unit, so that 45 reads as the datasheets write it), a temperature difference
# (an approach, held in kelvin), a volume flow (held in m³/s, read in L/min) and a
# pressure (held in Pa, read in kPa).
TEMPERATURE = Dimension("temperature", "degC", "°C")
TEMPERATURE_DIFFERENCE = Dimension("temperature difference", "K", "K")
FLOW = Dimension("flow", "m^3/s", "L/min")
PRESSURE = Dimension("pressure", "Pa", "Pa")
# (v1.4) Optical loss in decibels: a connector's insertion loss, a channel's loss budget.
LOSS = Dimension("optical loss", "dB", "dB", article="an")
# How a wrong value is described: "current "63 V" is a voltage, expected a current (A)".
_KIND_OF: dict[str, str] = {
    "[length]": "a length",
    "[mass]": "a mass",
    "[time]": "a time",
    "[current]": "a current",
    "[information]": "an amount of data",
    "[information] / [time]": "a bandwidth",
    "1 / [time]": "a frequency",
    "[mass] * [length] ** 2 / [time] ** 3": "a power",
    "[mass] * [length] ** 2 / [time] ** 2": "an energy",
    "[mass] * [length] ** 2 / [time] ** 3 / [current]": "a voltage",
    "[mass] / [length] ** 2": "a floor load",
    "[length] ** 3 / [time]": "a flow",
    "[mass] / [length] / [time] ** 2": "a pressure",
    "[temperature]": "a temperature",
    "[optical_loss]": "an optical loss",
    "dimensionless": "a plain number",
}


class UnitError(ValueError):
    """A quantity string that is unparsable, has no unit, or has the wrong dimension.

    The message names only the value; the caller prefixes the entity and key.
    """


@cache
def registry() -> pint.UnitRegistry:
    """The application-wide registry, built on first use from ``units.txt``."""
    import pint

    definitions = resources.files("rackdesigner.model").joinpath("units.txt")
    with resources.as_file(definitions) as path:
        ureg: pint.UnitRegistry = pint.UnitRegistry(str(path), autoconvert_offset_to_baseunit=False)
    ureg.formatter.default_format = "~P"
    return ureg


_cache: dict[tuple[str, str], float] = {}


def parse(text: object, dim: Dimension) -> float:
    """Parse ``text`` as a quantity of dimension ``dim``; return its magnitude in ``dim.unit``.

    Ratios accept a bare number (``0.8``) or a percentage string (``"80 %"``).
    Raises :class:`UnitError` with a message that states what was wrong.
    """
    if isinstance(text, bool):
        raise UnitError(f"{text!r} is a boolean, expected {dim.article} {dim.name} ({dim.display})")
    if isinstance(text, int | float):
        if dim is RATIO:
            return _checked(float(text), repr(text), dim)
        raise UnitError(
            f'{text!r} has no unit, expected {dim.article} {dim.name} like "{_example(dim)}"'
        )
    if not isinstance(text, str):
        raise UnitError(
            f"{text!r} is not a quantity string, expected {dim.article} {dim.name} "
            f'like "{_example(dim)}"'
        )
    key = (text, dim.name)
    try:
        return _cache[key]
    except KeyError:
        pass
    value = _parse_uncached(text, dim)
    _cache[key] = value
    return value


def _example(dim: Dimension) -> str:
    return {
        "power": "10.2 kW",
        "voltage": "415 V",
        "current": "63 A",
        "length": "3 m",
        "height": "42 U",
        "mass": "120 kg",
        "amount of data": "2 TB",
        "bandwidth": "400 Gbps",
        "ratio": "80 %",
        "floor load": "1500 kg/m^2",
        "time": "10 s",
        "real power": "1200 kW",
        "apparent power": "1200 kVA",
        "temperature": "30 °C",
        "temperature difference": "5 K",
        "flow": "1200 L/min",
        "pressure": "150 kPa",
        "optical loss": "0.35 dB",
    }[dim.name]


# A number, then a unit made of unit names, prefixes, "/", "%" and a squared "^2" or "²"
# (floor loads, kg/m^2). Only this reaches pint: pint evaluates expressions, and "9**9**9 A"
# would never finish.
_QUANTITY = re.compile(
    r"^\s*(?P<number>[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)"
    r"\s*(?P<unit>[A-Za-zµμ%°℃](?:[A-Za-zµμ%/ ²³]|\^[23])*?)?\s*$"
)

# Beyond these a value is a typo, not a data centre: 1 GW racks, 100 km cables.
_LARGEST = {
    "power": 1e9,
    "voltage": 1e6,
    "current": 1e6,
    "length": 1e5,
    "height": 100.0,
    "mass": 1e7,
    "amount of data": 8e21,
    "bandwidth": 8e16,
    "ratio": 1e6,
    "floor load": 1e6,
    "time": 1e7,  # s: four months, longer than any battery or start time
    "real power": 1e10,  # W: a 10 GW campus is a typo's size for one element
    "apparent power": 1e10,
    "temperature": 1e4,
    "temperature difference": 1000.0,
    "flow": 100.0,  # m³/s: 6,000,000 L/min, a river, not a data centre loop
    "pressure": 1e8,  # Pa: 1,000 bar
    "optical loss": 100.0,  # dB: no data-centre channel budget is a tenth of it
}


def _checked(value: float, text: str, dim: Dimension) -> float:
    if not math.isfinite(value):
        raise UnitError(f"{text} is not a finite {dim.name}")
    if value < 0:
        raise UnitError(f"{text} is negative; {dim.article} {dim.name} cannot be negative")
    largest = _LARGEST[dim.name]
    if value > largest:
        limit = fmt(largest, BYTE_RATE if dim is BANDWIDTH else dim) if dim.unit else f"{largest:g}"
        raise UnitError(f"{text} is not a plausible {dim.name} (more than {limit})")
    return value


def _prefixed(symbol: str, prefixes: str, scale: float = 1.0) -> dict[str, float]:
    powers = {"": 0, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15}
    return {f"{p}{symbol}": scale * 10.0 ** powers[p] for p in prefixes.split(",")}


# The units layouts are written in, by dimension, and their factor to the unit floats are
# held in: these parse without pint (importing it and building the registry is most of the
# time a 128-GPU layout takes to load). A test holds every entry to pint's own answer;
# anything else goes through pint.
_FAST: dict[str, dict[str, float]] = {
    "power": _prefixed("W", ",k,M,G,m"),
    "voltage": _prefixed("V", ",k,m"),
    "current": _prefixed("A", ",k,m"),
    "length": _prefixed("m", ",k,m") | {"cm": 0.01},
    "mass": {"kg": 1.0, "g": 0.001, "t": 1000.0},
    "height": {"U": 1.0, "RU": 1.0},
    "amount of data": _prefixed("B", ",k,M,G,T,P", 8.0) | _prefixed("bit", ",k,M,G,T"),
    "bandwidth": _prefixed("bps", ",k,M,G,T") | _prefixed("B/s", ",k,M,G,T", 8.0),
    "time": {"s": 1.0, "ms": 1e-3, "min": 60.0, "h": 3600.0},
    "real power": _prefixed("W", ",k,M,G"),
    "apparent power": _prefixed("VA", ",k,M,G"),
    # (v1.4) The liquid loop's units: a difference in K (or °C, as datasheets write an
    # approach, "5 °C ATD"), flows in L/min (LPM), m³/h, L/s or US gpm, pressures in Pa,
    # kPa, bar or psi.
    "temperature difference": {"K": 1.0},
    "flow": {
        "L/min": 1e-3 / 60,
        "l/min": 1e-3 / 60,
        "LPM": 1e-3 / 60,
        "L/s": 1e-3,
        "l/s": 1e-3,
        "m^3/h": 1 / 3600,
        "m³/h": 1 / 3600,
        "m^3/s": 1.0,
        "m³/s": 1.0,
        "gpm": 3.785411784e-3 / 60,
        "GPM": 3.785411784e-3 / 60,
        "cfm": 0.028316846592 / 60,
        "CFM": 0.028316846592 / 60,
    },
    "pressure": {"Pa": 1.0, "kPa": 1e3, "MPa": 1e6, "bar": 1e5, "psi": 6894.757293168},
    "optical loss": {"dB": 1.0},
}
# (v1.4) The units each rating refuses, with the key that takes them.
_OTHER_POWER = {"real power": ("VA", "apparent_power"), "apparent power": ("W", "capacity")}
# (v1.4) A temperature's unit: its scale and offset to degrees Celsius (°F: (F - 32) x 5/9).
_TEMPERATURE_UNITS = {
    "°C": (1.0, 0.0),
    "degC": (1.0, 0.0),
    "℃": (1.0, 0.0),
    "K": (1.0, -273.15),
    "°F": (5 / 9, -32 * 5 / 9),
    "degF": (5 / 9, -32 * 5 / 9),
    "℉": (5 / 9, -32 * 5 / 9),
}
_TEMPERATURE = re.compile(
    r"^\s*(?P<number>[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(?P<unit>\S*)\s*$"
)


_CELSIUS_DIFFERENCE = re.compile(r"(?:°C|degC|℃)(?=\s*$)")


def _parse_temperature(text: str, dim: Dimension) -> float:
    """A temperature in °C (from °C, K or °F): not through pint, whose offset units need
    care a layout does not; a value below absolute zero is no temperature."""
    found = _TEMPERATURE.match(text)
    if found is None or not found["unit"]:
        if found is not None:
            raise UnitError(f'"{text}" has no unit, expected a temperature like "30 °C"')
        return _parse_uncached(text, Dimension("temperature", "K", "°C"))  # says what it is
    unit = found["unit"]
    scale = _TEMPERATURE_UNITS.get(unit)
    if scale is None:
        try:  # another dimension's unit: say which ("45 kW is a power")
            _parse_uncached(text, Dimension("temperature", "K", "°C"))
        except UnitError as error:
            raise UnitError(str(error).replace("(°C)", '(°C), like "30 °C"')) from None
        raise UnitError(f'"{text}": write a temperature in °C, K or °F, like "30 °C"')
    number = float(found["number"])
    if not math.isfinite(number):
        raise UnitError(f'"{text}" is not a finite temperature')
    value = number * scale[0] + scale[1]
    if value < -273.15:
        raise UnitError(f'"{text}" is below absolute zero; no temperature can be')
    return float(f"{value:.12g}")


def _parse_uncached(text: str, dim: Dimension) -> float:
    if dim is TEMPERATURE:
        return _parse_temperature(text, dim)
    if dim is TEMPERATURE_DIFFERENCE:  # "5 °C ATD": a difference of 5 °C is 5 K
        text = _CELSIUS_DIFFERENCE.sub("K", text)
    found = _QUANTITY.match(text)
    other = _OTHER_POWER.get(dim.name)
    if other is not None and found is not None:
        _refuse_other_power(text, (found["unit"] or "").strip(), dim, *other)
    if found is not None and dim.unit:
        factor = _FAST.get(dim.name, {}).get((found["unit"] or "").strip())
        number = float(found["number"])
        if factor is not None and math.isfinite(number):
            value = _checked(number * factor, f'"{text}"', dim)
            return float(f"{value:.12g}")
    import pint

    found = _QUANTITY.match(text)
    if found is None:
        stripped = text.strip()
        if not stripped or not (stripped[0].isdigit() or stripped[0] in "+-."):
            raise UnitError(
                f'"{text}" has no number, expected {dim.article} {dim.name} like "{_example(dim)}"'
            )
        raise UnitError(
            f'"{text}" is not a quantity: write a number and a unit, like "{_example(dim)}"'
        )
    number = float(found["number"])
    if not math.isfinite(number):
        raise UnitError(f'"{text}" is not a finite {dim.name}')
    unit = (found["unit"] or "").strip().replace("²", "^2").replace("³", "^3")
    ureg = registry()
    try:
        quantity = ureg.Quantity(number, unit) if unit else ureg.Quantity(number)
    except (
        pint.errors.PintError,
        ValueError,
        TypeError,
        AttributeError,
        SyntaxError,
        KeyError,
    ) as error:
        detail = str(error).replace(" in the unit registry", "")
        raise UnitError(
            f'"{text}" is not a quantity ({detail}); expected {dim.article} '
            f'{dim.name} like "{_example(dim)}"'
        ) from None
    dimensionality = str(quantity.dimensionality)
    target = ureg.Unit(dim.unit) if dim.unit else ureg.dimensionless
    if quantity.dimensionality != target.dimensionality:
        if dimensionality == "dimensionless":
            raise UnitError(
                f'"{text}" has no unit, expected {dim.article} {dim.name} ({dim.display})'
            )
        kind = _KIND_OF.get(dimensionality, f"of dimension {dimensionality}")
        raise UnitError(f'"{text}" is {kind}, expected {dim.article} {dim.name} ({dim.display})')
    value = _checked(float(quantity.m_as(target)), f'"{text}"', dim)
    # Conversions through prefixes leave float dust (0.1778 m / 44.45 mm = 4.000000000000001 U);
    # round to 12 significant digits so equal quantities compare equal.
    return float(f"{value:.12g}")


def _refuse_other_power(text: str, unit: str, dim: Dimension, other: str, key: str) -> None:
    """A real power written in VA, or an apparent power in W: the wrong rating."""
    if unit.endswith(other):
        kind = "an apparent power (VA)" if other == "VA" else "a real power (W)"
        raise UnitError(
            f'"{text}" is {kind}, expected {dim.article} {dim.name} ({dim.display}): '
            f"give it as {key}"
        )


@cache
def fmt(value: float, dim: Dimension, digits: int = 3) -> str:
    """Format an SI float for people, with the prefix pint picks.

    ``fmt(41600, POWER) == "41.6 kW"``.
    """
    if dim is RATIO:
        return f"{value * 100:.{digits}g} %"
    if dim is HEIGHT:
        return f"{value:g} U"
    if dim is TEMPERATURE:
        return f"{value:.{digits}g} °C" if abs(value) >= 1 else f"{value:.2g} °C"
    if dim is TEMPERATURE_DIFFERENCE:
        return f"{value:.{digits}g} K"
    if dim is FLOW:  # in litres per minute, as pumps and cold plates are rated
        return (
            f"{value * 60000:,.0f} L/min"
            if value * 60000 >= 1000
            else (f"{value * 60000:.{digits}g} L/min")
        )
    if dim is LOSS:  # decibels take no prefix: "1.55 dB", never "1.55 kdB"
        return f"{value:.{digits}g} dB"
    if dim is AREAL_MASS:  # whole kilograms, more digits only to tell two loads apart
        return f"{value:,.{max(0, digits - 3)}f} kg/m²"
    if dim is MASS and value >= 1:  # people weigh racks in kilograms, not megagrams
        return f"{value:,.0f} kg" if value >= 1000 else f"{value:.{digits}g} kg"
    if value == 0 or not math.isfinite(value):
        return f"{value:g} {dim.display}"
    fast = _PLAIN_DISPLAY.get(dim)
    if fast is not None:
        return _fmt_prefixed(value * fast, dim.display, digits)
    ureg = registry()
    quantity = ureg.Quantity(value, dim.unit)
    if dim.display != dim.unit:
        quantity = quantity.to(dim.display)
    compact = quantity.to_compact()
    magnitude = float(compact.magnitude)
    text = f"{magnitude:.{digits}g}"
    if "e" in text:  # to_compact ran out of prefixes; fall back to plain notation
        text = f"{magnitude:,.0f}"
    return f"{text} {compact.units:~P}"


# Dimensions whose display unit is a plain (unprefixed) unit, and the factor from the unit
# floats are held in to it: these are formatted without pint, as pint would (150,000 findings
# spent seconds in ``to_compact``). Others (kilograms below 1 kg) go through pint.
_PLAIN_DISPLAY: dict[Dimension, float] = {
    POWER: 1.0,
    VOLTAGE: 1.0,
    CURRENT: 1.0,
    LENGTH: 1.0,
    INFORMATION: 1 / 8,
    BANDWIDTH: 1.0,
    BYTE_RATE: 1 / 8,
    DURATION: 1.0,
    REAL_POWER: 1.0,
    APPARENT_POWER: 1.0,
    PRESSURE: 1.0,
}
# The decimal prefixes of units.txt, by power of ten, as pint's to_compact picks among them.
_PREFIX_POWERS = (-12, -9, -6, -3, -2, -1, 0, 3, 6, 9, 12, 15, 18)
_PREFIX_SYMBOLS = ("p", "n", "µ", "m", "c", "d", "", "k", "M", "G", "T", "P", "E")


def _fmt_prefixed(magnitude: float, unit: str, digits: int) -> str:
    """``magnitude`` of ``unit`` with the SI prefix that puts it in [1, 1000), as pint's
    ``to_compact`` does: the same choice, the same digits."""
    power = math.floor(math.log10(abs(magnitude)) / 3) * 3
    index = bisect.bisect_left(_PREFIX_POWERS, power)
    if index >= len(_PREFIX_POWERS):
        index = -1
    power = _PREFIX_POWERS[index]
    # pint converts by multiplying with 1 / (the prefix's scale): the same float dust, so the
    # same rounding at the last digit.
    scaled = magnitude * (1 / 10.0**power)
    text = f"{scaled:.{digits}g}"
    if "e" in text:  # beyond the prefixes: plain notation, as fmt does
        text = f"{scaled:,.0f}"
    return f"{text} {_PREFIX_SYMBOLS[index]}{unit}"


def fmt_apart(value: float, limit: float, dim: Dimension) -> tuple[str, str]:
    """``value`` and ``limit`` with as many digits, the same for both, as it takes for them
    not to read equal.

    A load of 5,889 W over a 5,888 W capacity must read "5.889 kW exceeds 5.888 kW", not
    "5.89 kW exceeds 5.89 kW" (nor "5.889 kW exceeds 5.89 kW").
    """
    for digits in range(3, 8):
        shown = fmt(value, dim, digits), fmt(limit, dim, digits)
        if value == limit or shown[0] != shown[1]:
            return shown
    return shown


def sci_text(value: float) -> str:
    """A count as a layout writes it: ``70e9``, ``405.9e9``, ``800e6`` (an exponent that is a
    multiple of 3 from 1e6 up); smaller counts as they are (``4096``)."""
    number = float(value)
    for exponent in (18, 15, 12, 9, 6):
        if abs(number) >= 10.0**exponent:
            return f"{repr(number / 10.0**exponent).removesuffix('.0')}e{exponent}"
    return f"{number:g}"


def fmt_count(value: float) -> str:
    """A large count as people say it: ``70e9`` is "70B", ``1.5e12`` "1.5T", ``350e6`` "350M"."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if value >= scale:
            return f"{value / scale:.4g}{suffix}"
    return f"{value:g}"


def canonical_text(value: float, dim: Dimension) -> str:
    """The text a newly set quantity is written with, in the key's canonical unit.

    Twelve significant digits, the precision :func:`parse` keeps, so that
    ``parse(canonical_text(v)) == v`` for every value a layout can hold.
    """
    if dim is RATIO:
        return repr(value)
    scaled = _CANONICAL.get(dim.unit)
    if scaled is not None:
        unit, scale = scaled
        text = f"{float(value) / scale:.12g} {unit}"
        if parse(text, dim) == value:
            return text
    return f"{float(value):.12g} {dim.unit}"


# Units people read more easily than the SI base for new values of these dimensions.
_CANONICAL = {
    "bit/s": ("Gbps", 1e9),
    "bit": ("GB", 8e9),
    "degC": ("°C", 1.0),
    "m^3/s": ("L/min", 1e-3 / 60),
    "Pa": ("kPa", 1e3),
}
