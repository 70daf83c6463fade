"""What the cabling rules share: the tolerance of a length comparison, and how they word
a link's length (declared, or the route plus slack).
"""

from __future__ import annotations

from functools import cache

from rackdesigner.analysis import Analysis, LinkFacts
from rackdesigner.model.units import LENGTH, fmt

TOLERANCE = 1e-6  # m: float dust from unit conversions is not a shortfall


@cache
def metres(value: float) -> str:
    # fmt caches too, but keyed by (value, Dimension); a float key is cheaper when a
    # layout with the default cable_max yields 100,000+ findings.
    return fmt(value, LENGTH)


def length_text(link: LinkFacts, analysis: Analysis) -> str:
    """``declared length 7 m``, ``computed length 6.2 m (5.7 m route + 500 mm slack)`` or
    (v1.4) ``channel length 41 m (cord 3.1 m + trunk t1 35 m + cord 2.9 m)``."""
    assert link.length is not None
    if link.link.length is not None:
        return f"declared length {metres(link.length)}"
    if link.channel is not None:
        runs = analysis.plant.route(link).runs
        parts = " + ".join(
            f"{run.name if run.kind == 'trunk' else run.kind} {metres(run.length or 0.0)}"
            for run in runs
        )
        return f"channel length {metres(link.length)} ({parts})"
    assert link.route is not None
    return (
        f"computed length {metres(link.length)} ({metres(link.route)} route + "
        f"{metres(analysis.geometry.slack)} slack)"
    )


def length_values(link: LinkFacts, analysis: Analysis) -> dict[str, float]:
    assert link.length is not None
    values = {"length": link.length}
    if link.link.length is None and link.route is not None and link.channel is None:
        values["route"] = link.route
        values["slack"] = analysis.geometry.slack
    return values


def link_form(link: LinkFacts) -> str:
    """The media table's form of ``link``: ``split`` from a switch to an adapter (a node),
    ``straight`` between two switches (or two adapters)."""
    from rackdesigner.analysis.optics import link_shape

    return link_shape(link)[1]


def link_tech(link: LinkFacts) -> str | None:
    """The technology ``link`` runs (its ends' port groups, :func:`analysis.reach.link_tech`):
    at 800G it decides between XDR's parts and Ethernet's."""
    from rackdesigner.analysis.optics import link_shape

    return link_shape(link)[0]
