"""The report's workload section: the memory fit part by part and the gradient sync of a
step, worked through; the guide's own example (70B on 64 GPUs with ZeRO-3)."""

from __future__ import annotations

import json

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.design.templates import NewOptions, build
from rackdesigner.layout_io import load_text
from rackdesigner.model.layout import Workload
from rackdesigner.report.report import build as report
from rackdesigner.report.report import to_json, to_text
from rackdesigner.report.workload import workload_csv_rows

GB = 8e9  # bits


@pytest.fixture(scope="module")
def guide_example() -> dict:
    """64 H100 in 8 liquid-cooled HGX nodes (`new --gpus 64 --model-params 70e9`), training
    70e9 parameters with ZeRO-3, fp32 gradients (the guide's 4.4 GB is 1.1e9 × 4 B), at the
    guide's 60 steps a second."""
    built = build(NewOptions(gpus=64, model_params=70e9))
    built.layout.workload = Workload(
        kind="training",
        model_params=70e9,
        parallelism="zero3",
        bytes_per_param=4,
        steps_per_second=60,
    )
    return report(Analysis(built.layout), network=False, cords=False)


def test_the_guides_shard_is_not_the_traffic(guide_example: dict) -> None:
    """Shard: 70e9 / 64 = 1.094e9 parameters × 4 B = 4.375 GB (the guide's "~4.4 GB per
    step"). Traffic: each GPU 3 × 70e9 × 4 × 63/64 = 826.9 GB a step; each of the 8 nodes
    3 × 70e9 × 4 × 7/8 = 735 GB across the fabric, 91.875 GB a port; at 60 steps/s
    5.5125 TB/s a port (the guide's 264 GB/s is 4.4 GB × 60)."""
    sync = guide_example["workload"]["gradient_sync"]
    assert sync["factor"] == 3.0 and (sync["gpus"], sync["nodes"]) == (64, 8)
    assert sync["shard_params"] == pytest.approx(1.09375e9)
    assert sync["shard"] / GB == pytest.approx(4.375)
    assert sync["per_gpu"] / GB == pytest.approx(826.875)
    assert sync["per_node"] / GB == pytest.approx(735.0)
    assert sync["per_port"] / GB == pytest.approx(91.875)
    assert sync["per_port_rate"] / GB == pytest.approx(5512.5)
    text = to_text(guide_example)
    assert "each GPU keeps a shard of 1.094B trained parameters (4.38 GB)" in text
    assert "3 × 70B × 4 B × 63/64 = 827 GB" in text
    assert "3 × 70B × 4 B × 7/8 = 735 GB, 91.9 GB on each of its 8 ports" in text
    assert "at 60 steps/s: 5.51 TB/s a port" in text


def test_the_memory_fit_part_by_part(guide_example: dict) -> None:
    """bytes_per_param = 4 reads as fp32 weights: 4 + 4 + 8 (Adam's moments; the weights are
    their own master) = 16 B, 70e9 × 16 B = 1,120 GB over 64 GPUs with ZeRO-3: 17.5 GB a GPU
    (weights 4.375, gradients 4.375, optimizer 8.75) of 80 GB; a checkpoint 70e9 × 12 B =
    840 GB."""
    memory = guide_example["workload"]["memory"]
    assert memory["fits"] and memory["gpu"] == "h100-sxm"
    assert memory["need"] / GB == pytest.approx(17.5)
    assert memory["parts"]["optimizer"] / GB == pytest.approx(8.75)
    assert memory["checkpoint"] / GB == pytest.approx(840.0)
    assert memory["precision"] == "fp32"
    text = to_text(guide_example)
    assert "needs 17.5 GB a GPU on 64 GPUs, ZeRO-3, of 80 GB (h100-sxm): fits" in text
    json.loads(to_json(guide_example))
    rows = workload_csv_rows(guide_example["workload"])
    assert ["workload", "memory", "need_per_gpu", memory["need"], "bit"] in rows


def test_a_model_that_does_not_fit_says_what_would() -> None:
    """405.85e9 × 16 B on one DGX H100: 811.7 GB a GPU; 88 GPUs would hold it."""
    layout = load_text(
        'format = 1\nname = "t"\n[workload]\nkind = "fine-tuning"\nmodel = "llama-3.1-405b"\n'
        'method = "full"\n[[racks]]\nid = "a"\n[[racks.devices]]\nid = "n"\nmodel = "dgx-h100"\n'
        "position = 1\n"
    )
    section = report(Analysis(layout), network=False, cords=False)["workload"]
    assert not section["memory"]["fits"] and section["memory"]["smallest_gpus"] == 88
    text = to_text(report(Analysis(layout), network=False, cords=False))
    assert "does not fit" in text and "the job fits on 88 GPUs (11 nodes of 8 GPUs)" in text


def test_no_workload_no_section() -> None:
    layout = load_text('format = 1\nname = "t"\n')
    assert "workload" not in report(Analysis(layout), network=False, cords=False)


def _section(workload: str) -> dict:
    layout = load_text(
        f'format = 1\nname = "t"\n[workload]\n{workload}\n[[racks]]\nid = "a"\n'
        '[[racks.devices]]\nid = "n"\nmodel = "dgx-h100"\nposition = 1\n'
        '[[racks.devices]]\nid = "m"\nmodel = "dgx-h100"\nposition = 11\n'
    )
    return report(Analysis(layout), network=False, cords=False)


def test_ddp_names_no_shard_a_gpu_keeps() -> None:
    """DDP on 2 DGX H100 (16 GPUs), 70e9 parameters, fp32 gradients: 1/16 of them is
    4.375e9 parameters × 4 B = 17.5 GB, the shard ZeRO-3 would keep; under DDP each GPU
    holds all 70e9 and the report must not say it keeps a shard."""
    text = to_text(
        _section('kind = "training"\nmodel_params = 70e9\nparallelism = "ddp"\nbytes_per_param = 4')
    )
    assert "each GPU keeps a shard" not in text
    assert "1/16 of them is 4.375B trained parameters (17.5 GB), the shard ZeRO-3" in text


def test_a_fine_tune_without_a_method_syncs_what_the_memory_fit_assumes() -> None:
    """A fine-tune of Llama 3.1 70B with no method: the memory fit assumes LoRA (rank 64 on
    every linear layer), so the sync is the adapters' gradients, not every weight's: the
    all-reduce's 2 × adapters × 2 B, far under 2 × 70.6e9 × 2 B = 282 GB."""
    section = _section(
        'kind = "fine-tuning"\nmodel = "llama-3.1-70b"\nparallelism = "ddp"\nbytes_per_param = 2'
    )
    sync = section["workload"]["gradient_sync"]
    assert sync["lora"] and sync["params"] < 1e9
    text = to_text(section)
    assert "the adapters' gradients" in text and "every weight's gradients" not in text
