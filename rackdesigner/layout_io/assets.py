"""Where the built-in catalog's files are (devices, GPUs, the media table), and which device
keys they define.

The loader needs to know whether ``[catalog.KEY]`` overrides a built-in entry
(then it may leave ``kind`` out); it reads the asset files' keys here rather
than importing :mod:`rackdesigner.layout_io.catalog`, which is built on the loader.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

from rackdesigner.layout_io.toml_parse import parse_toml


def assets_dir() -> Path:
    """``assets/`` beside the package in a source checkout, or inside it when installed."""
    packaged = resources.files("rackdesigner").joinpath("_assets")
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parent.parent.parent / "assets"


CIRCUITS_FILE = "circuits.toml"  # (v1.2) standard feed circuits, not device types
MEDIA_FILE = "media.toml"  # (v1.2) the cable parts that exist, not device types
POWER_FILE = "power.toml"  # (v1.4) UPS, transformer and other power-chain models
TRANSCEIVERS_FILE = "transceivers.toml"  # (v1.4) transceiver parts, not device types
TABLES = (CIRCUITS_FILE, MEDIA_FILE, POWER_FILE, TRANSCEIVERS_FILE)


def catalog_files() -> list[Path]:
    """The built-in catalog's TOML files of device types and GPUs, in a fixed order (not
    the circuit and media tables beside them)."""
    return sorted(p for p in (assets_dir() / "catalog").glob("*.toml") if p.name not in TABLES)


def circuits_file() -> Path:
    """The table of standard feed circuits by region and voltage (``circuits.toml``)."""
    return assets_dir() / "catalog" / CIRCUITS_FILE


def power_file() -> Path:
    """The built-in power-chain models (``power.toml``): UPSs and transformers with their
    datasheets' figures, keyed as a power element's ``model`` names them."""
    return assets_dir() / "catalog" / POWER_FILE


@cache
def builtin_power_models() -> dict[str, str]:
    """Each built-in power model's key and its kind (``ups``, ``transformer``, ...)."""
    models = parse_toml(power_file().read_text(encoding="utf-8")).get("models")
    if not isinstance(models, dict):
        return {}
    return {
        key: str(table.get("kind", "")) for key, table in models.items() if isinstance(table, dict)
    }


def media_file() -> Path:
    """The built-in media table: which cable parts exist, by speed, form and grade."""
    return assets_dir() / "catalog" / MEDIA_FILE


def transceivers_file() -> Path:
    """(v1.4) The built-in transceiver parts: cage, ports, fibre, reach, loss budget."""
    return assets_dir() / "catalog" / TRANSCEIVERS_FILE


@cache
def builtin_transceiver_keys() -> frozenset[str]:
    """The built-in transceiver parts' keys (the loader checks a link's parts by them)."""
    table = parse_toml(transceivers_file().read_text(encoding="utf-8")).get("transceivers")
    return frozenset(table) if isinstance(table, dict) else frozenset()


@cache
def builtin_device_keys() -> frozenset[str]:
    """The keys of the built-in device types (``dgx-h100``, ``qm9700``, ...)."""
    keys: set[str] = set()
    for path in catalog_files():
        catalog = parse_toml(path.read_text(encoding="utf-8")).get("catalog")
        if isinstance(catalog, dict):
            keys.update(catalog)
    return frozenset(keys)


@cache
def builtin_device_kinds() -> dict[str, str]:
    """Each built-in device type's ``kind`` (the loader refuses a PDU key on other kinds)."""
    kinds: dict[str, str] = {}
    for path in catalog_files():
        catalog = parse_toml(path.read_text(encoding="utf-8")).get("catalog")
        if isinstance(catalog, dict):
            for key, table in catalog.items():
                if isinstance(table, dict) and isinstance(table.get("kind"), str):
                    kinds[key] = table["kind"]
    return kinds


def port_identity_files() -> list[Path]:
    """The port identity tables (``assets/catalog/ports/*.toml``): which adapter, switch
    port number and panel label each designed port is. Kept in a folder of their own, so
    the device catalog's loader never reads them."""
    return sorted((assets_dir() / "catalog" / "ports").glob("*.toml"))
