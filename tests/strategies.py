"""Hypothesis strategies that build layouts (model objects) the loader accepts."""

from __future__ import annotations

import dataclasses
import functools
import math
import operator

from hypothesis import settings
from hypothesis import strategies as st

from rackdesigner.layout_io import schema as s
from rackdesigner.layout_io.catalog import builtin
from rackdesigner.model import layout as m
from rackdesigner.model.units import (
    BANDWIDTH,
    CURRENT,
    HEIGHT,
    INFORMATION,
    LENGTH,
    MASS,
    POWER,
    VOLTAGE,
    parse,
)


def examples(full: int) -> int:
    """A property test's example count: ``full`` locally (the ``full`` profile), at most the
    ``ci`` profile's count under CI, at least the ``thorough`` profile's count there.

    A count set with ``@settings(max_examples=...)`` wins over any profile; written
    ``@settings(max_examples=examples(300))`` it follows the profile (see tests/conftest.py).
    Read when the test module is imported, after conftest.py has loaded the profile."""
    profile = settings.get_current_profile_name()
    if profile == "ci":
        return min(full, settings.default.max_examples)
    if profile == "thorough":
        return max(full, settings.default.max_examples)
    return full


# Text a user may write: accents, quotes, backslashes, markup that must stay text.
TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=20
) | st.sampled_from(
    ["<script>alert(1)</script>", 'say "hi"', "back\\slash", "tab\there", "line\nbreak", "ümlaut ✓"]
)
# Ids, port names, circuits and hostnames are built from characters rather than with
# ``from_regex``: the same strings, at a fraction of the cost (regex strategies were a third
# of the layout properties' time).
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_ID_CHARS = _LOWER + "0123456789-"
IDS = st.builds(
    operator.add, st.sampled_from(_LOWER), st.text(_ID_CHARS, max_size=6)
)  # [a-z][a-z0-9-]{0,6}
# (v1.1) an entity's ignore key: rule codes or prefixes.
IGNORE = st.none() | st.lists(
    st.sampled_from(["PWR008", "PWR", "CAB001", "plc", "NET00"]), max_size=3, unique=True
)
COMMENT = st.none() | st.lists(
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=15),
    min_size=1,
    max_size=3,
).map(lambda lines: "\n".join(" " + line for line in lines))

_WRITTEN = {
    POWER: ["700 W", "10.2 kW", "1.5 MW", "0 W"],
    VOLTAGE: ["208 V", "415 V", "480 V", "0.24 kV"],
    CURRENT: ["32 A", "63 A", "100 A"],
    LENGTH: ["3 m", "600 mm", "9.8 ft", "2.4 m", "12 in"],
    HEIGHT: ["1 U", "2 U", "8 U", "42 U", "0 U", "177.8 mm"],
    MASS: ["14.8 kg", "130.45 kg", "300 lb"],
    BANDWIDTH: ["400 Gbps", "200 Gbit/s", "3.35 TB/s", "1 Gbps"],
    INFORMATION: ["80 GB", "2 TB", "30.72 TB", "1 TiB"],
}


def spec(table: tuple[s.Field, ...], key: str) -> s.Field:
    """The schema's field ``key`` of ``table``: the strategies take their limits from it."""
    return next(f for f in table if f.key == key)


def _fits(f: s.Field, value: float) -> bool:
    """Whether the loader accepts ``value`` for field ``f``: the schema's own limits."""
    return (
        (f.minimum is None or value >= f.minimum)
        and (f.maximum is None or value <= f.maximum)
        and (not f.positive or value > 0)
        and (not f.whole or value == int(value))
    )


# The builders below are cached: a strategy made anew on every draw costs hypothesis its
# validation each time, which was most of the layout properties' run time.
@functools.cache
def quantity(f: s.Field) -> st.SearchStrategy[float]:
    """A value of quantity field ``f`` within its limits, as loaded from text (a Q keeping
    its text) or set by an edit (a plain float)."""
    dim = f.dim
    assert dim is not None
    texts = [text for text in _WRITTEN[dim] if _fits(f, parse(text, dim))]
    written = st.sampled_from(texts).map(lambda text: m.Q(parse(text, dim), text))
    low = f.minimum if f.minimum is not None else 0.0
    if f.positive:
        low = max(low, 0.01)
    if f.whole:  # whole rack units, at most a tall rack
        high = min(f.maximum if f.maximum is not None else 60, 60)
        return written | st.integers(math.ceil(low), int(high)).map(float)
    high = f.maximum if f.maximum is not None else 1e5
    edited = st.integers(math.ceil(low * 100), int(high * 100)).map(lambda n: float(n) / 100)
    return written | edited


