"""A device moved to another rack: the id it takes there, when its id says the old rack.

Ids like ``a01-n04`` carry their rack's id as a prefix (the templates, ``new`` and the
designer's next free ids make them so); moved to ``a02`` such a device would keep telling
the technician the wrong rack, on the elevations and on every cable schedule line. The
designer offers this id with the move, in the same undo step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rackdesigner.edit.index import LayoutIndex


def moved_id(device_id: str, old_rack: str, new_rack: str, index: LayoutIndex) -> str | None:
    """``a01-n04`` moved from a01 to a02: ``a02-n04``, or when a02 has one, its next free
    ``a02-n`` id (``a02-n05``: the lowest unused number, designer.md). None when the id
    does not start with the old rack's id and a dash, or the racks are the same."""
    prefix = f"{old_rack}-"
    if old_rack == new_rack or not device_id.startswith(prefix) or device_id == prefix:
        return None
    rest = device_id[len(prefix) :]
    wanted = f"{new_rack}-{rest}"
    if not index.has_id("device", wanted):
        return wanted
    return index.next_id(f"{new_rack}-{rest.rstrip('0123456789')}", "device")
