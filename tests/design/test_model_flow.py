"""`new`'s defaults from the guide's decision flow: 4-GPU nodes below 10B parameters, 8-GPU
nodes to 100B, 8-GPU with liquid cooling above; the command line always wins."""

from __future__ import annotations

import pytest

from rackdesigner.design.templates import NewOptions, build


@pytest.mark.parametrize(
    ("options", "node", "cooling", "said"),
    [
        (NewOptions(gpus=16, model_params=7e9), "xe8640", "rear-door", "below 10B: 4-GPU nodes"),
        (NewOptions(gpus=16, model_params=9.99e9), "xe8640", "rear-door", "4-GPU nodes"),
        (NewOptions(gpus=16, model_params=10e9), "sys-421ge-tnhr2-lcc", "liquid", "from 10B"),
        (
            NewOptions(gpus=16, model_params=405e9),
            "sys-421ge-tnhr2-lcc",
            "liquid",
            "from 100B: 8-GPU nodes with liquid cooling",
        ),
        (
            NewOptions(gpus=16, model_params=405e9, cooling="rear-door"),
            "dgx-h100",
            "rear-door",
            "--cooling rear-door kept (COOL005 will say why liquid)",
        ),
        (
            NewOptions(gpus=16, model_params=7e9, gpus_per_node=8),
            "sys-421ge-tnhr2-lcc",
            "liquid",
            "--gpus-per-node 8 kept",
        ),
        (
            NewOptions(gpus=16, model_params=7e9, gpu="b200"),
            "sys-422ga-nbrt-lcc",
            "liquid",
            "no 4-GPU b200 node in the catalog, so 8-GPU nodes",
        ),
    ],
)
def test_the_flow_fills_what_the_command_leaves_open(
    options: NewOptions, node: str, cooling: str, said: str
) -> None:
    built = build(options)
    assert built.node_type.key == node
    assert {r.cooling for r in built.layout.racks if any(d.model == node for d in r.devices)} == {
        cooling
    }
    assert said in built.notes[0]
    assert said in (built.layout.comment or "")


def test_an_explicit_node_wins_and_nothing_is_said() -> None:
    built = build(NewOptions(gpus=16, model_params=405e9, node="dgx-h100"))
    assert built.node_type.key == "dgx-h100" and built.notes == ()


def test_without_a_model_size_nothing_changes() -> None:
    built = build(NewOptions(gpus=16))
    assert built.notes == () and built.node_type.gpus == 8
