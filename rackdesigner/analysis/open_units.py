"""A rack's open front units: the units no device covers on the front face, where hot
exhaust flows back to the cold aisle unless a blanking panel closes them (PLC006; the
print pack's device tables say where a rack's panels go)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rackdesigner.analysis.facts import DeviceFacts, RackFacts
from rackdesigner.model.wording import first_of


def mounted_devices(rack: RackFacts) -> Iterator[DeviceFacts]:
    """Devices that occupy units and have a position."""
    for dev in rack.devices:
        if dev.mounted and dev.device.position is not None:
            yield dev


def faces(dev: DeviceFacts) -> tuple[str, ...]:
    """The faces a device takes: both for a full-depth one, else its own."""
    if dev.type is not None and dev.type.full_depth:
        return ("front", "rear")
    return (dev.device.face or "front",)


def open_units(rack: RackFacts, *, skip_kind: str | None = None) -> list[int]:
    """The rack's units no device covers on the front face, lowest first (a half-depth
    device on the rear face leaves its front units open); ``skip_kind``: devices of that
    kind count as not there (where listed blanking panels sit)."""
    height = int(rack.rack.height_u)
    covered = [False] * (height + 1)
    for dev in mounted_devices(rack):
        if "front" not in faces(dev) or (skip_kind is not None and dev.kind == skip_kind):
            continue
        position = dev.device.position or 0
        for unit in range(position, position + max(1, round(dev.height_u))):
            if 1 <= unit <= height:
                covered[unit] = True
    return [unit for unit in range(1, height + 1) if not covered[unit]]


def spans(units: Iterable[int]) -> list[tuple[int, int]]:
    """Runs of consecutive units: [9, 10, 11, 20] -> [(9, 11), (20, 20)]."""
    out: list[tuple[int, int]] = []
    for unit in sorted(units):
        if out and out[-1][1] == unit - 1:
            out[-1] = (out[-1][0], unit)
        else:
            out.append((unit, unit))
    return out


def span_text(runs: list[tuple[int, int]], dash: str = "-", most: int | None = None) -> str:
    """``U9-U11, U20``; past ``most`` runs, ``and N more``."""
    names = [f"U{a}" if a == b else f"U{a}{dash}U{b}" for a, b in runs]
    return ", ".join(names) if most is None else first_of(names, most)
