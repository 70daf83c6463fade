"""(v1.4) The route of each cable a work order names: the pathways it runs in, so the
technician knows where to look for it (docs/asbuilt.md).

Kept apart from :func:`~rackdesigner.asbuilt.compare.compare`, which reads only the design
and the scan: a route needs the analysis's cable plant, and only the cables a finding names
are routed (a hall's scan names a few, its design has hundreds of thousands).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rackdesigner.analysis import Analysis
    from rackdesigner.asbuilt.compare import Finding
    from rackdesigner.asbuilt.design import Design


def add_routes(analysis: Analysis, design: Design, findings: list[Finding]) -> None:
    """Give each finding about designed cables their routes (``tray-a > cross-0``; a
    channel's cord, trunk and cord): the cable's, then a swapped pair's other, joined by
    ``; ``. Empty where the layout declares no pathway (its cables follow the rows)."""
    if not findings or not analysis.layout.pathways:
        return
    from rackdesigner.analysis.plant import CablePlant

    by_id = {cable.id: cable for cable in design.cables}
    links = analysis.links
    # A plant of its own: the designer compares in a worker, on a snapshot of its analysis,
    # while the live one's plant may be routing on the app's thread.
    plant = CablePlant(analysis)
    by_index = None
    for finding in findings:
        routes = []
        for cable_id in (finding.cable, finding.other):
            cable = by_id.get(cable_id) if cable_id else None
            if cable is None:
                continue
            index = cable.index
            facts = links[index] if 0 <= index < len(links) else None
            if facts is None or facts.index != index:  # an edited layout's links moved
                if by_index is None:
                    by_index = {f.index: f for f in links}
                facts = by_index.get(index)
            if facts is not None:
                routes.append(plant.route(facts).route_text)
        finding.route = "; ".join(route for route in routes if route)
