"""A device type declares less power than its GPUs' TDP alone.

Why it matters:
    A node's maximum draw is its GPUs' TDP plus CPUs, memory, NICs and fans: eight
    H100 SXM at 700 W are 5.6 kW before the host, and a DGX H100 is rated 10.2 kW.
    A declared power below the GPUs' sum is a typo or a per-PSU figure, and every rack
    total, feed and cooling check built on it is too low.

Example:
    [catalog.my-h100-node]
    kind = "gpu-node"
    gpu = "h100-sxm"
    gpus = 8
    power = "5 kW"       # 8 × 700 W = 5.6 kW

Fix:
    Set `power` to the vendor's maximum system draw, or leave it out to have it
    estimated from the GPUs' TDP (PWR006).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import POWER, fmt
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule


@rule("PWR005", "error", scope="device")
def power_below_gpu_tdp(analysis: Analysis) -> Iterator[Finding]:
    for key, devices in analysis.types_used.items():
        dev = devices[0]
        dtype = dev.type
        gpu = dev.gpu
        if dtype is None or dtype.power is None or gpu is None or not gpu.tdp or not dev.gpus:
            continue
        gpu_power = gpu.tdp * dev.gpus
        power = float(dtype.power)
        if power >= gpu_power:
            continue
        entity, subject = analysis.type_site(key)
        yield Finding(
            entity,
            subject,
            f"{key} declares power {fmt(power, POWER)}, below its GPUs' TDP alone: "
            f"{dev.gpus} × {gpu.key} at {fmt(gpu.tdp, POWER)} = "
            f"{fmt(gpu_power, POWER)} (used by {plural(len(devices), 'device')})",
            hint="set power to the vendor's maximum system draw, or remove it to "
            "estimate it from the GPU TDP",
            values={"power": power, "gpu_power": gpu_power},
        )
