"""The designed cables as a technician finds them: rack, unit, face, port label, cable id.

``design_of`` reads the analysis (never TOML) once: the InfiniBand links of the compute
fabrics (what ``export --ibsim`` writes and ``ibnetdiscover`` sees), or every Ethernet
link (what LLDP sees). Each end is keyed ``(device id, designed port)`` (``("a01-n01",
"ib3")``); the physical identities come from :mod:`rackdesigner.asbuilt.ports`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rackdesigner.asbuilt.ports import ModelPorts, model_ports

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis, DeviceFacts, End, LinkFacts

__all__ = ["Cable", "Design", "DesignedDevice", "Port", "design_of"]

EndKey = tuple[str, str]  # (device id, designed port "ib3")


@dataclass(frozen=True, slots=True)
class Port:
    """A port where a technician finds it."""

    device: str
    port: str  # designed name, "ib3"
    rack: str = ""
    unit: int | None = None
    face: str = ""
    label: str = ""  # what the panel says ("OSFP3P1", "2/1")

    @property
    def key(self) -> EndKey:
        return (self.device, self.port)

    def where(self) -> str:
        unit = f" U{self.unit}" if self.unit is not None else ""
        label = f" ({self.label})" if self.label and self.label != self.port else ""
        return f"{self.device}:{self.port}{label}, rack {self.rack}{unit} {self.face}".rstrip()


@dataclass(frozen=True, slots=True)
class Cable:
    id: str  # the link's a end, as in the cable schedule
    a: Port
    b: Port
    speed: float | None = None  # bit/s
    index: int = 0  # the link's index in the layout


@dataclass(slots=True)
class DesignedDevice:
    facts: DeviceFacts
    ports: ModelPorts
    switch: bool
    host: str  # hostname, else id
    groups: dict[str, int] = field(default_factory=dict)  # the tech's port groups: name -> count
    tech: str = "infiniband"

    @property
    def id(self) -> str:
        return self.facts.id


@dataclass(slots=True)
class Design:
    tech: str
    devices: dict[str, DesignedDevice] = field(default_factory=dict)
    cables: list[Cable] = field(default_factory=list)
    by_end: dict[EndKey, Cable] = field(default_factory=dict)
    by_name: dict[str, str] = field(default_factory=dict)  # hostname or id -> device id

    def port(self, device: str, port: str) -> Port:
        """The designed port ``device:port``, with its place (cabled or not)."""
        designed = self.devices.get(device)
        if designed is None:
            return Port(device, port)
        return _port(designed, port)

    def device_named(self, name: str) -> str | None:
        found = self.by_name.get(name)
        if found is None:
            found = self.by_name.get(name.lower()) or self.by_name.get(name.split(".")[0])
        return found


def _face(dev: DeviceFacts) -> str:
    """Where the device's ports are: the rear (server NICs and full-depth switches face the
    hot aisle), the mounted face for half-depth devices."""
    kind = dev.type
    if kind is not None and not kind.full_depth:
        return dev.device.face or "front"
    return "rear"


def _split(port: str) -> tuple[str, int]:
    digits = len(port) - len(port.rstrip("0123456789"))
    return port[: len(port) - digits], int(port[len(port) - digits :] or 0)


def _port(designed: DesignedDevice, port: str) -> Port:
    dev = designed.facts
    group, index = _split(port)
    if designed.switch:
        label = designed.ports.label(group, index)
    elif designed.tech == "ethernet":
        label = designed.ports.ifname(group, index)
    else:
        label = designed.ports.labels_of(group, index)
    return Port(dev.id, port, dev.rack.id, dev.device.position, _face(dev), label)


def _wanted(facts: LinkFacts, tech: str) -> bool:
    a, b = facts.a, facts.b
    if a.device is None or b.device is None or a.group is None or b.group is None:
        return False
    if tech == "infiniband":
        return facts.compute and a.group.tech == b.group.tech == "infiniband"
    return a.group.tech in (None, "ethernet") and b.group.tech in (None, "ethernet")


def design_of(analysis: Analysis, tech: str = "infiniband") -> Design:
    design = Design(tech)
    devices = design.devices

    def device(end: End) -> DesignedDevice:
        dev = end.device
        assert dev is not None
        found = devices.get(dev.id)
        if found is None:
            groups = {
                name: group.count
                for name, group in dev.ports.items()
                if (group.tech or "ethernet") == tech
            }
            found = devices[dev.id] = DesignedDevice(
                dev,
                model_ports(dev.device.model),
                (dev.type.kind if dev.type else None) == "switch",
                dev.device.hostname or dev.id,
                groups,
                tech,
            )
            for name in (dev.id, found.host):
                design.by_name.setdefault(name, dev.id)
                design.by_name.setdefault(name.lower(), dev.id)
        return found

    for facts in analysis.links:
        if not _wanted(facts, tech):
            continue
        da, db = device(facts.a), device(facts.b)
        a = _port(da, facts.a.port)
        b = _port(db, facts.b.port)
        if a.key in design.by_end or b.key in design.by_end:
            continue  # a port cabled twice (CAB005 says so): the first cable counts
        cable = Cable(facts.link.a, a, b, facts.speed, facts.index)
        design.cables.append(cable)
        design.by_end[a.key] = cable
        design.by_end[b.key] = cable
    return design
