"""The designed InfiniBand compute fabric as an ibsim net file (``export --ibsim``).

``ibsim -s -n FILE`` simulates the fabric; ``ibnetdiscover`` run against it through the
``umad2sim`` preload sees what it would see on the built fabric, so tooling (and
``rackdesigner verify``) can be tested against the design before a cable is pulled.

One record per switch (``Switch <ports + 1> "S-<guid>" # "<description>"``, port counts
from the catalog, a managed switch's description as it reports it, ``MF0;<host>:MQM9700/U1``)
and one per host adapter (``Ca 1 "H-<guid>" # "<host> mlx5_0"``, adapters from the port
identity tables), then one line per cabled port, ``[<port>] "<remote id>"[<remote port>]``:
every cable is written on both ends. GUIDs are derived from the device ids (and adapter
names), so the same layout gives the same file; they carry the locally administered bit
(``0x02...``), never a vendor's prefix. ibnetdiscover's ids are the same ``S-``/``H-``
GUID forms, so its output and this file read alike.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from rackdesigner.asbuilt.design import Design, DesignedDevice, design_of
from rackdesigner.export.registry import ExportError, Output

if TYPE_CHECKING:
    from pathlib import Path

    from rackdesigner.export.registry import ExportContext

# ibsim's default limits (raise them with -N, -S and -P).
MAX_NODES = 2048
MAX_SWITCHES = 256
MAX_PORTS = 13312


def _guid(name: str, taken: set[int]) -> int:
    digest = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
    guid = (digest & 0x0000_FFFF_FFFF_FFFF) | 0x0200_0000_0000_0000
    while guid in taken or guid & 0xFFFF == 0xFFFF:
        guid += 0x10  # port GUIDs follow the node GUID: keep room for them
    taken.add(guid)
    return guid


def _split(port: str) -> tuple[str, int]:
    digits = len(port) - len(port.rstrip("0123456789"))
    return port[: len(port) - digits], int(port[len(port) - digits :])


class _Node:
    __slots__ = ("description", "guid", "id", "links", "ports", "switch")

    def __init__(self, switch: bool, guid: int, description: str, ports: int) -> None:
        self.switch = switch
        self.guid = guid
        self.id = f"{'S' if switch else 'H'}-{guid:016x}"
        self.description = description
        self.ports = ports
        self.links: dict[int, tuple[_Node, int]] = {}


def net_file(design: Design) -> str:
    """The net file text of ``design`` (InfiniBand)."""
    taken: set[int] = set()
    switches: dict[str, _Node] = {}
    adapters: dict[tuple[str, str], _Node] = {}
    order: list[_Node] = []

    def switch_node(designed: DesignedDevice) -> _Node:
        node = switches.get(designed.id)
        if node is None:
            ports = max(
                (designed.ports.number(g, count) for g, count in designed.groups.items()),
                default=1,
            )
            node = switches[designed.id] = _Node(
                True,
                _guid(designed.id, taken),
                designed.ports.switch_description(designed.host),
                ports,
            )
            order.append(node)
        return node

    def end(device: str, port: str) -> tuple[_Node, int]:
        designed = design.devices[device]
        group, index = _split(port)
        if designed.switch:
            return switch_node(designed), designed.ports.number(group, index)
        adapter, number = designed.ports.adapter(group, index)
        node = adapters.get((device, adapter))
        if node is None:
            node = adapters[(device, adapter)] = _Node(
                False, _guid(f"{device}/{adapter}", taken), f"{designed.host} {adapter}", 1
            )
            order.append(node)
        node.ports = max(node.ports, number)
        return node, number

    # Switches first, in layout order, then the adapters.
    for designed in sorted(design.devices.values(), key=lambda d: d.facts.order):
        if designed.switch:
            switch_node(designed)
    for cable in design.cables:
        a_node, a_port = end(cable.a.device, cable.a.port)
        b_node, b_port = end(cable.b.device, cable.b.port)
        a_node.links[a_port] = (b_node, b_port)
        b_node.links[b_port] = (a_node, a_port)
    order = [n for n in order if n.switch] + [n for n in order if not n.switch]
    nodes = sum(1 for n in order if not n.switch)
    count = sum(1 for n in order if n.switch)
    ports = sum(n.ports + (1 if n.switch else 0) for n in order)
    lines = [
        "# ibsim net file written by rackdesigner export --ibsim: the designed InfiniBand",
        "# compute fabric. Simulate it with `ibsim -s -n FILE` and discover it with",
        "# SIM_HOST=<a Ca id below> LD_PRELOAD=<libumad2sim.so> ibnetdiscover.",
        f"# {count} switches, {nodes} adapters, {ports} ports, {len(design.cables)} cables.",
    ]
    if nodes > MAX_NODES or count > MAX_SWITCHES or ports > MAX_PORTS:
        lines.append(
            f"# Beyond ibsim's default limits: run ibsim -N {max(nodes + count, MAX_NODES)} "
            f"-S {max(count, MAX_SWITCHES)} -P {max(ports, MAX_PORTS)}."
        )
    for node in order:
        lines.append("")
        if node.switch:
            lines.append(f"switchguid=0x{node.guid:016x}")
            lines.append(
                f'Switch\t{node.ports + 1} "{node.id}"\t\t# "{node.description}" enhanced port 0'
            )
        else:
            lines.append(f"caguid=0x{node.guid:016x}")
            lines.append(f'Ca\t{node.ports} "{node.id}"\t\t# "{node.description}"')
        for port in sorted(node.links):
            other, other_port = node.links[port]
            lines.append(f'[{port}]\t"{other.id}"[{other_port}]\t\t# "{other.description}"')
    return "\n".join(lines) + "\n"


def export_ibsim(context: ExportContext, path: Path) -> list[Output]:
    design = design_of(context.analysis, "infiniband")
    if not design.cables:
        raise ExportError("--ibsim: the layout has no InfiniBand compute fabric to simulate")
    for text in (d.host for d in design.devices.values()):
        if '"' in text or "\n" in text:
            raise ExportError(f"--ibsim: the name {text!r} cannot go in a net file")
    return [Output(path, net_file(design).encode("utf-8"))]
