"""What a fabric scan saw, as plain data: nodes and the links between their ports.

The parsers (:mod:`.ibnetdiscover`, :mod:`.lldp`) build a :class:`Scan`; a scan that
cannot be read raises :class:`ScanError` naming the file and line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Scan", "ScanError", "SeenLink", "SeenNode"]


class ScanError(ValueError):
    """A scan that cannot be read: ``file:line: what is wrong`` (exit 2)."""

    def __init__(self, file: str, line: int, message: str) -> None:
        self.file = file
        self.line = line
        self.reason = message
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {message}")


@dataclass(slots=True)
class SeenNode:
    key: str  # the node GUID ("0x0002c903..."), or the LLDP chassis name
    kind: str  # "switch" | "ca" | "host"
    description: str = ""  # the NodeDescription (or the node-name map's name)
    ports: int = 0
    line: int = 0


@dataclass(slots=True)
class SeenLink:
    a: tuple[str, int | str]  # (node key, port number or interface name)
    b: tuple[str, int | str]
    width: int | None = None  # lanes (4 for "4xNDR")
    rate: str | None = None  # "SDR" ... "XDR"
    line: int = 0


@dataclass(slots=True)
class Scan:
    tech: str  # "infiniband" | "ethernet"
    source: str = ""
    nodes: dict[str, SeenNode] = field(default_factory=dict)
    links: list[SeenLink] = field(default_factory=list)
    # (ethernet) the hosts the neighbour tables were collected on
    collected: set[str] = field(default_factory=set)
