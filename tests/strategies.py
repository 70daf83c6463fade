"""Hypothesis strategies that build layouts (model objects) the loader accepts."""

from __future__ import annotations

from hypothesis import strategies as st

from rackdesigner import model as m
from rackdesigner.catalog import builtin
from rackdesigner.units import (
    BANDWIDTH,
    CURRENT,
    HEIGHT,
    INFORMATION,
    LENGTH,
    MASS,
    POWER,
    VOLTAGE,
    Dimension,
    parse,
)

# Text a user may write: accents, quotes, backslashes, markup that must stay text.
TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=20
) | st.sampled_from(
    ["<script>alert(1)</script>", 'say "hi"', "back\\slash", "tab\there", "line\nbreak", "ümlaut ✓"]
)
IDS = st.from_regex(r"[a-z][a-z0-9-]{0,6}", fullmatch=True)
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


def quantity(dim: Dimension) -> st.SearchStrategy[float]:
    """A value as loaded from text (a Q keeping its text) or set by an edit (a plain float)."""
    written = st.sampled_from(_WRITTEN[dim]).map(lambda text: m.Q(parse(text, dim), text))
    if dim is HEIGHT:  # whole rack units
        return written | st.integers(0, 60).map(float)
    edited = st.integers(0, 10**7).map(lambda n: float(n) / 100)
    return written | edited


def _maybe(strategy: st.SearchStrategy) -> st.SearchStrategy:
    return st.none() | strategy


RATIO = st.sampled_from([0.5, 0.8, 1.0]) | st.sampled_from(["80 %", "95 %"]).map(
    lambda text: m.Q(float(text.split()[0]) / 100, text)
)
MODELS = st.sampled_from(sorted(builtin().devices)) | IDS


@st.composite
def port_groups(draw: st.DrawFn) -> m.PortGroup:
    return m.PortGroup(
        name=draw(st.from_regex(r"[a-z]{1,4}", fullmatch=True)),
        count=draw(st.integers(1, 64)),
        speed=draw(_maybe(quantity(BANDWIDTH))),
        tech=draw(_maybe(st.sampled_from(m.PORT_TECH))),
        role=draw(_maybe(st.sampled_from(m.PORT_ROLES))),
    )


@st.composite
def device_types(draw: st.DrawFn, key: str) -> m.DeviceType:
    low = draw(quantity(VOLTAGE))
    return m.DeviceType(
        key=key,
        kind=draw(st.sampled_from(m.DEVICE_KINDS)),
        name=draw(_maybe(TEXT)),
        height=draw(_maybe(quantity(HEIGHT))),
        depth=draw(_maybe(st.sampled_from(["full", "half"]))),
        power=draw(_maybe(quantity(POWER))),
        weight=draw(_maybe(quantity(MASS))),
        gpu=draw(_maybe(st.sampled_from(sorted(builtin().gpus)) | IDS)),
        gpus=draw(_maybe(st.integers(0, 16))),
        cpu_cores=draw(_maybe(st.integers(0, 256))),
        memory=draw(_maybe(quantity(INFORMATION))),
        cost=draw(_maybe(st.integers(0, 10**6))),
        airflow=draw(_maybe(st.sampled_from(m.AIRFLOW))),
        psus=draw(_maybe(st.integers(1, 8))),
        psus_required=draw(_maybe(st.integers(1, 8))),
        input_voltage=draw(_maybe(st.just((low, float(f"{low + 40.0:.12g}"))))),
        liquid_fraction=draw(_maybe(RATIO)),
        capacity=draw(_maybe(quantity(POWER))),
        ports=draw(_maybe(st.lists(port_groups(), max_size=3, unique_by=lambda g: g.name))),
        notes=draw(_maybe(TEXT)),
        comment=draw(COMMENT),
    )


@st.composite
def feeds(draw: st.DrawFn, feed_id: str) -> m.Feed:
    return m.Feed(
        id=feed_id,
        # The format wants a feed's voltage and current above 0 (a 0 A feed is refused).
        voltage=draw(quantity(VOLTAGE).filter(lambda value: value > 0)),
        phases=draw(st.sampled_from([1, 3])),
        current=draw(quantity(CURRENT).filter(lambda value: value > 0)),
        side=draw(_maybe(st.sampled_from(["A", "B"]))),
        circuit=draw(_maybe(st.from_regex(r"PP[0-9]-[AB]-[0-9]{2}", fullmatch=True))),
        wiring=draw(_maybe(st.sampled_from(m.WIRING))),
        derate=draw(_maybe(RATIO)),
        outlet_voltage=draw(_maybe(quantity(VOLTAGE))),
    )


