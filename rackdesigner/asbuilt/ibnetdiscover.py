"""``ibnetdiscover`` output (a topology file, which is also an ibsim net file), and
``--node-name-map`` files.

A record is a node line (``Switch 65 "S-<guid>" # "desc" ...``, ``Ca 1 "H-<guid>" #
"desc"``) followed by one line per cabled port (``[1](portguid) "S-<guid>"[7] # ...
4xNDR``); ``vendid=``, ``devid=``, ``sysimgguid=``, ``switchguid=`` and ``caguid=`` lines
and ``#`` comments come between. Every cable is listed from both ends; the scan keeps it
once. Anything else is an error naming its line, and so is a second node record with
the GUID of an earlier one (a duplicate GUID: cables name their ends by GUID).
"""

from __future__ import annotations

import re

from rackdesigner.asbuilt.scan import Scan, ScanError, SeenLink, SeenNode

__all__ = ["parse_ibnetdiscover", "parse_node_name_map"]

_NODE = re.compile(r'^(Switch|Ca|Rt)\s+(\d+)\s+"([^"]*)"\s*(.*)$')
_PORT = re.compile(
    r'^\[(\d+)\](?:\([0-9a-fA-Fx]+\))?\s*"([^"]*)"\[(\d+)\](?:\([0-9a-fA-Fx]+\))?\s*(.*)$'
)
_DESC = re.compile(r'#\s*"([^"]*)"')
_SPEED = re.compile(r"\b(\d{1,2})x(SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR)\b")
# A port number is 8 bits in InfiniBand (NodeInfo.NumPorts, PortInfo.LocalPortNum), so a
# node has at most 255 ports (a Quantum-X800 switch has 144).
MAX_PORT = 255
_ASSIGN = re.compile(r"^(vendid|devid|sysimgguid|switchguid|caguid|rtguid)\s*=\s*\S+$")
_MAP_LINE = re.compile(r'(0x[0-9a-fA-F]{1,16}|[0-9a-fA-F]{1,16})\s+"([^"]*)"\s*(?:#.*)?')
_KINDS = {"Switch": "switch", "Ca": "ca", "Rt": "ca"}


def _guid(node_id: str) -> str:
    """``S-0002c90300a10001`` -> ``0x0002c90300a10001`` (other ids are kept as they are)."""
    prefix, _, rest = node_id.partition("-")
    if prefix in ("S", "H", "R") and re.fullmatch(r"[0-9a-fA-F]{1,16}", rest):
        return "0x" + rest.lower().rjust(16, "0")
    return node_id


def parse_ibnetdiscover(text: str, file: str = "<scan>") -> Scan:
    scan = Scan("infiniband", source=file)
    current: SeenNode | None = None
    seen: set[tuple[tuple[str, int], tuple[str, int]]] = set()
    if "\x00" in text:
        raise ScanError(file, 1 + text[: text.index("\x00")].count("\n"), "binary data")
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            current = None
            continue
        if line.startswith("#") or _ASSIGN.match(line):
            continue
        node = _NODE.match(line)
        if node:
            kind, ports, node_id, rest = node.groups()
            desc = _DESC.search(rest)
            key = _guid(node_id)
            count = _port_number(ports, file, number, "a port count")
            current = SeenNode(key, _KINDS[kind], desc.group(1) if desc else "", count, number)
            earlier = scan.nodes.setdefault(key, current)
            if earlier is not current:
                # Port lines name their far end by GUID: with two nodes on one GUID no
                # cable to either can be told apart (merged, they read as miswirings).
                raise ScanError(
                    file,
                    number,
                    f"duplicate GUID {key}: {current.description or node_id!r} has the GUID "
                    f"of {earlier.description or node_id!r} (line {earlier.line}); cables "
                    "to either cannot be told apart: give each node its own GUID and scan "
                    "again",
                )
            continue
        port = _PORT.match(line)
        if port:
            if current is None:
                raise ScanError(file, number, "a port line outside a Switch or Ca record")
            local, remote_id, remote, rest = port.groups()
            a = (current.key, _port_number(local, file, number, "a port number"))
            b = (_guid(remote_id), _port_number(remote, file, number, "a port number"))
            pair = (a, b) if a <= b else (b, a)
            if pair in seen:
                continue
            seen.add(pair)
            speed = _SPEED.search(rest)
            scan.links.append(
                SeenLink(
                    a,
                    b,
                    int(speed.group(1)) if speed else None,
                    speed.group(2) if speed else None,
                    number,
                )
            )
            continue
        shown = raw if len(raw) <= 60 else raw[:57] + "..."
        raise ScanError(file, number, f"not ibnetdiscover output: {shown!r}")
    if not scan.nodes:
        raise ScanError(file, 0, "no Switch or Ca record: not ibnetdiscover output")
    return scan


def _port_number(digits: str, file: str, line: int, what: str) -> int:
    """A port number or count of the scan, 0 to :data:`MAX_PORT`, or ScanError (digits
    beyond Python's 4,300 that ``int`` converts are refused before it is asked)."""
    if len(digits) > 3 or int(digits) > MAX_PORT:
        shown = digits if len(digits) <= 12 else f"{digits[:9]}... ({len(digits)} digits)"
        raise ScanError(file, line, f"{what} of {shown}: InfiniBand ports are 0 to {MAX_PORT}")
    return int(digits)


def parse_node_name_map(text: str, file: str = "<node-name-map>") -> dict[str, str]:
    """A node-name map (``0x0002c90300a10001 "a05-leaf1"`` per line, ``#`` comments):
    node GUID -> name."""
    names: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _MAP_LINE.fullmatch(line)
        if match is None:
            raise ScanError(file, number, f'expected 0x<guid> "<name>", not {raw.strip()!r}')
        guid = match.group(1).lower().removeprefix("0x")
        names["0x" + guid.rjust(16, "0")] = match.group(2)
    return names
