"""A GPU node type declares no power: its draw is estimated from its GPUs' TDP.

Why it matters:
    Without a declared maximum draw the node's power is estimated as
    GPU TDP × GPUs × (1 + host overhead): `host_overhead` (0.8) by default, the field
    guide's 8-10 kW per 8-GPU node (a DGX H100 is 10.2 kW for 5.6 kW of GPUs), and
    `host_overhead_pcie` (0.4) for a PCIe-slot chassis (`form_factor = "pcie"`), which
    has no NVSwitch baseboard and fewer NICs. The estimate never exceeds what the
    PSUs deliver while redundant, `psus_required` × `psu_rating`: above it the
    estimate is capped and the rule warns, since the GPUs at full TDP would need more
    than the chassis' PSUs give. The estimate is used in every rack, feed, cooling and
    site total, and every finding built on it says "(estimated)".

Example:
    [catalog.g493-sb0]
    gpu = "rtx-a6000"    # no power: 8 × 300 W × 1.4 = 3.36 kW estimated

Fix:
    Set `power` to the vendor's maximum draw for the configuration you buy; where the
    GPUs need more than the PSUs give, choose GPUs the chassis is built for or a
    chassis with larger PSUs.
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.analysis.devices import host_overhead, psu_capacity
from rackdesigner.model.units import POWER, fmt, fmt_apart
from rackdesigner.model.wording import plural
from rackdesigner.rules.base import Finding, rule


@rule(
    "PWR006",
    "info",
    scope="device",
    thresholds=("host_overhead", "host_overhead_pcie"),
    severities=("info", "warning"),
)
def power_estimated(analysis: Analysis) -> Iterator[Finding]:
    for key, devices in analysis.types_used.items():
        dev = devices[0]
        if not dev.power_estimated or dev.power is None or dev.gpu is None or not dev.gpu.tdp:
            continue
        if dev.type is None:
            continue
        overhead = host_overhead(dev.type, analysis.thresholds)
        pcie = dev.type.form_factor == "pcie"
        overhead_text = (
            f"{overhead:g} host overhead of a PCIe chassis, host_overhead_pcie"
            if pcie
            else f"{overhead:g} host overhead"
        )
        gpu_power = dev.gpu.tdp * dev.gpus
        demand = dev.power_demand if dev.power_demand is not None else dev.power
        entity, subject = analysis.type_site(key)
        values = {
            "power": dev.power,
            "gpu_power": gpu_power,
            "host_overhead": overhead,
            "devices": float(len(devices)),
        }
        formula = (
            f"{dev.gpus} × {dev.gpu.key} TDP {fmt(dev.gpu.tdp, POWER)} × (1 + {overhead_text})"
        )
        cap = psu_capacity(dev.type)
        if cap is not None and demand > dev.power:
            psus = dev.type.psus_required or dev.type.psus
            rating = float(dev.type.psu_rating or 0.0)
            demand_text, cap_text = fmt_apart(demand, cap, POWER)
            yield Finding(
                entity,
                subject,
                f"{key} declares no power: its GPUs need {demand_text} per node = {formula}, "
                f"more than the {cap_text} its PSUs deliver while redundant ({psus} × "
                f"{fmt(rating, POWER)}, psus_required × psu_rating); the estimate is capped "
                f"at {cap_text} for {plural(len(devices), 'device')}, "
                f"{fmt(demand - cap, POWER)} short",
                hint=f"use GPUs the chassis is built for, a chassis with larger PSUs, or set "
                f"power in [catalog.{key}] to the vendor's maximum draw",
                values={**values, "demand": demand, "psu_capacity": cap, "excess": demand - cap},
                severity="warning",
            )
            continue
        yield Finding(
            entity,
            subject,
            f"{key} declares no power: its draw is estimated at "
            f"{fmt(dev.power, POWER)} per node = {formula}, used for "
            f"{plural(len(devices), 'device')}",
            hint=f"set power in [catalog.{key}] to the vendor's maximum draw",
            values=values,
        )
