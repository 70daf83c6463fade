"""What the cooling rules share: the hints toward liquid or a rear door, whether a node has
cold plates, and how a rack's ``cdu`` or ``door`` reference is judged.
"""

from __future__ import annotations

from rackdesigner.analysis import CduLoad, DeviceFacts, RackFacts
from rackdesigner.model.wording import first_of

# (v1.4) The rack fields the liquid-loop rules read (they read every device field too: a
# device edit re-runs them whatever it sets).
LOOP_READS = ("rack.cooling", "rack.cdu", "rack.door", "rack.inrow")

LIQUID_HINT = 'use direct-to-chip liquid (cooling = "liquid" with a CDU)'
DOOR_HINT = 'use a rear-door heat exchanger (cooling = "rear-door" with a door)'


def cold_plates(dev: DeviceFacts) -> bool:
    """The device's type declares cold plates (v1.1: ``liquid_fraction`` > 0)."""
    return dev.type is not None and (dev.type.liquid_fraction or 0.0) > 0


def cooling_hint(rack: RackFacts) -> str:
    """Direct-to-chip liquid only where the rack's GPU nodes have cold plates (v1.1); an
    air-only chassis (DGX, air HGX) can take a rear door instead."""
    nodes = [d for d in rack.devices if d.is_gpu_node]
    if nodes and all(cold_plates(d) for d in nodes):
        return LIQUID_HINT
    if nodes and any(cold_plates(d) for d in nodes):
        return f"{LIQUID_HINT} for the nodes with cold plates, {DOOR_HINT} for the rest"
    return DOOR_HINT


def reference_problem(
    key: str, name: str, device: DeviceFacts | None, kind: str, what: str
) -> str | None:
    """Why a rack's ``key = "name"`` does not name a device of ``kind``, or None."""
    if device is None:
        return f'{key} = "{name}" names no device in the layout'
    if device.type is not None and device.kind != kind:
        return (
            f'{key} = "{name}" names a {device.kind} ({device.device.model}), not {what} '
            f'(kind = "{kind}")'
        )
    return None


def cdu_names(load: CduLoad) -> str:
    return first_of([c.id for c in load.cdus], 4)


def loop_words(ids: list[str]) -> str:
    """Loop ids as a message names them: "loop fws-1", "loops fws-1, fws-2"."""
    return ("loop " if len(ids) == 1 else "loops ") + ", ".join(ids)


def rack_list(racks: list[RackFacts], most: int = 5) -> str:
    return first_of([r.rack.id for r in racks], most)
