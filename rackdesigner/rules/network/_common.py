"""What the network rules share: how they word a ratio and a fabric's size."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rackdesigner.model.wording import plural

if TYPE_CHECKING:  # networkx loads only when a rule asks for analysis.fabrics
    from rackdesigner.analysis.fabric_graph import Fabric


def ratio_text(value: float) -> str:
    """A downlink:uplink ratio as people write it: ``2:1``, ``1.33:1``."""
    return f"{value:.3g}:1"


def nodes_text(fabric: Fabric) -> str:
    return f"{plural(fabric.gpus, 'GPU')} on {plural(len(fabric.nodes), 'node')}"
