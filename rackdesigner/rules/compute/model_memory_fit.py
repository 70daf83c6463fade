"""The declared model does not fit in the memory of the GPUs that would run it.

Why it matters:
    A training run that does not fit in GPU memory does not start: it stops with an
    out-of-memory error however fast the fabric is. Mixed-precision Adam keeps 16 bytes a
    parameter (bf16 weights and gradients, an fp32 master copy and two moments: the ZeRO
    paper, Rajbhandari et al. 2020, §3.1), so a 405B-parameter full fine-tune holds 6.5 TB
    of state: 812 GB a GPU on one 8-GPU node even with ZeRO-3. LoRA and QLoRA train small
    adapters on frozen 16-bit or 4-bit weights (QLoRA, Dettmers et al. 2023); inference
    needs the weights at their precision, the KV cache of its context and batch and about
    20 % more (EleutherAI, Transformer Math 101). Training runs on every GPU node of the
    layout; an inference replica on the fewest GPUs that hold it. What the layout leaves
    out is given the most favourable value a run could choose (ZeRO-3 without a
    `parallelism`, LoRA for `fine-tuning` without a `method`, activations with full
    recomputation), and named: the rule fires only when the model cannot fit.
    docs/workload.md works the arithmetic. Silent without `model_params` (or a named
    `model`) or where a GPU node's memory is not known.

Example:
    [workload]
    kind = "fine-tuning"
    model = "llama-3.1-405b"
    method = "full"
    parallelism = "fsdp"
    # one DGX H100: 8 x 80 GB for 16 B x 405.9B = 6.5 TB: 812 GB a GPU

Fix:
    Add GPU nodes (the finding says how many GPUs fit), shard more (`zero_stage = 3`,
    FSDP), use GPUs with more memory, or a lighter method (`lora`, `qlora`) or precision.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.workload_fit import Fit, workload_fit
from rackdesigner.analysis.workload_memory import BITS_PER_BYTE
from rackdesigner.analysis.workload_text import (
    gb,
    job_text,
    notes_text,
    parts_text,
    smallest_text,
    split_text,
)
from rackdesigner.model.refs import WORKLOAD
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule


@rule("CMP009", "error", scope="site", reads=())
def model_does_not_fit(analysis: Analysis) -> Iterator[Finding]:
    fit = workload_fit(analysis)
    if fit is None or fit.fits:
        return
    cluster = fit.cluster
    if fit.gpus_short:
        wanted = max(fit.split.gpus, fit.split.model_parallel)
        what = "a replica" if fit.mode == "inference" else "tensor × pipeline"
        short = f"{what} needs {plural(wanted, 'GPU')} and the layout has {cluster.gpus}"
    else:
        short = f"each {cluster.gpu} GPU holds {gb(cluster.memory)}"
    message = (
        f"{job_text(fit)} needs {gb(fit.need.total)} a GPU on {split_text(fit)} "
        f"({parts_text(fit.need)}) but {short}"
    )
    options = smallest_text(fit)
    if options:
        message += f": {options}"
    message += notes_text(fit)
    yield Finding(
        "[workload]",
        WORKLOAD,
        message,
        hint=_hint(fit),
        values={
            "need": fit.need.total * BITS_PER_BYTE,
            "memory": cluster.memory * BITS_PER_BYTE,
            "gpus": float(fit.split.gpus),
            "smallest": float(fit.smallest or 0),
        },
    )


def _hint(fit: Fit) -> str:
    if fit.mode == "inference":
        return "add GPU nodes, use GPUs with more memory or a lower precision (fp8, int4)"
    steps = ["add GPU nodes"]
    if fit.split.zero_stage < 3:
        steps.append("shard more (zero_stage = 3, FSDP)")
    steps.append("use GPUs with more memory")
    lighter = {"full": 'train adapters (method = "lora" or "qlora")', "lora": 'method = "qlora"'}
    if fit.method in lighter:
        steps.append(lighter[fit.method])
    elif fit.method == "qlora":
        steps.append("a lower lora_rank")
    return ", ".join(steps[:-1]) + " or " + steps[-1]
