"""What the placement rules share: the devices that take units and the faces they take
(what a rack weighs is :mod:`rackdesigner.analysis.weight`'s: the summary and the
drawings print it too)."""

from __future__ import annotations

from collections.abc import Iterator

from rackdesigner.analysis import DeviceFacts, RackFacts


def mounted_devices(rack: RackFacts) -> Iterator[DeviceFacts]:
    """Devices that occupy units and have a position."""
    for dev in rack.devices:
        if dev.mounted and dev.device.position is not None:
            yield dev


def faces(dev: DeviceFacts) -> tuple[str, ...]:
    if dev.type is not None and dev.type.full_depth:
        return ("front", "rear")
    return (dev.device.face or "front",)
