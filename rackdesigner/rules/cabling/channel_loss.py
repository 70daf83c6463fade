"""A fibre channel loses more light than its transceivers are specified for.

Why it matters:
    An optical link comes up only if the light that leaves one transceiver still reaches
    the other above its sensitivity. Every mated connection at a patch panel, every metre
    of fibre and every splice takes some: a channel through two panels of standard-grade
    MPO connectors (0.75 dB each, the FOA's array figure) breaks out of a budget a
    point-to-point fibre of the same length meets easily. The loss is summed part by part
    (docs/cable-plant.md): connections at the panels (one through an adapter, two through
    a cassette; 0.35 dB per MPO and 0.25 dB per LC mated pair, NVIDIA's low-loss
    requirement, unless the panel's port group says its `insertion_loss`), fibre at 3 dB/km
    multimode and 0.4 dB/km single-mode (NVIDIA's requirement), and the trunk's
    `splices` (0.3 dB multimode, 0.15 dB single-mode, the FOA's typical figures). The budget
    is the smaller of the two ends' transceivers' `loss_budget`: NVIDIA's reaches "assume
    two optical connector junctions or patch panels in the link, a total of 4 ferule-to
    ferule connections", so the built-in parts' budgets are 4 x 0.35 dB plus the reach's
    fibre (1.55 dB for 400G SR4 on OM4, 1.6 dB for DR4 and XDR single-mode at 500 m). Where a
    part's budget is not published (the built-in 200G HDR module), declare it in a
    `[transceivers.PART]` table; without one the channel is not judged.

Example:
    [[racks.devices]]
    id = "a01-pp1"
    model = "fibre-panel-lc-1u"   # LC front on MPO cassettes: two connections a panel

    [[links]]
    a = "a01-leaf1:p33"
    b = "c01-spine1:p1"
    media = "mmf"
    via = ["a01-pp1:p1", "c01-pp1:p1"]   # 2 x (0.25 + 0.35) dB = 1.2 dB of connections

Fix:
    Use adapter panels (MPO through, one connection) or low-loss connectors, fewer panels,
    or single-mode with its larger budget for long channels.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.layout_io.catalog import optical_losses
from rackdesigner.model.units import LENGTH, LOSS, fmt
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule

TOLERANCE_DB = 1e-6


@rule("CAB008", "error", scope="link")
def channel_loss(analysis: Analysis) -> Iterator[Finding]:
    plant = analysis.plant
    floors = {media: plant.least_budget(media) for media in ("mmf", "smf")}
    attenuation = optical_losses().attenuation_per_km
    for link in analysis.links:
        media = link.link.media
        if media not in ("mmf", "smf"):
            continue
        if link.channel is None:
            # A fibre straight between two transceivers loses only its length's worth: it
            # needs the full reckoning only where that is over the least budget there is.
            floor, length = floors[media], link.length
            if floor is None or length is None or length / 1000 * attenuation[media] <= floor:
                continue
        loss = plant.loss(link)
        if loss is None or loss.budget is None:
            continue
        if loss.total <= loss.budget + TOLERANCE_DB:
            continue
        parts = [
            f"{plural(loss.connections, 'connection')} {fmt(loss.connection_loss, LOSS)}",
            f"{fmt(loss.fibre, LENGTH)} of fibre {fmt(loss.fibre_loss, LOSS)}",
        ]
        if loss.splices:
            parts.append(f"{plural(loss.splices, 'splice')} {fmt(loss.splice_loss, LOSS)}")
        total, budget = fmt(loss.total, LOSS, 4), fmt(loss.budget, LOSS, 4)
        yield Finding(
            link.entity,
            link.ref,
            f"channel loss {total} ({' + '.join(parts)}) is over the {budget} budget of "
            f"{loss.budget_part}",
            hint="use adapter panels or low-loss connectors, fewer panels or splices, or "
            "single-mode fibre for the longer channel",
            values={
                "loss": loss.total,
                "budget": loss.budget,
                "connections": float(loss.connections),
                "fibre": loss.fibre,
            },
        )
