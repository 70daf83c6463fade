"""How ``rackdesigner catalog`` shows entries: a listing, one entry's figures, or JSON."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from rackdesigner.layout_io import schema as s
from rackdesigner.layout_io.catalog import Catalog
from rackdesigner.model.layout import DeviceType, Gpu, PortGroup, Q
from rackdesigner.model.terminal import shown
from rackdesigner.model.units import BYTE_RATE, fmt

_BYTE_RATE_KEYS = ("bandwidth", "interconnect")


def _shown(field: s.Field, value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, Q):
        return value.text
    if field.kind == "qty" and field.dim is not None:
        return fmt(float(value), BYTE_RATE if field.key in _BYTE_RATE_KEYS else field.dim)
    if field.kind == "qty_pair":
        return "–".join(_shown(s.Field("v", "qty", "", dim=field.dim), v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if field.kind == "number" and field.key == "cost":
        return f"${value:,.0f}"
    if field.kind == "int_map":  # PDU outlets: "30 × C13, 12 × C19"
        return ", ".join(f"{count} × {key.upper()}" for key, count in value.items())
    return str(value)


def _port(group: PortGroup, kind: str | None) -> str:
    speed = _shown(s.PORT[2], group.speed)
    role = group.effective_role(kind)
    ports = f"{group.name}1" if group.count == 1 else f"{group.name}1..{group.name}{group.count}"
    text = f"{group.count} × {speed} {group.tech or ''} ({ports}, {role})".replace("  ", " ")
    return shown(text)


def listing_text(known: Catalog) -> str:
    rows = [("key", "kind", "name", "height", "power", "GPUs", "origin")]
    for key, d in known.devices.items():
        gpus = (
            f"{d.gpus} × {d.gpu}"
            if d.gpus and d.gpu
            else (f"{d.gpus} × (set gpu)" if d.gpus else "")
        )
        rows.append(
            (
                key,
                d.kind or "",
                d.name or "",
                _shown(s.DEVICE_TYPE[3], d.height),
                _shown(s.DEVICE_TYPE[5], d.power) or "estimated"
                if d.kind == "gpu-node"
                else _shown(s.DEVICE_TYPE[5], d.power),
                gpus,
                known.origin(key),
            )
        )
    out = ["Devices", *_table(rows), "", "GPUs"]
    gpu_rows = [("key", "name", "memory", "bandwidth", "TDP", "generation", "origin")]
    for key, g in known.gpus.items():
        gpu_rows.append(
            (
                key,
                g.name or "",
                _shown(s.GPU[2], g.memory),
                _shown(s.GPU[3], g.bandwidth),
                _shown(s.GPU[4], g.tdp),
                g.generation or "",
                known.origin(key, gpu=True),
            )
        )
    out += _table(gpu_rows)
    out += [
        "",
        "`rackdesigner catalog KEY` shows one entry with its figures and source.",
        "origin: built-in, user (`rackdesigner catalog import`), or built-in + user where a "
        "user entry overrides some fields.",
    ]
    return "\n".join(out) + "\n"


def _table(table: Sequence[tuple[str, ...]]) -> list[str]:
    # Imported names are anyone's text: one line each, controls shown escaped.
    rows = [tuple(shown(cell) for cell in row) for row in table]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def entry_text(entry: DeviceType | Gpu, known: Catalog) -> str:
    spec = s.GPU if isinstance(entry, Gpu) else s.DEVICE_TYPE
    kind = "GPU" if isinstance(entry, Gpu) else "device"
    out = [f"{shown(entry.key)} ({kind}): {shown(entry.name or entry.key)}"]
    width = max(len(f.key) for f in spec)
    for field in spec:
        value = getattr(entry, field.key)
        if value is None or field.key in ("name", "source", "notes"):
            continue
        if field.key == "ports":
            role_of = entry.kind if isinstance(entry, DeviceType) else None
            out.append(f"  {'ports'.ljust(width)}  " + _port(value[0], role_of) if value else "")
            out.extend(f"  {''.ljust(width)}  {_port(g, role_of)}" for g in value[1:])
            continue
        out.append(f"  {field.key.ljust(width)}  {shown(_shown(field, value))}")
    if isinstance(entry, DeviceType) and entry.gpu and entry.gpus:
        gpu = known.gpus.get(entry.gpu)
        if gpu is not None and gpu.tdp:
            out.append(
                f"  {'GPU TDP'.ljust(width)}  {entry.gpus} × {_shown(s.GPU[4], gpu.tdp)} = "
                f"{fmt(entry.gpus * float(gpu.tdp), s.GPU[4].dim)}"
            )
    out += ["", f"Origin: {known.origin(entry.key, gpu=isinstance(entry, Gpu))}"]
    if entry.source:
        out += ["", f"Source: {shown(entry.source)}"]
    if entry.notes:
        out += ["", f"Notes: {shown(entry.notes)}"]
    return "\n".join(out) + "\n"


def entry_json(entry: DeviceType | Gpu, origin: str | None = None) -> dict[str, Any]:
    """Figures in SI base units (W, kg, bit, bit/s; heights in U), as the JSON outputs use;
    ``origin`` (built-in, user, ...) where given."""
    out: dict[str, Any] = {}
    for f in fields(entry):
        if f.name in ("line", "comment"):
            continue
        value = getattr(entry, f.name)
        if value is None:
            continue
        if isinstance(value, list):
            value = [
                {
                    g.name: getattr(port, g.name)
                    for g in fields(port)
                    if getattr(port, g.name) is not None
                }
                for port in value
            ]
            value = [
                {k: (float(v) if isinstance(v, float) else v) for k, v in p.items()} for p in value
            ]
        elif isinstance(value, tuple):
            value = [float(v) for v in value]
        elif isinstance(value, float):
            value = float(value)
        out[f.name] = value
    if origin is not None:
        out["origin"] = origin
    return out


# -- (v1.4) the power models (`catalog --power`) ---------------------------------------------

_POWER_SHOWN = ("capacity", "apparent_power", "voltage", "current", "efficiency", "overload")


def _power_figure(field: s.Field, value: Any) -> str:
    if value is None:
        return ""
    if field.kind == "overload":
        return ", ".join(
            f"{_shown(_RATIO, load)} for {_shown(_TIME, time)}" for load, time in value
        )
    if field.kind == "ratio":
        return value.text if isinstance(value, Q) else f"{float(value) * 100:g} %"
    return _shown(field, value)


_RATIO = s.Field("load", "ratio", "")
_TIME = next(f for f in s.ELEMENT if f.key == "runtime")


def power_listing_text(models: dict[str, Any]) -> str:
    """The built-in power models, one line each: key, kind, name and their ratings."""
    fields_by_key = {f.key: f for f in s.ELEMENT}
    rows = [("key", "kind", "name", "ratings")]
    for key, model in models.items():
        figures = model.figures
        ratings = "; ".join(
            f"{name} {_power_figure(fields_by_key[name], getattr(figures, name))}"
            for name in _POWER_SHOWN
            if getattr(figures, name) is not None
        )
        flag = " (unverified)" if model.unverified else ""
        rows.append((key, figures.kind or "", model.name + flag, ratings))
    lines = _table(rows)
    lines.append("")
    lines.append('A [[power.elements]] entry names one as model = "KEY"; its own keys win.')
    return "\n".join(lines) + "\n"


def power_models_json(models: dict[str, Any]) -> dict[str, Any]:
    """The power models as JSON: each key's figures in SI units, its source and notes."""
    out: dict[str, Any] = {}
    for key, model in models.items():
        figures = model.figures
        data: dict[str, Any] = {"kind": figures.kind, "name": model.name}
        for f in s.ELEMENT:
            value = getattr(figures, f.key, None)
            if value is None or f.key in ("id", "kind"):
                continue
            if f.kind == "overload":
                data[f.key] = [[float(a), float(b)] for a, b in value]
            elif isinstance(value, float):
                data[f.key] = float(value)
            else:
                data[f.key] = value
        data.update(source=model.source, unverified=model.unverified, notes=model.notes)
        out[key] = data
    return out