@functools.cache
def integer(f: s.Field, cap: int) -> st.SearchStrategy[int]:
    """A value of integer field ``f`` within its limits (at most ``cap``)."""
    low = int(f.minimum) if f.minimum is not None else -2
    high = min(int(f.maximum), cap) if f.maximum is not None else cap
    return st.integers(low, high)


@functools.cache
def ratio(f: s.Field) -> st.SearchStrategy[float]:
    """A ratio within the field's limits, as a number or as a percentage string."""
    numbers = [v for v in (0.0, 0.5, 0.8, 1.0, 1.2) if _fits(f, v)]
    texts = [t for t in ("80 %", "95 %", "120 %") if _fits(f, float(t.split()[0]) / 100)]
    return st.sampled_from(numbers) | st.sampled_from(texts).map(
        lambda text: m.Q(float(text.split()[0]) / 100, text)
    )


@functools.cache
def _maybe(strategy: st.SearchStrategy) -> st.SearchStrategy:
    return st.none() | strategy


MODELS = st.sampled_from(sorted(builtin().devices)) | IDS
PORT_NAMES = st.text(_LOWER, min_size=1, max_size=4)  # [a-z]{1,4}
CIRCUITS = st.builds(  # PP[0-9]-[AB]-[0-9]{2}
    "PP{}-{}-{:02d}".format, st.integers(0, 9), st.sampled_from("AB"), st.integers(0, 99)
)
HOSTNAMES = st.builds(  # [a-z][a-z0-9-]{0,10}[0-9](\.[a-z]{1,4})?
    lambda first, middle, digit, domain: first + middle + digit + domain,
    st.sampled_from(_LOWER),
    st.text(_ID_CHARS, max_size=10),
    st.sampled_from("0123456789"),
    st.just("") | st.text(_LOWER, min_size=1, max_size=4).map(lambda d: "." + d),
)


@functools.cache
def pick(*values: object) -> st.SearchStrategy:
    """``sampled_from(values)``, made once per set of values."""
    return st.sampled_from(values)


GPU_NAMES = st.sampled_from(sorted(builtin().gpus)) | IDS
COSTS = st.integers(0, 10**6)


@st.composite
def port_groups(draw: st.DrawFn) -> m.PortGroup:
    return m.PortGroup(
        name=draw(PORT_NAMES),
        count=draw(integer(spec(s.PORT, "count"), 64)),
        speed=draw(_maybe(quantity(spec(s.PORT, "speed")))),
        tech=draw(_maybe(pick(*m.PORT_TECH))),
        role=draw(_maybe(pick(*m.PORT_ROLES))),
    )


PORT_GROUPS = st.lists(port_groups(), max_size=3, unique_by=lambda g: g.name)


@st.composite
def device_types(draw: st.DrawFn) -> m.DeviceType:
    """A catalog entry keyed ``""``: the layout gives it its key (one strategy for all)."""
    low = draw(quantity(spec(s.FEED, "outlet_voltage")))
    dt = s.DEVICE_TYPE
    return m.DeviceType(
        key="",
        kind=draw(pick(*m.DEVICE_KINDS)),
        name=draw(_maybe(TEXT)),
        height=draw(_maybe(quantity(spec(dt, "height")))),
        depth=draw(_maybe(pick("full", "half"))),
        power=draw(_maybe(quantity(spec(dt, "power")))),
        weight=draw(_maybe(quantity(spec(dt, "weight")))),
        gpu=draw(_maybe(GPU_NAMES)),
        gpus=draw(_maybe(integer(spec(dt, "gpus"), 16))),
        cpu_cores=draw(_maybe(integer(spec(dt, "cpu_cores"), 256))),
        memory=draw(_maybe(quantity(spec(dt, "memory")))),
        cost=draw(_maybe(COSTS)),
        airflow=draw(_maybe(pick(*m.AIRFLOW))),
        psus=draw(_maybe(integer(spec(dt, "psus"), 8))),
        psus_required=draw(_maybe(integer(spec(dt, "psus_required"), 8))),
        input_voltage=(low, float(f"{low + 40.0:.12g}")) if draw(st.booleans()) else None,
        liquid_fraction=draw(_maybe(ratio(spec(dt, "liquid_fraction")))),
        capacity=draw(_maybe(quantity(spec(dt, "capacity")))),
        ports=draw(_maybe(PORT_GROUPS)),
        notes=draw(_maybe(TEXT)),
        comment=draw(COMMENT),
    )


