"""GPU nodes that train a model of 100B+ parameters are cooled by air (a rear door included).

Why it matters:
    The field guide's decision flow for 100B+ parameter models is 8-GPU nodes with
    liquid cooling: such runs keep every GPU at full power for weeks, and air-cooled
    GPUs throttle under that load. Fine-tuning counts as training. Racks with
    `cooling = "air"` are reported, and so are `cooling = "rear-door"` racks: a rear-door
    heat exchanger cools the rack's exhaust air on its way back to the room, not the
    GPUs, which still take their heat off on the chassis fans' air at the rack's inlet
    temperature ("RDHx is not liquid cooling the server; it is liquid cooling the rack
    exhaust air": Coolnet, Chilled-water RDHx; a passive door even adds the coil's
    pressure drop to the fans' work). COOL007 checks the door's capacity; this rule, the
    chips' cooling. The model size is `model_params`, or the named `model`'s.

Example:
    [workload]
    kind = "training"
    model_params = 175e9

    [[racks]]
    id = "a01"
    cooling = "air"      # holds DGX H100 nodes (or "rear-door" with a door)

Fix:
    Move the GPU nodes to liquid-cooled racks (`cooling = "liquid"` with a CDU) in a
    variant with cold plates (the liquid-cooled HGX H100 servers, sys-421ge-tnhr2-lcc).
"""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import Analysis
from rackdesigner.model.units import fmt_count
from rackdesigner.rules.base import Finding, rule
from rackdesigner.rules.cooling._common import LIQUID_HINT

# The racks whose GPUs take their heat off on air: a rear door cools only the exhaust.
ON_AIR = ("air", "rear-door")


@rule("COOL005", "warning", scope="rack", thresholds=("liquid_model_params_min",))
def large_model_on_air(analysis: Analysis) -> Iterator[Finding]:
    threshold = analysis.thresholds["liquid_model_params_min"]
    workload = analysis.workload
    params = workload.params if workload is not None else None
    if workload is None or not workload.is_training or params is None:
        return
    if params < threshold:
        return
    for rack in analysis.racks:
        if rack.cooling not in ON_AIR or not rack.gpu_nodes:
            continue
        nodes = rack.gpu_nodes
        how = (
            "by air through a rear door (the door cools the exhaust, not the GPUs)"
            if rack.cooling == "rear-door"
            else "by air"
        )
        yield Finding(
            f"rack {rack.rack.id}",
            rack.ref,
            f"{nodes} GPU node{'s' if nodes != 1 else ''} cooled {how} for "
            f"{workload.kind} of a {fmt_count(params)}-parameter model (liquid from "
            f"{fmt_count(threshold)})",
            hint=f"{LIQUID_HINT} for the GPU nodes",
            values={
                "model_params": params,
                "threshold": float(threshold),
                "gpu_nodes": float(nodes),
            },
        )
