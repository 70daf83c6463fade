"""The field guide's clustering decision flow, as ``rackdesigner new``'s defaults.

"Model size < 10B params → 4-GPU nodes; 10B-100B → 8-GPU nodes; 100B+ → 8-GPU nodes with
liquid cooling." The two sizes are the rules' own thresholds (``eight_gpu_model_params_min``
for CMP004, ``liquid_model_params_min`` for COOL005, at their defaults), so a layout ``new``
writes is what those rules ask for. The flow only fills what the command line leaves
open: ``--node``, ``--gpus-per-node`` and ``--cooling`` always win, and a template's node
is a choice too. Where the catalog has no node of the size for the GPU (no 4-GPU B200
node), or none with cold plates, it says so and keeps what there is.
"""

from __future__ import annotations

from dataclasses import dataclass

from rackdesigner.layout_io.catalog import Catalog
from rackdesigner.model.thresholds import THRESHOLDS
from rackdesigner.model.units import fmt_count

EIGHT_GPU_MIN = THRESHOLDS["eight_gpu_model_params_min"].default
LIQUID_MIN = THRESHOLDS["liquid_model_params_min"].default


@dataclass(frozen=True, slots=True)
class FlowChoice:
    gpus_per_node: int | None  # None: leave the node size to the other defaults
    cooling: str | None  # "liquid", or None: the other defaults
    note: str  # what was chosen and why, for the command's output and the file's header


def guide_flow(
    params: float, gpu: str, catalog: Catalog, cooling: str | None, gpus_per_node: int | None
) -> FlowChoice:
    """The node size and cooling the guide's flow gives a ``params``-parameter model on
    ``gpu``, for what the command line left open (``cooling``, ``gpus_per_node`` None)."""
    size = fmt_count(params)
    wanted = 4 if params < EIGHT_GPU_MIN else 8
    why = (
        f"below {fmt_count(EIGHT_GPU_MIN)}: 4-GPU nodes"
        if wanted == 4
        else f"from {fmt_count(EIGHT_GPU_MIN)}: 8-GPU nodes"
        if params < LIQUID_MIN
        else f"from {fmt_count(LIQUID_MIN)}: 8-GPU nodes with liquid cooling"
    )
    nodes = [d for d in catalog.devices.values() if d.kind == "gpu-node" and d.gpu == gpu]
    chosen = gpus_per_node
    notes = [f"the guide's decision flow for a {size}-parameter model: {why}"]
    if chosen is None:
        if any(d.gpus == wanted for d in nodes):
            chosen = wanted
        else:
            notes.append(f"no {wanted}-GPU {gpu} node in the catalog, so 8-GPU nodes")
            chosen = None
    elif chosen != wanted:
        notes.append(f"--gpus-per-node {chosen} kept")
    liquid = None
    if params >= LIQUID_MIN:
        plated = [d for d in nodes if (d.liquid_fraction or 0) > 0 and d.gpus == (chosen or 8)]
        if cooling is not None:
            if cooling != "liquid":
                notes.append(f"--cooling {cooling} kept (COOL005 will say why liquid)")
        elif plated:
            liquid = "liquid"
        else:
            notes.append(
                f"no {gpu} node with cold plates in the catalog, so air-cooled nodes "
                "(COOL005 will say why liquid)"
            )
    return FlowChoice(chosen, liquid, "; ".join(notes))