@st.composite
def feeds(draw: st.DrawFn) -> m.Feed:
    """A feed with id ``""``: its rack names it (one strategy for all)."""
    return m.Feed(
        id="",
        voltage=draw(quantity(spec(s.FEED, "voltage"))),
        phases=draw(pick(*spec(s.FEED, "phases").choices)),
        current=draw(quantity(spec(s.FEED, "current"))),
        side=draw(_maybe(pick("A", "B", "C", "pdu-2"))),  # v1.1: any label
        circuit=draw(_maybe(CIRCUITS)),
        wiring=draw(_maybe(pick(*m.WIRING))),
        derate=draw(_maybe(ratio(spec(s.FEED, "derate")))),
        outlet_voltage=draw(_maybe(quantity(spec(s.FEED, "outlet_voltage")))),
    )


# Made once: a strategy built inside ``layouts`` is built, and validated, on every draw.
DEVICE_TYPES = device_types()
FEEDS = feeds()
RACK_IDS = functools.cache(lambda most: st.lists(IDS, max_size=most, unique=True))
DEVICE_IDS = st.lists(IDS.map(lambda s: "d" + s), max_size=8, unique=True)
CATALOG_KEYS = st.lists(IDS.map(lambda s: "t" + s), max_size=2, unique=True)
SIDES = st.lists(st.sampled_from("ABC"), max_size=3, unique=True)
# References to devices are drawn as indexes and resolved against the layout's device ids
# (or a dangling "none" when there are none), so the strategies need not know the ids.
DEVICE_INDEX = st.integers(0, 7)
CDUS = _maybe(DEVICE_INDEX | st.lists(DEVICE_INDEX, min_size=1, max_size=2))
DOORS = _maybe(DEVICE_INDEX)
PORTS = st.tuples(
    DEVICE_INDEX, st.sampled_from(["ib", "p", "eth", "bmc", "mgmt", "zz"]), st.integers(1, 70)
)
LINKS = st.lists(
    st.tuples(
        PORTS,
        PORTS,
        _maybe(pick(*m.MEDIA)),
        _maybe(quantity(spec(s.LINK, "length"))),
        COMMENT,
        IGNORE,
        _maybe(st.integers(0, 2)),
    ),
    max_size=10,
)
WORKLOADS = _maybe(
    st.builds(
        m.Workload,
        kind=_maybe(pick(*m.WORKLOAD_KINDS)),
        model_params=_maybe(st.sampled_from([7e9, 70e9, 175e9, 405e9, 1.5e9, 1000])),
        parallelism=_maybe(pick(*m.PARALLELISM)),
        steps_per_second=_maybe(st.sampled_from([0.1, 1.0, 2])),
        bytes_per_param=_maybe(st.sampled_from([2, 4])),
        # (v1.4) the keys no other key contradicts (workload_keys.py)
        tensor_parallel=_maybe(st.integers(1, 16)),
        pipeline_parallel=_maybe(st.integers(1, 16)),
        context_length=_maybe(st.sampled_from([2048, 8192, 131_072])),
        batch_size=_maybe(st.integers(1, 64)),
        activation_memory=_maybe(quantity(spec(s.WORKLOAD, "activation_memory"))),
        layers=_maybe(st.integers(1, 200)),
        hidden_size=_maybe(st.sampled_from([4096, 8192, 16_384])),
        kv_heads=_maybe(st.sampled_from([8, 64])),
        head_dim=_maybe(st.just(128)),
        power_capping=_maybe(st.booleans()),
        comment=COMMENT,
    )
)
SITES = _maybe(
    st.builds(
        m.Site,
        power_budget=_maybe(quantity(spec(s.SITE, "power_budget"))),
        cooling_capacity=_maybe(quantity(spec(s.SITE, "cooling_capacity"))),
        rack_pitch=_maybe(quantity(spec(s.SITE, "rack_pitch"))),
        slack=_maybe(quantity(spec(s.SITE, "slack"))),
        comment=COMMENT,
    )
)
META = _maybe(st.dictionaries(IDS, st.integers() | TEXT, max_size=2))


