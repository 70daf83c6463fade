"""What-if's ways around work that grew faster than the hall: a failed layout's analysis
shares with its layout's the parts a failure leaves alone, and what it derives from them
is what a fresh analysis of the failed layout finds; a failure's part is found without
reading every part of its kind."""

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


def test_each_chain_elements_failure_names_it_and_a_wrong_one_says_which_ids_there_are() -> None:
    """Every KIND:ID of a 256-GPU hall's chain from ``new`` (21 elements: a utility,
    generators, ATSes, switchboards, UPSes, busways), each id tried as every kind: the
    element where the kind is its own, else the message that names the kind's ids (or
    the chain's elements where it has none of that kind), as the definition builds it
    from every element. The ids are read only for a message: ``report`` and ``whatif
    --each`` name every element in turn."""
    from rackdesigner.whatif.parts import POWER_KINDS, PartError, _listed

    layout = build(NewOptions(gpus=256)).layout
    analysis = Analysis(layout)
    chain = analysis.power_chain
    assert len(chain.elements) == 21
    index = PartIndex(analysis)
    for facts in chain.elements:
        for kind in sorted(POWER_KINDS):
            same = [e.id for e in chain.elements if e.kind == kind]
            if kind == facts.kind:
                lost = resolve(analysis, [parse_failure(f"{kind}:{facts.id}")], index)
                assert lost.elements == {chain.by_id[facts.id]}
                continue
            known = (
                f"its {kind} ids: {_listed(same)}"
                if same
                else "it has no "
                + kind
                + "; its elements: "
                + _listed([f"{e.kind}:{e.id}" for e in chain.elements])
            )
            with pytest.raises(PartError) as error:
                resolve(analysis, [parse_failure(f"{kind}:{facts.id}")], index)
            assert str(error.value) == (
                f"{facts.id} is a {facts.kind}, not a {kind} "
                f"(fail it as {facts.kind}:{facts.id}); {known}"
            )
    with pytest.raises(PartError, match=r"^no ups nope in the power chain; its ups ids: "):
        resolve(analysis, [parse_failure("ups:nope")], index)
