"""The device and GPU catalog: the built-in entries in ``assets/catalog/`` plus a layout's own.

A layout's ``[catalog.KEY]`` or ``[gpus.KEY]`` named like a built-in entry
overrides only the fields it sets (``[catalog.g493-sb0] gpu = "h100-pcie"``
fits a server with the GPU it carries); any other key defines a new entry.

(v1.2) :func:`circuits` reads the table of standard feed circuits
(``assets/catalog/circuits.toml``): the breaker ratings rack PDU plugs exist at, by region
and voltage. PWR015 and ``rackdesigner new`` use it; layouts cannot change it.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, fields, replace
from functools import cache
from typing import TypeVar

from rackdesigner.layout_io.assets import (
    assets_dir,
    catalog_files,
    circuits_file,
    port_identity_files,
)
from rackdesigner.layout_io.reader import build_catalog
from rackdesigner.layout_io.toml_parse import parse_toml
from rackdesigner.model.layout import DeviceType, Gpu, Layout
from rackdesigner.model.units import CURRENT, VOLTAGE, parse

__all__ = [
    "Catalog",
    "StandardCircuits",
    "assets_dir",
    "builtin",
    "circuits",
    "for_layout",
    "port_identities",
    "standard_circuits",
]

VOLTAGE_MATCH = 0.5  # V: a feed's nominal voltage names a row's within this


@dataclass(frozen=True, slots=True)
class Catalog:
    devices: dict[str, DeviceType]
    gpus: dict[str, Gpu]

    def nearest(self, key: str, n: int = 3) -> list[str]:
        """The known device keys closest to a mistyped one."""
        return difflib.get_close_matches(key, list(self.devices), n=n, cutoff=0.5)

    def nearest_gpu(self, key: str, n: int = 3) -> list[str]:
        return difflib.get_close_matches(key, list(self.gpus), n=n, cutoff=0.5)


@cache
def builtin() -> Catalog:
    devices: dict[str, DeviceType] = {}
    gpus: dict[str, Gpu] = {}
    for path in catalog_files():
        text = path.read_text(encoding="utf-8")
        more_devices, more_gpus = build_catalog(parse_toml(text), text, str(path))
        devices.update(more_devices)
        gpus.update(more_gpus)
    return Catalog(devices, gpus)


_Entry = TypeVar("_Entry", DeviceType, Gpu)


def _merge(base: _Entry, override: _Entry) -> _Entry:
    changes = {
        f.name: value
        for f in fields(override)
        if f.name not in ("key", "comment") and (value := getattr(override, f.name)) is not None
    }
    return replace(base, **changes)


def for_layout(layout: Layout) -> Catalog:
    base = builtin()
    if not layout.catalog and not layout.gpus:
        return base
    devices = dict(base.devices)
    for key, entry in layout.catalog.items():
        devices[key] = _merge(devices[key], entry) if key in devices else entry
    gpus = dict(base.gpus)
    for key, gpu in layout.gpus.items():
        gpus[key] = _merge(gpus[key], gpu) if key in gpus else gpu
    return Catalog(devices, gpus)


@dataclass(frozen=True, slots=True)
class StandardCircuits:
    """One row of ``circuits.toml``: the standard breaker ratings of a region's supply."""

    region: str
    phases: int
    voltages: tuple[float, ...]  # V, nominal (line-to-line for 3-phase)
    currents: tuple[float, ...]  # A, ascending
    plugs: str
    source: str

    def standard(self, current: float) -> bool:
        return any(abs(current - a) < 1e-6 for a in self.currents)


@cache
def circuits() -> tuple[StandardCircuits, ...]:
    """The built-in table of standard feed circuits (a ValueError names a bad row)."""
    path = circuits_file()
    rows = parse_toml(path.read_text(encoding="utf-8")).get("circuits") or []
    out = []
    for number, row in enumerate(rows, 1):
        try:
            out.append(
                StandardCircuits(
                    region=str(row["region"]),
                    phases=int(row["phases"]),
                    voltages=tuple(parse(v, VOLTAGE) for v in row["voltages"]),
                    currents=tuple(sorted(parse(a, CURRENT) for a in row["currents"])),
                    plugs=str(row.get("plugs", "")),
                    source=str(row["source"]),
                )
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{path}: circuits row {number}: {error}") from error
    return tuple(out)


def standard_circuits(voltage: float, phases: int | None) -> StandardCircuits | None:
    """The row for a feed of ``voltage`` (line-to-line for 3-phase) and ``phases``, or None
    where no region names that supply."""
    for row in circuits():
        if row.phases == phases and any(abs(voltage - v) <= VOLTAGE_MATCH for v in row.voltages):
            return row
    return None


# -- the media table ----------------------------------------------------------------------

MEDIA_BANDS = ("400G+", "200G", "100G", "any")
MEDIA_FORMS = ("straight", "split", "any")


@dataclass(frozen=True, slots=True)
class Medium:
    """One row of the built-in media table (``assets/catalog/media.toml``): a medium that
    exists at a speed band, in a form and fibre grade, and the longest part of it (m)."""

    media: str
    band: str  # "400G+", "200G", "100G" or "any"
    form: str  # "straight", "split" or "any"
    grade: str | None
    reach: float  # m
    key: str  # the [rules.thresholds] key that overrides the reach
    generate: bool = True  # False: CAB003 accepts it, the generators do not choose it
    switch_transceiver: str | None = None
    adapter_transceiver: str | None = None
    parts: tuple[str, ...] = ()
    source: str = ""


@cache
def media_table() -> tuple[Medium, ...]:
    """The built-in media table's rows, in file order; ValueError on a malformed row."""
    from rackdesigner.layout_io.assets import media_file
    from rackdesigner.model.units import LENGTH, parse

    path = media_file()
    data = parse_toml(path.read_text(encoding="utf-8"))
    rows: list[Medium] = []
    for number, row in enumerate(data.get("media") or [], 1):
        where = f"{path.name}: media row {number}"
        try:
            medium = Medium(
                media=str(row["media"]),
                band=str(row["band"]),
                form=str(row.get("form", "any")),
                grade=row.get("grade"),
                reach=parse(row["reach"], LENGTH),
                key=str(row["key"]),
                generate=bool(row.get("generate", True)),
                switch_transceiver=row.get("switch_transceiver"),
                adapter_transceiver=row.get("adapter_transceiver"),
                parts=tuple(row.get("parts", ())),
                source=str(row["source"]),
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"{where}: {error}") from error
        if medium.band not in MEDIA_BANDS or medium.form not in MEDIA_FORMS:
            raise ValueError(f"{where}: band {medium.band!r} or form {medium.form!r} unknown")
        rows.append(medium)
    return tuple(rows)


@cache
def port_identities() -> dict[str, dict]:
    """The built-in port identity tables by device key (``[ports.KEY]`` of
    ``assets/catalog/ports/``), as plain tables: rackdesigner.asbuilt.ports reads them."""
    tables: dict[str, dict] = {}
    for path in port_identity_files():
        ports = parse_toml(path.read_text(encoding="utf-8")).get("ports")
        if isinstance(ports, dict):
            tables.update({key: t for key, t in ports.items() if isinstance(t, dict)})
    return tables