@st.composite
def layouts(draw: st.DrawFn, max_racks: int = 3) -> m.Layout:
    rack_ids = draw(RACK_IDS(max_racks))
    device_ids = draw(DEVICE_IDS)

    def device(index: int) -> str:
        return device_ids[index % len(device_ids)] if device_ids else "none"

    def port(drawn: tuple[int, str, int]) -> str:
        index, group, number = drawn
        return f"{device_ids[index % len(device_ids)] if device_ids else 'x'}:{group}{number}"

    racks = []
    for number, rack_id in enumerate(rack_ids):
        mine = device_ids[number :: max(1, len(rack_ids))]
        devices = [
            m.Device(
                id=d,
                model=draw(MODELS),
                position=draw(_maybe(integer(spec(s.DEVICE, "position"), 50))),
                face=draw(_maybe(pick("front", "rear"))),
                phase=draw(_maybe(pick(*(m.PHASES_WYE + m.PHASES_DELTA)))),
                label=draw(_maybe(TEXT)),
                hostname=draw(_maybe(HOSTNAMES)),
                comment=draw(COMMENT),
                ignore=draw(IGNORE),
            )
            for d in mine
        ]
        cdu = draw(CDUS)  # v1.1: one CDU id or a list of them
        door = draw(DOORS)
        racks.append(
            m.Rack(
                id=rack_id,
                row=draw(_maybe(pick("A", "B"))),
                slot=draw(_maybe(integer(spec(s.RACK, "slot"), 6))),
                height=draw(_maybe(quantity(spec(s.RACK, "height")))),
                cooling=draw(_maybe(pick(*m.COOLING))),
                cdu=None
                if cdu is None
                else [device(i) for i in cdu]
                if isinstance(cdu, list)
                else device(cdu),
                door=None if door is None else device(door),
                max_weight=draw(_maybe(quantity(spec(s.RACK, "max_weight")))),
                weight=draw(_maybe(quantity(spec(s.RACK, "weight")))),
                width=draw(_maybe(quantity(spec(s.RACK, "width")))),
                depth=draw(_maybe(quantity(spec(s.RACK, "depth")))),
                feeds=[
                    dataclasses.replace(draw(FEEDS), id=f"{rack_id}-{side}") for side in draw(SIDES)
                ],
                devices=devices,
                notes=draw(_maybe(TEXT)),
                comment=draw(COMMENT),
                ignore=draw(IGNORE),
            )
        )
    links = [
        m.Link(
            a=port(a),
            b=port(b),
            media=media,
            length=length,
            comment=comment,
            ignore=ignore,
            # v1.1: a fibre grade only on the fibre it grades
            grade=s.GRADES_BY_MEDIA[media][grade % len(s.GRADES_BY_MEDIA[media])]
            if grade is not None and media in s.GRADES_BY_MEDIA
            else None,
        )
        for a, b, media, length, comment, ignore, grade in draw(LINKS)
    ]
    catalog_keys = draw(CATALOG_KEYS)
    workload = draw(WORKLOADS)
    site = draw(SITES)
    return m.Layout(
        name=draw(TEXT),
        description=draw(_maybe(TEXT)),
        site=site,
        workload=workload,
        catalog={key: dataclasses.replace(draw(DEVICE_TYPES), key=key) for key in catalog_keys},
        racks=racks,
        links=links,
        comment=draw(COMMENT),
        meta=draw(META),
    )
