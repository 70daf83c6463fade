"""What the hardware calls a designed port: adapter, switch port number, panel label.

A layout names ports by group and index (``ib3``, ``p17``); a fabric scan names an
InfiniBand host port by its RDMA device (``mlx5_4``, port 1), a switch port by its number,
an Ethernet port by its interface (LLDP's port id). The tables are
``assets/catalog/ports/*.toml`` (:func:`rackdesigner.layout_io.catalog.port_identities`),
keyed like the device catalog; a model without one gets the defaults: ``ibN`` is
``mlx5_<N-1>`` port 1, a switch's ``pN`` is port N labelled ``N``, an Ethernet port's
interface is its designed name.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from rackdesigner.layout_io.catalog import port_identities

__all__ = ["ModelPorts", "model_ports"]


@dataclass(frozen=True, slots=True)
class _Group:
    adapters: tuple[str, ...] = ()
    adapter_port: int = 1
    labels: tuple[str, ...] = ()
    twin: bool = False
    first: int = 1
    ifname: str | None = None


class ModelPorts:
    """The port identities of one device model (its catalog key)."""

    def __init__(self, key: str, table: dict[str, Any] | None) -> None:
        self.key = key
        table = table or {}
        self.description: str | None = table.get("description")
        self.source: str | None = table.get("source")
        self._groups: dict[str, _Group] = {}
        for name, spec in table.items():
            if not isinstance(spec, dict):
                continue
            self._groups[name] = _Group(
                adapters=tuple(spec.get("adapters", ())),
                adapter_port=int(spec.get("adapter_port", 1)),
                labels=tuple(spec.get("labels", ())),
                twin=bool(spec.get("twin", False)),
                first=int(spec.get("first", 1)),
                ifname=spec.get("ifname"),
            )

    def _group(self, group: str) -> _Group:
        return self._groups.get(group) or _DEFAULT

    # -- hosts ---------------------------------------------------------------------------

    def adapter(self, group: str, index: int) -> tuple[str, int]:
        """The RDMA device and its port number of host port ``group``+``index`` (1-based)."""
        spec = self._group(group)
        if 0 < index <= len(spec.adapters):
            return spec.adapters[index - 1], spec.adapter_port
        return f"mlx5_{index - 1}", 1

    def host_port(self, adapter: str, port: int, groups: dict[str, int]) -> tuple[str, int] | None:
        """The designed (group, index) behind an adapter port, among ``groups`` (name ->
        count) of the device's InfiniBand port groups; None where none is."""
        for group, count in groups.items():
            for index in range(1, count + 1):
                if self.adapter(group, index) == (adapter, port):
                    return group, index
        return None

    def labels_of(self, group: str, index: int) -> str:
        """A host port's panel label where the table gives one, else its adapter."""
        spec = self._group(group)
        if 0 < index <= len(spec.labels):
            return spec.labels[index - 1]
        adapter, port = self.adapter(group, index)
        return adapter if port == 1 else f"{adapter}/{port}"

    # -- switches ------------------------------------------------------------------------

    def number(self, group: str, index: int) -> int:
        """The physical port number of switch port ``group``+``index``."""
        return self._group(group).first + index - 1

    def label(self, group: str, index: int) -> str:
        """What the front panel says: ``c/1``/``c/2`` on twin-port cages, else the number
        (or the table's label)."""
        spec = self._group(group)
        if 0 < index <= len(spec.labels):
            return spec.labels[index - 1]
        number = self.number(group, index)
        if spec.twin:
            return f"{(number + 1) // 2}/{2 - number % 2}"
        return str(number)

    def ifname(self, group: str, index: int) -> str:
        """The interface name LLDP reports for the port."""
        spec = self._group(group)
        if spec.ifname is None:
            return f"{group}{index}"
        return spec.ifname.format(n=index, number=self.number(group, index))

    def switch_description(self, host: str) -> str:
        """The NodeDescription the switch reports (``MF0;host:MQM9700/U1``), or ``host``."""
        return self.description.format(host=host) if self.description else host


_DEFAULT = _Group()


@cache
def _builtin(key: str) -> ModelPorts:
    return ModelPorts(key, port_identities().get(key))


def model_ports(key: str) -> ModelPorts:
    """The port identities of catalog key ``key`` (defaults where no table names it)."""
    return _builtin(key)
