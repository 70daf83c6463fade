"""(v1.4) Channels: a link run as patch cord, trunk, patch cord through two patch panels.

A link with ``via = ["<panel a>:<port>", "<panel b>:<port>"]`` is not one cable but three
parts (docs/cable-plant.md, Structured cabling): a patch cord from end ``a`` to a port of
panel a, the trunk between the panels (``trunk``, else the one trunk that joins them), and
a patch cord from panel b to end ``b``. Each part is routed like a cable (inside a rack, or
along the pathways between racks) and gets its own slack, except a trunk that declares its
``length``. The channel's length is the sum of the three, what reach (CAB003) and the
longest run (CAB001) judge: NVIDIA's reaches are "Total length ... inc. patch panels, trunk
and cables" (NVIDIA Interconnect Structured Cabling Requirements,
https://docs.nvidia.com/networking/display/intrcnctcabreqndr400eth).

Its optical loss (CAB008) is each mated connection at a panel (one where the panel port's
connector is the trunk's: an adapter; two where they differ: a cassette that breaks an MPO
trunk out to LC ports), the fibre's length times its attenuation, and the trunk's splices
(:func:`channel_loss`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackdesigner.analysis.facts import DeviceFacts, End, LinkFacts, run_between
from rackdesigner.analysis.geometry import SiteGeometry
from rackdesigner.layout_io.catalog import optical_losses
from rackdesigner.model.layout import CONNECTOR_FIBRES, Layout, Trunk

if TYPE_CHECKING:
    from rackdesigner.analysis.pathways import PathwayGraph

DEFAULT_TRUNK_CONNECTOR = "mpo-12"


@dataclass(slots=True, eq=False)
class Channel:
    """A link's channel: its two panel ports (resolved like a link's ends) and its trunk."""

    panel_a: End
    panel_b: End
    trunk: Trunk | None

    @property
    def resolved(self) -> bool:
        return self.panel_a.group is not None and self.panel_b.group is not None

    def runs(
        self,
        a: DeviceFacts,
        b: DeviceFacts,
        geometry: SiteGeometry,
        router: PathwayGraph | None,
    ) -> tuple[float | None, float | None, float | None]:
        """Each part's run without slack (m): cord a, trunk, cord b; None where unknown."""
        pa, pb = self.panel_a.device, self.panel_b.device
        if pa is None or pb is None:
            return None, None, None
        return (
            run_between(a, pa, geometry, router),
            run_between(pa, pb, geometry, router),
            run_between(pb, b, geometry, router),
        )

    def lengths(
        self,
        a: DeviceFacts,
        b: DeviceFacts,
        geometry: SiteGeometry,
        router: PathwayGraph | None,
    ) -> tuple[float | None, float | None, float | None]:
        """Each part's length (m): a cord's run plus slack; the trunk's declared length,
        else its run plus slack."""
        slack = geometry.slack
        cord_a, trunk, cord_b = self.runs(a, b, geometry, router)
        declared = self.trunk.length if self.trunk is not None else None
        return (
            None if cord_a is None else cord_a + slack,
            float(declared) if declared is not None else (None if trunk is None else trunk + slack),
            None if cord_b is None else cord_b + slack,
        )

    def route(
        self,
        a: DeviceFacts,
        b: DeviceFacts,
        geometry: SiteGeometry,
        router: PathwayGraph | None,
    ) -> float | None:
        """The three runs without slack, summed (m): what a declared length must reach
        (CAB002)."""
        return _total(self.runs(a, b, geometry, router))

    def length(
        self,
        a: DeviceFacts,
        b: DeviceFacts,
        geometry: SiteGeometry,
        router: PathwayGraph | None,
    ) -> float | None:
        """The three parts' lengths, summed (m)."""
        return _total(self.lengths(a, b, geometry, router))


def _total(parts: Sequence[float | None]) -> float | None:
    if any(p is None for p in parts):
        return None
    return sum(p for p in parts if p is not None)


