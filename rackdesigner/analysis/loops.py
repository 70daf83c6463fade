"""(v1.4) The layout's water loops by id, and the loop each device hangs on: what the
liquid analysis, the cooling rules and the exports read of ``[[cooling.loops]]``
(docs/liquid-cooling.md). Apart from :mod:`.liquid` so that the analysis can keep them
(``Analysis.loops``) without importing it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rackdesigner.model.layout import CoolingLoop, Layout

if TYPE_CHECKING:
    from rackdesigner.analysis.facts import DeviceFacts


@dataclass(frozen=True, slots=True)
class Loops:
    """The layout's loops by id, and the loop each CDU, door and in-row cooler hangs on (the
    loop whose ``devices`` lists it; the first, where two do: E001 at load)."""

    by_id: dict[str, CoolingLoop]
    by_device: dict[str, CoolingLoop]

    def __bool__(self) -> bool:
        return bool(self.by_id)

    def of(self, dev: DeviceFacts) -> CoolingLoop | None:
        return self.by_device.get(dev.id)

    def id_of(self, dev: DeviceFacts) -> str | None:
        loop = self.by_device.get(dev.id)
        return loop.id if loop is not None else None


def loops_by_id(layout: Layout) -> Loops:
    """The layout's loops (:class:`Loops`)."""
    by_id: dict[str, CoolingLoop] = {}
    by_device: dict[str, CoolingLoop] = {}
    for loop in layout.cooling_loops:
        by_id.setdefault(loop.id, loop)
        for name in loop.devices or ():
            by_device.setdefault(name, loop)
    return Loops(by_id, by_device)
