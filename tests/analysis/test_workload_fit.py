"""The layout's workload resolved into a memory fit and a gradient sync (workload_fit.py,
gradient_sync.py): the worked examples of docs/workload.md, by hand."""

from __future__ import annotations

import pytest

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.gradient_sync import sync_step
from rackdesigner.analysis.workload_fit import training_run, workload_fit
from rackdesigner.layout_io import load_text
from rackdesigner.model.layout import Workload
from rackdesigner.model.llm_shapes import SHAPES

GB = 1e9


def layout(workload: str, nodes: int = 1, model: str = "dgx-h100", extra: str = "") -> Analysis:
    devices = "".join(
        f'\n[[racks.devices]]\nid = "n{i}"\nmodel = "{model}"\nposition = {1 + 8 * i}\n'
        for i in range(nodes)
    )
    text = (
        f'format = 1\nname = "t"\n\n[workload]\n{workload}\n{extra}\n'
        f'[[racks]]\nid = "a01"\nheight = "{max(42, 8 * nodes + 2)} U"\n{devices}'
    )
    return Analysis(load_text(text))


def test_a_405b_full_fine_tune_on_one_dgx_h100() -> None:
    """Llama 3.1 405B (405,853,388,800 parameters) × 16 B = 6,493.7 GB, with FSDP over one
    node's 8 GPUs: 811.7 GB a GPU (weights 101.5, gradients 101.5, optimizer 608.8) where an
    H100 holds 80 GB. The smallest that fits: 6,493.7 / 80 = 81.2 → 82 → 88 GPUs (11 nodes)."""
    fit = workload_fit(
        layout(
            'kind = "fine-tuning"\nmodel = "llama-3.1-405b"\nmethod = "full"\nparallelism = "fsdp"'
        )
    )
    assert fit is not None and not fit.fits
    assert fit.need.total / GB == pytest.approx(811.71, rel=1e-4)
    assert fit.need.optimizer / GB == pytest.approx(608.78, rel=1e-4)
    assert fit.cluster.memory == 80e9 and fit.cluster.gpus == 8
    assert fit.smallest == 88 and fit.assumed == ()


def test_undeclared_keys_take_the_most_favourable_value_and_say_so() -> None:
    """No parallelism: ZeRO-3, named. Fine-tuning without a method: LoRA on bf16 weights.
    70e9 LoRA over 8 GPUs with ZeRO-3: 140 GB / 8 = 17.5 GB, adapters not counted (no shape)."""
    fit = workload_fit(layout('kind = "fine-tuning"\nmodel_params = 70e9'))
    assert fit is not None and fit.fits
    assert fit.split.zero_stage == 3 and fit.method == "lora"
    assert fit.need.total / GB == pytest.approx(17.5)
    assert "ZeRO-3 (no parallelism declared)" in fit.assumed
    assert any(u.startswith("adapters") for u in fit.uncounted)


def test_ddp_keeps_the_whole_state_and_zero3_is_offered() -> None:
    """13e9 with DDP on 2 x 8 H100: 208 GB a GPU. No count fits without sharding; ZeRO-3 over
    208 / 80 = 2.6 → 3 → 8 GPUs (whole nodes)."""
    fit = workload_fit(layout('kind = "training"\nmodel_params = 13e9\nparallelism = "ddp"', 2))
    assert fit is not None and not fit.fits
    assert fit.need.total / GB == pytest.approx(208.0)
    assert fit.smallest is None and fit.alternative == ("ZeRO-3", 8)


def test_tensor_parallel_defaults_to_a_node() -> None:
    """parallelism = "tensor" without a degree: a node's 8 GPUs. 70e9 × 16 B / 8 = 140 GB."""
    fit = workload_fit(layout('kind = "training"\nmodel_params = 70e9\nparallelism = "tensor"'))
    assert fit is not None and fit.split.tensor == 8
    assert fit.need.total / GB == pytest.approx(140.0)


