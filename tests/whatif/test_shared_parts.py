"""A failed layout's analysis shares with its layout's the parts a failure leaves alone,
and what it derives from them is what a fresh analysis of the failed layout finds."""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis, Like
from rackdesigner.design.templates import NewOptions, build
from rackdesigner.whatif import WhatIf, parse_failure
from rackdesigner.whatif.failed import failed_state
from rackdesigner.whatif.parts import PartIndex, resolve


@pytest.mark.parametrize("failure", ["rack:a02", "switch:a04-spine1", "side:A"])
def test_a_failed_layout_routes_its_cables_on_its_layouts_pathways(failure: str) -> None:
    """A 256-GPU hall from ``new`` (11 racks, 584 cables over a pathway): the failed
    layout holds the layout's very racks, pathways and site, so its analysis reads the
    layout's pathway graph (each route found once for both), and every cable it keeps has
    the route and length a fresh analysis of the failed layout gives it."""
    layout = build(NewOptions(gpus=256)).layout
    assert layout.pathways
    analysis = Analysis(layout)
    lost = resolve(analysis, [parse_failure(failure)], PartIndex(analysis))
    state = failed_state(analysis, lost, WhatIf(analysis).gone(lost))
    shared = Analysis(
        state.layout, failed=state.failed, like=Like(analysis, state.touched, state.kept)
    )
    assert shared.pathway_graph is analysis.pathway_graph
    fresh = Analysis(state.layout, failed=state.failed)
    assert fresh.pathway_graph is not analysis.pathway_graph
    got = [(f.route, f.length) for f in shared.links]
    assert got == [(f.route, f.length) for f in fresh.links]
    assert sum(length is not None for _, length in got) > 100
