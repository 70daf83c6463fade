"""The device and GPU catalog: the built-in entries in ``assets/catalog/`` plus a layout's own.

A layout's ``[catalog.KEY]`` or ``[gpus.KEY]`` named like a built-in entry
overrides only the fields it sets (``[catalog.g493-sb0] gpu = "h100-pcie"``
fits a server with the GPU it carries); any other key defines a new entry.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, fields, replace
from functools import cache
from typing import TypeVar

from rackdesigner.layout_io.assets import assets_dir, catalog_files, port_identity_files
from rackdesigner.layout_io.reader import build_catalog
from rackdesigner.layout_io.toml_parse import parse_toml
from rackdesigner.model.layout import DeviceType, Gpu, Layout

__all__ = ["Catalog", "assets_dir", "builtin", "for_layout", "port_identities"]


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
