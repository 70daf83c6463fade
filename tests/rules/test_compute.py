"""Compute rule cases the one-fires-one-silent fixtures cannot express."""

from __future__ import annotations

import pytest

from tests.builders import findings
from tests.builders import rack_text as _rack


def _workload(kind: str, params: float | None = None, parallelism: str | None = None) -> str:
    text = f'[workload]\nkind = "{kind}"\n'
    if params is not None:
        text += f"model_params = {params:g}\n"
    if parallelism is not None:
        text += f'parallelism = "{parallelism}"\n'
    return text + "\n"


QUAD = """
[catalog.quad-h100]
kind = "gpu-node"
height = "4 U"
power = "5.2 kW"
gpu = "h100-sxm"
gpus = 4
ports = [{ name = "ib", count = 4, speed = "400 Gbps", tech = "infiniband" }]
"""


# -- CMP004 ---------------------------------------------------------------------------------


def test_cmp004_fewer_than_eight_gpus_from_10b() -> None:
    found = findings(
        "CMP004",
        _workload("training", 20e9, "ddp") + QUAD + _rack("a01", ["quad-h100", "dgx-h100"]),
    )
    assert [d.entity for d in found] == ["catalog entry quad-h100"]
    assert "from 10B parameters the guide wants 8-GPU nodes" in found[0].message
    assert found[0].values == {"gpus": 4.0, "model_params": 20e9, "limit": 10e9}


def test_cmp004_four_gpus_at_exactly_30b_falls_to_the_eight_gpu_rule() -> None:
    found = findings(
        "CMP004", _workload("training", 30e9, "zero3") + QUAD + _rack("a01", ["quad-h100"])
    )
    assert len(found) == 1 and found[0].values["limit"] == 10e9


def test_cmp004_unset_parallelism_counts_as_data_parallel() -> None:
    found = findings("CMP004", _workload("fine-tuning", 40e9) + QUAD + _rack("a01", ["quad-h100"]))
    assert len(found) == 1 and "data-parallel training" in found[0].message


@pytest.mark.parametrize("parallelism", ["tensor", "pipeline"])
def test_cmp004_silent_for_model_parallelism(parallelism: str) -> None:
    assert (
        findings(
            "CMP004", _workload("training", 40e9, parallelism) + QUAD + _rack("a01", ["quad-h100"])
        )
        == []
    )


def test_cmp004_silent_under_10b_and_for_inference() -> None:
    assert (
        findings("CMP004", _workload("training", 9e9, "ddp") + QUAD + _rack("a01", ["quad-h100"]))
        == []
    )
    assert (
        findings("CMP004", _workload("inference", 70e9) + QUAD + _rack("a01", ["quad-h100"])) == []
    )


# -- workload-dependent rules without a workload ------------------------------------------


@pytest.mark.parametrize("code", ["CMP001", "CMP003", "CMP004", "CMP006", "CMP007"])
def test_workload_rules_silent_without_workload(code: str) -> None:
    text = (
        '[catalog.g493-sb0]\ngpu = "rtx-4090"\ncpu_cores = 8\nmemory = "64 GB"\n\n'
        + QUAD
        + _rack("a01", ["g493-sb0", "quad-h100"])
    )
    assert findings(code, text) == []


@pytest.mark.parametrize("code", ["CMP001", "CMP003", "CMP006"])
def test_training_rules_silent_for_inference(code: str) -> None:
    text = (
        _workload("inference", 70e9)
        + '[catalog.g493-sb0]\ngpu = "rtx-4090"\ncpu_cores = 8\nmemory = "64 GB"\n\n'
        + _rack("a01", ["g493-sb0"])
    )
    assert findings(code, text) == []


def test_cmp001_one_finding_per_type_at_its_first_device() -> None:
    text = (
        _workload("training", 7e9) + '[gpus.slow]\nbandwidth = "1 TB/s"\n\n'
        '[catalog.slow-node]\nkind = "gpu-node"\nheight = "4 U"\npower = "3 kW"\n'
        'gpu = "slow"\ngpus = 8\n\n' + _rack("a01", ["slow-node", "slow-node", "slow-node"])
    )
    # the [catalog] table in the layout is where a type's finding goes
    found = findings("CMP001", text)
    assert [d.entity for d in found] == ["catalog entry slow-node"]
    assert "(3 nodes)" in found[0].message and "1 TB/s" in found[0].message


def test_cmp001_built_in_type_is_reported_at_its_first_device() -> None:
    text = (
        _workload("training", 7e9)
        + '[rules.thresholds]\ngpu_bandwidth_min = "4 TB/s"\n\n'
        + _rack("a01", ["dgx-h100", "dgx-h100"])
    )
    found = findings("CMP001", text)
    assert [d.entity for d in found] == ["device a01-d1"]
    assert "3.35 TB/s memory bandwidth, below the 4 TB/s floor" in found[0].message


# -- CMP007 ---------------------------------------------------------------------------------


def test_cmp007_fine_tuning_without_an_eight_gpu_node() -> None:
    found = findings(
        "CMP007", _workload("fine-tuning", 7e9) + QUAD + _rack("a01", ["quad-h100", "quad-h100"])
    )
    assert [(d.entity, d.severity) for d in found] == [("[workload]", "info")]
    assert "largest GPU node has 4 GPUs" in found[0].message
    assert found[0].values == {"largest_node_gpus": 4.0, "minimum": 8.0}


def test_cmp007_fine_tuning_with_an_eight_gpu_node_is_silent() -> None:
    assert findings("CMP007", _workload("fine-tuning", 70e9) + _rack("a01", ["dgx-h100"])) == []


def test_cmp007_silent_when_a_gpu_count_or_model_is_unknown() -> None:
    unknown_count = '[catalog.odd]\nkind = "gpu-node"\nheight = "4 U"\npower = "3 kW"\n\n' + _rack(
        "a01", ["odd"]
    )
    assert findings("CMP007", _workload("fine-tuning") + unknown_count) == []
    assert (
        findings("CMP007", _workload("training", 7e9) + _rack("a01", ["dgx-h100", "dgx-h10"])) == []
    )


def test_cmp007_large_pretraining_is_silent() -> None:
    assert findings("CMP007", _workload("training", 70e9) + _rack("a01", ["dgx-h100"])) == []
