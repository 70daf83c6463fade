"""(v1.4) The transceiver at each end of a fibre link: its part, cage style and module.

A fibre link (``mmf``, ``smf``) needs a transceiver at each end. Which part: the link's
own (``a_transceiver``, ``b_transceiver``), else the media table's for the end's role (a
switch's twin-port module, an adapter's single-port one; media.toml), else, where the
end's port group says its cage (``cage``, ``per_cage``), the table's part of the same
medium and speed band that fits that cage: a DGX H100's four OSFP cages carry its eight
ConnectX-7 ports in twin-port flat-top modules (NVIDIA DGX BasePOD RA, Core Components:
"Four OSFP ports serving eight single-port NVIDIA ConnectX-7"; LinkX: flat-top ends "for
... DGX H100 systems"), where an air-cooled switch takes finned ones.

A twin-port module carries two ports of one cage: the ports ``2k-1`` and ``2k`` of a
group with two ports a cage. :attr:`Optic.module` names the module (device, group,
cage), so the bill counts modules, not ports (a BasePOD's 64 compute links are 32
twin-port modules at the nodes and 32 at the switch).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackdesigner.analysis.reach import Shape, medium, shape_of, speed_band
from rackdesigner.model.layout import Transceiver

if TYPE_CHECKING:
    from rackdesigner.analysis.facts import End, LinkFacts

OPTICAL = ("mmf", "smf")


@dataclass(frozen=True, slots=True)
class Optic:
    """The transceiver at one end of a fibre link."""

    part: str  # the part key, or a generic name ("mmf-transceiver-400g") the table lacks
    spec: Transceiver | None
    cage: str | None  # the cage style: the part's, else the port's
    ports: int  # links one module carries
    module: tuple[str, str, int]  # (device id, port group, cage index): one per module
    switch: bool  # at a switch (else at an adapter)


def _fits(spec: Transceiver, cage: str | None, per_cage: int | None) -> bool:
    return (cage is None or spec.cage == cage) and (per_cage is None or spec.ports == per_cage)


def pick_part(
    table: Mapping[str, Transceiver],
    named: str | None,
    media: str,
    band: str,
    cage: str | None,
    per_cage: int | None,
    reach: float | None,
) -> Transceiver | None:
    """The part ``named`` (the media table's) where it fits the cage, else the table's part
    of ``media`` and ``band`` that fits (the shortest reach not below ``reach``)."""
    spec = table.get(named) if named is not None else None
    if spec is not None and _fits(spec, cage, per_cage):
        return spec
    if cage is None and per_cage is None:
        return spec
    fitting = [
        part
        for part in table.values()
        if part.media == media and part.band == band and _fits(part, cage, per_cage)
    ]
    if not fitting:
        return spec
    wanted = reach if reach is not None else 0.0
    long_enough = [p for p in fitting if p.reach is None or float(p.reach) >= wanted - 1e-9]
    return min(long_enough or fitting, key=lambda p: (float(p.reach or 0.0), p.key))


def link_shape(facts: LinkFacts) -> Shape:
    """A link's technology and form as the media table reads them (analysis/reach.py):
    its ends' pair's where both resolve, else from the ends it has."""
    if facts.pair is not None:
        return facts.pair.shape
    a, b = facts.a, facts.b
    return shape_of(
        a.group,
        a.device.kind if a.device is not None else None,
        b.group,
        b.device.kind if b.device is not None else None,
    )


def end_optics(
    facts: LinkFacts, table: Mapping[str, Transceiver]
) -> tuple[Optic | None, Optic | None]:
    """The transceivers at a fibre link's ends (None for other media or an unresolved end)."""
    media = facts.link.media
    if media not in OPTICAL or not facts.resolved:
        return None, None
    tech, form = link_shape(facts)
    row = medium(media, facts.speed, facts.link.grade, form, tech)
    declared = (facts.link.a_transceiver, facts.link.b_transceiver)
    return (
        _optic(facts.a, declared[0], media, row, table, tech),
        _optic(facts.b, declared[1], media, row, table, tech),
    )


def _optic(
    end: End,
    declared: str | None,
    media: str,
    row: object,
    table: Mapping[str, Transceiver],
    tech: str | None,
) -> Optic | None:
    device, group = end.device, end.group
    if device is None or group is None:
        return None
    switch = device.kind == "switch"
    band = speed_band(group.speed, tech)
    if declared is not None:
        spec = table.get(declared)
    else:
        named = None
        reach = None
        if row is not None:
            named = getattr(row, "switch_transceiver" if switch else "adapter_transceiver")
            reach = getattr(row, "reach", None)
        spec = pick_part(table, named, media, band, group.cage, group.per_cage, reach)
        if spec is None and named is not None:
            spec = table.get(named)
    part: str | None
    if spec is not None:
        part, ports, cage = spec.key, int(spec.ports or 1), spec.cage or group.cage
    else:
        part = declared or (
            getattr(row, "switch_transceiver" if switch else "adapter_transceiver", None)
            if row is not None
            else None
        )
        # Twin-port switch cages at 400G and more, as the media table assumes (v1.2).
        ports = group.per_cage or (2 if switch and band in ("XDR", "400G+") else 1)
        cage = group.cage
        if part is None:
            speed = f"{group.speed / 1e9:g}g" if group.speed else "unknown-speed"
            part = f"{media}-transceiver-{speed}"
    return Optic(part, spec, cage, ports, (device.id, group.name, (end.index - 1) // ports), switch)
