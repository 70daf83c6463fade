"""``new`` refuses a design the validator would call impossible: a cold-plate node
in a rack without a liquid loop (COOL010)."""

from __future__ import annotations

import pytest

from rackdesigner.check.engine import check
from rackdesigner.design.generators import GenerateError
from rackdesigner.design.templates import NewOptions, build


@pytest.mark.parametrize("cooling", ["air", "rear-door"])
def test_a_cold_plate_node_without_a_loop_is_refused(cooling: str) -> None:
    with pytest.raises(GenerateError, match=rf"--cooling {cooling}: sys-421ge-tnhr2-lcc has cold"):
        build(NewOptions(gpus=16, node="sys-421ge-tnhr2-lcc", cooling=cooling))


def test_the_cold_plate_node_on_liquid_builds_without_cool010() -> None:
    built = build(NewOptions(gpus=16, node="sys-421ge-tnhr2-lcc", cooling="liquid"))
    _, diagnostics = check(built.layout, select=["COOL010", "CMP008"])
    assert diagnostics == []


@pytest.mark.parametrize("cooling", ["air", "rear-door", None])
def test_without_node_new_picks_a_node_the_cooling_suits(cooling: str | None) -> None:
    built = build(NewOptions(gpus=16, gpu="h100-sxm", cooling=cooling))
    _, diagnostics = check(built.layout, select=["COOL010", "CMP008"])
    assert diagnostics == []
