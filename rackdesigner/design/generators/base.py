"""What every fabric generator shares: the request, the plan, the models it cables.

A generator is a pure function ``(layout, request) -> FabricPlan``: it reads the layout
(the GPU nodes to cable, the racks with their free units, power and cooling) and returns
what to add, without changing the layout. :func:`..apply.apply_plan` applies a plan;
:func:`..apply.to_batch` turns it into the edit layer's one-step ``Batch``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from rackdesigner.layout_io.catalog import Catalog
from rackdesigner.model.layout import Device as DeviceEntry
from rackdesigner.model.layout import DeviceType, Link, PortGroup, Rack

FABRICS = ("rail", "leaf-spine", "dragonfly", "direct")


class GenerateError(ValueError):
    """A request that cannot be built; the message says why in one line."""


@dataclass(frozen=True, slots=True)
class FabricRequest:
    """What to build. Switch models are catalog keys; None picks the default for the nodes'
    compute ports (InfiniBand XDR 800G: ``q3400``; InfiniBand 400G: ``qm9700``; InfiniBand
    200G: ``qm8700``; Ethernet: ``sn5600``); the spine and core default to the leaf model.
    ``su_nodes`` None: an SU is half the leaf's ports (32 on a 64-port QM9700, 72 on a
    144-port Q3400), the DGX SuperPOD SU: one leaf per rail, half its ports down."""

    fabric: str = "rail"
    nodes: tuple[str, ...] | None = None  # GPU node ids; None: every GPU node of the layout
    leaf: str | None = None
    spine: str | None = None
    core: str | None = None
    oversubscription: float = 1.0
    su_nodes: int | None = None  # None: half the leaf's ports (rail)
    new_racks: bool = True  # add network racks where no rack has room
    strict_cables: bool = False  # refuse runs over cable_max instead of noting them
    rail_planes: bool = False  # rail: one spine plane per rail instead of a shared tree
    replace: bool = False  # remove the nodes' compute links first
    # Each node's ports over two or more leaves and at least two spines, so no one switch
    # splits the nodes (NET005). None: on wherever it can be (two or more nodes of two or
    # more compute ports), the default where one switch would be a single point of failure.
    redundant: bool | None = None

    def check(self) -> None:
        if self.fabric not in FABRICS:
            raise GenerateError(
                f"unknown fabric {self.fabric!r}: choose one of {', '.join(FABRICS)}"
            )
        if not self.oversubscription >= 1.0 or math.isinf(self.oversubscription):
            raise GenerateError(
                f"oversubscription must be at least 1 (1:1 is non-blocking), "
                f"got {self.oversubscription:g}"
            )
        if self.su_nodes is not None and self.su_nodes < 1:
            raise GenerateError(f"su_nodes must be at least 1, got {self.su_nodes}")

    def wants_redundancy(self, nodes: int, rails: int) -> bool:
        """Whether the fabric is built redundant for ``nodes`` nodes of ``rails`` compute
        ports each; GenerateError where ``redundant=True`` cannot be met."""
        if self.redundant is None:
            return nodes >= 2 and rails >= 2
        if self.redundant and rails < 2:
            raise GenerateError(
                "--redundant splits each node's compute ports over two leaves; these nodes "
                "have one compute port (rerun with --no-redundant)"
            )
        return self.redundant


@dataclass(slots=True)
class FabricPlan:
    """What a generator adds to a layout, in the order it is applied.

    ``new_racks`` are complete racks (feeds, PDUs, rear door) without switches;
    ``devices`` places every switch, in a new or an existing rack; ``remove_links`` are
    the nodes' old compute links and ``remove_devices`` the old fabric's switches with all
    their links (``replace``); ``long_runs`` counts the cables longer than
    ``cable_limit`` (the layout's ``cable_max``, m; CAB001 warns about each, the plan never
    raises it);
    ``catalog`` are layout catalog entries to set (a node model whose compute ports run at
    the leaf's slower rate, as ConnectX-7 runs HDR 200G on a QM8700: CAB004).
    """

    fabric: str
    new_racks: list[Rack] = field(default_factory=list)
    devices: list[tuple[str, DeviceEntry]] = field(default_factory=list)  # (rack id, device)
    links: list[Link] = field(default_factory=list)
    remove_links: list[Link] = field(default_factory=list)
    remove_devices: list[str] = field(default_factory=list)  # the replaced fabric's switches
    long_runs: int = 0  # cables longer than cable_limit
    cable_limit: float = 5.0  # m: the layout's cable_max
    longest: tuple[str, float] | None = None  # the longest run: link name, metres
    counts: dict[str, int] = field(default_factory=dict)
    catalog: dict[str, DeviceType] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # what it chose, one line each
    warnings: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        """The one-line name of the step, for the designer's undo menu."""
        switches = sum(self.counts.get(k, 0) for k in ("leaves", "spines", "cores"))
        cables = len(self.links)
        return (
            f"Generate {self.fabric} fabric: {switches:,} switch{'es' if switches != 1 else ''}, "
            f"{cables:,} cable{'s' if cables != 1 else ''}"
        )


@dataclass(frozen=True, slots=True)
class SwitchModel:
    """A switch type and the port group a fabric uses: its fastest compute ports."""

    key: str
    type: DeviceType
    group: str
    ports: int
    speed: float  # bit/s
    tech: str | None
    height: int  # U
    power: float  # W, maximum draw (0 when unknown)
    full_depth: bool


def fabric_group(dtype: DeviceType) -> PortGroup | None:
    """The device's fastest compute-role port group (the largest where speeds tie)."""
    best: PortGroup | None = None
    for group in dtype.ports or ():
        if group.effective_role(dtype.kind) != "compute":
            continue
        if best is None or ((group.speed or 0.0), group.count) > ((best.speed or 0.0), best.count):
            best = group
    return best


def catalog_entry(catalog: Catalog, key: str, option: str) -> DeviceType:
    """The catalog's entry ``key`` given as ``--option``, or a GenerateError naming the
    nearest keys."""
    dtype = catalog.devices.get(key)
    if dtype is None:
        near = catalog.nearest(key)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        raise GenerateError(f"--{option} {key}: no such model in the catalog{hint}")
    return dtype


def switch_model(catalog: Catalog, key: str, what: str) -> SwitchModel:
    """The switch model ``key`` for the ``what`` tier ("leaf", "spine", "core"), or why not."""
    dtype = catalog_entry(catalog, key, what)
    if dtype.kind != "switch":
        raise GenerateError(
            f"--{what} {key}: {dtype.name or key} is a {dtype.kind or 'device'}, not a switch"
        )
    group = fabric_group(dtype)
    if group is None or group.count < 1:
        raise GenerateError(f"--{what} {key}: the switch has no compute-fabric ports")
    height = max(1, math.ceil(dtype.height_u))
    return SwitchModel(
        key,
        dtype,
        group.name,
        group.count,
        float(group.speed or 0.0),
        group.tech,
        height,
        float(dtype.power or 0.0),
        dtype.full_depth,
    )


DEFAULT_SWITCHES = (
    # (tech, lowest node port speed, switch): the first that matches. XDR (800G, a
    # ConnectX-8 on a DGX/HGX B300 or a GB300 tray) on the 144-port Quantum-X800 the DGX
    # SuperPOD B300 XDR RA builds on; NDR on the QM9700.
    ("infiniband", 800e9, "q3400"),
    ("infiniband", 400e9, "qm9700"),
    ("infiniband", 0.0, "qm8700"),
    ("ethernet", 0.0, "sn5600"),
)


def default_switch(tech: str | None, speed: float) -> str:
    for want, lowest, key in DEFAULT_SWITCHES:
        if (tech or "infiniband") == want and speed >= lowest:
            return key
    return "qm9700"


@dataclass(frozen=True, slots=True)
class NodePorts:
    """The GPU nodes to cable and their compute port group (the same on every node)."""

    ids: tuple[str, ...]
    rack_index: tuple[int, ...]
    group: str
    rails: int
    speed: float
    tech: str | None
