"""The device and GPU catalog: the built-in entries in ``assets/catalog/``, the user
catalog, and a layout's own, merged in that order.

The user catalog (``$XDG_CONFIG_HOME/rackdesigner/catalog.toml``, else
``~/.config/rackdesigner/catalog.toml``; ``rackdesigner catalog import`` writes it) has the
built-in files' shape, ``[catalog.KEY]`` and ``[gpus.KEY]`` tables, and merges like a
layout's entries: one named like a built-in entry overrides the fields it sets. Each
entry's :meth:`Catalog.origin` says where it came from.

A layout's ``[catalog.KEY]`` or ``[gpus.KEY]`` named like a built-in entry
overrides only the fields it sets (``[catalog.g493-sb0] gpu = "h100-pcie"``
fits a server with the GPU it carries); any other key defines a new entry.

(v1.2) :func:`circuits` reads the table of standard feed circuits
(``assets/catalog/circuits.toml``): the breaker ratings rack PDU plugs exist at, by region
and voltage. PWR015 and ``rackdesigner new`` use it; layouts cannot change it.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field, fields, replace
from functools import cache
from pathlib import Path
from typing import TypeVar

from rackdesigner.layout_io.assets import (
    assets_dir,
    catalog_files,
    circuits_file,
    port_identity_files,
)
from rackdesigner.layout_io.reader import build_catalog, build_transceivers
from rackdesigner.layout_io.toml_parse import parse_toml
from rackdesigner.model.diagnostics import LayoutError
from rackdesigner.model.layout import DeviceType, Gpu, Layout, PowerElement, Transceiver
from rackdesigner.model.units import CURRENT, VOLTAGE, parse

__all__ = [
    "Catalog",
    "StandardCircuits",
    "UserCatalogError",
    "assets_dir",
    "builtin",
    "catalog_toml",
    "circuits",
    "for_layout",
    "installed",
    "port_identities",
    "standard_circuits",
    "transceivers",
    "user",
    "user_catalog_path",
]

VOLTAGE_MATCH = 0.5  # V: a feed's nominal voltage names a row's within this


BUILTIN, USER, LAYOUT = "built-in", "user", "layout"


@dataclass(frozen=True, slots=True)
class Catalog:
    devices: dict[str, DeviceType]
    gpus: dict[str, Gpu]
    # Where each entry came from, where not built in: "user", "layout", or
    # "built-in + user" (and so on) for an entry that overrides another's fields.
    device_origins: dict[str, str] = field(default_factory=dict)
    gpu_origins: dict[str, str] = field(default_factory=dict)

    def origin(self, key: str, gpu: bool = False) -> str:
        """``built-in``, ``user``, ``layout``, or ``built-in + user`` and the like for an
        entry whose fields a later catalog overrides."""
        return (self.gpu_origins if gpu else self.device_origins).get(key, BUILTIN)

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


_Entry = TypeVar("_Entry", DeviceType, Gpu, Transceiver)


# (v1.4) A flag that qualifies a figure: an override that restates the figure without the
# flag gives a figure of its own (from the reader's documents), no longer the estimate.
_QUALIFIES = {"power_estimated": "power", "rating_unverified": "busbar_current"}


def _merge(base: _Entry, override: _Entry) -> _Entry:
    changes = {
        f.name: value
        for f in fields(override)
        if f.name not in ("key", "comment") and (value := getattr(override, f.name)) is not None
    }
    for flag, figure in _QUALIFIES.items():
        if figure in changes and flag not in changes and hasattr(base, flag):
            changes[flag] = None
    return replace(base, **changes)


def _over(
    base: Catalog, devices: dict[str, DeviceType], gpus: dict[str, Gpu], origin: str
) -> Catalog:
    """``base`` with ``devices`` and ``gpus`` merged over it, marked as from ``origin``."""
    merged_devices = dict(base.devices)
    device_origins = dict(base.device_origins)
    for key, entry in devices.items():
        if key in merged_devices:
            merged_devices[key] = _merge(merged_devices[key], entry)
            device_origins[key] = f"{base.origin(key)} + {origin}"
        else:
            merged_devices[key] = entry
            device_origins[key] = origin
    merged_gpus = dict(base.gpus)
    gpu_origins = dict(base.gpu_origins)
    for key, gpu in gpus.items():
        if key in merged_gpus:
            merged_gpus[key] = _merge(merged_gpus[key], gpu)
            gpu_origins[key] = f"{base.origin(key, gpu=True)} + {origin}"
        else:
            merged_gpus[key] = gpu
            gpu_origins[key] = origin
    return Catalog(merged_devices, merged_gpus, device_origins, gpu_origins)


def user_catalog_path() -> Path:
    """``$XDG_CONFIG_HOME/rackdesigner/catalog.toml``; ``~/.config`` where the variable is
    unset or not an absolute path (the XDG base directory specification)."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".config"
    return root / "rackdesigner" / "catalog.toml"


