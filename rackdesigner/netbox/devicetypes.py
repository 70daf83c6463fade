"""The NetBox devicetype-library's YAML as rackdesigner catalog entries (docs/netbox.md).

:func:`read_paths` reads files and folders (recursing, ``*.yaml`` and ``*.yml``) and gives
one :class:`FileResult` per file: the entry made, the notes on what NetBox does not say,
and the problems (one line each, naming the file and the key) that keep the file out.

The mapping, key by key:

- ``slug`` → the entry's key; ``manufacturer`` → vendor; ``model`` → name (after the
  manufacturer unless the model already names it); ``part_number`` and the file → source.
- ``u_height`` → height (``0`` is a 0U device; half units are refused: a layout places
  whole units); ``is_full_depth`` → depth full or half.
- ``weight`` with ``weight_unit`` (kg, g, lb, oz) → weight, converted through pint.
- ``airflow``: front-to-rear, rear-to-front and passive as they are; NetBox's other
  directions (side, top, mixed) have no equivalent and stay unset with a note.
- ``power-ports``: their count → psus, their type → psu_inlet (IEC C14 or C20), the sum of
  their ``maximum_draw`` → power (NetBox's own total of a device's draw); the sum of
  ``allocated_draw`` is noted. A PDU's ``power-outlets`` → outlets (C13, C19).
- ``interfaces``: grouped by type and ``mgmt_only``, in file order, into port groups whose
  speed and technology come from :mod:`rackdesigner.netbox.interface_types`;
  ``mgmt_only`` → role management.

What NetBox does not know comes from :class:`Flags` (``--kind``, ``--gpu``, ``--gpus``,
``--tech``, ``--liquid-fraction``, ``--psus-required``) or stays unset with a note.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rackdesigner.model.layout import AIRFLOW, DEVICE_KINDS, PORT_TECH, DeviceType, PortGroup
from rackdesigner.model.units import MASS, UnitError, parse
from rackdesigner.netbox.interface_types import NOT_PHYSICAL, lookup

__all__ = ["FileResult", "Flags", "device_type", "read_file", "read_paths", "yaml_files"]

# NetBox weight units (WeightUnitChoices) as the unit registry spells them; an ounce is
# 1/16 lb (the registry has no ounce).
_WEIGHT_UNITS = {"kg": ("kg", 1.0), "g": ("g", 1.0), "lb": ("lb", 1.0), "oz": ("lb", 1 / 16)}
_PSU_INLETS = {"iec-60320-c14": "c14", "iec-60320-c20": "c20"}
_OUTLETS = {"iec-60320-c13": "c13", "iec-60320-c19": "c19"}
_REQUIRED = ("manufacturer", "model", "slug", "u_height")
_KEY = re.compile(r"^[^\s:\x00-\x1f\x7f-\x9f]{1,64}$")  # layout_io.schema.ID_PATTERN


@dataclass(frozen=True, slots=True)
class Flags:
    """What the command line adds to every file it imports (NetBox has no field for it)."""

    kind: str | None = None
    gpu: str | None = None
    gpus: int | None = None
    tech: str | None = None  # for QSFP/OSFP cages: ethernet or infiniband
    liquid_fraction: float | None = None
    psus_required: int | None = None


@dataclass(slots=True)
class FileResult:
    file: str
    entry: DeviceType | None = None
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # "FILE: KEY: what is wrong"

    @property
    def ok(self) -> bool:
        return self.entry is not None and not self.problems


def yaml_files(paths: list[str | os.PathLike[str]]) -> list[Path]:
    """The files to read: each file given, and every ``*.yaml``/``*.yml`` under each
    folder given (recursing, sorted)."""
    out: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            out.extend(
                sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
            )
        else:
            out.append(path)
    return out


def read_paths(paths: list[str | os.PathLike[str]], flags: Flags | None = None) -> list[FileResult]:
    """One result per file; a slug already imported from an earlier file is a problem."""
    results: list[FileResult] = []
    seen: dict[str, str] = {}
    for path in yaml_files(paths):
        result = read_file(path, flags)
        if result.entry is not None:
            earlier = seen.get(result.entry.key)
            if earlier is not None:
                result.problems.append(
                    f"{result.file}: slug: {result.entry.key!r} is also in {earlier}"
                )
            else:
                seen[result.entry.key] = result.file
        results.append(result)
    return results


def read_file(path: str | os.PathLike[str], flags: Flags | None = None) -> FileResult:
    """One file, read within the bounds of :mod:`rackdesigner.netbox.yaml_bounds` (size,
    nesting, aliases): whatever it holds gives a result with one problem line, never an
    exception."""
    import yaml

    from rackdesigner.netbox.yaml_bounds import YamlBoundsError, load_all, read_bounded

    name = str(path)
    result = FileResult(name)
    try:
        text = read_bounded(path)
    except YamlBoundsError as error:
        result.problems.append(f"{name}: {error}")
        return result
    except (OSError, UnicodeDecodeError) as error:
        result.problems.append(f"{name}: cannot read: {error}")
        return result
    try:
        documents = [d for d in load_all(text) if d is not None]
    except YamlBoundsError as error:
        result.problems.append(f"{name}: {error}")
        return result
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error).split("\n")[0]
        result.problems.append(f"{name}: bad YAML: {where}{problem}")
        return result
    if len(documents) != 1 or not isinstance(documents[0], dict):
        result.problems.append(f"{name}: not one device type (a YAML mapping)")
        return result
    entry, notes, problems = device_type(documents[0], name, flags or Flags())
    result.entry, result.notes, result.problems = entry, notes, problems
    return result


def device_type(
    data: dict[str, Any], file: str, flags: Flags
) -> tuple[DeviceType | None, list[str], list[str]]:
    """One devicetype-library mapping as a catalog entry, the notes and the problems
    ("FILE: KEY: …" lines). The entry is None when a required key is missing."""
    problems: list[str] = []
    notes: list[str] = []

    def problem(key: str, text: str) -> None:
        problems.append(f"{file}: {key}: {text}")

    for key in _REQUIRED:
        if data.get(key) in (None, ""):
            problem(key, "missing (the library's schema requires it)")
    if problems:
        return None, notes, problems
    entry = _named(data, file, problem)
    _size(data, entry, problem)
    _weight(data, entry, problem)
    airflow = data.get("airflow")
    if airflow is not None:
        if airflow in AIRFLOW:
            entry.airflow = str(airflow)
        else:
            notes.append(f"airflow {_short(airflow)} has no rackdesigner equivalent: left unset")
    kind = _kind_and_power(data, entry, flags.kind, notes, problem)
    _module_bays(data, entry, kind, notes, problem)
    entry.ports = _ports(data.get("interfaces") or [], flags, notes, problem) or None
    _flagged(entry, flags, kind, notes, problem)
    if notes:
        entry.notes = "Imported from NetBox: " + "; ".join(notes) + "."
    return entry, notes, problems


def _named(data: dict[str, Any], file: str, problem: Any) -> DeviceType:
    """The entry's key (the slug), name (vendor and model, the vendor once) and source
    (the library's file and the part number)."""
    slug = str(data["slug"])
    if not _KEY.match(slug):
        problem("slug", f"{_short(data['slug'])} cannot be a catalog key")
    vendor, model = str(data["manufacturer"]), str(data["model"])
    name = model if model.lower().startswith(vendor.lower()) else f"{vendor} {model}"
    entry = DeviceType(key=slug, name=name, vendor=vendor)
    source = f"NetBox devicetype-library, {_library_path(file)}"
    if data.get("part_number"):
        source += f" (part number {data['part_number']})"
    entry.source = source
    return entry


def _size(data: dict[str, Any], entry: DeviceType, problem: Any) -> None:
    """Height (whole rack units) and depth (``is_full_depth``, required of a device that
    takes rack units)."""
    height = data["u_height"]
    if not _finite(height) or height < 0:
        problem("u_height", f"{_short(height)} is not a number of rack units")
    elif float(height) != int(height):
        problem("u_height", f"{height} U: rackdesigner places whole rack units")
    else:
        entry.height = float(height)
    depth = data.get("is_full_depth")
    if isinstance(depth, bool):
        entry.depth = "full" if depth else "half"
    elif depth is None:
        if entry.height != 0:
            problem("is_full_depth", "missing (the library's schema requires it)")
    else:
        problem("is_full_depth", f"{_short(depth)} is not true or false")


def _kind_and_power(
    data: dict[str, Any], entry: DeviceType, kind: str | None, notes: list[str], problem: Any
) -> str | None:
    """The kind (``--kind``, else a PDU where the type has power outlets) with a PDU's
    outlets, or any other device's power supplies; returns the kind."""
    if data.get("power-outlets") and kind in (None, "pdu"):
        kind = "pdu"
        entry.outlets = _outlets(data["power-outlets"], notes, problem)
    if kind is not None and kind not in DEVICE_KINDS:
        problem("kind", f"{kind!r} is not one of {', '.join(DEVICE_KINDS)}")
    entry.kind = kind
    if kind is None:
        notes.append("kind unset: NetBox does not say what a device is (pass --kind)")
    if kind != "pdu":
        _power_ports(data, entry, notes, problem)
    elif data.get("power-ports"):
        notes.append("a PDU's power ports are its inlets: no psus")
    return kind


def _flagged(
    entry: DeviceType, flags: Flags, kind: str | None, notes: list[str], problem: Any
) -> None:
    """What NetBox does not say, from the command line's flags (GPU model and count, the
    liquid fraction, the PSUs that carry full load), with a note for each left unset."""
    if flags.gpu is not None:
        entry.gpu = flags.gpu
    if flags.gpus is not None:
        entry.gpus = flags.gpus
    if kind == "gpu-node" and (entry.gpu is None or entry.gpus is None):
        notes.append("GPU model and count unset: NetBox does not list GPUs (pass --gpu, --gpus)")
    if flags.liquid_fraction is not None:
        entry.liquid_fraction = flags.liquid_fraction
    if flags.psus_required is not None:
        if entry.psus is not None and flags.psus_required > entry.psus:
            problem("power-ports", f"--psus-required {flags.psus_required} > {entry.psus} PSUs")
        entry.psus_required = flags.psus_required
    elif entry.psus:
        notes.append("psus_required unset: NetBox does not say how many PSUs carry full load")


def _finite(value: Any) -> bool:
    """A number, and not ``.nan`` or ``.inf`` (YAML has both)."""
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def _short(value: Any) -> str:
    """A value for a message, at most 60 characters (it may be anything a file holds)."""
    if isinstance(value, dict | list):
        return "a mapping" if isinstance(value, dict) else "a list"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _module_bays(
    data: dict[str, Any], entry: DeviceType, kind: str | None, notes: list[str], problem: Any
) -> None:
    bays = data.get("module-bays")
    if not bays:
        return
    if not isinstance(bays, list) or not all(isinstance(b, dict) for b in bays):
        problem("module-bays", "not a list of mappings (each with a name)")
        return
    if entry.psus is None and kind != "pdu":
        psus = [b for b in bays if "psu" in str(b.get("name", "")).lower()]
        if psus:
            notes.append(f"power supplies are module bays ({len(psus)}): psus and power unset")


def _library_path(file: str) -> str:
    """``device-types/VENDOR/FILE`` where the path has it, else ``VENDOR/FILE`` (the
    library's folder layout)."""
    parts = Path(file).parts
    if "device-types" in parts:
        return "/".join(parts[parts.index("device-types") :])
    return "/".join(parts[-2:])


def _weight(data: dict[str, Any], entry: DeviceType, problem: Any) -> None:
    weight, unit = data.get("weight"), data.get("weight_unit")
    if weight is None and unit is None:
        return
    if weight is None or unit is None:
        problem("weight_unit" if unit is None else "weight", "weight and weight_unit go together")
        return
    if not isinstance(unit, str) or unit not in _WEIGHT_UNITS:
        problem("weight_unit", f"{_short(unit)} is not kg, g, lb or oz")
        return
    if not _finite(weight) or weight < 0:
        problem("weight", f"{_short(weight)} is not a number")
        return
    spelled, factor = _WEIGHT_UNITS[unit]
    try:
        entry.weight = parse(f"{float(weight) * factor!r} {spelled}", MASS)
    except UnitError as error:
        problem("weight", str(error))


def _power_ports(data: dict[str, Any], entry: DeviceType, notes: list[str], problem: Any) -> None:
    ports = data.get("power-ports") or []
    if not isinstance(ports, list):
        problem("power-ports", "not a list")
        return
    if not ports:
        return
    entry.psus = len(ports)
    inlets = {_PSU_INLETS.get(str(p.get("type"))) for p in ports if isinstance(p, dict)}
    if len(inlets) == 1 and None not in inlets:
        entry.psu_inlet = inlets.pop()
    elif any(isinstance(p, dict) and p.get("type") for p in ports):
        notes.append("power ports are not all IEC C14 or all C20: psu_inlet unset")
    maximum, allocated = _draws(ports, problem)
    if maximum and len(maximum) == len(ports):
        entry.power = sum(maximum)
        notes.append(f"power is the sum of {len(ports)} power ports' maximum_draw")
    elif maximum:
        notes.append("maximum_draw is on some power ports only: power unset")
    else:
        notes.append("no maximum_draw: power unset")
    if allocated:
        notes.append(f"allocated_draw sums to {sum(allocated):g} W")


def _draws(ports: list[Any], problem: Any) -> tuple[list[float], list[float]]:
    """The power ports' ``maximum_draw`` and ``allocated_draw`` (W), each where given."""
    maximum: list[float] = []
    allocated: list[float] = []
    for number, port in enumerate(ports):
        if not isinstance(port, dict):
            problem(f"power-ports[{number}]", "not a mapping")
            continue
        for key, into in (("maximum_draw", maximum), ("allocated_draw", allocated)):
            value = port.get(key)
            if value is None:
                continue
            if not _finite(value) or value < 0:
                problem(f"power-ports[{number}].{key}", f"{_short(value)} is not watts")
            else:
                into.append(float(value))
    return maximum, allocated


def _outlets(outlets: Any, notes: list[str], problem: Any) -> dict[str, int] | None:
    if not isinstance(outlets, list):
        problem("power-outlets", "not a list")
        return None
    counts: dict[str, int] = {}
    other = 0
    for outlet in outlets:
        kind = _OUTLETS.get(str(outlet.get("type"))) if isinstance(outlet, dict) else None
        if kind is None:
            other += 1
        else:
            counts[kind] = counts.get(kind, 0) + 1
    if other:
        notes.append(f"{other} outlets neither C13 nor C19: not counted")
    return counts or None


def _ports(interfaces: Any, flags: Flags, notes: list[str], problem: Any) -> list[PortGroup]:
    if not isinstance(interfaces, list):
        problem("interfaces", "not a list")
        return []
    groups: dict[tuple[str, bool], list[str]] = {}
    untold = False
    for number, interface in enumerate(interfaces):
        if not isinstance(interface, dict) or not interface.get("type"):
            problem(f"interfaces[{number}].type", "missing")
            continue
        slug = str(interface["type"])
        if slug in NOT_PHYSICAL:
            continue
        if lookup(slug) is None:
            problem(f"interfaces[{number}].type", f"unknown interface type {slug!r}")
            continue
        names = groups.setdefault((slug, bool(interface.get("mgmt_only"))), [])
        names.append(str(interface.get("name", "")))
    out: list[PortGroup] = []
    taken: set[str] = set()
    if flags.tech is not None and flags.tech not in PORT_TECH:
        problem("tech", f"{flags.tech!r} is not one of {', '.join(PORT_TECH)}")
    for (slug, mgmt), names in groups.items():
        kind = lookup(slug)
        assert kind is not None
        tech = kind.tech
        if tech is None:
            if flags.tech in PORT_TECH:
                tech = flags.tech
            else:
                untold = True
        group = PortGroup(
            name=_group_name(names, kind.form, mgmt, taken),
            count=len(names),
            speed=kind.speed,
            tech=tech,
            role="management" if mgmt else None,
        )
        taken.add(group.name)
        out.append(group)
    if untold:
        notes.append("QSFP/OSFP ports carry Ethernet or InfiniBand: tech unset (pass --tech)")
    return out


def _group_name(names: list[str], form: str, mgmt: bool, taken: set[str]) -> str:
    """The port group's name: the interfaces' common leading letters ("swp" for swp1..),
    else ``mgmt`` or the form; never ending in a digit, unique in the entry."""
    lowered = [n.lower() for n in names]
    common = ""
    for letters in zip(*lowered, strict=False):
        if len(set(letters)) != 1:
            break
        common += letters[0]
    start = re.match(r"[a-z][a-z_-]*", common)
    base = start.group(0).rstrip("_-") if start else ""
    if len(base) < 2:
        base = "mgmt" if mgmt else re.sub(r"[^a-z]", "", form) or "port"
    name, extra = base, 1
    while name in taken:
        extra += 1
        name = f"{base}-{form}" if extra == 2 else f"{base}-{chr(ord('a') + extra - 3)}"
    return name
