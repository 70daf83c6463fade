"""The workload in the designer's few lines (the summary view, Layout settings): the memory
fit against the GPU's memory with the smallest fit, and the gradient sync of a step, worked
by hand for the bundled 128-GPU example."""

from __future__ import annotations

from rackdesigner.analysis import Analysis
from rackdesigner.layout_io import load_text
from rackdesigner.layout_io.reader import load_path
from rackdesigner.report.storage import storage_section
from rackdesigner.report.summary import summarise
from rackdesigner.report.workload import build_workload
from rackdesigner.report.workload_brief import storage_lines, workload_brief, workload_lines
from tests.conftest import ROOT


def _training_128() -> Analysis:
    return Analysis(load_path(ROOT / "layouts" / "training-128.toml"))


def test_the_128_gpu_example_worked_by_hand() -> None:
    """70e9 parameters trained in bf16 with FSDP (ZeRO-3) on 16 nodes of 8 H100 (80 GB):
    16 B × 70e9 / 128 = 8.75 GB a GPU (weights and gradients 2 B × 70e9 / 128 = 1.09 GB
    each, optimizer 12 B × 70e9 / 128 = 6.56 GB): fits. Smallest: 1,120 GB / 80 GB = 14
    GPUs, in whole nodes of 8: 16 GPUs on 2 nodes. Sync (ZeRO-3: 3 × the gradients):
    3 × 70e9 × 2 B × 127/128 = 417 GB a GPU a step, its shard 70e9 / 128 × 2 B = 1.09 GB;
    each node 3 × 70e9 × 2 × 15/16 = 394 GB, 394 / 8 = 49.2 GB a port, at 0.05 steps/s
    2.46 GB/s."""
    analysis = _training_128()
    lines = workload_lines(build_workload(analysis), analysis)
    assert lines == [
        ("Workload", "full training of a 70B-parameter model (16 B a parameter)", ""),
        ("Memory", "8.75 GB a GPU of 80 GB (h100-sxm) on 128 GPUs, ZeRO-3: fits", ""),
        ("", "weights 1.09 GB, gradients 1.09 GB, optimizer 6.56 GB", "m"),
        ("Smallest", "the job fits on 16 GPUs (2 nodes of 8 GPUs)", ""),
        ("", "not counted: activations", "m"),
        ("Sync", "417 GB a GPU a step, its shard 1.09 GB (ZeRO-3 / FSDP)", ""),
        ("", "fabric: 394 GB a node, 49.2 GB a port, 2.46 GB/s at 0.05 steps/s", ""),
    ]
    assert all(len(f"{label:<9}{text}") <= 80 for label, text, _ in lines)
    brief = workload_brief(build_workload(analysis))
    assert brief == "workload fits (8.75 GB of 80 GB a GPU; ≥ 16 GPUs) · sync 417 GB a step"
    assert len(brief) < 75
    summary = summarise(analysis)
    storage = storage_section(analysis)
    assert summary.workload == lines and summary.storage == storage_lines(storage, analysis)
    assert summary.workload_brief == workload_brief(build_workload(analysis), storage)
    assert summary.storage_brief == "storage 1.42 GB/s read a GPU · checkpoint 4.9 s"


def test_the_storage_a_gpu_and_the_checkpoint_worked_by_hand() -> None:
    """training-128 (docs/storage.md): the two ESS 3500 read 182 GB/s, 182 / 128 = 1.42 GB/s
    a GPU; "best" asks 125 GB/s of an SU of 256 GPUs, 125 / 256 = 488 MB/s a GPU; no write
    rate is given (the fabric's 200 GB/s is no verdict). The checkpoint, 14 B x 70e9 = 980 GB,
    at the fabric's 200 GB/s: 4.9 s, every 100 steps / 0.05 steps/s = 2,000 s = 33.3 min.
    The phrase under a short summary keeps the fit and the checkpoint, under 75 characters.

    The unit fabric of tests/analysis/test_storage.py (16 GPUs, level "better", appliances
    of 80 GB/s read and 40 GB/s write in all): 80 / 16 = 5 GB/s read, 40 / 16 = 2.5 GB/s
    write a GPU against 40 / 256 = 156 MB/s and 20 / 256 = 78.1 MB/s; the checkpoint, 980 GB
    at the appliances' 40 GB/s, 24.5 s: longer than an interval of 10 s, an error."""
    from tests.analysis.test_storage import FABRIC, LINKS, _analysis, _links

    analysis = _training_128()
    assert storage_lines(storage_section(analysis), analysis) == [
        ("Storage", "1.42 GB/s read a GPU, write not given (level best: 488 MB/s)", ""),
        ("", "checkpoint 980 GB written in 4.9 s, every 33.3 min", ""),
    ]
    brief = workload_brief(build_workload(analysis), storage_section(analysis))
    assert brief == "workload fits (8.75 GB of 80 GB a GPU; ≥ 16 GPUs) · checkpoint 4.9 s"
    unit = _analysis(FABRIC.replace('"60 s"', '"10 s"') + _links(LINKS))
    assert storage_lines(storage_section(unit), unit) == [
        ("Storage", "5 GB/s read, 2.5 GB/s write a GPU (level better: 156 MB/s, 78.1 MB/s)", ""),
        ("", "checkpoint 980 GB written in 24.5 s, every 10 s", "error"),
    ]


def test_a_model_that_does_not_fit_and_ddp() -> None:
    """405.85e9 × 16 B on one DGX H100 without sharding (DDP): 6,494 GB a GPU of 80 GB;
    no count of GPUs holds it unsharded, ZeRO-3 would on 88 (811.7 GB / 80 GB = 10.1 → 11
    nodes). The sync in bf16, DDP's all-reduce: 2 × 405.85e9 × 2 B × 7/8 = 1.42 TB a GPU a
    step; DDP keeps no shard, so the line names none; one node: nothing crosses the
    fabric."""
    layout = load_text(
        'format = 1\nname = "t"\n[workload]\nkind = "training"\nmodel = "llama-3.1-405b"\n'
        'parallelism = "ddp"\nbytes_per_param = 2\n[[racks]]\nid = "a"\n'
        '[[racks.devices]]\nid = "n"\nmodel = "dgx-h100"\nposition = 1\n'
    )
    analysis = Analysis(layout)
    section = build_workload(analysis)
    lines = workload_lines(section, analysis)
    memory = next(line for line in lines if line[0] == "Memory")
    assert memory[1].endswith("no ZeRO sharding: does not fit") and memory[2] == "error"
    smallest = next(line for line in lines if line[0] == "Smallest")
    assert smallest == ("Smallest", "with ZeRO-3 it fits on 88 GPUs", "error")
    sync = next(line for line in lines if line[0] == "Sync")
    assert sync == ("Sync", "1.42 TB a GPU a step (DDP, ZeRO-1/2)", "")
    assert lines[-1] == ("", "one node: the collectives stay on NVLink", "m")
    assert workload_brief(section).startswith("workload does not fit (6.49 TB of 80 GB a GPU)")


def test_a_workload_without_a_model_size_says_so() -> None:
    """gb200-nvl72-su declares training and no model: nothing to fit, and the line says
    which key would give it one."""
    layout = load_text('format = 1\nname = "t"\n[workload]\nkind = "training"\n')
    analysis = Analysis(layout)
    assert build_workload(analysis) is None
    ((label, text, level),) = workload_lines(None, analysis)
    assert label == "Workload" and level == "m"
    assert text.startswith("training; no model size (model_params, or a named model")
    assert workload_lines(None, Analysis(load_text('format = 1\nname = "t"\n'))) == []
