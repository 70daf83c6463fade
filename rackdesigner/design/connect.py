"""Connecting two ports by hand: which ports are free, how long the cable runs, which medium.

What the designer's Connect ports dialog asks, as pure functions of a layout and its
:class:`~rackdesigner.edit.LayoutIndex`: a device's free ports (with their group's speed,
technology and role), the devices a search names (the catalog picker's order: exact, then
prefix, then substring), the ports of the other end ranked by whether they can carry the
same traffic, the cable's computed length (the geometry the cabling rules use: route plus
slack, :func:`rackdesigner.analysis.geometry.route_length`) and the medium CAB003's reach table
proposes for it (:func:`rackdesigner.analysis.reach.choose_media`, the generators' choice).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from rackdesigner.analysis.geometry import (
    RackPlace,
    SiteGeometry,
    port_height,
    rack_places,
    route_length,
)
from rackdesigner.analysis.reach import (
    PREFERENCE,
    STRAIGHT,
    MediaChooser,
    choose_media,
    form_of,
    link_tech,
    reach,
    speed_band,
)
from rackdesigner.edit.index import LayoutIndex
from rackdesigner.model.layout import Layout


@dataclass(frozen=True, slots=True)
class PortChoice:
    """A free port: its link end (``a01-n01:ib1``) and what its group says about it."""

    end: str
    group: str
    speed: float | None  # bit/s
    tech: str | None
    role: str  # compute | storage | management (the group's effective role)

    @property
    def device(self) -> str:
        return self.end.partition(":")[0]

    @property
    def port(self) -> str:
        return self.end.partition(":")[2]

    def describe(self) -> str:
        """``ib1 · 400G IB · compute`` (short: two lists share an 80-column dialog)."""
        parts = [self.port]
        speed = short_speed(self.speed)
        tech = {"infiniband": "IB", "ethernet": "Eth"}.get(self.tech or "", self.tech or "")
        what = " ".join(x for x in (speed, tech) if x)
        if what:
            parts.append(what)
        parts.append(self.role)
        return " · ".join(parts)


def short_speed(speed: float | None) -> str:
    if not speed:
        return ""
    return f"{speed / 1e9:g}G" if speed >= 1e9 else f"{speed / 1e6:g}M"


def speed_text(speed: float | None) -> str:
    if not speed:
        return ""
    if speed >= 1e9:
        return f"{speed / 1e9:g} Gbps"
    return f"{speed / 1e6:g} Mbps"


def free_ports(index: LayoutIndex, device_id: str) -> list[PortChoice]:
    """The ports of ``device_id`` no link uses, in catalog order (none for an unknown
    device or model)."""
    device = index.device(device_id)
    dtype = index.type_of(device) if device is not None else None
    if dtype is None:
        return []
    out: list[PortChoice] = []
    for group in dtype.ports or ():
        role = group.effective_role(dtype.kind)
        speed = float(group.speed) if group.speed is not None else None
        for number in range(1, group.count + 1):
            end = f"{device_id}:{group.name}{number}"
            if not index.links_on_port(end):
                out.append(PortChoice(end, group.name, speed, group.tech, role))
    return out


def has_free_port(index: LayoutIndex, device_id: str) -> bool:
    """Whether any port of the device is free (stops at the first free one)."""
    device = index.device(device_id)
    dtype = index.type_of(device) if device is not None else None
    if dtype is None:
        return False
    for group in dtype.ports or ():
        for number in range(1, group.count + 1):
            if not index.links_on_port(f"{device_id}:{group.name}{number}"):
                return True
    return False


def search_devices(
    index: LayoutIndex,
    query: str,
    *,
    near: str | None = None,
    exclude: Iterable[str] = (),
    limit: int = 200,
) -> tuple[list[str], bool]:
    """Devices with a free port whose id matches ``query`` (case-insensitive), at most
    ``limit``, and whether more match.

    A query lists the exact id first, then ids that start with it, then ids that contain
    it, each in id order (the catalog picker's order, designer.md). An empty query lists
    the devices nearest ``near`` first: its own rack, then the racks beside it outwards.
    It stops at ``limit`` + 1 devices with a free port, so a hall of 100,000 GPUs answers a
    keystroke as fast as a rack does.
    """
    skip = set(exclude)
    text = query.strip().lower()
    if text:
        hits = [(d.lower(), d) for d in index.device_ids() if text in d.lower() and d not in skip]
        exact = [d for low, d in hits if low == text]
        starts = sorted(d for low, d in hits if low != text and low.startswith(text))
        inside = sorted(d for low, d in hits if not low.startswith(text))
        ordered: Iterable[str] = [*exact, *starts, *inside]
    else:
        ordered = _by_distance(index, near, skip)
    found: list[str] = []
    for device_id in ordered:
        if not has_free_port(index, device_id):
            continue
        if len(found) == limit:
            return found, True
        found.append(device_id)
    return found, False


def _by_distance(index: LayoutIndex, near: str | None, skip: set[str]) -> Iterator[str]:
    """Device ids rack by rack outwards from ``near``'s rack (then layout order), lazily."""
    racks = index.layout.racks
    home = index.rack_of(near) if near else None
    start = next((i for i, rack in enumerate(racks) if rack is home), 0)
    order = [start]
    for step in range(1, len(racks)):
        for at in (start - step, start + step):
            if 0 <= at < len(racks):
                order.append(at)
    seen: set[str] = set()
    for at in order:
        for device in racks[at].devices:
            if device.id not in skip and device.id not in seen:
                seen.add(device.id)
                yield device.id


def compatible(a: PortChoice, b: PortChoice) -> bool:
    """Whether the two ports carry the same kind of traffic on the same technology (a
    compute port to a compute port, InfiniBand to InfiniBand)."""
    return a.role == b.role and (a.tech or "ethernet") == (b.tech or "ethernet")


def rank_ports(ports: list[PortChoice], other: PortChoice | None) -> list[PortChoice]:
    """``ports`` with those compatible with ``other`` first (the same speed before a slower
    or faster one), each kept in catalog order."""
    if other is None:
        return list(ports)

    def key(item: tuple[int, PortChoice]) -> tuple[int, int, int]:
        position, port = item
        fits = compatible(port, other)
        same_speed = port.speed == other.speed
        return (0 if fits else 1, 0 if same_speed else 1, position)

    return [p for _, p in sorted(enumerate(ports), key=key)]


def link_speed(a: PortChoice | None, b: PortChoice | None) -> float | None:
    """The speed a cable between the two ports runs at: the slower end's (CAB004)."""
    speeds = [p.speed for p in (a, b) if p is not None and p.speed is not None]
    return min(speeds) if speeds else None


def cable_length(
    layout: Layout,
    index: LayoutIndex,
    a_end: str,
    b_end: str,
    places: Mapping[int, RackPlace] | None = None,
) -> float | None:
    """Metres a cable between the two ends runs, as the cabling rules compute it for a link
    without a declared length (route plus slack); None where it cannot be computed (an
    unknown or unmounted device, a rack without a slot). ``places`` (``rack_places``) saves
    the pass over the racks when many cables are measured."""
    ends = []
    for end in (a_end, b_end):
        device_id = end.partition(":")[0]
        device = index.device(device_id)
        rack = index.rack_of(device_id)
        dtype = index.type_of(device) if device is not None else None
        if device is None or rack is None or dtype is None or device.position is None:
            return None
        ends.append((rack, port_height(device.position, float(dtype.height_u))))
    (rack_a, height_a), (rack_b, height_b) = ends
    if places is None:
        places = rack_places(layout)
    geometry = SiteGeometry.of(layout.site)
    route = None
    if layout.pathways and rack_a is not rack_b:  # (v1.4) along the declared pathways
        from rackdesigner.analysis.pathways import PathwayGraph

        place_a, place_b = places[id(rack_a)], places[id(rack_b)]
        route = PathwayGraph(layout, geometry).run(
            rack_a, place_a.top, height_a, rack_b, place_b.top, height_b
        )
    if route is None:
        route = route_length(
            places[id(rack_a)], height_a, places[id(rack_b)], height_b, rack_a is rack_b, geometry
        )
    return None if route is None else route + geometry.slack


@dataclass(frozen=True, slots=True)
class Proposal:
    """The medium proposed for a cable of ``length`` m at ``speed``, and why."""

    length: float | None
    speed: float | None
    media: str | None  # None: no medium reaches it
    reason: str


def propose_media(
    length: float | None,
    speed: float | None,
    thresholds: Mapping[str, float] | None = None,
    form: str = STRAIGHT,
    tech: str | None = None,
) -> Proposal:
    """The cheapest medium that reaches ``length`` at ``speed`` on ``tech`` in ``form``
    (DAC, ACC, AOC, then fibre: CAB003's table, a layout's overrides included; at 800G XDR
    only active copper and single-mode fibre exist). Without a length (a rack without a
    slot) it is the medium that reaches farthest at that speed and form (single-mode
    fibre): the run can be anything a hall has, and no AOC exists at 400G (media.toml)."""
    band = speed_band(speed, tech)
    if length is None:
        farthest = MediaChooser(speed, thresholds, form, tech).farthest
        found = reach(farthest, speed, None, thresholds, form, tech)
        limit = found[1] if found else 0.0
        return Proposal(
            None,
            speed,
            farthest,
            f"length unknown (a rack without a slot): {farthest} reaches {limit:g} m at {band}",
        )
    media = choose_media(length, speed, thresholds, form, tech)
    if media is None:
        longest = max(
            (
                found[1]
                for m in PREFERENCE
                if (found := reach(m, speed, None, thresholds, form, tech))
            ),
            default=0.0,
        )
        return Proposal(
            length, speed, None, f"{length:.1f} m is beyond every medium's reach ({longest:g} m)"
        )
    found = reach(media, speed, None, thresholds, form, tech)
    limit = found[1] if found else 0.0
    return Proposal(length, speed, media, f"{media} reaches {limit:g} m at {band}")


def link_form(index: LayoutIndex, a_end: str, b_end: str) -> str:
    """The reach table's form of a cable between two ends: ``split`` from a switch to a
    node's adapter, ``straight`` otherwise (an unknown device counts as no switch)."""

    def is_switch(end: str) -> bool:
        device = index.device(end.partition(":")[0])
        dtype = index.type_of(device) if device is not None else None
        return dtype is not None and dtype.kind == "switch"

    return form_of(is_switch(a_end), is_switch(b_end))


def ends_tech(index: LayoutIndex, a_end: str, b_end: str) -> str | None:
    """The technology a cable between two ends runs (their port groups', the reach table's
    :func:`~rackdesigner.analysis.reach.link_tech`): at 800G it picks XDR's parts or
    Ethernet's."""

    def tech(end: str) -> str | None:
        device_id, _, port = end.partition(":")
        device = index.device(device_id)
        dtype = index.type_of(device) if device is not None else None
        group = dtype.port_group(port.rstrip("0123456789")) if dtype is not None else None
        return group.tech if group is not None else None

    return link_tech(tech(a_end), tech(b_end))


def proposal(
    layout: Layout, index: LayoutIndex, a: PortChoice, b: PortChoice, length: float | None = None
) -> Proposal:
    """The proposal for a cable between ``a`` and ``b``: at ``length`` when given (a
    declared length), else at the computed one."""
    if length is None:
        length = cable_length(layout, index, a.end, b.end)
    overrides = dict(layout.rules.thresholds) if layout.rules else {}
    return propose_media(
        length,
        link_speed(a, b),
        overrides,
        link_form(index, a.end, b.end),
        link_tech(a.tech, b.tech),
    )