class UserCatalogError(Exception):
    """The user catalog is not a valid catalog: every command that reads the catalog stops
    with it (the command line says so, naming the file, exit 2)."""

    def __init__(self, path: Path, detail: str):
        self.path = path
        super().__init__(f"{path}: {detail}")


_user_cache: dict[tuple[str, int, int], tuple[dict[str, DeviceType], dict[str, Gpu]]] = {}


def user() -> tuple[dict[str, DeviceType], dict[str, Gpu]]:
    """The user catalog's own entries (none without the file), read again when the file
    changes; :class:`UserCatalogError` (naming the file) when it is not a valid catalog."""
    path = user_catalog_path()
    try:
        stat = path.stat()
    except OSError:
        return {}, {}
    stamp = (str(path), stat.st_mtime_ns, stat.st_size)
    cached = _user_cache.get(stamp)
    if cached is None:
        from rackdesigner.layout_io.reader import read_text

        try:
            text, _ = read_text(str(path))
            cached = build_catalog(parse_toml(text), text, str(path))
        except LayoutError as error:
            detail = "; ".join(
                f"line {d.line}: {d.text()}" if d.line else d.text() for d in error.diagnostics
            )
            raise UserCatalogError(path, detail) from error
        except ValueError as error:  # TOML syntax (TomlSyntaxError is a ValueError)
            raise UserCatalogError(path, str(error)) from error
        _user_cache.clear()
        _user_cache[stamp] = cached
    return cached


def installed() -> Catalog:
    """The built-in catalog with the user catalog merged over it: what
    ``rackdesigner catalog`` lists and every layout starts from."""
    devices, gpus = user()
    if not devices and not gpus:
        return builtin()
    return _over(builtin(), devices, gpus, USER)


def for_layout(layout: Layout) -> Catalog:
    base = installed()
    if not layout.catalog and not layout.gpus:
        return base
    return _over(base, layout.catalog, layout.gpus, LAYOUT)


def catalog_toml(devices: dict[str, DeviceType], gpus: dict[str, Gpu] | None = None) -> str:
    """Entries as a catalog file's TOML (``[catalog.KEY]``, then ``[gpus.KEY]``, sorted
    by key), written as a layout's own entries are."""
    from rackdesigner.layout_io.writer import dumps

    text = dumps(Layout(name="", catalog=dict(devices), gpus=dict(gpus or {})))
    # A catalog file has the tables only, not a layout's format and name keys.
    start = text.find("\n[")
    return text[start + 1 :] if start >= 0 else ""


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

MEDIA_BANDS = ("XDR", "400G+", "200G", "100G", "any")
MEDIA_FORMS = ("straight", "split", "any")


@dataclass(frozen=True, slots=True)
class Medium:
    """One row of the built-in media table (``assets/catalog/media.toml``): a medium that
    exists at a speed band, in a form and fibre grade, and the longest part of it (m)."""

    media: str
    band: str  # "XDR", "400G+", "200G", "100G" or "any"
    form: str  # "straight", "split" or "any"
    grade: str | None
    reach: float  # m
    key: str  # the [rules.thresholds] key that overrides the reach
    generate: bool = True  # False: CAB003 accepts it, the generators do not choose it
    switch_transceiver: str | None = None
    adapter_transceiver: str | None = None
    parts: tuple[str, ...] = ()
    source: str = ""
    stock: tuple[float, ...] = ()  # (v1.4) m, the lengths the part is sold in, shortest first
    part_numbers: tuple[str, ...] = ()  # (v1.4) the ordering number of each stock length
    diameter: float | None = None  # (v1.4) m, the cable's outer diameter (tray fill)
    bend_radius: float | None = None  # (v1.4) m, the tightest it may be bent installed


