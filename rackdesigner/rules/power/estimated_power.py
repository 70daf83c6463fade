"""A GPU node type declares no power: its draw is estimated from its GPUs' TDP.

Why it matters:
    Without a declared maximum draw the node's power is estimated as
    GPU TDP × GPUs × (1 + `host_overhead`), host overhead 0.8 by default: the field
    guide's 8-10 kW per 8-GPU node, and a DGX H100 is 10.2 kW for 5.6 kW of GPUs. The
    estimate is used in every rack, feed, cooling and site total, and every finding
    built on it says "(estimated)".

Example:
    [catalog.g493-sb0]
    gpu = "rtx-a6000"    # no power: 8 × 300 W × 1.8 = 4.32 kW estimated

Fix:
    Set `power` to the vendor's maximum draw for the configuration you buy.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import POWER, fmt
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule


@rule("PWR006", "info", scope="device", thresholds=("host_overhead",))
def power_estimated(analysis: Analysis) -> Iterator[Finding]:
    overhead = analysis.thresholds["host_overhead"]
    for key, devices in analysis.types_used.items():
        dev = devices[0]
        if not dev.power_estimated or dev.power is None or dev.gpu is None or not dev.gpu.tdp:
            continue
        gpu_power = dev.gpu.tdp * dev.gpus
        entity, subject = analysis.type_site(key)
        yield Finding(
            entity,
            subject,
            f"{key} declares no power: its draw is estimated at "
            f"{fmt(dev.power, POWER)} per node = {dev.gpus} × {dev.gpu.key} TDP "
            f"{fmt(dev.gpu.tdp, POWER)} × (1 + {overhead:g} host overhead), used for "
            f"{plural(len(devices), 'device')}",
            hint=f"set power in [catalog.{key}] to the vendor's maximum draw",
            values={
                "power": dev.power,
                "gpu_power": gpu_power,
                "host_overhead": overhead,
                "devices": float(len(devices)),
            },
        )
