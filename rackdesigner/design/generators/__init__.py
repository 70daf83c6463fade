"""Fabric generators: pure functions from a layout and a request to a :class:`FabricPlan`.

``generate(layout, request)`` runs the generator the request names (``rail``,
``leaf-spine``, ``dragonfly``, ``direct``; fabrics.md); :func:`.apply.apply_plan` adds the
plan to the layout; :func:`.apply.to_batch` makes it one undoable edit.
"""

from __future__ import annotations

from collections.abc import Callable

from rackdesigner.design.generators import direct, dragonfly, leaf_spine, rail
from rackdesigner.design.generators.base import FABRICS, FabricPlan, FabricRequest, GenerateError
from rackdesigner.model.layout import Layout

Generator = Callable[..., FabricPlan]

GENERATORS: dict[str, Generator] = {
    "rail": rail.generate,
    "leaf-spine": leaf_spine.generate,
    "dragonfly": dragonfly.generate,
    "direct": direct.generate,
}


def generate(layout: Layout, request: FabricRequest) -> FabricPlan:
    """The plan for ``request`` on ``layout`` (unchanged); :class:`GenerateError` says why not."""
    request.check()
    return GENERATORS[request.fabric](layout, request)


__all__ = ["FABRICS", "GENERATORS", "FabricPlan", "FabricRequest", "GenerateError", "generate"]