def attach_channels(
    links: Sequence[LinkFacts], layout: Layout, device_by_id: dict[str, DeviceFacts]
) -> None:
    """Give each link that names ``via`` its :class:`Channel` (the loader made sure the
    panels exist and a trunk joins them; a panel port that does not resolve is CAB011's)."""
    from rackdesigner.analysis.links import resolve_port

    by_id = {t.id: t for t in layout.trunks}
    by_pair: dict[frozenset[str], Trunk] = {}
    for each in layout.trunks:
        by_pair.setdefault(frozenset((each.a, each.b)), each)
    for facts in links:
        via = facts.link.via
        if not via:
            continue
        ends = (resolve_port(via[0], device_by_id), resolve_port(via[1], device_by_id))
        named = facts.link.trunk
        pair = frozenset(end.text.partition(":")[0] for end in ends)
        trunk: Trunk | None = by_id.get(named) if named is not None else by_pair.get(pair)
        facts.channel = Channel(ends[0], ends[1], trunk)


def channel_of(facts: LinkFacts) -> Channel | None:
    """A link's channel, where it runs as one."""
    channel = facts.channel
    return channel if isinstance(channel, Channel) else None


@dataclass(frozen=True, slots=True)
class ChannelLoss:
    """A fibre channel's insertion loss, part by part (dB), and the budget it is judged by."""

    connections: int
    connection_loss: float  # dB, all connections
    fibre: float  # m of fibre
    fibre_loss: float  # dB
    splices: int
    splice_loss: float  # dB
    budget: float | None  # dB: the smaller of the two ends' parts' budgets
    budget_part: str | None  # the part whose budget it is

    @property
    def total(self) -> float:
        return self.connection_loss + self.fibre_loss + self.splice_loss


def _connector_family(connector: str | None) -> str:
    return "lc" if connector == "lc" else "mpo"


def connections_at(panel: End, trunk: Trunk | None) -> tuple[int, float]:
    """Mated connections a channel makes at ``panel`` and their loss (dB): one through an
    adapter (the port's connector is the trunk's), two through a cassette (they differ)."""
    trunk_connector = (trunk.connector if trunk is not None else None) or DEFAULT_TRUNK_CONNECTOR
    group = panel.group
    port_connector = group.connector if group is not None else None
    count = 1 if port_connector in (None, trunk_connector) else 2
    if group is not None and group.insertion_loss is not None:
        each = float(group.insertion_loss)
        return count, count * each
    table = optical_losses().connection
    front = table.get(_connector_family(port_connector or trunk_connector), 0.0)
    rear = table.get(_connector_family(trunk_connector), 0.0)
    return count, front if count == 1 else front + rear


def channel_loss(
    media: str,
    fibre: float,
    channel: Channel | None,
    budget: tuple[float, str] | None,
) -> ChannelLoss:
    """The loss of ``fibre`` metres of ``media`` (mmf, smf) through ``channel`` (None: a
    direct fibre between two transceivers, no connection but its ends')."""
    losses = optical_losses()
    attenuation = losses.attenuation_per_km.get(media, 0.0)
    count, connection = 0, 0.0
    splices = 0
    if channel is not None:
        for panel in (channel.panel_a, channel.panel_b):
            n, loss = connections_at(panel, channel.trunk)
            count += n
            connection += loss
        if channel.trunk is not None and channel.trunk.splices:
            splices = int(channel.trunk.splices)
    return ChannelLoss(
        count,
        connection,
        fibre,
        fibre / 1000.0 * attenuation,
        splices,
        splices * losses.splice.get(media, 0.0),
        budget[0] if budget is not None else None,
        budget[1] if budget is not None else None,
    )


def fibres_per_link(trunk: Trunk | None) -> int:
    """Fibres one link takes in ``trunk``: one of its legs, whole (an MPO-12 leg is 12
    fibres though SR4 and DR4 light 8 of them; an LC duplex pair 2)."""
    connector = (trunk.connector if trunk is not None else None) or DEFAULT_TRUNK_CONNECTOR
    return CONNECTOR_FIBRES.get(connector) or 12
