"""A link's transceiver does not fit its port: the wrong cage style, ports or fibre.

Why it matters:
    OSFP comes in two tops: a finned top carries its own heat sink and fits the cages of
    air-cooled switches (Quantum-2, Spectrum-4, Quantum-X800); a flat top is cooled by the
    riding heat sink on the cage of an adapter (ConnectX-7, ConnectX-8), a DGX H100 or a
    liquid-cooled switch. NVIDIA's LinkX: "The 8-channel twin-port OSFP end uses a finned
    top form-factor for use in Quantum-2 and Spectrum-4 switch cages. The two 400G ends ...
    use a flat top OSFP for use in ConnectX-7 adapters using riding heat sinks on the
    connector cage"; "Single port OSFP are not for use in switches". A finned module does
    not go under a riding heat sink; a flat one in an air-cooled switch cage has nothing to
    cool it. A twin-port module in a cage of one port (or the reverse), or a module of one
    fibre on a link of the other, does not work either. Judged where the link names its
    `a_transceiver` or `b_transceiver` and the port group says its `cage`.

Example:
    [[links]]
    a = "a01-n01:ib1"          # DGX H100: twin-port flat-top cages
    b = "a02-leaf1:p1"         # QM9700: twin-port finned cages
    media = "mmf"
    a_transceiver = "MMA4Z00-NS"   # finned: does not fit the DGX's cage

Fix:
    Name the part for the port's cage: MMA4Z00-NS-FLT at a DGX H100, MMA4Z00-NS at a
    QM9700, MMA4Z00-NS400 at a ConnectX-7 adapter; or leave the part out for the table's.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.rules.base import Finding, rule

_WHY = {
    ("osfp-finned", "osfp-flat"): "a finned-top module does not fit under the cage's riding "
    "heat sink",
    ("osfp-flat", "osfp-finned"): "a flat-top module in an air-cooled switch's cage has no "
    "heat sink",
}


@rule("CAB012", "error", scope="link")
def transceiver_fit(analysis: Analysis) -> Iterator[Finding]:
    # Its own cables only: a what-if checks a few of a hall's again (a view of them).
    if not any(lf.link.a_transceiver or lf.link.b_transceiver for lf in analysis.links):
        return
    plant = analysis.plant
    for link in analysis.links:
        if not (link.link.a_transceiver or link.link.b_transceiver) or not link.resolved:
            continue
        for label, end, part in (
            ("a", link.a, link.link.a_transceiver),
            ("b", link.b, link.link.b_transceiver),
        ):
            spec = plant.parts.get(part) if part is not None else None
            if spec is None or end.group is None:
                continue
            problem = _misfit(
                spec.cage,
                spec.ports,
                spec.media,
                end.group.cage,
                end.group.per_cage,
                link.link.media,
            )
            if problem:
                yield Finding(
                    link.entity,
                    link.ref,
                    f"end {label} ({end.text}): {part} {problem}",
                    hint="name the part for the port's cage and fibre, or leave it out for "
                    "the media table's",
                )


def _misfit(
    cage: str | None,
    ports: int | None,
    media: str | None,
    port_cage: str | None,
    per_cage: int | None,
    link_media: str | None,
) -> str | None:
    if media is not None and link_media is not None and media != link_media:
        return f"drives {media} fibre; the link is {link_media}"
    if cage is not None and port_cage is not None and cage != port_cage:
        why = _WHY.get((cage, port_cage), "a module of another form factor")
        return f"is {cage}, the port's cage is {port_cage}: {why}"
    if ports is not None and per_cage is not None and ports != per_cage:
        return (
            f"carries {ports} port{'s' if ports != 1 else ''} a module; the port's cage takes "
            f"{per_cage}"
        )
    return None