def test_training_activations_from_the_named_shape() -> None:
    """Llama 3.1 8B (32 layers, width 4,096), 8,192 tokens, 2 sequences, no tensor split:
    8192 × 2 × 4096 × (2 × 32 + 34) = 6.58 GB beside 8.03e9 × 16 B / 8 = 16.06 GB (ZeRO-3)."""
    fit = workload_fit(
        layout(
            'kind = "training"\nmodel = "llama-3.1-8b"\nparallelism = "fsdp"\n'
            "context_length = 8192\nbatch_size = 2"
        )
    )
    assert fit is not None
    assert fit.need.activations / GB == pytest.approx(6.5766, rel=1e-4)
    assert fit.need.total / GB == pytest.approx(16.0605 + 6.5766, rel=1e-4)


def test_declared_activation_memory_wins() -> None:
    """activation_memory = "30 GB" beside 7e9 × 16 B / 8 = 14 GB: 44 GB."""
    fit = workload_fit(
        layout(
            'kind = "training"\nmodel_params = 7e9\nparallelism = "fsdp"\n'
            'activation_memory = "30 GB"'
        )
    )
    assert fit is not None and fit.need.total / GB == pytest.approx(44.0)


def test_inference_sizes_the_smallest_replica() -> None:
    """Llama 3.1 70B in bf16 on DGX H100: 141.1 GB × 1.2 + a KV cache of 2 × 80 × 8 × 128 ×
    8,192 × 16 × 2 B = 42.9 GB: 212.2 GB → 2.65 GPUs of 80 GB → a replica of 4."""
    fit = workload_fit(
        layout(
            'kind = "inference"\nmodel = "llama-3.1-70b"\ncontext_length = 8192\nbatch_size = 16'
        )
    )
    assert fit is not None and fit.fits
    assert fit.split.gpus == 4 and fit.smallest == 4
    assert fit.need.kv_cache * 4 / GB == pytest.approx(42.95, rel=1e-3)


def test_inference_that_no_replica_of_the_cluster_holds() -> None:
    """Llama 3.1 405B in bf16, 8,192 tokens × 32: 811.7 × 1.2 + 135.3 = 1,109.4 GB; one DGX
    H100 holds 640 GB: 13.9 → 16 GPUs, more than the layout's 8."""
    fit = workload_fit(
        layout(
            'kind = "inference"\nmodel = "llama-3.1-405b"\ncontext_length = 8192\nbatch_size = 32'
        )
    )
    assert fit is not None and not fit.fits
    assert fit.smallest == 16 and fit.split.gpus == 8
    assert fit.need.total * 8 / GB == pytest.approx(1109.4, rel=1e-3)


def test_unknown_gpu_memory_is_not_judged() -> None:
    extra = '[catalog.box]\nkind = "gpu-node"\ngpus = 8\nheight = "4 U"\n'
    assert workload_fit(layout('kind = "training"\nmodel_params = 7e9', 1, "box", extra)) is None


@pytest.mark.parametrize(
    ("rank", "gpus", "per_gpu", "fits"),
    [
        (64, 1, 49.651, False),  # the QLoRA paper's rank on one 48 GB GPU
        (16, 1, 39.710, True),
        (64, 2, 24.826, False),  # Answer.AI's FSDP + QLoRA on two 24 GB GPUs
        (32, 2, 21.513, True),
    ],
)
def test_the_guides_70b_in_48_gb(rank: int, gpus: int, per_gpu: float, fits: bool) -> None:
    """ "With QLoRA, FSDP and mixed precision, you can fit a 70B model in 48 GB": NF4 weights
    36.397 GB + rank-r adapters 12,943,360 × r × 16 B (80 layers × 161,792), activations
    left out: r = 64 → 49.65 GB, r = 16 → 39.71 GB, r = 32 → 43.02 GB. On one 48 GB GPU it
    holds up to rank 56; with FSDP on two 24 GB GPUs the halves are 24.83 and 21.51 GB."""
    memory = 48e9 / gpus
    state = training_run(
        Workload(kind="fine-tuning", model="llama-3.1-70b", method="qlora", lora_rank=rank)
    )
    assert state is not None
    share = state.state.total / gpus
    assert share / GB == pytest.approx(per_gpu, rel=1e-3)
    assert (share <= memory) is fits