def part_for(row: Medium | None, stock: float | None) -> str | None:
    """The ordering number of ``row``'s part at the ``stock`` length, where the table has it."""
    if row is None or stock is None:
        return None
    for length, number in zip(row.stock, row.part_numbers, strict=False):
        if abs(length - stock) < 1e-6:
            return number
    return None


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
                stock=tuple(parse(v, LENGTH) for v in row.get("stock", ())),
                part_numbers=tuple(str(v) for v in row.get("part_numbers", ())),
                diameter=parse(row["diameter"], LENGTH) if "diameter" in row else None,
                bend_radius=parse(row["bend_radius"], LENGTH) if "bend_radius" in row else None,
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"{where}: {error}") from error
        if medium.part_numbers and len(medium.part_numbers) != len(medium.stock):
            raise ValueError(f"{where}: part_numbers must match stock one to one")
        if list(medium.stock) != sorted(medium.stock):
            raise ValueError(f"{where}: stock lengths must be shortest first")
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


# -- (v1.4) the power models --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PowerModel:
    """A built-in power model (``assets/catalog/power.toml``): its figures as an element's
    (``PowerElement`` with the model's key as id), and where they come from."""

    key: str
    figures: PowerElement
    name: str
    source: str
    vendor: str | None = None
    unverified: bool = False
    notes: str | None = None


@cache
def power_models() -> dict[str, PowerModel]:
    """The built-in power models by key (ValueError on a malformed file)."""
    from rackdesigner.layout_io.assets import power_file
    from rackdesigner.layout_io.reader import build_power_models

    path = power_file()
    text = path.read_text(encoding="utf-8")
    try:
        tables = build_power_models(parse_toml(text), text, str(path))
    except LayoutError as error:
        raise ValueError(f"{path}: {error.diagnostics[0].message}") from None
    out: dict[str, PowerModel] = {}
    element_keys = {f.name for f in fields(PowerElement)}
    for key, values in tables.items():
        figures = PowerElement(key, **{k: v for k, v in values.items() if k in element_keys})
        out[key] = PowerModel(
            key,
            figures,
            str(values.get("name") or key),
            str(values["source"]),
            values.get("vendor"),
            bool(values.get("unverified")),
            values.get("notes"),
        )
    return out


# -- transceiver parts (v1.4) -------------------------------------------------------------


@cache
def builtin_transceivers() -> dict[str, Transceiver]:
    """The built-in transceiver parts (``assets/catalog/transceivers.toml``)."""
    from rackdesigner.layout_io.assets import transceivers_file

    path = transceivers_file()
    text = path.read_text(encoding="utf-8")
    return build_transceivers(parse_toml(text), text, str(path))


def transceivers(layout: Layout | None = None) -> dict[str, Transceiver]:
    """The transceiver parts a layout sees: the built-in ones, with the layout's
    ``[transceivers.PART]`` merged over them (a part named like a built-in one changes
    only the keys it sets)."""
    base = builtin_transceivers()
    if layout is None or not layout.transceivers:
        return base
    merged = dict(base)
    for key, part in layout.transceivers.items():
        merged[key] = _merge(base[key], part) if key in base else part
    return merged


@dataclass(frozen=True, slots=True)
class OpticalLosses:
    """(v1.4) What a fibre channel's parts cost where the layout names no figure (the
    ``[loss]`` table of ``transceivers.toml``, cited there): dB per mated connection by
    connector family (mpo, lc), dB per km of fibre and dB per fusion splice by medium."""

    connection: dict[str, float]
    attenuation_per_km: dict[str, float]
    splice: dict[str, float]


@cache
def optical_losses() -> OpticalLosses:
    from rackdesigner.layout_io.assets import transceivers_file
    from rackdesigner.model.units import LOSS

    table = parse_toml(transceivers_file().read_text(encoding="utf-8")).get("loss") or {}

    def read(name: str) -> dict[str, float]:
        return {key: parse(value, LOSS) for key, value in (table.get(name) or {}).items()}

    return OpticalLosses(read("connection"), read("attenuation_per_km"), read("splice"))
