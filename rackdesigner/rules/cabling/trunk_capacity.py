"""A trunk carries more channels than it has fibres for.

Why it matters:
    A trunk between two patch panels has a fixed number of fibres, in legs of its
    connector (an MPO-12 leg is 12 fibres; SR4 and DR4 light 8 of them, and the other 4
    cannot carry another link without a breakout). Every channel through it (a link with
    `via` naming its panels) takes one leg: ``channels x leg`` must not exceed `fibres`,
    or the last channels have no fibre to run on.

Example:
    [[trunks]]
    id = "t1"
    a = "a01-pp1"
    b = "c01-pp1"
    fibres = 24          # two MPO-12 legs: two channels
    media = "smf"
    # three links name via = ["a01-pp1:pN", "c01-pp1:pN"]

Fix:
    Order a trunk of more fibres, add a second trunk between the two panels (and name it in
    the links' `trunk`), or route some channels through other panels.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.channels import fibres_per_link
from rackdesigner.model.refs import Ref
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule


@rule("CAB010", "error", scope="site", reads=())
def trunk_capacity(analysis: Analysis) -> Iterator[Finding]:
    if not analysis.layout.trunks:
        return
    use = analysis.plant.trunk_use()
    for trunk in analysis.layout.trunks:
        links = use.get(trunk.id, [])
        leg = fibres_per_link(trunk)
        needed = len(links) * leg
        fibres = int(trunk.fibres or 0)
        if needed <= fibres:
            continue
        yield Finding(
            f"trunk {trunk.id}",
            Ref("trunk", trunk.id),
            f"{plural(len(links), 'channel')} of {leg} fibres need {needed:,} fibres; the "
            f"trunk has {fibres:,} (room for {fibres // leg:,})",
            hint="order a trunk of more fibres, or add a second trunk between the panels and "
            "name it in the links' trunk",
            values={
                "channels": float(len(links)),
                "needed": float(needed),
                "fibres": float(fibres),
            },
        )