def test_the_guides_gradient_sync_example() -> None:
    """The guide: 70B on 64 GPUs with ZeRO-3, "each GPU holds about 1.1B parameters; gradient
    sync requires pushing ~4.4 GB per step". 70e9 / 64 = 1.094e9 parameters: at 4 B that is
    4.375 GB, the shard a GPU keeps. What a GPU's collectives move: 3 × 70e9 × 4 B × 63/64 =
    826.9 GB a step (413.4 GB in bf16); across the fabric each of 8 nodes sends 3 × 70e9 ×
    4 × 7/8 = 735 GB, 91.9 GB on each of its 8 ports."""
    workload = Workload(kind="training", model_params=70e9, parallelism="zero3", bytes_per_param=4)
    step = sync_step(workload, 64, 8)
    assert step is not None and step.factor == 3.0
    assert step.shard_params == pytest.approx(1.09375e9)
    assert step.shard_bytes / GB == pytest.approx(4.375)
    assert step.per_gpu / GB == pytest.approx(826.875)
    assert step.per_node / GB == pytest.approx(735.0)
    bf16 = sync_step(
        Workload(kind="training", model_params=70e9, parallelism="zero3", precision="bf16"), 64, 8
    )
    assert bf16 is not None and bf16.per_gpu / GB == pytest.approx(413.4375)


def test_sync_follows_the_zero_stage() -> None:
    """FSDP's SHARD_GRAD_OP is ZeRO-2: k = 2 (2 × 7e9 × 2 B × 1/2 = 14 GB on 2 GPUs); DDP and
    ZeRO-1 too; tensor parallelism is not a gradient sync the layout describes."""
    fsdp2 = Workload(
        kind="training", model_params=7e9, parallelism="fsdp", zero_stage=2, bytes_per_param=2
    )
    step = sync_step(fsdp2, 2, 1)
    assert step is not None and step.factor == 2.0 and step.per_gpu / GB == pytest.approx(14.0)
    tensor = Workload(kind="training", model_params=7e9, parallelism="tensor", bytes_per_param=2)
    assert sync_step(tensor, 2, 1) is None


def test_lora_syncs_its_adapters_and_gathers_its_frozen_weights() -> None:
    """QLoRA on Llama 3.1 70B, rank 64, FSDP over 16 GPUs in 2 nodes: adapter gradients
    2 × 828.4e6 × 2 B = 3.31 GB plus the NF4 weights all-gathered twice, 2 × 36.40 GB =
    72.79 GB: 76.11 GB, × 15/16 = 71.35 GB a GPU."""
    workload = Workload(
        kind="fine-tuning",
        model="llama-3.1-70b",
        method="qlora",
        parallelism="fsdp",
        precision="nf4",
    )
    run = training_run(workload)
    step = sync_step(workload, 16, 2, run)
    assert step is not None and step.params == SHAPES["llama-3.1-70b"].lora_params(64)
    assert step.volume / GB == pytest.approx(76.108, rel=1e-3)
    assert step.per_gpu / GB == pytest.approx(71.35, rel=1e-3)


def test_a_split_wider_than_the_layout_does_not_fit() -> None:
    """tensor_parallel = 16 on one 8-GPU node: 7e9 × 16 B / 16 = 7 GB a GPU would fit, but
    16 GPUs are not there; the smallest count with the degree kept is 16."""
    fit = workload_fit(
        layout(
            'kind = "training"\nmodel_params = 7e9\nparallelism = "tensor"\ntensor_parallel = 16'
        )
    )
    assert fit is not None and fit.gpus_short and not fit.fits
    assert fit.need.total / GB == pytest.approx(7.0) and fit.smallest == 16
