"""Compute rules (CMP): whether the GPU nodes suit the workload the layout declares.

Most rules judge a device type once, however many devices use it, and report it
where the type is defined (its ``[catalog.KEY]`` table in the layout, else the
first device of that model). Rules that depend on ``[workload]`` stay silent
without one; ``fine-tuning`` counts as training.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis, DeviceFacts
from rackdesigner.model.layout import DeviceType, Gpu
from rackdesigner.model.refs import WORKLOAD
from rackdesigner.model.units import BYTE_RATE, INFORMATION, fmt, fmt_count
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule

DATA_PARALLEL = (None, "ddp", "fsdp", "zero3")  # unset parallelism counts as data-parallel
EIGHT_GPUS = 8  # the guide's node size for training
FINE_TUNING_MIN_NODE_GPUS = 8  # FAQ: fine-tuning wants one 8-GPU node
# The FAQ's minimum for pre-training a model under 10B parameters: 32 GPUs.
PRETRAINING_SMALL_PARAMS = 10e9
PRETRAINING_SMALL_MIN_GPUS = 32


def _gpu_name(gpu: Gpu) -> str:
    return gpu.name or gpu.key


def _gpu_node_types(analysis: Analysis) -> Iterator[tuple[str, list[DeviceFacts], DeviceType]]:
    """Each GPU-node type the layout uses, with its devices."""
    for key, devices in analysis.types_used.items():
        dtype = devices[0].type
        if dtype is not None and dtype.kind == "gpu-node":
            yield key, devices, dtype


def _training_params(analysis: Analysis) -> float | None:
    workload = analysis.workload
    if workload is None or not workload.is_training or workload.model_params is None:
        return None
    return float(workload.model_params)


@rule("CMP001", "warning", scope="device", thresholds=("gpu_bandwidth_min",))
def gpu_bandwidth(analysis: Analysis) -> Iterator[Finding]:
    """A training node's GPUs have less memory bandwidth than the floor for training.

    Why it matters:
        Training streams weights, activations and optimizer state through GPU memory every
        step; memory bandwidth, more than peak FLOPS, sets how fast a step runs. The field
        guide's advice is "don't buy a GPU with less than 2 TB/s for training": an H100 SXM
        has 3.35 TB/s, an RTX A6000 768 GB/s. Checked per GPU-node model when the workload
        is training or fine-tuning.

    Example:
        [workload]
        kind = "training"
        model_params = 7e9

        [catalog.g493-sb0]
        gpu = "rtx-a6000"    # 768 GB/s

    Fix:
        Use a GPU with at least the floor's bandwidth (H100 SXM 3.35 TB/s, H200 4.8 TB/s,
        B200 7.7 TB/s, MI300X 5.3 TB/s), or lower `gpu_bandwidth_min` for a workload known
        to be compute-bound.
    """
    if not analysis.is_training:
        return
    floor = float(analysis.thresholds["gpu_bandwidth_min"])
    for key, devices, _ in _gpu_node_types(analysis):
        gpu = devices[0].gpu
        if gpu is None or gpu.bandwidth is None or gpu.bandwidth >= floor:
            continue
        entity, subject = analysis.type_site(key)
        yield Finding(
            entity,
            subject,
            f"model {key} ({plural(len(devices), 'node')}) has {_gpu_name(gpu)} GPUs "
            f"with {fmt(float(gpu.bandwidth), BYTE_RATE)} memory bandwidth, below the "
            f"{fmt(floor, BYTE_RATE)} floor for training (gpu_bandwidth_min)",
            hint=f"use a GPU with at least {fmt(floor, BYTE_RATE)} of memory bandwidth "
            "(H100 SXM, H200, B200, MI300X)",
            values={"bandwidth": float(gpu.bandwidth), "floor": floor},
        )


@rule("CMP002", "warning", scope="fabric")
def mixed_generations(analysis: Analysis) -> Iterator[Finding]:
    """One compute fabric joins GPU nodes of different GPU generations.

    Why it matters:
        A job spread over a fabric runs at the pace of its slowest GPU: in every
        synchronous step the newer GPUs wait for the older ones ("mixing generations
        creates stragglers"). Different generations also differ in memory size, numeric
        formats and NCCL features, which makes one job across them harder to tune.

    Example:
        [[racks.devices]]
        id = "a01-n01"
        model = "dgx-h100"   # hopper

        [[racks.devices]]
        id = "a01-n02"
        model = "dgx-b200"   # blackwell, cabled to the same leaf

    Fix:
        Give each generation its own fabric (and job pool), or replace the older nodes.
    """
    for fabric in analysis.fabrics:
        generations = fabric.generations
        if len(generations) < 2:
            continue
        parts = [f"{name} ({plural(len(nodes), 'node')})" for name, nodes in generations.items()]
        values: dict[str, float] = {"generations": float(len(generations))}
        values.update({name: float(len(nodes)) for name, nodes in generations.items()})
        entity, subject = fabric.site()
        yield Finding(
            entity,
            subject,
            f"GPU nodes of {len(generations)} generations share one fabric: " + ", ".join(parts),
            hint="give each GPU generation its own fabric and job pool, or replace the older nodes",
            values=values,
        )


@rule("CMP003", "warning", scope="device", thresholds=("host_cores_min", "host_memory_min"))
def weak_host(analysis: Analysis) -> Iterator[Finding]:
    """A training node has fewer CPU cores or less host RAM than the floor.

    Why it matters:
        The host decodes, augments and stages the training data and checkpoints for every
        GPU in the node; "slow CPUs mean slow data loading", and GPUs that wait for input
        are idle money. The floors (32 cores, 512 GB RAM by default) are per node. Checked
        per GPU-node model when the workload is training or fine-tuning; a figure the
        catalog does not give is not checked.

    Example:
        [workload]
        kind = "training"
        model_params = 7e9

        [catalog.g493-sb0]
        gpu = "h100-pcie"
        cpu_cores = 24
        memory = "256 GB"

    Fix:
        Order the node with more cores and memory (set `cpu_cores` and `memory` in the
        layout's `[catalog.KEY]` to the configuration bought).
    """
    if not analysis.is_training:
        return
    cores_min = float(analysis.thresholds["host_cores_min"])
    memory_min = float(analysis.thresholds["host_memory_min"])
    for key, devices, dtype in _gpu_node_types(analysis):
        parts: list[str] = []
        values: dict[str, float] = {}
        if dtype.cpu_cores is not None and dtype.cpu_cores < cores_min:
            parts.append(f"{dtype.cpu_cores} CPU cores (floor {cores_min:g}, host_cores_min)")
            values.update(cores=float(dtype.cpu_cores), cores_min=cores_min)
        if dtype.memory is not None and dtype.memory < memory_min:
            parts.append(
                f"{fmt(float(dtype.memory), INFORMATION)} RAM (floor "
                f"{fmt(memory_min, INFORMATION)}, host_memory_min)"
            )
            values.update(memory=float(dtype.memory), memory_min=memory_min)
        if not parts:
            continue
        entity, subject = analysis.type_site(key)
        yield Finding(
            entity,
            subject,
            f"model {key} ({plural(len(devices), 'node')}) has "
            + " and ".join(parts)
            + " for training",
            hint=f"use at least {cores_min:g} cores and "
            f"{fmt(memory_min, INFORMATION)} RAM per node so data loading "
            "keeps the GPUs busy",
            values=values,
        )


@rule(
    "CMP004",
    "warning",
    scope="device",
    thresholds=("four_gpu_model_params_max", "eight_gpu_model_params_min"),
)
def small_nodes_for_model(analysis: Analysis) -> Iterator[Finding]:
    """Nodes with too few GPUs for data-parallel training of the declared model size.

    Why it matters:
        Data-parallel training (DDP, FSDP, ZeRO-3) all-reduces or all-gathers the whole
        model every step. Inside a node that traffic rides NVLink; between nodes it crosses
        the much slower fabric. The field guide's clustering decision flow: 4-GPU nodes
        only up to about 30B parameters, and 8-GPU nodes from 10B up, so that each node
        keeps eight GPUs' share of the traffic on NVLink. Checked per GPU-node model when
        the workload is training or fine-tuning with data parallelism (or none declared).

    Example:
        [workload]
        kind = "training"
        model_params = 70e9
        parallelism = "fsdp"

        [catalog.quad-node]
        kind = "gpu-node"
        gpu = "h100-sxm"
        gpus = 4

    Fix:
        Use 8-GPU nodes (DGX/HGX class), or use tensor and pipeline parallelism if the
        smaller nodes must stay.
    """
    params = _training_params(analysis)
    workload = analysis.workload
    if params is None or workload is None or workload.parallelism not in DATA_PARALLEL:
        return
    four_max = float(analysis.thresholds["four_gpu_model_params_max"])
    eight_min = float(analysis.thresholds["eight_gpu_model_params_min"])
    for key, devices, dtype in _gpu_node_types(analysis):
        gpus = dtype.gpus
        if not gpus:
            continue
        if gpus <= 4 and params > four_max:
            why = (
                f"above {fmt_count(four_max)}, the most for nodes of 4 GPUs or fewer "
                "(four_gpu_model_params_max)"
            )
            limit = four_max
        elif gpus < EIGHT_GPUS and params >= eight_min:
            why = (
                f"from {fmt_count(eight_min)} parameters the guide wants 8-GPU nodes "
                "(eight_gpu_model_params_min)"
            )
            limit = eight_min
        else:
            continue
        entity, subject = analysis.type_site(key)
        mode = workload.parallelism or "data-parallel"
        yield Finding(
            entity,
            subject,
            f"model {key} ({plural(len(devices), 'node')}) has {gpus} GPUs per node for "
            f"{mode} training of a {fmt_count(params)}-parameter model: {why}",
            hint="use 8-GPU nodes so each node keeps its share of the gradient traffic on NVLink",
            values={"gpus": float(gpus), "model_params": params, "limit": limit},
        )


@rule("CMP005", "warning", scope="device", thresholds=("gpus_per_node_max",))
def too_many_gpus_per_node(analysis: Analysis) -> Iterator[Finding]:
    """A node type carries more GPUs than the most one node should.

    Why it matters:
        Eight GPUs is the size the GPU vendors' baseboards, NVSwitch domains and rack power
        plans are built around. A 16-GPU node draws over 14 kW on its own, which few racks
        can feed and cool more than once, and one failure (a PSU, a board, a NIC) takes
        sixteen GPUs out of the job at once. Checked per model, whatever the workload.

    Example:
        [catalog.big-node]
        kind = "gpu-node"
        gpu = "h100-pcie"
        gpus = 16

    Fix:
        Use nodes of at most 8 GPUs, or raise `gpus_per_node_max` for a platform built for
        more.
    """
    limit = float(analysis.thresholds["gpus_per_node_max"])
    for key, devices in analysis.types_used.items():
        dtype = devices[0].type
        if dtype is None or dtype.gpus is None or dtype.gpus <= limit:
            continue
        entity, subject = analysis.type_site(key)
        yield Finding(
            entity,
            subject,
            f"model {key} ({plural(len(devices), 'node')}) has {dtype.gpus} GPUs per "
            f"node, more than {limit:g} (gpus_per_node_max)",
            hint=f"use nodes of at most {limit:g} GPUs: smaller power per node and a "
            "smaller blast radius",
            values={"gpus": float(dtype.gpus), "limit": limit},
        )


@rule("CMP006", "warning", scope="device", thresholds=("consumer_gpu_model_params_max",))
def consumer_gpus_for_training(analysis: Analysis) -> Iterator[Finding]:
    """Consumer GPUs train a model larger than they are practical for.

    Why it matters:
        Consumer cards (GeForce) have no datacenter ECC and RAS and no NVLink: memory errors
        go unnoticed over weeks of training, and every collective crosses PCIe. The field
        guide calls them "impractical for training over 7B" parameters. Checked per
        GPU-node model whose GPU is marked `consumer = true`, when the workload is training
        or fine-tuning.

    Example:
        [workload]
        kind = "training"
        model_params = 13e9

        [catalog.g493-sb0]
        gpu = "rtx-4090"

    Fix:
        Use datacenter GPUs (H100, H200, B200, MI300X) for models above 7B parameters, or
        keep consumer cards for smaller models and inference.
    """
    params = _training_params(analysis)
    if params is None:
        return
    limit = float(analysis.thresholds["consumer_gpu_model_params_max"])
    if params <= limit:
        return
    for key, devices, _ in _gpu_node_types(analysis):
        gpu = devices[0].gpu
        if gpu is None or not gpu.consumer:
            continue
        entity, subject = analysis.type_site(key)
        yield Finding(
            entity,
            subject,
            f"model {key} ({plural(len(devices), 'node')}) has consumer GPUs "
            f"({_gpu_name(gpu)}) for training a {fmt_count(params)}-parameter model, "
            f"above {fmt_count(limit)} (consumer_gpu_model_params_max)",
            hint="use datacenter GPUs with ECC and NVLink (H100, H200, B200, MI300X) "
            f"for models above {fmt_count(limit)} parameters",
            values={"model_params": params, "limit": limit},
        )


@rule("CMP007", "info", scope="site", reads=())
def below_workload_minimum(analysis: Analysis) -> Iterator[Finding]:
    """The cluster is smaller than the field guide's minimum for the declared workload.

    Why it matters:
        The guide's rules of thumb: fine-tuning wants at least one 8-GPU node (the model,
        its gradients and optimizer state sharded over NVLink), and pre-training even a
        model under 10B parameters wants about 32 GPUs to finish in weeks rather than
        months. This is advice, not an error: a smaller cluster works, slowly. Silent where
        a device's model or a GPU node's GPU count is not known.

    Example:
        [workload]
        kind = "training"
        model_params = 7e9
        # the layout holds 2 x DGX H100: 16 GPUs

    Fix:
        Add nodes (fine-tuning: an 8-GPU node; pre-training: 32 GPUs or more), or accept
        the longer run time.
    """
    workload = analysis.workload
    if workload is None:
        return
    if any(
        dev.type is None or (dev.type.kind == "gpu-node" and dev.type.gpus is None)
        for dev in analysis.devices
    ):
        return  # an unknown model or GPU count: the counts below would be lower bounds
    nodes = [dev for dev in analysis.devices if dev.is_gpu_node]
    site = ("[workload]", WORKLOAD)
    if workload.kind == "fine-tuning":
        largest = max((dev.gpus for dev in nodes), default=0)
        if largest >= FINE_TUNING_MIN_NODE_GPUS:
            return
        have = (
            f"the largest GPU node has {plural(largest, 'GPU')}"
            if nodes
            else "the layout has no GPU node"
        )
        yield Finding(
            *site,
            f"fine-tuning with no {FINE_TUNING_MIN_NODE_GPUS}-GPU node ({have}); the "
            f"guide's minimum is one {FINE_TUNING_MIN_NODE_GPUS}-GPU node",
            hint="use at least one 8-GPU node (DGX/HGX class) for fine-tuning",
            values={
                "largest_node_gpus": float(largest),
                "minimum": float(FINE_TUNING_MIN_NODE_GPUS),
            },
        )
    elif workload.kind == "training" and workload.model_params is not None:
        params = float(workload.model_params)
        total = analysis.total_gpus
        if params >= PRETRAINING_SMALL_PARAMS or total >= PRETRAINING_SMALL_MIN_GPUS:
            return
        yield Finding(
            *site,
            f"pre-training a {fmt_count(params)}-parameter model on {plural(total, 'GPU')}; the "
            f"guide's minimum for models under {fmt_count(PRETRAINING_SMALL_PARAMS)} "
            f"is {PRETRAINING_SMALL_MIN_GPUS} GPUs",
            hint=f"add GPU nodes to reach {PRETRAINING_SMALL_MIN_GPUS} GPUs, or expect a long run",
            values={
                "gpus": float(total),
                "model_params": params,
                "minimum": float(PRETRAINING_SMALL_MIN_GPUS),
            },
        )


_FORM_FACTOR_NAMES = {"sxm": "SXM", "oam": "OAM", "pcie": "PCIe"}
_FORM_FACTOR_TAKES = {
    "sxm": "an SXM baseboard (HGX/DGX)",
    "oam": "an OAM baseboard",
    "pcie": "PCIe card slots",
}


def form_factor_name(form_factor: str) -> str:
    """``sxm`` as people write it: ``SXM``."""
    return _FORM_FACTOR_NAMES.get(form_factor, form_factor)


def a_form_factor(form_factor: str) -> str:
    """``an SXM``, ``an OAM``, ``a PCIe``: as the letters are said."""
    name = form_factor_name(form_factor)
    return f"{'an' if name[:1] in 'AEFHILMNORSX' else 'a'} {name}"


@rule("CMP008", "error", scope="device")
def form_factor_mismatch(analysis: Analysis) -> Iterator[Finding]:
    """A GPU node's chassis cannot hold its GPUs: their form factors differ.

    Why it matters:
        A GPU comes as a module for a baseboard (NVIDIA SXM on HGX/DGX boards, OAM on AMD
        Instinct and OCP boards) or as a card for a PCIe slot, and a chassis is built for
        one of them. An SXM module does not fit a PCIe slot: a PCIe server "with eight
        B200" cannot be bought, its NVLink figures (NET007) describe a fabric it does not
        have, and its power estimate (PWR006) assumes module TDPs its PSUs were never sized
        for. Checked per GPU-node model where both the chassis' and the GPU's
        `form_factor` are known.

    Example:
        [catalog.as-4125gs-tnrt2]   # form_factor = "pcie": double-width PCIe GPU slots
        gpu = "b200"                # form_factor = "sxm"

    Fix:
        Give the chassis a GPU of its form factor (a PCIe chassis: h100-pcie, rtx-a6000),
        or use a chassis built for the GPU (B200: dgx-b200, sys-422ga-nbrt-lcc). If the
        catalog entry is wrong, set its `form_factor` in `[catalog.KEY]` or `[gpus.KEY]`.
    """
    for key, devices, dtype in _gpu_node_types(analysis):
        gpu = devices[0].gpu
        chassis = dtype.form_factor
        if gpu is None or chassis is None or gpu.form_factor is None:
            continue
        if gpu.form_factor == chassis:
            continue
        entity, subject = analysis.type_site(key)
        yield Finding(
            entity,
            subject,
            f"model {key} ({plural(len(devices), 'node')}) is {a_form_factor(chassis)} chassis "
            f"({_FORM_FACTOR_TAKES.get(chassis, chassis)}) but carries {_gpu_name(gpu)}, "
            f"{a_form_factor(gpu.form_factor)} GPU: it cannot be built",
            hint=f"use a {form_factor_name(chassis)} GPU in this chassis, or a "
            f"{form_factor_name(gpu.form_factor)} chassis for {gpu.key}",
        )