@st.composite
def layouts(draw: st.DrawFn, max_racks: int = 3) -> m.Layout:
    rack_ids = draw(st.lists(IDS, min_size=0, max_size=max_racks, unique=True))
    device_ids = draw(st.lists(IDS.map(lambda s: "d" + s), max_size=8, unique=True))
    racks = []
    for number, rack_id in enumerate(rack_ids):
        mine = device_ids[number :: max(1, len(rack_ids))]
        devices = [
            m.Device(
                id=d,
                model=draw(MODELS),
                position=draw(_maybe(st.integers(-2, 50))),
                face=draw(_maybe(st.sampled_from(["front", "rear"]))),
                phase=draw(_maybe(st.sampled_from(m.PHASES_WYE + m.PHASES_DELTA))),
                label=draw(_maybe(TEXT)),
                hostname=draw(
                    _maybe(
                        st.from_regex(r"[a-z][a-z0-9-]{0,10}[0-9](\.[a-z]{1,4})?", fullmatch=True)
                    )
                ),
                comment=draw(COMMENT),
            )
            for d in mine
        ]
        racks.append(
            m.Rack(
                id=rack_id,
                row=draw(_maybe(st.sampled_from(["A", "B"]))),
                slot=draw(_maybe(st.integers(1, 6))),
                height=draw(_maybe(quantity(HEIGHT).filter(bool))),
                cooling=draw(_maybe(st.sampled_from(m.COOLING))),
                cdu=draw(_maybe(st.sampled_from(device_ids or ["none"]))),
                door=draw(_maybe(st.sampled_from(device_ids or ["none"]))),
                max_weight=draw(_maybe(quantity(MASS))),
                feeds=[
                    draw(feeds(f"{rack_id}-{side}"))
                    for side in draw(st.lists(st.sampled_from("ABC"), max_size=3, unique=True))
                ],
                devices=devices,
                notes=draw(_maybe(TEXT)),
                comment=draw(COMMENT),
            )
        )
    ports = st.builds(
        lambda d, g, i: f"{d}:{g}{i}",
        st.sampled_from(device_ids or ["x"]),
        st.sampled_from(["ib", "p", "eth", "bmc", "mgmt", "zz"]),
        st.integers(1, 70),
    )
    links = draw(
        st.lists(
            st.builds(
                lambda a, b, media, length, comment: m.Link(
                    a=a, b=b, media=media, length=length, comment=comment
                ),
                ports,
                ports,
                _maybe(st.sampled_from(m.MEDIA)),
                _maybe(quantity(LENGTH)),
                COMMENT,
            ),
            max_size=10,
        )
    )
    catalog_keys = draw(st.lists(IDS.map(lambda s: "t" + s), max_size=2, unique=True))
    workload = draw(
        _maybe(
            st.builds(
                m.Workload,
                kind=_maybe(st.sampled_from(m.WORKLOAD_KINDS)),
                model_params=_maybe(st.sampled_from([7e9, 70e9, 175e9, 405e9, 1.5e9, 1000])),
                parallelism=_maybe(st.sampled_from(m.PARALLELISM)),
                steps_per_second=_maybe(st.sampled_from([0.1, 1.0, 2])),
                bytes_per_param=_maybe(st.sampled_from([2, 4])),
                comment=COMMENT,
            )
        )
    )
    site = draw(
        _maybe(
            st.builds(
                m.Site,
                power_budget=_maybe(quantity(POWER)),
                cooling_capacity=_maybe(quantity(POWER)),
                rack_pitch=_maybe(quantity(LENGTH)),
                slack=_maybe(quantity(LENGTH)),
                comment=COMMENT,
            )
        )
    )
    return m.Layout(
        name=draw(TEXT),
        description=draw(_maybe(TEXT)),
        site=site,
        workload=workload,
        catalog={key: draw(device_types(key)) for key in catalog_keys},
        racks=racks,
        links=links,
        comment=draw(COMMENT),
        meta=draw(_maybe(st.dictionaries(IDS, st.integers() | TEXT, max_size=2))),
    )
