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

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.wording import a_form_factor, form_factor_name, plural
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.compute._common import FORM_FACTOR_TAKES, gpu_name, gpu_node_types


@rule("CMP008", "error", scope="device")
def form_factor_mismatch(analysis: Analysis) -> Iterator[Finding]:
    for key, devices, dtype in gpu_node_types(analysis):
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
            f"({FORM_FACTOR_TAKES.get(chassis, chassis)}) but carries {gpu_name(gpu)}, "
            f"{a_form_factor(gpu.form_factor)} GPU: it cannot be built",
            hint=f"use a {form_factor_name(chassis)} GPU in this chassis, or a "
            f"{form_factor_name(gpu.form_factor)} chassis for {gpu.key}",
        )
