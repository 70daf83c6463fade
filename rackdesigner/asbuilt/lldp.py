"""``lldpctl -f json`` output collected per host: who each local interface sees.

A folder holds one file per host (``<host>.json``, the host named by the file); one
concatenated file separates the hosts by ``head``'s headers (``==> a01-n01.json <==``,
what ``head -n -0 lldp/*.json`` prints) or by ``# host: a01-n01`` lines. lldpd writes an
interface as an object keyed by its name, or a list of such objects when there are
several; a neighbour's chassis is keyed by its system name, its port id is the
interface name the neighbour gives it (``swp17``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from rackdesigner.asbuilt.scan import Scan, ScanError, SeenLink, SeenNode

__all__ = ["parse_lldp", "parse_lldp_path"]

_HEADER = re.compile(r"^(?:==>\s*(.+?)\s*<==|#\s*host:\s*(\S+))\s*$")


def _host_of(name: str) -> str:
    base = Path(name).name
    for suffix in (".json", ".txt", ".lldp"):
        base = base.removesuffix(suffix)
    return base


def _interfaces(document: Any, file: str, line: int) -> list[tuple[str, dict[str, Any]]]:
    if not isinstance(document, dict) or not isinstance(document.get("lldp"), dict | list):
        raise ScanError(file, line, 'not lldpctl -f json output: no "lldp" object')
    lldp = document["lldp"]
    if isinstance(lldp, list):  # lldpctl -f json0
        lldp = lldp[0] if lldp else {}
    if not isinstance(lldp, dict):
        raise ScanError(file, line, 'not lldpctl -f json output: "lldp" holds no object')
    found = lldp.get("interface", [])
    items = found if isinstance(found, list) else [found]
    out: list[tuple[str, dict[str, Any]]] = []
    for item in items:
        if not isinstance(item, dict):
            raise ScanError(file, line, "an interface that is not an object")
        if "name" in item and isinstance(item.get("name"), str):  # json0 form
            out.append((item["name"], item))
            continue
        for name, body in item.items():
            if not isinstance(body, dict):
                raise ScanError(file, line, f"interface {name!r} is not an object")
            out.append((name, body))
    return out


def _value(entry: Any) -> str | None:
    while isinstance(entry, list) and entry:  # json0 wraps values in lists
        entry = entry[0]
    if isinstance(entry, str):
        return entry
    if isinstance(entry, dict):
        value = entry.get("value")
        return value if isinstance(value, str) else None
    return None


def _neighbour(body: dict[str, Any], file: str, line: int, name: str) -> tuple[str, str] | None:
    chassis = body.get("chassis")
    if isinstance(chassis, list):
        chassis = chassis[0] if chassis else None
    if not isinstance(chassis, dict):
        return None
    system = None
    if isinstance(chassis.get("name"), list | dict | str):  # json0 form
        system = _value(chassis.get("name"))
    if system is None:
        keys = [k for k in chassis if k not in ("id", "descr", "mgmt-ip", "capability", "ttl")]
        system = keys[0] if keys else _value(chassis.get("id"))
    port = body.get("port")
    if isinstance(port, list):
        port = port[0] if port else None
    if not isinstance(port, dict):
        raise ScanError(file, line, f"interface {name!r}: a neighbour without a port")
    port_id = port.get("id")
    kind = port_id.get("type") if isinstance(port_id, dict) else None
    value = _value(port_id)
    if kind not in (None, "ifname", "local") or value is None:
        value = _value(port.get("descr")) or value
    if system is None or value is None:
        raise ScanError(file, line, f"interface {name!r}: a neighbour without a name or port")
    return system, value


def _add(scan: Scan, host: str, document: Any, file: str, line: int, seen: set) -> None:
    scan.collected.add(host)
    scan.nodes.setdefault(host, SeenNode(host, "host", host, 0, line))
    for name, body in _interfaces(document, file, line):
        neighbour = _neighbour(body, file, line, name)
        if neighbour is None:
            continue
        system, port = neighbour
        scan.nodes.setdefault(system, SeenNode(system, "host", system, 0, line))
        a: tuple[str, int | str] = (host, name)
        b: tuple[str, int | str] = (system, port)
        pair = (a, b) if (a[0], str(a[1])) <= (b[0], str(b[1])) else (b, a)
        if pair in seen:
            continue
        seen.add(pair)
        scan.links.append(SeenLink(a, b, line=line))


def _documents(text: str, file: str) -> list[tuple[str | None, str, int]]:
    """(host or None, JSON text, first line) per document of a concatenated file."""
    parts: list[tuple[str | None, list[str], int]] = []
    host: str | None = None
    lines: list[str] = []
    start = 1
    for number, raw in enumerate(text.splitlines(), 1):
        header = _HEADER.match(raw.strip())
        if header:
            if any(s.strip() for s in lines):
                parts.append((host, lines, start))
            host = _host_of(header.group(1) or header.group(2))
            lines, start = [], number + 1
            continue
        lines.append(raw)
    if any(s.strip() for s in lines):
        parts.append((host, lines, start))
    return [(h, "\n".join(body), first) for h, body, first in parts]


def _decode(body: str, file: str, first: int) -> list[Any]:
    """Every JSON value in ``body`` (documents may follow one another)."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    index = 0
    while True:
        while index < len(body) and body[index].isspace():
            index += 1
        if index >= len(body):
            return values
        try:
            value, index = decoder.raw_decode(body, index)
        except json.JSONDecodeError as error:
            line = first + body.count("\n", 0, error.pos)
            raise ScanError(file, line, f"not JSON: {error.msg}") from None
        except RecursionError:
            raise ScanError(file, first, "JSON nested too deeply to read") from None
        values.append(value)


def parse_lldp(text: str, file: str = "<lldp>", host: str | None = None) -> Scan:
    """One file: a host's ``lldpctl -f json`` (``host`` names it), or several hosts'
    documents, each after a header naming its host."""
    scan = Scan("ethernet", source=file)
    seen: set = set()
    _parse_into(scan, text, file, host, seen)
    return scan


def _parse_into(scan: Scan, text: str, file: str, host: str | None, seen: set) -> None:
    documents = _documents(text, file)
    if not documents:
        raise ScanError(file, 0, "empty: no lldpctl -f json output")
    for name, body, first in documents:
        who = name or host
        if who is None:
            raise ScanError(
                file, first, "which host is this? name the file <host>.json or add a header"
            )
        for document in _decode(body, file, first):
            _add(scan, who, document, file, first, seen)


def parse_lldp_path(path: Path) -> Scan:
    """A folder of ``<host>.json`` files, or one file (see :func:`parse_lldp`)."""
    scan = Scan("ethernet", source=str(path))
    seen: set = set()
    files = sorted(p for p in path.iterdir() if p.is_file()) if path.is_dir() else [path]
    if not files:
        raise ScanError(str(path), 0, "an empty folder: no lldpctl -f json files")
    for file in files:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ScanError(str(file), 0, f"cannot read it: {error}") from None
        host = _host_of(file.name)  # a lone file without headers: its name is the host
        _parse_into(scan, text, str(file), host, seen)
    return scan
